"""Clocks for slow and fast games: a deadline per step (play by web) or a chess clock per seat.

The referee's choice, pauses and time-outs are actions in the log (app/rules/generic/timing.py),
so a replay or a restart knows them. What they need of time is kept here, in one row per battle
(`BattleClock`): after each committed action (a handler on the platform's bus) the row's run is
folded forward at the platform clock's `now` — a wait begins for each seat the step newly waits
on, ends (and a chess bank is charged, then given its increment) for each seat it stops waiting
on, and a pause moves every running wait on by its length. The row's `due_at` is the next moment
anything is due.

The timer (`run_timer`, one task per process, started in the app's lifespan) finds due rows in the
database, so a restart picks them up. A time-out is submitted through the write path like any
action (as the battle's referee), its action id made of the seat and the wait
("clock.timeout:<seat>:<seq the wait began>"), so two processes, a repeated tick or a restart
apply it once: the log's unique action id decides, and a time-out for a wait that already ended is
refused by the rules and changes nothing. A reminder is claimed with the row's version before it
is sent, so of several processes one pings."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Collection
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from app.models import ActionLog, BattleClock, Participant, TableRequest
from app.realtime.broker import Topic
from app.rules.game import REFEREE_SEAT
from app.rules.generic.timing import ClockSettings, paused, settings_of
from app.rules.state import BattleState
from app.services.bus import ActionCommitted, TableChanged
from app.services.errors import ServiceError
from app.services.history.replay import HISTORY_ACTIONS
from app.services.platform import Platform
from app.services.reading.clock_view import dues, next_due, wait_key
from app.services.store.battles import load_state, participants
from app.services.table import notify
from app.services.write import actions
from app.services.write.actions import Command
from app.services.write.requests import TIMEOUT as TIMEOUT_REQUEST

log = logging.getLogger(__name__)

TIMEOUT = "clock.timeout"
SETTINGS = "clock.set"
CHECK_SECONDS = 30.0  # the timer looks at least this often (a wake-up from a commit comes sooner)

_locks: dict[str, asyncio.Lock] = {}


def fold(run: dict[str, Any], state: BattleState, row: ActionLog, now: float) -> dict[str, Any]:
    """The run after the committed `row` left `state`, at `now` (pure: tests give it times)."""
    settings = settings_of(state)
    if settings is None:
        return {}
    run = {} if row.action_type == SETTINGS else {k: v for k, v in run.items()}
    waits: dict[str, dict[str, Any]] = dict(run.get("waits") or {})
    banks: dict[str, float] = dict(run.get("banks") or {})
    timed_out: list[str] = list(run.get("timed_out") or [])
    reminded: list[str] = list(run.get("reminded") or [])
    paused_at = run.get("paused_at")
    if paused(state) and paused_at is None:
        paused_at = now
    elif not paused(state) and paused_at is not None:
        for wait in waits.values():  # the pause's length is given back to every running wait
            wait["since"] = float(wait["since"]) + (now - float(paused_at))
        paused_at = None
    if row.action_type == TIMEOUT:
        timed_out.append(wait_key(str(row.payload.get("participant")), int(row.payload.get("began", -1))))
    at = paused_at if paused_at is not None else now
    game = state.game
    awaited = [] if state.finished else [p for p in game.awaited(state) if p != REFEREE_SEAT]
    new_step = row.action_type in HISTORY_ACTIONS or any(
        e.get("kind") in ("clock", "rewind") for e in row.events
    )
    for pid in list(waits):
        if pid in awaited and not new_step:
            continue
        wait = waits.pop(pid)
        if settings.mode == "chess":
            bank = float(banks.get(pid, settings.bank_seconds))
            out = wait_key(pid, int(wait["began"])) in timed_out
            left = 0.0 if out else max(0.0, bank - (at - float(wait["since"])))
            banks[pid] = left + settings.increment_seconds
    for pid in awaited:
        if pid not in waits:
            waits[pid] = {"since": at, "began": row.seq}
            if settings.mode == "chess":
                banks.setdefault(pid, float(settings.bank_seconds))
    keys = {wait_key(pid, int(w["began"])) for pid, w in waits.items()}
    return {
        "waits": waits,
        "banks": banks,
        "paused_at": paused_at,
        "timed_out": [k for k in timed_out if k in keys],
        "reminded": [k for k in reminded if k in keys],
    }


def on_committed(platform: Platform, event: ActionCommitted) -> Awaitable[None] | None:
    """After each committed action: a battle with no clock (and no clock change) costs nothing."""
    commit = event.commit
    if settings_of(commit.state) is None and commit.row.action_type != SETTINGS:
        return None
    return fold_commit(platform, commit.battle_id, commit.state, commit.row)


async def fold_commit(platform: Platform, battle_id: str, state: BattleState, row: ActionLog) -> None:
    """Fold one commit into the battle's row (in seq order within the process; a row another
    process already folded further is left alone), then wake the timer and the battle's pages."""
    lock = _locks.setdefault(battle_id, asyncio.Lock())
    async with lock:
        for _attempt in range(5):
            try:
                changed = await _fold_once(platform, battle_id, state, row)
                break
            except IntegrityError:  # another process made the row first: go again on it
                continue
        else:
            log.warning(
                "clock of battle %s not folded at seq %s: too many concurrent writers", battle_id, row.seq
            )
            return
    if changed:
        platform.clock_changed.set()
        platform.broker.announce(battle_id, row.seq, Topic.SEATS)  # the turn bar's clock, read again


