"""Arc extensions and switching systems (ST-14) — the refusals not met elsewhere."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import RAIDER, act, battle, player, set_value

ME = player("excelsior")


def refused(state, kind, payload, actor=ME) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message


def test_ST_14_a_ship_without_shields_extends_no_arc():
    state = battle(RAIDER)
    payload = {"ship": "raider", "deflector": "Fore Deflector", "projection": "Port"}
    assert refused(state, "startrek.extend_arc", payload, player("raider")) == "Raider has no shields"


def test_ST_14_a_switched_off_deflector_is_not_extended():
    state, _ = act(
        battle("excelsior"), "startrek.switch_system", {"ship": "excelsior", "system": "Fore Deflector"}, ME
    )
    payload = {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Port"}
    assert refused(state, "startrek.extend_arc", payload) == "Fore Deflector is switched off"


def test_ST_14_only_an_extended_arc_is_retracted():
    payload = {"ship": "excelsior", "deflector": "Fore Deflector"}
    assert (
        refused(battle("excelsior"), "startrek.retract_arc", payload) == "Fore Deflector has no arc extension"
    )


def test_ST_14_a_ship_without_shields_or_power_budget_has_nothing_to_switch():
    payload = {"ship": "raider", "system": "Sensors"}
    assert refused(battle(RAIDER), "startrek.switch_system", payload, player("raider")) == (
        "Raider has no shields or power systems to switch"
    )


def test_ST_14_switching_a_deflector_or_consumer_to_the_state_it_is_in_is_refused():
    state = battle("excelsior")
    state, _ = act(state, "startrek.switch_system", {"ship": "excelsior", "system": "Fore Deflector"}, ME)
    assert refused(state, "startrek.switch_system", {"ship": "excelsior", "system": "fore deflector"}) == (
        "Fore Deflector is already off"
    )
    assert refused(
        state, "startrek.switch_system", {"ship": "excelsior", "system": "Sensors", "on": True}
    ) == ("Sensors is already on")


def test_ST_14_switching_a_consumer_back_on_needs_the_power_for_it():
    """Excelsior: output 30; phasers 8 + torpedo 2 + deflectors 4 × 2 = 18 with Sensors (4) off.
    At output 20 only 2 are left, and Sensors need 4."""
    state, _ = act(
        battle("excelsior"), "startrek.switch_system", {"ship": "excelsior", "system": "Sensors"}, ME
    )
    state = set_value(state, "ships.excelsior.parts.power.output", 20)
    assert refused(
        state, "startrek.switch_system", {"ship": "excelsior", "system": "Sensors", "on": True}
    ) == ("switching Sensors on needs 2 more power than is left")
