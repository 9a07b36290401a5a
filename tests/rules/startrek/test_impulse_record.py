"""Impulse drive costs and records beyond the seed's one example (ST-01, ST-03, ST-04): decelerating
costs what accelerating does, a turn costs the ship's listed multiple of its speed, the loss of every
thruster is dated and filed under the ship, and an impulse thruster is never a called-shot target
whatever its data says.

Every number is the seed's or the library's: "the accel/decel cost of the Excelsior would be 3
thrust; to do so now requires 6" (ST-03); the Bird of Prey turns at ½ × speed.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from app.rules.startrek.impulse import Impulse
from tests.rules.startrek.helpers import act, advance_to, battle, definition, hit, of_kind, player


def thrust(state: Any, ship: str, manoeuvre: str, speed: int = 0) -> tuple[Any, list[Any]]:
    payload = {"ship": ship, "manoeuvre": manoeuvre, "speed": speed}
    return act(state, "startrek.thrust", payload, player(ship))


def lose_thrusters(state: Any) -> tuple[Any, list[Any]]:
    state, events = hit(
        state, "excelsior", 60, direction="aft", section="Aft", system="Port Impulse Thruster"
    )
    state, more = hit(state, "excelsior", 6, section="Aft", system="Starboard Impulse Thruster")
    return state, events + more


def test_ST_03_decelerating_costs_3_and_6_once_every_thruster_is_lost() -> None:
    """ST-03: the Excelsior's "accel/decel cost" is 3, doubled to 6 with no impulse thruster left;
    the loss is filed under the ship with the turn it happened in."""
    state = advance_to(battle("excelsior"), "movement")
    state, events = thrust(state, "excelsior", "decel")
    assert events[-1].data["each"] == 3
    state, events = lose_thrusters(state)
    (lost,) = of_kind(events, "impulse_lost")
    assert lost.ship == "excelsior"
    part = Impulse.model_validate(state.ships["excelsior"].parts["impulse"])
    assert (part.all_thrusters_lost, part.lost_turn) == (True, 1)
    state, events = thrust(state, "excelsior", "decel")
    assert events[-1].data["each"] == 6


def test_ST_01_a_turn_costs_the_listed_multiple_of_speed_rounded_up() -> None:
    """ST-01 with the ship data: the Bird of Prey turns at ½ × speed: at speed 5, 2.5 → 3 thrust."""
    state = advance_to(battle("klingon-bird-of-prey"), "movement")
    state, events = thrust(state, "kor-vaq", "turn", speed=5)
    assert events[-1].data["each"] == 3
    assert events[-1].text.startswith("Kor'vaq spends 3 thrust to turn at speed 5:")


def test_ST_04_an_impulse_thruster_is_no_called_shot_target_even_if_its_data_allows_it() -> None:
    """ST-04: "Impulse thrusters are not applicable targets for called shots": a thruster whose data
    leaves out the `called_shot: false` mark is still refused."""
    data = definition("excelsior")
    for section in data["parts"]["sheet"]["sections"]:
        for system in section["systems"]:
            system.pop("called_shot", None)
    state = battle(data)
    with pytest.raises(RuleError) as err:
        hit(state, "excelsior", 10, direction="aft", system="Port Impulse Thruster", effects=["called_shot"])
    assert (err.value.field, err.value.message) == (
        "system",
        "Port Impulse Thruster cannot be the target of a called shot (ST-04)",
    )
