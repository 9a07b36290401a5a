"""The table's clock as the log keeps it (GEN-01): durations and the clock in the log's words, the
chosen clock read back from the battle's options, a pause, and a seat's time running out — marked
done with no orders, or the referee asked — refused once the step no longer waits on that seat."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import new_battle
from app.rules.core import Actor, Event, RuleError
from app.rules.generic.timing import ClockSettings, describe, paused, seat_actor, settings_of, span
from app.rules.state import BattleState
from tests.rules.generic.support import act, refused, ship

HOUR = 3600
DAY = 24 * HOUR


def table(**clock: Any) -> BattleState:
    """A B5 Wars battle in Ship Power of turn 1: Ann commands the Hawk and the Kite, Bob the Crow."""
    state = new_battle("b5wars")
    for name, owner in (("Hawk", "ann"), ("Crow", "bob"), ("Kite", "ann")):
        state, _ = act(state, "ship.add", {"definition": ship(name), "owner": owner})
    if clock:
        state, _ = act(state, "clock.set", clock)
    return state


def texts(events: list[Event]) -> list[str]:
    return [e.text for e in events]


# --- the log's words ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (DAY, "24 h"),
        (HOUR, "1 h"),
        (HOUR + 60, "1 h 1 min"),
        (5400, "1 h 30 min"),
        (HOUR - 1, "59 min 59 s"),
        (2700, "45 min"),
        (90, "1 min 30 s"),
        (60, "1 min"),
        (59, "59 s"),
        (20, "20 s"),
        (0, "0 s"),
        (59.6, "1 min"),  # rounded to the second first
        (3599.5, "1 h"),
    ],
)
def test_GEN_01_a_duration_in_the_tables_words(seconds: float, words: str) -> None:
    assert span(seconds) == words


@pytest.mark.parametrize(
    ("settings", "sentence"),
    [
        (
            {"mode": "deadline"},
            "24 h per step, a reminder 1 h before; when time runs out the seat is marked done",
        ),
        (
            {"mode": "deadline", "step_seconds": 2 * HOUR, "reminder_seconds": 0, "on_timeout": "ask"},
            "2 h per step; when time runs out the referee is asked",
        ),
        (
            {"mode": "chess", "bank_seconds": 1800, "increment_seconds": 20},
            "a chess clock: 30 min each + 20 s a step; when time runs out the seat is marked done",
        ),
        (
            {"mode": "chess", "on_timeout": "ask"},
            "a chess clock: 30 min each; when time runs out the referee is asked",
        ),
        ({"mode": "none"}, "no clock"),
    ],
)
def test_GEN_01_the_clock_in_one_sentence(settings: dict[str, Any], sentence: str) -> None:
    assert describe(ClockSettings.model_validate(settings)) == sentence


def test_GEN_01_the_referee_sets_the_clock_and_the_log_says_which() -> None:
    state, events = act(table(), "clock.set", {"mode": "chess", "bank_seconds": 600, "increment_seconds": 5})
    assert texts(events) == [
        "The referee sets the clock: a chess clock: 10 min each + 5 s a step; when time runs out the seat is marked done."
    ]
    assert settings_of(state) == ClockSettings(mode="chess", bank_seconds=600, increment_seconds=5)


# --- the clock read back ------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [None, {}, {"mode": "none"}, {"step_seconds": 600}])
def test_GEN_01_a_battle_without_a_chosen_clock_has_none(raw: dict[str, Any] | None) -> None:
    state = new_battle("b5wars", {} if raw is None else {"clock": raw})
    assert settings_of(state) is None


def test_GEN_01_a_chosen_clock_is_read_with_its_defaults() -> None:
    state = new_battle("b5wars", {"clock": {"mode": "deadline", "step_seconds": 2 * HOUR}})
    assert settings_of(state) == ClockSettings(
        mode="deadline", step_seconds=7200, reminder_seconds=3600, bank_seconds=1800, on_timeout="done"
    )


def test_GEN_01_pausing_and_resuming_once_each() -> None:
    state = table(mode="deadline")
    assert paused(state) is False
    state, events = act(state, "battle.pause", {})
    assert (paused(state), texts(events)) == (True, ["The referee pauses the battle; every clock stops."])
    assert refused(state, "battle.pause", {})[1:] == ("action_type", "the battle is already paused")
    state, events = act(state, "battle.resume", {})
    assert (paused(state), texts(events)) == (
        False,
        ["The referee resumes the battle; the clocks run again."],
    )
    assert "paused" not in state.options
    assert refused(state, "battle.resume", {})[1:] == ("action_type", "the battle is not paused")


def test_GEN_01_a_seat_is_a_player_commanding_the_ships_it_owns() -> None:
    state = table()
    assert seat_actor(state, "ann") == Actor("ann", "player", frozenset({"hawk", "kite"}))
    assert seat_actor(state, "bob") == Actor("bob", "player", frozenset({"crow"}))
    assert seat_actor(state, "cy") == Actor("cy", "player", frozenset())


# --- a seat's time runs out ---------------------------------------------------------------------------


def test_GEN_01_time_out_marks_the_seat_done_with_no_orders_and_the_step_ends_with_the_last() -> None:
    state = table(mode="deadline")
    state, events = act(state, "step.ready", {}, Actor("ann", "player", frozenset({"hawk", "kite"})))
    state, events = act(
        state, "clock.timeout", {"participant": "bob", "name": "Bob", "began": 4, "step": "T1 Power"}
    )
    assert texts(events) == [
        "Time ran out for Bob in Ship Power: marked done with no orders.",
        "Done with Ship Power.",
        "Everyone is done with Ship Power.",
        "Turn 1 · Ship Power ends; Turn 1 · Movement begins.",
    ]
    assert events[0].kind == "timeout"
    assert events[0].data == {"participant": "bob", "began": 4}
    assert events[1].data == {"participant": "bob"}
    assert state.clock.step == "movement"


def test_GEN_01_time_out_of_a_seat_with_others_pending_marks_only_it() -> None:
    state, events = act(table(mode="chess"), "clock.timeout", {"participant": "ann", "began": 0})
    assert texts(events) == [
        "Time ran out for a seat in Ship Power: marked done with no orders.",
        "Done with Ship Power.",
    ]
    assert (state.ready, state.clock.step) == (["ann"], "ship_power")


def test_GEN_01_time_out_asks_the_referee_when_the_clock_says_so() -> None:
    state = table(mode="deadline", on_timeout="ask")
    after, events = act(state, "clock.timeout", {"participant": "bob", "name": "Bob", "began": 4})
    assert [(e.kind, e.text, e.data) for e in events] == [
        (
            "timeout",
            "Time ran out for Bob in Ship Power; the referee is asked what to do.",
            {"participant": "bob", "began": 4, "asked": True},
        )
    ]
    assert (after.ready, after.clock.step) == ([], "ship_power")


def test_GEN_01_time_out_is_refused_without_a_clock_while_paused_or_once_the_wait_is_over() -> None:
    payload = {"participant": "bob", "began": 4}
    assert refused(table(), "clock.timeout", payload)[1:] == ("participant", "this battle has no clock")
    state = table(mode="deadline")
    paused_state, _ = act(state, "battle.pause", {})
    assert refused(paused_state, "clock.timeout", payload)[1:] == (
        "participant",
        "the battle is paused: no clock runs",
    )
    moved = (RuleError, "participant", "the step no longer waits on that seat")
    assert refused(state, "clock.timeout", payload | {"step": "T1 Move"}) == moved
    assert refused(state, "clock.timeout", payload | {"participant": "cy"}) == moved
    done, _ = act(state, "step.ready", {}, Actor("bob", "player", frozenset({"crow"})))
    assert refused(done, "clock.timeout", payload) == moved
    # the step as the log stamps it: still this step, so the time-out stands
    _, events = act(state, "clock.timeout", payload | {"step": "T1 Power"})
    assert events[0].kind == "timeout"
