"""What every Star Trek rule shares (ST-07, ST-17, ST-19, ST-21): refusing a ship that lacks the
equipment, a ship gone to warp taking no further action, a ship whose data has no sheet, and the
owner-only record of a secret choice.

The seed (001): a ship at warp "should be handled as per Shadows phasing" out of combat (ST-17);
"any ship with an intact cloaking device may elect to cloak" (ST-21).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import (
    RAIDER,
    act,
    advance,
    advance_to,
    battle,
    definition,
    player,
    set_value,
)

ME = player("excelsior")


def test_ST_17_a_ship_without_a_warp_drive_is_refused_on_the_ship() -> None:
    """ST-17: only a warp-drive ship declares warp; the plain B5 Raider has none."""
    with pytest.raises(RuleError) as err:
        act(battle(RAIDER), "startrek.declare_warp", {"ship": "raider"})
    assert (err.value.field, err.value.message) == ("ship", "Raider has no warp drive")


def test_ST_17_a_ship_gone_to_warp_takes_no_further_action() -> None:
    """ST-17: having gone to warp at the end of turn 1, the Excelsior has left the battle: in turn 2's
    movement its thrust is refused."""
    state, _ = act(battle("excelsior"), "startrek.declare_warp", {"ship": "excelsior"}, ME)
    state = advance_to(state, "adjust_systems")
    state, _ = advance(state)
    state = advance_to(state, "movement", turn=2)
    with pytest.raises(RuleError) as err:
        act(state, "startrek.thrust", {"ship": "excelsior", "manoeuvre": "accel"}, ME)
    assert err.value.message == "Excelsior has gone to warp and left the battle"


def test_ST_19_a_warp_ship_with_no_sheet_has_no_working_nacelle() -> None:
    """ST-19: nacelles are sheet systems; a ship whose data gives a warp drive but no sheet has none
    working and cannot go to warp."""
    probe: dict[str, Any] = {
        "name": "Probe",
        "klass": "Test probe",
        "system": "b5wars",
        "parts": {"warp": {"delay": 1}},
    }
    with pytest.raises(RuleError) as err:
        act(battle(probe), "startrek.declare_warp", {"ship": "probe"})
    assert err.value.message == "Probe has 0 working nacelles and needs 1 to go to warp (ST-19)"


def test_ST_21_a_cloak_with_no_device_on_the_sheet_has_none_to_lose() -> None:
    """ST-21: the data gives this Bird of Prey a cloak but its sheet no cloaking device (and the data
    names none): there are no device boxes to destroy, so it cloaks as an intact device would."""
    data = definition("klingon-bird-of-prey")
    data["parts"]["cloak"].pop("device")
    primary = data["parts"]["sheet"]["sections"][1]
    primary["systems"] = [s for s in primary["systems"] if s["kind"] != "cloaking_device"]
    state = advance_to(battle(data), "adjust_systems")
    state, events = act(state, "startrek.cloak", {"ship": "kor-vaq"}, player("kor-vaq"))
    assert events[0].kind == "cloak"


def test_ST_07_a_secret_purchase_is_the_ships_record_with_its_figures() -> None:
    """ST-07: bought regeneration is the commander's secret: the record is the Excelsior's, read by its
    owner, with the figures (Fore 10 → 13 for 3 power)."""
    state = set_value(battle("excelsior"), "ships.excelsior.parts.shields.projections.0.current", 10)
    state, events = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 3},
        ME,
    )
    assert (events[0].ship, events[0].visibility, events[0].data) == (
        "excelsior",
        "owner",
        {"projection": "Fore", "before": 10, "after": 13, "power": 3, "commander": "p-excelsior"},
    )