async def _fold_once(platform: Platform, battle_id: str, state: BattleState, row: ActionLog) -> bool:
    async with platform.db.transaction() as session:
        kept = await session.get(BattleClock, battle_id)
        if kept is not None and kept.seq >= row.seq:
            return False
        before = dict(kept.run) if kept is not None else {}
        run = fold(before, state, row, platform.clock.now())
        due = next_due(run, settings_of(state))
        if kept is None:
            session.add(BattleClock(battle_id=battle_id, seq=row.seq, run=run, due_at=due, version=1))
            await session.flush()
            return True
        done = await session.execute(
            update(BattleClock)
            .where(BattleClock.battle_id == battle_id, BattleClock.version == kept.version)
            .values(run=run, due_at=due, seq=row.seq, version=kept.version + 1)
            .execution_options(synchronize_session=False)
        )
        if done.rowcount != 1:
            raise IntegrityError("battle_clocks", {}, Exception("version moved"))
        return run.get("waits") != before.get("waits") or run.get("paused_at") != before.get("paused_at")


async def tick(platform: Platform, only: Collection[str] | None = None) -> dict[str, int]:
    """One look of the timer: every battle whose clock is due now (`only`: of these battles — a
    test's, in a database others share). Answers, by battle, how many time-outs and reminders this
    process applied or sent."""
    now = platform.clock.now()
    query = select(BattleClock.battle_id).where(BattleClock.due_at <= now)
    if only is not None:
        query = query.where(BattleClock.battle_id.in_(list(only)))
    async with platform.db.reader() as session:
        due = list(await session.scalars(query))
    done: dict[str, int] = {}
    for battle_id in due:
        try:
            done[battle_id] = await _battle_due(platform, battle_id, now)
        except Exception:
            log.exception("clock of battle %s: the due time-outs could not be applied", battle_id)
    return done


async def _battle_due(platform: Platform, battle_id: str, now: float) -> int:
    async with platform.db.reader() as session:
        row = await session.get(BattleClock, battle_id)
        if row is None:
            return 0
        state, _ = await load_state(session, battle_id, platform.rules)
        people = {p.id: p for p in await participants(session, battle_id)}
    settings = settings_of(state)
    run = dict(row.run)
    if settings is None or state.finished:
        await _claim(platform, row, run, None)
        return 0
    referee = next((p for p in people.values() if p.role == "referee" and p.active), None)
    done = 0
    timed_out, reminded = set(run.get("timed_out") or ()), set(run.get("reminded") or ())
    for d in dues(run, settings):
        key = wait_key(d.participant, d.began)
        seat = people.get(d.participant)
        if d.deadline <= now and key not in timed_out and referee is not None:
            step = state.game.system.short(state.clock)
            done += await _time_out(
                platform, battle_id, referee, seat, (d.participant, d.began, step), settings
            )
        elif d.reminder is not None and d.reminder <= now and key not in reminded and key not in timed_out:
            run["reminded"] = [*run.get("reminded", []), key]
            if await _claim(platform, row, run, next_due(run, settings)):
                left = d.deadline - now
                await notify.deadline_soon(platform, battle_id, d.participant, left)
                done += 1
                async with platform.db.reader() as session:
                    row = await session.get(BattleClock, battle_id) or row
    return done


