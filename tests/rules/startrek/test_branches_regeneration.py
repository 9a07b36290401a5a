"""Shield regeneration clauses (ST-07, ST-11, ST-12, ST-15) not met elsewhere."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import (
    RAIDER,
    act,
    advance_to,
    battle,
    of_kind,
    player,
    set_value,
    shields,
    values,
)

ME = player("excelsior")
GENERATOR_DAMAGE = "ships.excelsior.parts.sheet.sections.2.systems.0.damage"


def switch(state, system: str, on: bool = False):
    return act(state, "startrek.switch_system", {"ship": "excelsior", "system": system, "on": on}, ME)


def refused(state, kind, payload, actor=ME) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message


def test_ST_07_a_ship_without_shields_buys_no_regeneration():
    payload = {"ship": "raider", "deflector": "Fore Deflector", "points": 2}
    assert (
        refused(battle(RAIDER), "startrek.buy_regeneration", payload, player("raider"))
        == "Raider has no shields"
    )


def test_ST_07_a_switched_off_deflector_sells_no_regeneration():
    state, _ = switch(battle("excelsior"), "Fore Deflector")
    payload = {"ship": "excelsior", "deflector": "Fore Deflector", "points": 2}
    assert refused(state, "startrek.buy_regeneration", payload) == (
        "Fore Deflector is not working (off, destroyed, or no generator)"
    )


def test_ST_11_with_the_generator_destroyed_no_deflector_regenerates():
    state = set_value(battle("excelsior"), GENERATOR_DAMAGE, 6)
    state = advance_to(state, "adjust_systems")
    events = []
    while state.clock.step != "ship_power":
        state, more = act(state, "clock.advance", {})
        events += more
    assert [e.text for e in of_kind(events, "shield_regeneration")] == [
        "Excelsior has no shield generator: no regeneration."
    ]


def test_ST_07_with_every_deflector_switched_off_nothing_is_said_about_regeneration():
    state = battle("excelsior")
    for side in ("Fore", "Starboard", "Aft", "Port"):
        state, _ = switch(state, f"{side} Deflector")
    state = advance_to(state, "adjust_systems")
    events = []
    while state.clock.step != "ship_power":
        state, more = act(state, "clock.advance", {})
        events += more
    assert of_kind(events, "shield_regeneration") == []


def test_ST_15_ST_12_free_points_taken_back_from_a_collapsed_projection_leave_it_collapsed():
    """Port collapses with its deflector off (ST-12) and starts again from 0 (ST-15). Switched back on,
    the Port Deflector gives its 3 free points; switched off again, they are taken back and Port,
    with no deflector in arc, is down again."""
    state, _ = switch(battle("excelsior"), "Port Deflector")
    state = advance_to(state, "ship_power", turn=2)
    assert values(state, "excelsior")["Port"] == 0
    state, events = switch(state, "Port Deflector", on=True)
    assert values(state, "excelsior")["Port"] == 3
    state, events = switch(state, "Port Deflector")
    assert values(state, "excelsior")["Port"] == 0
    port = next(p for p in shields(state, "excelsior").projections if p.name == "Port")
    assert port.collapsed is True
