"""Ramming (ST-09), impulse thrust (ST-01, ST-04), and equipment a ship lacks: clauses not met elsewhere."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.startrek.common import sheet_system, system_destroyed
from tests.rules.startrek.helpers import RAIDER, act, advance_to, battle, definition, hit, player, set_value

ME = player("excelsior")
GENERATOR_DAMAGE = "ships.excelsior.parts.sheet.sections.2.systems.0.damage"


def ram(state, ship: str, factor: int, direction: str | None = None):
    payload = {"ship": ship, "factor": factor, **({"direction": direction} if direction else {})}
    return act(state, "startrek.ramming_factor", payload, player(ship))


def test_ST_09_a_ship_without_shields_rams_with_its_own_factor():
    state = advance_to(battle(RAIDER), "movement")
    state, events = ram(state, "raider", 12)
    assert events[0].text == "Raider's ramming factor is 12 (no shields)."
    assert events[0].data == {"factor": 12}


def test_ST_09_ST_11_shields_that_are_down_add_nothing_to_ramming():
    state = set_value(battle("excelsior"), GENERATOR_DAMAGE, 6)
    state = advance_to(state, "movement", turn=2)
    state, events = ram(state, "excelsior", 100, "fore")
    assert events[0].text == (
        "Excelsior's ramming factor is 100: its shields add nothing (its shield generator is gone (ST-11))."
    )
    assert events[0].data == {"factor": 100}


def test_ST_01_a_ship_without_impulse_drives_spends_no_impulse_thrust():
    state = advance_to(battle(RAIDER), "movement")
    payload = {"ship": "raider", "manoeuvre": "turn"}
    with pytest.raises(RuleError) as err:
        act(state, "startrek.thrust", payload, player("raider"))
    assert err.value.message == "Raider has no impulse drive"


def test_ST_17_a_ship_without_a_warp_drive_declares_no_warp():
    with pytest.raises(RuleError) as err:
        act(battle(RAIDER), "startrek.declare_warp", {"ship": "raider"}, player("raider"))
    assert err.value.message == "Raider has no warp drive"


def test_ST_11_a_ship_whose_data_names_no_generator_keeps_its_shields():
    """ST-11 drops the shields when the generator fails; data naming none has none to fail."""
    data = definition("excelsior")
    del data["parts"]["shields"]["generator"]
    state = set_value(battle(data, RAIDER), GENERATOR_DAMAGE, 6)
    state = advance_to(state, "combat")
    state, events = hit(state, "excelsior", 10, source="raider", direction="fore")
    assert events[0].data["absorbed"] == 10


GHOST = {
    "name": "Ghost",
    "klass": "test",
    "system": "b5wars",
    "parts": {"warp": {"delay": 2, "nacelles": ["Nacelle"]}},
}


def test_ST_04_a_called_shot_at_a_ship_without_a_sheet_has_no_system_to_refuse_and_no_sheet_to_land_on():
    state = advance_to(battle(RAIDER, GHOST), "combat")
    with pytest.raises(RuleError) as err:
        hit(state, "ghost", 5, source="raider", system="Bridge", effects=["called_shot"])
    assert err.value.message == "Ghost has no damage sheet"


def test_ST_18_a_system_the_sheet_does_not_have_is_neither_found_nor_destroyed():
    """The sheet lookups every Star Trek rule reads (nacelles, generator, deflectors, launchers): no sheet,
    no name, or a name not on the sheet finds nothing and counts as not destroyed."""
    ghost = battle(GHOST).ships["ghost"]
    excelsior = battle("excelsior").ships["excelsior"]
    assert sheet_system(ghost, "Nacelle") is None
    assert sheet_system(excelsior, None) is None
    assert sheet_system(excelsior, "Dorsal Nacelle") is None
    port = sheet_system(excelsior, "port nacelle")
    assert port is not None and (port.name, port.boxes) == ("Port Nacelle", 20)
    assert system_destroyed(ghost, "Nacelle") is False
    assert system_destroyed(excelsior, "Dorsal Nacelle") is False