async def _claim(platform: Platform, row: BattleClock, run: dict[str, Any], due: float | None) -> bool:
    """Write the run if nobody changed the row since it was read: of several processes, one wins."""
    async with platform.db.transaction() as session:
        done = await session.execute(
            update(BattleClock)
            .where(BattleClock.battle_id == row.battle_id, BattleClock.version == row.version)
            .values(run=run, due_at=due, version=row.version + 1)
            .execution_options(synchronize_session=False)
        )
    return done.rowcount == 1


async def _time_out(
    platform: Platform,
    battle_id: str,
    referee: Participant,
    seat: Participant | None,
    wait: tuple[str, int, str],
    settings: ClockSettings,
) -> int:
    """Submit the time-out as any action goes (idempotent by its action id); in `ask` mode the
    referee gets a table request to mark the seat done."""
    participant, began, step = wait
    payload = {"participant": participant, "name": seat.name if seat else "", "began": began, "step": step}
    action_id = f"{TIMEOUT}:{participant}:{began}"[:64]
    try:
        done = await actions.submit(platform, Command(battle_id, referee.id, TIMEOUT, payload, action_id))
    except ServiceError as refused:  # the wait ended meanwhile, or the battle paused: nothing applies
        log.info("clock time-out not applied in %s: %s", battle_id, refused)
        await _forget_wait(platform, battle_id, wait_key(participant, began))
        return 0
    if done.duplicate:
        return 0
    for_dice = any(e.get("kind") == "timeout" and e.get("data", {}).get("dice") for e in done.events)
    if settings.on_timeout == "ask" and seat is not None and not for_dice:  # dice: the referee enters them
        await _ask_referee(platform, battle_id, seat, began, done.seq)
    return 1


async def _forget_wait(platform: Platform, battle_id: str, key: str) -> None:
    """A time-out the rules refused is not tried again for that wait."""
    async with platform.db.reader() as session:
        row = await session.get(BattleClock, battle_id)
        state, _ = await load_state(session, battle_id, platform.rules)
    if row is None:
        return
    run = dict(row.run)
    run["timed_out"] = [*run.get("timed_out", []), key]
    await _claim(platform, row, run, next_due(run, settings_of(state)))


async def _ask_referee(platform: Platform, battle_id: str, seat: Participant, began: int, seq: int) -> None:
    async with platform.transaction() as work:
        work.session.add(
            TableRequest(
                battle_id=battle_id,
                participant_id=seat.id,
                kind=TIMEOUT_REQUEST,
                target_seq=seq,
                payload={"began": began},
                reason="",
                status="pending",
            )
        )
        work.emit(TableChanged(battle_id))


async def run_timer(platform: Platform) -> None:
    """The process's timer: look now (a restart picks up what fell due while down), then at the
    next due moment, at a commit that changed a clock, or every CHECK_SECONDS."""
    await _timer_loop(platform, platform.clock_changed)


async def _timer_loop(platform: Platform, wake: asyncio.Event) -> None:
    while True:
        wake.clear()
        soonest = None
        try:
            await tick(platform)
            soonest = await _soonest(platform)
        except Exception:
            log.exception("clock timer: the look failed")
        wait = CHECK_SECONDS if soonest is None else min(CHECK_SECONDS, soonest - platform.clock.now())
        if wait <= 0:  # due and still not applied (no referee seat to act as): look again soon
            wait = 1.0
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), max(0.05, wait))


async def _soonest(platform: Platform) -> float | None:
    async with platform.db.reader() as session:
        return await session.scalar(
            select(BattleClock.due_at)
            .where(BattleClock.due_at.is_not(None))
            .order_by(BattleClock.due_at)
            .limit(1)
        )
