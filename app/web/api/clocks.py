"""The battle clock and pings over REST, for bots and tools: read the clock, choose it (referee),
pause and resume the battle (referee), and a seat's own ping settings. The clock's choice and the
pause are actions: they go through the same write path as every action, so they are in the log,
replay, and wake every page; a bad body is answered 422 naming the field, and changes nothing."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.rules.generic.timing import ClockSettings
from app.services.clock import now
from app.services.reading.clock_view import clock_view, read_run
from app.services.store.battles import load_state, participants
from app.services.table import pings
from app.services.write import actions
from app.services.write.actions import Command
from app.web.deps import Creds, PlatformDep, errors, participant_by_bearer

router = APIRouter(prefix="/api/v1", tags=["clocks"])


class SeatClock(BaseModel):
    id: str
    name: str
    running: bool = Field(description="the step waits on this seat and the battle is not paused")
    left_s: int = Field(description="seconds left: of the step's deadline, or of the chess bank")
    left: str = Field(description="the same in words (e.g. 23 h 59 min)")
    due_at: float | None = Field(
        description="when the time runs out (seconds since the epoch), while running"
    )
    wait: str | None = Field(description="the wait's identity (seat:seq it began); one ping per wait")
    timed_out: bool


class ClockOut(BaseModel):
    """The battle's clock now; `mode` "none" when it has none (the turn bar's `clocks` is then null)."""

    mode: str
    describe: str = ""
    paused: bool = False
    on_timeout: str | None = None
    reminder_s: int | None = None
    settings: dict[str, Any] | None = None
    seats: list[SeatClock] = Field(default_factory=list)
    now: float
    seq: int


async def _clock(platform: PlatformDep, battle_id: str) -> ClockOut:
    async with platform.db.reader() as session:
        state, seq = await load_state(session, battle_id, platform.rules)
        run = await read_run(session, battle_id)
        people = await participants(session, battle_id)
    view = clock_view(state, run, now(), people)
    if view is None:
        return ClockOut(mode="none", paused=bool(state.options.get("paused")), now=now(), seq=seq)
    return ClockOut(**view, seq=seq)


@router.get("/battles/{battle_id}/clock", response_model=ClockOut, responses=errors(401, 403, 404))
async def read_clock(battle_id: str, platform: PlatformDep, creds: Creds) -> ClockOut:
    """The battle clock: its settings in words, whether the battle is paused, and each seat's time
    left (public, as the turn bar shows it to everyone)."""
    await participant_by_bearer(platform, battle_id, creds)
    return await _clock(platform, battle_id)


async def _referee_action(
    platform: PlatformDep,
    battle_id: str,
    creds: Creds,
    kind: str,
    payload: dict[str, Any],
    action_id: str | None,
) -> ClockOut:
    me = await participant_by_bearer(platform, battle_id, creds)
    await actions.submit(platform, Command(battle_id, me.id, kind, payload, action_id or uuid.uuid4().hex))
    return await _clock(platform, battle_id)


class ClockIn(ClockSettings):
    action_id: str | None = Field(
        default=None, min_length=1, max_length=64, description="made by the client; a repeat applies nothing"
    )


@router.put("/battles/{battle_id}/clock", response_model=ClockOut, responses=errors(401, 403, 404, 409))
async def write_clock(battle_id: str, body: ClockIn, platform: PlatformDep, creds: Creds) -> ClockOut:
    """Referee: choose the clock — `none`; `deadline` (each seat has `step_seconds` for a step, a
    ping `reminder_seconds` before); or `chess` (`bank_seconds` each, plus `increment_seconds`
    each time the seat is done). `on_timeout`: `done` marks the seat done with no orders, `ask`
    asks the referee (a table request). Logged as a sentence; every wait starts afresh."""
    payload = body.model_dump(mode="json", exclude={"action_id"})
    return await _referee_action(platform, battle_id, creds, "clock.set", payload, body.action_id)


class ActionIdIn(BaseModel):
    action_id: str | None = Field(
        default=None, min_length=1, max_length=64, description="made by the client; a repeat applies nothing"
    )


@router.post("/battles/{battle_id}/pause", response_model=ClockOut, responses=errors(401, 403, 404, 409))
async def pause(
    battle_id: str, platform: PlatformDep, creds: Creds, body: ActionIdIn | None = None
) -> ClockOut:
    """Referee: pause the battle — every clock stops (logged). 422 naming `action_type` if it is
    already paused."""
    action_id = body.action_id if body is not None else None
    return await _referee_action(platform, battle_id, creds, "battle.pause", {}, action_id)


@router.post("/battles/{battle_id}/resume", response_model=ClockOut, responses=errors(401, 403, 404, 409))
async def resume(
    battle_id: str, platform: PlatformDep, creds: Creds, body: ActionIdIn | None = None
) -> ClockOut:
    """Referee: resume a paused battle — the clocks run on from where they stopped (logged)."""
    action_id = body.action_id if body is not None else None
    return await _referee_action(platform, battle_id, creds, "battle.resume", {}, action_id)


@router.get("/battles/{battle_id}/pings", response_model=pings.Pings, responses=errors(401, 403, 404))
async def read_pings(battle_id: str, platform: PlatformDep, creds: Creds) -> pings.Pings:
    """Your own pings: "your move" and "deadline soon", by browser and by webhook (all on until
    you choose)."""
    me = await participant_by_bearer(platform, battle_id, creds)
    return await pings.read(platform, me)


class PingsIn(BaseModel):
    model_config = {"extra": "forbid"}

    your_move: bool = Field(default=True, strict=True)
    deadline: bool = Field(default=True, strict=True)
    browser: bool = Field(default=True, strict=True)
    webhook: bool = Field(default=True, strict=True)


@router.put("/battles/{battle_id}/pings", response_model=pings.Pings, responses=errors(401, 403, 404))
async def write_pings(battle_id: str, body: PingsIn, platform: PlatformDep, creds: Creds) -> pings.Pings:
    """Choose your pings: one per wait at most, never one per action. The webhook is the one set
    with PUT /notifications (a Discord-compatible body: `content`, and `embeds` for a deadline)."""
    me = await participant_by_bearer(platform, battle_id, creds)
    return await pings.save(platform, me, pings.Pings(**body.model_dump()))
