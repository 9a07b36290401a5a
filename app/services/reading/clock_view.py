"""A battle's clock as the turn bar, the REST state and the timer read it: the settings and the
pause from the state (the log), the running times from the clocks service's row
(`BattleClock.run`), worked out at one moment `now`.

A run is plain JSON: `waits` (participant → since: when the wait began, moved on by pauses; began:
the seq that began it, the wait's identity), `banks` (chess: seconds left when no wait runs),
`paused_at`, and the wait keys ("participant:began") already `reminded` or `timed_out`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.models import BattleClock, Participant
from app.rules.generic.timing import ClockSettings, describe, paused, settings_of, span
from app.rules.state import BattleState


def wait_key(participant: str, began: int) -> str:
    return f"{participant}:{began}"


@dataclass(frozen=True)
class Due:
    """One seat's next moments: when its time runs out, and when its reminder is due."""

    participant: str
    began: int
    deadline: float
    reminder: float | None


def dues(run: dict[str, Any], settings: ClockSettings) -> list[Due]:
    """Each waiting seat's deadline (and reminder) — none while paused: no clock runs."""
    if run.get("paused_at") is not None:
        return []
    out = []
    for pid, wait in (run.get("waits") or {}).items():
        since, began = float(wait["since"]), int(wait["began"])
        if settings.mode == "chess":
            left = float((run.get("banks") or {}).get(pid, settings.bank_seconds))
        else:
            left = float(settings.step_seconds)
        deadline = since + left
        remind = None
        if settings.reminder_seconds and left > settings.reminder_seconds:
            remind = deadline - settings.reminder_seconds
        out.append(Due(pid, began, deadline, remind))
    return out


def next_due(run: dict[str, Any], settings: ClockSettings | None) -> float | None:
    """The next moment the timer must look at this battle: a time-out or a reminder not yet done."""
    if settings is None:
        return None
    moments: list[float] = []
    done, reminded = set(run.get("timed_out") or ()), set(run.get("reminded") or ())
    for d in dues(run, settings):
        key = wait_key(d.participant, d.began)
        if key not in done:
            moments.append(d.deadline)
            if d.reminder is not None and key not in reminded:
                moments.append(d.reminder)
    return min(moments) if moments else None


async def read_run(session: AsyncSession, battle_id: str) -> dict[str, Any]:
    row = await session.get(BattleClock, battle_id)
    return dict(row.run) if row is not None else {}


def clock_view(
    state: BattleState, run: dict[str, Any] | None, now: float, people: list[Participant]
) -> dict[str, Any] | None:
    """What the turn bar's clock and the REST state show: the clock in words, paused or not, and
    per seat the time left (running for those the step waits on). None: the battle has no clock.
    Times are the turn bar's public facts: everyone sees everyone's clock."""
    settings = settings_of(state)
    if settings is None:
        return None
    run = run or {}
    stopped = paused(state)
    waits = run.get("waits") or {}
    at = run.get("paused_at") if run.get("paused_at") is not None else now
    names = {p.id: p.name for p in people}
    seats = []
    dues_by = {d.participant: d for d in dues(run, settings)}
    banks = run.get("banks") or {}
    shown = [p.id for p in people if p.id in waits or (settings.mode == "chess" and p.id in banks)]
    for pid in shown:  # in seat order, as the turn bar lists them
        running = pid in waits
        if settings.mode == "chess":
            bank = float((run.get("banks") or {}).get(pid, settings.bank_seconds))
            left = bank - (at - float(waits[pid]["since"])) if running else bank
        else:
            left = settings.step_seconds - (at - float(waits[pid]["since"]))
        left = max(0.0, left)
        due = dues_by.get(pid)
        seats.append(
            {
                "id": pid,
                "name": names[pid],
                "running": running and not stopped,
                "left_s": int(left),
                "left": span(left),
                "due_at": due.deadline if due is not None and not stopped else None,
                "wait": wait_key(pid, int(waits[pid]["began"])) if running else None,
                "timed_out": running
                and wait_key(pid, int(waits[pid]["began"])) in (run.get("timed_out") or ()),
            }
        )
    return {
        "mode": settings.mode,
        "describe": describe(settings),
        "paused": stopped,
        "on_timeout": settings.on_timeout,
        "reminder_s": settings.reminder_seconds,
        "settings": settings.model_dump(mode="json"),
        "seats": seats,
        "now": now,
    }
