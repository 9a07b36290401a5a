"""What the cloak rules record beyond their first sentences (ST-21 … ST-24): what other players read
of a cloak, why a cloaked ship's shields absorb nothing, the default cloaking device, the detection
suggestion at its edge, and collateral that finds no cloaked ship.

ST-23's suggestion is the catalogue's Decision (detected when EW > range + signature); the Bird of
Prey is the library's, with its Cloaking Device (4 boxes) in its Primary section.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import new_battle
from app.rules.core import RuleError
from app.rules.views import Viewer, battle_view
from tests.rules.startrek.helpers import (
    RAIDER,
    act,
    add,
    advance_to,
    definition,
    hit,
    of_kind,
    player,
    set_value,
)

BOP = player("kor-vaq")
ENEMY = player("excelsior")


def others() -> Viewer:
    return Viewer("p-excelsior", "player", frozenset({"excelsior"}))


def cloaked(data: dict[str, Any] | None = None, bop_at: dict[str, Any] | None = None) -> Any:
    """Excelsior (0101) and a Bird of Prey (0505 unless told); the bird cloaks at the end of turn 1."""
    state = new_battle("b5wars")
    state = add(state, definition("excelsior"), {"hex": "0101", "facing": 1})
    state = add(state, data or definition("klingon-bird-of-prey"), bop_at or {"hex": "0505", "facing": 3})
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    return state


def public_cloak(state: Any) -> dict[str, Any]:
    return battle_view(state, others())["ships"]["kor-vaq"]["parts"]["cloak"]


def detect(state: Any, ew: int, rng: int | None = None) -> tuple[Any, list[Any]]:
    payload: dict[str, Any] = {"detector": "excelsior", "target": "kor-vaq", "ew": ew}
    if rng is not None:
        payload["range"] = rng
    return act(state, "startrek.detect_cloak", payload, ENEMY)


def test_ST_21a_ST_23_others_read_whether_the_cloak_is_up_found_and_what_its_data_allows() -> None:
    """ST-23: once the referee rules Kor'vaq detected, other players read it as cloaked and detected,
    where it was found, and that its data keeps the seed's conditions (no fire, no shields, ST-21a)."""
    state = advance_to(cloaked(), "combat", turn=2)
    state, _ = detect(state, 8, 4)
    state, _ = act(state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True})
    assert public_cloak(state) == {
        "cloaked": True,
        "detected": True,
        "revealed": False,
        "may_fire": False,
        "keeps_shields": False,
        "last_known": {"hex": "0505", "facing": 3},
    }


def test_ST_21a_ST_24_others_read_a_reveal_and_the_ships_own_cloak_conditions() -> None:
    """ST-21a: this bird's data lets it fire and keep its shields while cloaked, which others may read;
    ST-24: flash collateral reveals it."""
    data = definition("klingon-bird-of-prey")
    data["parts"]["cloak"].update({"may_fire": True, "keeps_shields": True})
    state = add(cloaked(data), RAIDER)
    state = advance_to(state, "combat", turn=2)
    state, events = hit(state, "kor-vaq", 6, source="raider", effects=["flash"])
    assert of_kind(events, "cloak_revealed")[0].ship == "kor-vaq"
    state, events = hit(state, "kor-vaq", 6, source="raider", effects=["flash"])
    assert of_kind(events, "cloak_revealed") == []  # already revealed this turn: no second reveal
    shown = public_cloak(state)
    assert (
        shown["cloaked"],
        shown["detected"],
        shown["revealed"],
        shown["may_fire"],
        shown["keeps_shields"],
    ) == (True, False, True, True, True)


