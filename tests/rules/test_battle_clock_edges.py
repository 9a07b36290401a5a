"""The battle's clock as the rules apply it (GEN-01: the turn clock, and the referee's choice of
how long each seat may take over a step): the refusals and the sentence of a clock that is none."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError

from .shadow.support import act, at_impulse

DEADLINE: dict[str, Any] = {"mode": "deadline", "step_seconds": 3600, "reminder_seconds": 600}


def timeout(began: int = 0) -> dict[str, Any]:
    return {"participant": "p-shadow", "name": "Shadow", "began": began}


def test_GEN_01_choosing_no_clock_says_so() -> None:
    state, events = act(at_impulse(), "clock.set", {"mode": "none"})
    assert [e.text for e in events] == ["The referee sets the clock: no clock."]
    assert state.options["clock"]["mode"] == "none"


@pytest.mark.parametrize("reminder", [3600, 7200])
def test_GEN_01_a_deadline_reminder_must_come_before_the_deadline(reminder: int) -> None:
    body = {**DEADLINE, "reminder_seconds": reminder}
    with pytest.raises(RuleError) as refused:
        act(at_impulse(), "clock.set", body)
    assert "the reminder must come before the deadline" in str(refused.value)


def test_GEN_01_a_chess_clock_takes_any_reminder() -> None:
    """The reminder is a deadline clock's: a chess clock's settings are not held to it."""
    body = {"mode": "chess", "bank_seconds": 600, "reminder_seconds": 3600}
    _, events = act(at_impulse(), "clock.set", body)
    assert [e.text for e in events] == [
        "The referee sets the clock: a chess clock: 10 min each; when time runs out the seat is marked done."
    ]


def test_GEN_01_resuming_a_battle_that_is_not_paused_is_refused() -> None:
    with pytest.raises(RuleError) as refused:
        act(at_impulse(), "battle.resume", {})
    assert str(refused.value) == "the battle is not paused" and refused.value.field == "action_type"


def test_GEN_01_a_time_out_in_a_battle_without_a_clock_is_refused() -> None:
    with pytest.raises(RuleError) as refused:
        act(at_impulse(), "clock.timeout", timeout())
    assert str(refused.value) == "this battle has no clock" and refused.value.field == "participant"


def test_GEN_01_no_time_runs_out_while_the_battle_is_paused() -> None:
    state, _ = act(at_impulse(), "clock.set", DEADLINE)
    state, _ = act(state, "battle.pause", {})
    with pytest.raises(RuleError) as refused:
        act(state, "clock.timeout", timeout())
    assert str(refused.value) == "the battle is paused: no clock runs"
    state, events = act(state, "battle.resume", {})
    assert [e.text for e in events] == ["The referee resumes the battle; the clocks run again."]
    _, events = act(state, "clock.timeout", timeout())
    assert events[0].text.startswith("Time ran out for Shadow in ")
    assert events[0].text.endswith(": marked done with no orders.")
