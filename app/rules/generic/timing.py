"""The table's clock as the log keeps it: the referee's choice of clock, pausing and resuming, and a
seat's time running out. The rules hold what was chosen and what happened; the running times (when
each wait began, what is left in a chess bank) are kept by the clocks service from the moments
these actions and every step change were committed (app/services/table/clocks.py), so replaying the
log gives the same settings, pauses and time-outs, and nothing here reads a wall clock."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from app.rules.core import Actor, Event, NoPayload, RuleError
from app.rules.dice import DiceSource
from app.rules.game import REFEREE_SEAT
from app.rules.ruleset import action, mark
from app.rules.state import BattleState

CLOCK = "clock"  # state.options key: the chosen clock (ClockSettings as JSON)
PAUSED = "paused"  # state.options key: the referee paused the battle (every clock stops)

DAY = 86_400


class ClockSettings(BaseModel):
    """The clock a referee picks for a battle: none; a deadline for each wait of a step, with a
    reminder before it (play by web); or a chess clock per seat (a time bank, plus an increment
    each time the seat is done). When time runs out the seat is marked done with no orders
    (`done`), or the referee is asked (`ask`)."""

    mode: Literal["none", "deadline", "chess"] = Field(description="none | deadline | chess")
    step_seconds: int = Field(
        default=DAY, ge=60, le=30 * DAY, description="deadline: the time each seat has for a step"
    )
    reminder_seconds: int = Field(
        default=3600, ge=0, le=7 * DAY, description="a ping this long before a deadline (0: none)"
    )
    bank_seconds: int = Field(default=1800, ge=10, le=30 * DAY, description="chess: each seat's time bank")
    increment_seconds: int = Field(
        default=0, ge=0, le=DAY, description="chess: added to the bank each time the seat is done"
    )
    on_timeout: Literal["done", "ask"] = Field(
        default="done", description="done: the seat is marked done with no orders; ask: the referee is asked"
    )

    @model_validator(mode="after")
    def _reminder_inside(self) -> ClockSettings:
        if self.mode == "deadline" and self.reminder_seconds >= self.step_seconds:
            raise ValueError("reminder_seconds: the reminder must come before the deadline")
        return self


def settings_of(state: BattleState) -> ClockSettings | None:
    """The battle's clock, or None when it has none."""
    raw = state.options.get(CLOCK)
    if not raw or raw.get("mode", "none") == "none":
        return None
    return ClockSettings.model_validate(raw)


def paused(state: BattleState) -> bool:
    return bool(state.options.get(PAUSED))


def span(seconds: float) -> str:
    """A duration in the table's words: "24 h", "1 h 30 min", "45 min", "20 s"."""
    s = int(round(seconds))
    if s >= 3600:
        h, m = divmod(s // 60, 60)
        return f"{h} h" + (f" {m} min" if m else "")
    if s >= 60:
        m, r = divmod(s, 60)
        return f"{m} min" + (f" {r} s" if r else "")
    return f"{s} s"


def describe(settings: ClockSettings) -> str:
    """The clock in one sentence for the log and the referee's page."""
    then = "the seat is marked done" if settings.on_timeout == "done" else "the referee is asked"
    if settings.mode == "deadline":
        remind = f", a reminder {span(settings.reminder_seconds)} before" if settings.reminder_seconds else ""
        return f"{span(settings.step_seconds)} per step{remind}; when time runs out {then}"
    if settings.mode == "chess":
        inc = f" + {span(settings.increment_seconds)} a step" if settings.increment_seconds else ""
        return f"a chess clock: {span(settings.bank_seconds)} each{inc}; when time runs out {then}"
    return "no clock"


def set_clock(state: BattleState, payload: ClockSettings, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee picks the clock; every seat's wait starts afresh under it."""
    state.options[CLOCK] = payload.model_dump(mode="json")
    return [Event(kind="clock_set", text=f"The referee sets the clock: {describe(payload)}.")]


mark(set_clock, action("clock.set", ClockSettings, "Choose the battle's clock", referee_only=True))


def pause(state: BattleState, payload: NoPayload, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee stops every clock of the battle until it resumes."""
    if paused(state):
        raise RuleError("the battle is already paused", "action_type")
    state.options[PAUSED] = True
    return [Event(kind="paused", text="The referee pauses the battle; every clock stops.")]


mark(pause, action("battle.pause", NoPayload, "Pause the battle", referee_only=True))


def resume(state: BattleState, payload: NoPayload, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee lets the battle's clocks run again."""
    if not paused(state):
        raise RuleError("the battle is not paused", "action_type")
    state.options.pop(PAUSED, None)
    return [Event(kind="resumed", text="The referee resumes the battle; the clocks run again.")]


mark(resume, action("battle.resume", NoPayload, "Resume the battle", referee_only=True))


class TimeOut(BaseModel):
    """A seat's time ran out: sent by the server's timer (as the referee), named by the wait it
    ends, so a repeated or late one is refused rather than applied twice."""

    participant: str = Field(min_length=1, max_length=32)
    name: str = Field(default="", max_length=80, description="the seat's name, for the log's sentence")
    began: int = Field(ge=0, description="the seq at which this wait began (the wait's identity)")
    step: str = Field(
        default="",
        max_length=60,
        description="the step the wait is in (e.g. T1 Ship Power); refused once it moved on",
    )


def seat_actor(state: BattleState, participant: str) -> Actor:
    """The seat as the rules see it: a player commanding the ships it owns."""
    ships = frozenset(s.id for s in state.ships.values() if s.owner == participant)
    return Actor(participant, "player", ships)


def time_out(state: BattleState, payload: TimeOut, actor: Actor, dice: DiceSource) -> list[Event]:
    """The chosen consequence, as a sentence: the seat is done with no orders (the step ends by
    itself if it waited on nobody else), or the referee is asked. A step's end waiting for the
    seat's physical dice (GEN-02) cannot be "done" without them: its time-out says so and leaves the
    dice to the referee, who may enter them, and the seat's clock stops."""
    settings = settings_of(state)
    if settings is None:
        raise RuleError("this battle has no clock", "participant")
    if paused(state):
        raise RuleError("the battle is paused: no clock runs", "participant")
    game = state.game
    awaited = [p for p in game.awaited(state) if p != REFEREE_SEAT]
    moved = payload.step and payload.step != game.system.short(state.clock)
    if moved or payload.participant not in awaited:
        raise RuleError("the step no longer waits on that seat", "participant")
    who = payload.name or "a seat"
    step = game.step(state.clock).title(state.clock)
    data: dict[str, Any] = {"participant": payload.participant, "began": payload.began}
    if state.rolling is not None:
        data["dice"] = True
        text = (
            f"Time ran out for {who} in {step}, whose end waits for {game.waiting_for(state)}; "
            "the referee may enter them."
        )
        return [Event(kind="timeout", text=text, data=data)]
    if settings.on_timeout == "ask":
        data["asked"] = True
        text = f"Time ran out for {who} in {step}; the referee is asked what to do."
        return [Event(kind="timeout", text=text, data=data)]
    text = f"Time ran out for {who} in {step}: marked done with no orders."
    events = [Event(kind="timeout", text=text, data=data)]
    return events + game.mark_ready(state, seat_actor(state, payload.participant), dice)


mark(time_out, action("clock.timeout", TimeOut, "A seat's time ran out", referee_only=True))
