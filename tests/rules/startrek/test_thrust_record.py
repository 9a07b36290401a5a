"""What a thrust records, word for word (ST-01, ST-03): thrust adding up within a turn, the words
for a repeated manoeuvre and for one that is not a turn, the over-thrust note from the first point
past the free thrust, and thrusters lost by a referee's override found as the ship thrusts or as the
next turn opens.

Every number is the library Excelsior's: free thrust 12, accel/decel 3, pivot 6, roll 4; "all thrust
costs are DOUBLED" once every impulse thruster is lost (ST-03): decel 3 → 6.
"""

from __future__ import annotations

from typing import Any

from app.rules.startrek.impulse import Impulse
from tests.rules.startrek.helpers import act, advance, advance_to, battle, of_kind, player, set_value

ME = player("excelsior")
THRUSTERS = "ships.excelsior.parts.sheet.sections.4.systems"


def thrust(state: Any, manoeuvre: str, times: int = 1) -> tuple[Any, list[Any]]:
    payload = {"ship": "excelsior", "manoeuvre": manoeuvre, "times": times}
    return act(state, "startrek.thrust", payload, ME)


def without_thrusters(state: Any) -> Any:
    """Both impulse thrusters (6 boxes each) destroyed by the referee, with no damage entry."""
    state = set_value(state, f"{THRUSTERS}.0.damage", 6)
    return set_value(state, f"{THRUSTERS}.1.damage", 6)


def test_ST_01_thrust_adds_up_within_the_turn_and_is_filed_under_the_ship() -> None:
    """In turn 2 (the turn's opening reset the thrust used): accel 3, then accel ×2 = 6 more: 9."""
    state = advance_to(battle("excelsior"), "movement", turn=2)
    state, (first,) = thrust(state, "accel")
    assert (first.kind, first.ship, first.visibility, first.hidden_text) == (
        "thrust",
        "excelsior",
        "public",
        None,
    )
    assert first.text == "Excelsior spends 3 thrust to accel: 3 of 12 free thrust used."
    state, (second,) = thrust(state, "accel", times=2)
    assert second.text == "Excelsior spends 6 thrust to accel ×2: 9 of 12 free thrust used."


def test_ST_01_over_thrust_is_noted_from_the_first_point_past_the_free_thrust() -> None:
    """Pivot 6 + roll 4 = 10, then accel 3 = 13: 1 past the free 12."""
    state = advance_to(battle("excelsior"), "movement")
    state, _ = thrust(state, "pivot")
    state, _ = thrust(state, "roll")
    state, (event,) = thrust(state, "accel")
    assert event.text == (
        "Excelsior spends 3 thrust to accel: 13 of 12 free thrust used. 1 is bought over-thrust: a critical "
        "check is due as for standard thrusters (B5 Wars; the referee enters it, ST-01)."
    )
    assert event.data == {"cost": 3, "each": 3, "used": 13, "over": 1}


def test_ST_01_exactly_the_free_thrust_needs_no_over_thrust() -> None:
    """Pivot 6 twice: 12 of 12, nothing bought."""
    state = advance_to(battle("excelsior"), "movement")
    state, _ = thrust(state, "pivot")
    state, (event,) = thrust(state, "pivot")
    assert event.text == "Excelsior spends 6 thrust to pivot: 12 of 12 free thrust used."


def test_ST_03_thrusters_lost_by_override_are_found_as_the_ship_thrusts() -> None:
    state = without_thrusters(advance_to(battle("excelsior"), "movement"))
    state, (lost, spent) = thrust(state, "decel")
    assert (lost.kind, lost.ship) == ("impulse_lost", "excelsior")
    assert spent.data["each"] == 6
    assert Impulse.model_validate(state.ships["excelsior"].parts["impulse"]).lost_turn == 1


def test_ST_03_thrusters_lost_by_override_are_found_as_the_next_turn_opens() -> None:
    state = without_thrusters(advance_to(battle("excelsior"), "adjust_systems"))
    while state.clock.turn == 1:
        state, events = advance(state)
    (lost,) = of_kind(events, "impulse_lost")
    assert lost.text == (
        "Excelsior has lost every impulse thruster: all thrust costs double and initiative is −10 for the rest "
        "of the scenario (ST-03)."
    )
    assert Impulse.model_validate(state.ships["excelsior"].parts["impulse"]).lost_turn == 2
