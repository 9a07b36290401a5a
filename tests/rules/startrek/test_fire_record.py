"""Who may fire and be fired at (ST-17, ST-21, ST-22, ST-23, ST-24): each refusal names the field a
player must change — the firing ship (`source`) or the ship fired at (`target`) — and says why.

The seed (001): a ship going to warp "may not fire any of its weapons" that turn and then leaves
"as per Shadows phasing" (ST-17); "no weapon may be fired while cloaked" (ST-21); cloaked ships are
found "in the same way as mines are detected" (ST-23), or by flash collateral (ST-24).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import new_battle
from app.rules.core import RuleError
from tests.rules.startrek.helpers import (
    RAIDER,
    act,
    add,
    advance,
    advance_to,
    battle,
    definition,
    hit,
    player,
)


def refused(state: Any, target: str, **entry: Any) -> RuleError:
    with pytest.raises(RuleError) as err:
        hit(state, target, 10, **entry)
    return err.value


def test_ST_17_fire_from_a_ship_going_to_warp_is_refused_on_the_source() -> None:
    """ST-17: in the turn it goes to warp the ship's weapons are offline."""
    state, _ = act(
        battle("excelsior", RAIDER), "startrek.declare_warp", {"ship": "excelsior"}, player("excelsior")
    )
    state = advance_to(state, "combat")
    err = refused(state, "raider", source="excelsior")
    assert (err.field, err.message) == (
        "source",
        "Excelsior is going to warp this turn and may not fire (ST-17)",
    )


def test_ST_17_a_ship_gone_to_warp_cannot_be_fired_at() -> None:
    """ST-17: once it has gone to warp the ship has left the battle: fire at it is refused on the target."""
    state, _ = act(
        battle("excelsior", RAIDER), "startrek.declare_warp", {"ship": "excelsior"}, player("excelsior")
    )
    state = advance_to(state, "adjust_systems")
    state, _ = advance(state)  # the turn ends: it leaves
    state = advance_to(state, "combat")
    err = refused(state, "excelsior", source="raider", direction="fore")
    assert (err.field, err.message) == ("target", "Excelsior has gone to warp and left the battle")


def test_ST_22_ST_23_ST_24_an_undetected_cloaked_ship_is_refused_as_a_target() -> None:
    """ST-22/ST-23/ST-24: a cloaked ship nobody detected cannot be targeted; only flash or shredder
    collateral reaches it. The refusal names the target and says how to find it."""
    state = new_battle("b5wars")
    state = add(state, definition("klingon-bird-of-prey"), {"hex": "0505", "facing": 3})
    state = add(state, RAIDER)
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, player("kor-vaq"))
    state = advance_to(state, "combat", turn=2)
    err = refused(state, "kor-vaq", source="raider")
    assert (err.field, err.message) == (
        "target",
        "Kor'vaq is cloaked and undetected: only flash or shredder collateral reaches it (ST-24); detect it first (ST-23)",
    )
    err = refused(state, "raider", source="kor-vaq")
    assert (err.field, err.message) == ("source", "Kor'vaq is cloaked and may not fire (ST-21)")
