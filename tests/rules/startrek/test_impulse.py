"""Impulse drives: ST-01 … ST-04."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.startrek.impulse import Impulse
from tests.rules.startrek.helpers import act, advance_to, battle, hit, of_kind, player, set_value

ME = player("excelsior")


def thrust(state, manoeuvre: str, speed: int = 0, times: int = 1):
    return act(
        state,
        "startrek.thrust",
        {"ship": "excelsior", "manoeuvre": manoeuvre, "speed": speed, "times": times},
        ME,
    )


def impulse(state) -> Impulse:
    return Impulse.model_validate(state.ships["excelsior"].parts["impulse"])


def lose_thrusters(state):
    state, events = hit(
        state, "excelsior", 60, direction="aft", section="Aft", system="Port Impulse Thruster"
    )
    state, more = hit(state, "excelsior", 6, section="Aft", system="Starboard Impulse Thruster")
    return state, events + more


def test_ST_03_excelsior_accel_3_becomes_6_and_turn_at_speed_6_becomes_12():
    state = battle("excelsior")
    state = advance_to(state, "movement")
    state, events = thrust(state, "accel")
    assert events[0].data["cost"] == 3
    state, events = thrust(state, "turn", speed=6)
    assert events[0].data["cost"] == 6
    state, events = lose_thrusters(state)
    lost = of_kind(events, "impulse_lost")
    assert [e.text for e in lost] == [
        "Excelsior has lost every impulse thruster: all thrust costs double and initiative is −10 for the rest "
        "of the scenario (ST-03)."
    ]
    state, events = thrust(state, "accel")
    assert events[0].data["cost"] == 6
    state, events = thrust(state, "turn", speed=6)
    assert events[0].data["cost"] == 12
    assert events[0].text == (
        "Excelsior spends 12 thrust to turn at speed 6 (doubled: no impulse thrusters, ST-03): 27 of 12 free "
        "thrust used. 12 is bought over-thrust: a critical check is due as for standard thrusters (B5 Wars; the "
        "referee enters it, ST-01)."
    )
    assert impulse(state).effective_initiative == 2 - 10


def test_ST_03_the_loss_is_sticky_for_the_rest_of_the_scenario():
    state = battle("excelsior")
    state, _ = lose_thrusters(state)
    state = set_value(state, "ships.excelsior.parts.sheet.sections.4.systems.0.damage", 0)
    state = advance_to(state, "movement", turn=2)
    assert impulse(state).all_thrusters_lost is True
    state, events = thrust(state, "accel")
    assert events[0].data["cost"] == 6


def test_ST_03_one_thruster_left_keeps_normal_costs():
    state = battle("excelsior")
    state, events = hit(
        state, "excelsior", 60, direction="aft", section="Aft", system="Port Impulse Thruster"
    )
    assert not of_kind(events, "impulse_lost")
    state = advance_to(state, "movement")
    state, events = thrust(state, "accel")
    assert events[0].data["cost"] == 3


def test_ST_01_free_thrust_goes_to_any_manoeuvre_and_beyond_is_overthrust():
    state = battle("excelsior")
    state = advance_to(state, "movement")
    state, events = thrust(state, "pivot")
    state, events = thrust(state, "accel", times=2)
    assert events[0].data == {"cost": 6, "each": 3, "used": 12, "over": 0}
    state, events = thrust(state, "roll")
    assert events[0].data["over"] == 4
    assert "4 is bought over-thrust: a critical check is due" in events[0].text
    state = advance_to(state, "movement", turn=2)
    state, events = thrust(state, "accel")
    assert events[0].data["used"] == 3


def test_ST_02_impulse_ships_count_as_gravitic():
    state = battle("excelsior")
    assert impulse(state).gravitic is True


def test_ST_04_impulse_thrusters_are_not_called_shot_targets():
    state = battle("excelsior")
    with pytest.raises(RuleError) as err:
        hit(state, "excelsior", 10, direction="aft", system="Port Impulse Thruster", effects=["called_shot"])
    assert err.value.message == "Port Impulse Thruster cannot be the target of a called shot (ST-04)"
    assert err.value.field == "system"
    state, events = hit(
        state, "excelsior", 10, direction="aft", system="Aft Phaser Array", effects=["called_shot"]
    )
    assert events[0].data["absorbed"] == 10