def test_ST_21_ST_23a_ST_22_the_log_says_why_the_shields_absorb_nothing() -> None:
    """ST-21: cloaked, shields are down; ST-23a: a detected cloaked ship's shields count as down;
    ST-22: shields return the turn after decloaking, not the turn of it."""
    state = add(cloaked(), RAIDER)
    state = advance_to(state, "combat", turn=2)
    state, events = hit(state, "kor-vaq", 6, source="raider", effects=["flash"])
    assert (
        of_kind(events, "shields_down")[0].text == "Kor'vaq's shields absorb nothing: it is cloaked (ST-21)."
    )
    state = advance_to(state, "combat", turn=3)
    state, _ = detect(state, 8, 4)
    state, _ = act(state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True})
    state, events = hit(state, "kor-vaq", 5, source="excelsior")
    assert of_kind(events, "shields_down")[0].text == (
        "Kor'vaq's shields absorb nothing: it is a detected cloaked ship (ST-23a)."
    )
    state = advance_to(state, "adjust_systems", turn=3)
    state, _ = act(state, "startrek.decloak", {"ship": "kor-vaq"}, BOP)
    state, events = hit(state, "kor-vaq", 5, source="excelsior")
    assert of_kind(events, "shields_down")[0].text == (
        "Kor'vaq's shields absorb nothing: it decloaked this turn; shields return next turn (ST-22)."
    )


def test_ST_21_without_a_named_device_the_sheets_cloaking_device_must_be_intact() -> None:
    """ST-21: "any ship with an intact cloaking device may elect to cloak": with no device named in
    its data, the sheet's cloaking device counts, and once destroyed (4 of 4 boxes) the ship cannot."""
    data = definition("klingon-bird-of-prey")
    data["parts"]["cloak"].pop("device")
    state = new_battle("b5wars")
    state = add(state, data, {"hex": "0505", "facing": 3})
    state = advance_to(state, "adjust_systems")
    broken = set_value(state, "ships.kor-vaq.parts.sheet.sections.1.systems.2.damage", 4)
    with pytest.raises(RuleError) as err:
        act(broken, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    assert err.value.message == "Kor'vaq's cloaking device is destroyed"
    state, events = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    assert events[0].kind == "cloak"


def test_ST_23_equal_ew_and_range_plus_signature_is_not_detected() -> None:
    """ST-23 Decision: detected when EW > range + signature; both ships stand on the map 6 hexes
    apart, so the map's range counts: EW 9 against range 6 + signature 3 is not detected."""
    state = advance_to(cloaked(), "combat", turn=2)
    state, _ = act(state, "startrek.set_signature", {"ship": "kor-vaq", "signature": 3})
    state, events = detect(state, 9, 4)
    assert events[1].text == (
        "For the referee — attempt 0 by Excelsior: suggested: EW 9 vs range 6 from the map "
        "(the detector gave 4) + signature 3 → not detected (ST-23)."
    )


def test_ST_23_a_detector_off_the_map_must_enter_the_range() -> None:
    """ST-23: the map measures from the detector's hex; a detector with none must enter the range."""
    state = add(cloaked(), RAIDER)  # the Raider joins with no position
    state = advance_to(state, "combat", turn=2)
    payload = {"detector": "raider", "target": "kor-vaq", "ew": 8}
    with pytest.raises(RuleError) as err:
        act(state, "startrek.detect_cloak", payload)
    assert (err.value.field, err.value.message) == (
        "range",
        "range: Raider has no hex on the map; enter the range",
    )


def test_ST_22_a_ship_decloaking_with_no_recorded_position_says_so() -> None:
    """ST-22: at decloak the current position becomes public; with none recorded, the log says so."""
    state = new_battle("b5wars")
    state = add(state, definition("klingon-bird-of-prey"))
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    state = advance_to(state, "adjust_systems", turn=2)
    state, events = act(state, "startrek.decloak", {"ship": "kor-vaq"}, BOP)
    assert events[0].text == (
        "Kor'vaq decloaks at an unrecorded position; its weapons and shields return next turn (ST-22)."
    )


def test_ST_24_flash_collateral_reveals_only_a_cloaked_ship() -> None:
    """ST-24: collateral reveals "cloaked ships"; on a ship with no cloak, or a cloak not up, a flash
    reveals nothing."""
    state = new_battle("b5wars")
    state = add(state, definition("excelsior"), {"hex": "0101", "facing": 1})
    state = add(state, definition("klingon-bird-of-prey"), {"hex": "0505", "facing": 3})
    state = add(state, RAIDER)
    state = advance_to(state, "combat")
    state, events = hit(state, "kor-vaq", 6, source="raider", effects=["flash"])
    assert of_kind(events, "cloak_revealed") == []
    state, events = hit(state, "excelsior", 6, source="raider", direction="fore", effects=["flash"])
    assert of_kind(events, "cloak_revealed") == []
