"""The battle's history: rebuilding a state from the append-only log, the state at any seq, and the
three actions that reach back into the log — undo, redo and rewind — which are logged like any other.

Undo is honest: it always steps back over one more *real* action (never an undo, redo or rewind),
the last one still in effect, and returns to the state just before it. Redo puts back what the
undos took away, newest first, only while nothing else happened since: any other action (a rewind
too) clears what may be redone. Each history row stores the seq whose state it returns to
(`_to_seq`, or `to_seq` for a rewind), so a replay never needs to work this out again.

Rebuilding never rolls: every die is read back from the log (ReplayDice)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle, Checkpoint, Snapshot
from app.rules import Action, Rules
from app.rules.core import Event, RuleError
from app.rules.dice import ReplayDice
from app.rules.engine import apply_action
from app.rules.ruleset import ActionSpec
from app.rules.state import BattleState
from app.rules.views import viewer_for
from app.services.errors import Invalid
from app.services.platform import Platform
from app.services.store.battles import get_battle
from app.services.store.drafts import FOLDED, fold

log = logging.getLogger(__name__)

REWIND = "battle.rewind"
UNDO = "battle.undo"
REDO = "battle.redo"


class RewindPayload(BaseModel):
    to_seq: int = Field(ge=0, le=2**62, description="the action number to return to (0: the start)")
    reason: str = Field(min_length=3, max_length=300)


class UndoPayload(BaseModel):
    reason: str = Field(min_length=3, max_length=300)


class RedoPayload(BaseModel):
    reason: str = Field(default="", max_length=300)


def _not_replayed(*_: Any) -> list[Event]:
    raise RuntimeError("history actions are resolved by the service from the log")


# Declared like the rules' actions, so the engine's gate (referee only, not after the end) and the
# catalogue treat them alike; their effect needs the log, so the service resolves them.
HISTORY_ACTIONS: dict[str, ActionSpec] = {
    REWIND: ActionSpec(
        REWIND, RewindPayload, _not_replayed, "Rewind the battle to an earlier action", referee_only=True
    ),
    UNDO: ActionSpec(
        UNDO, UndoPayload, _not_replayed, "Undo the last action still in effect", referee_only=True
    ),
    REDO: ActionSpec(REDO, RedoPayload, _not_replayed, "Redo what the last undo undid", referee_only=True),
}


def _rewind_target(row: ActionLog | LogRow) -> int:
    return int(row.payload["to_seq"] if row.action_type == REWIND else row.payload["_to_seq"])


@dataclass(frozen=True)
class LogRow:
    """What replaying needs of a log row, detached from the session (safe to hand to a thread)."""

    seq: int
    action_type: str
    actor_id: str | None
    actor_role: str
    payload: dict[str, Any]
    dice: list[Any]
    waited: bool = True  # its step's end waited for a commander's die (a "rolling" event)


def _plain(rows: list[ActionLog]) -> list[LogRow]:
    return [
        LogRow(r.seq, r.action_type, r.actor_id, r.actor_role, r.payload, r.dice, _waited(r.events))
        for r in rows
    ]


def _waited(events: list[dict[str, Any]]) -> bool:
    return any(e.get("kind") == "rolling" for e in events)


def replay(
    rules: Rules,
    battle: Battle,
    rows: list[ActionLog] | list[LogRow],
    start: BattleState | None = None,
    start_seq: int = 0,
    known: dict[int, BattleState] | None = None,
) -> BattleState:
    """Rebuild the state from the log alone — from the new battle, or from `start` (the state right
    after `start_seq`) with the rows after it; `known` holds states before `start_seq` that a rewind
    or undo in `rows` returns to. Only the states a later rewind or undo returns to are kept."""
    return _replay(rules, battle.system, dict(battle.options), list(rows), start, start_seq, known or {})


def _replay(
    rules: Rules,
    system: str,
    options: dict[str, Any],
    rows: list[ActionLog] | list[LogRow],
    start: BattleState | None,
    start_seq: int,
    known: dict[int, BattleState],
) -> BattleState:
    needed = {_rewind_target(r) for r in rows if r.action_type in HISTORY_ACTIONS}
    state = start if start is not None else rules.new_battle(system, options)
    kept: dict[int, BattleState] = {**known, start_seq: state}
    shared = True  # `state` is kept (a later row returns to it): the next action works on a copy
    for row in rows:
        if row.action_type in HISTORY_ACTIONS:
            state, shared = kept[_rewind_target(row)], True
        else:
            actor = viewer_for(row.actor_id or "system", row.actor_role, state)
            payload = row.payload
            if FOLDED in payload:  # the author's drafts, folded in as this action was made
                state = fold(state, payload[FOLDED], actor)
                payload = {k: v for k, v in payload.items() if k != FOLDED}
            # Only a row whose end waited for a die can wait again: the others replay without the
            # step end's trial copy (`Game.end_step`), a third of a clock step's cost.
            waited = row.waited if isinstance(row, LogRow) else _waited(row.events)
            dice = ReplayDice(row.dice, may_lack=waited)
            state = apply_action(state, Action(row.action_type, payload, actor), dice, owned=not shared).state
            shared = False
        if row.seq in needed:
            kept[row.seq], shared = state, True
    return state


@dataclass(frozen=True)
class _Node:
    """One real action in effect, on top of those in effect before it (a persistent stack)."""

    seq: int
    below: _Node | None


@dataclass
class Stacks:
    """What is in effect after the log's last row: the real actions an undo may take back (newest
    last) and the undone actions a redo may put back (the next to redo last)."""

    in_effect: list[int]
    redoable: list[int]


class StackWalk:
    """`stacks` one row at a time (an import checks each history row against the log before it)."""

    def __init__(self, start: int = 0) -> None:
        """`start`: the row the walk begins after (what was in effect then is left unknown; the
        tops are the log's own only for a walk from its start)."""
        self.after: dict[int, _Node | None] = {start: None}
        self.top: _Node | None = None
        self.redo: list[int] = []
        self.last = start

    def add(self, seq: int, action_type: str, payload: dict[str, Any]) -> None:
        if action_type in HISTORY_ACTIONS:
            target = _rewind_target_of(action_type, payload)
            self.top = self.after.get(target)
            undone = payload.get("_undoes")
            if action_type == UNDO and isinstance(undone, int):
                self.redo = [*self.redo, undone]
            elif action_type == REDO and self.redo:
                self.redo = self.redo[:-1]
            else:  # a rewind, or an undo logged before undo was honest: nothing to redo
                self.redo = []
        else:
            self.top = _Node(seq, self.top)
            self.redo = []
        self.after[seq] = self.top
        self.last = max(self.last, seq)

    def tops(self) -> Tops:
        """What undo and redo would take now (`history_tops` of the rows walked so far)."""
        return Tops(
            undo=self.top.seq if self.top is not None else None,
            redo=self.redo[-1] if self.redo else None,
            last=self.last,
        )

    def now(self) -> Stacks:
        in_effect: list[int] = []
        top = self.top
        while top is not None:
            in_effect.append(top.seq)
            top = top.below
        return Stacks(in_effect[::-1], list(self.redo))


def stacks(rows: Sequence[Any]) -> Stacks:
    """Walk the log: a real action goes on top of what is in effect and clears what may be redone;
    a history row returns to the stack that was in effect after the row it returns to."""
    walk = StackWalk()
    for row in rows:
        walk.add(row.seq, row.action_type, row.payload)
    return walk.now()


@dataclass(frozen=True)
class TakenBack:
    """A real action no longer in effect: the history row that took it back and how (undo, rewind)."""

    by: int
    how: str


class TakenBackWalk(StackWalk):
    """Which real actions an undo or a rewind took back, walked from the log row by row (a redo, or
    a rewind to a point where it was in effect, puts one back): the log marks them so. `add`
    answers which actions' marks that row changed, so a live frame updates only those entries."""

    def __init__(self, start: int = 0) -> None:
        super().__init__(start)
        self.taken: dict[int, TakenBack] = {}

    def add(self, seq: int, action_type: str, payload: dict[str, Any]) -> set[int]:  # type: ignore[override]
        if action_type not in HISTORY_ACTIONS:
            super().add(seq, action_type, payload)
            return set()
        before = _seqs(self.top)
        super().add(seq, action_type, payload)
        now = _seqs(self.top)
        how = "rewind" if action_type == REWIND else "undo"
        for gone in before - now:
            self.taken[gone] = TakenBack(seq, how)
        for back in now - before:
            self.taken.pop(back, None)
        return before ^ now


def _rewind_target_of(action_type: str, payload: dict[str, Any]) -> int:
    return int(payload["to_seq"] if action_type == REWIND else payload["_to_seq"])


def _seqs(top: _Node | None) -> set[int]:
    found = set()
    while top is not None:
        found.add(top.seq)
        top = top.below
    return found


async def taken_back(
    session: AsyncSession, battle_id: str, until: int, since: int = 0
) -> dict[int, TakenBack]:
    """The real actions after `since` up to `until` that an undo or rewind took back (and no redo
    put back), walked from `since` on, so a page showing the recent log of a long battle reads the
    rows it shows, not the whole log. What was in effect before `since` is left unknown: a history
    row returning to before it takes back every row shown either way. A ship's definition is
    never read."""
    rows = (ActionLog.battle_id == battle_id, ActionLog.seq > since, ActionLog.seq <= until)
    history = await session.execute(
        select(ActionLog.seq, ActionLog.payload).where(
            *rows, ActionLog.action_type.in_(list(HISTORY_ACTIONS))
        )
    )
    payloads: dict[int, dict[str, Any]] = {seq: payload for seq, payload in history}
    if not payloads:
        return {}
    kinds = (await session.execute(select(ActionLog.seq, ActionLog.action_type).where(*rows))).all()
    walk = TakenBackWalk(since)
    for seq, kind in sorted(kinds):
        walk.add(seq, kind, payloads.get(seq, {}))
    return walk.taken


async def log_rows(session: AsyncSession, battle_id: str, until: int | None = None) -> list[ActionLog]:
    query = select(ActionLog).where(ActionLog.battle_id == battle_id)
    if until is not None:
        query = query.where(ActionLog.seq <= until)
    return list(await session.scalars(query.order_by(ActionLog.seq)))


async def rebuild(platform: Platform, battle_id: str) -> BattleState:
    """The whole log replayed from the start (the audit: it must equal the snapshot), in a worker
    thread so a long battle never blocks the event loop."""
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        rows = _plain(await log_rows(session, battle_id))
    rules = platform.rules
    return await asyncio.to_thread(_replay, rules, battle.system, dict(battle.options), rows, None, 0, {})


async def state_at(
    session: AsyncSession, battle: Battle, seq: int, rules: Rules, _memo: dict[int, BattleState] | None = None
) -> BattleState:
    """The state right after action `seq` (replay, undo and rewind use it): the snapshot if it is at
    `seq`, else the latest checkpoint at or before `seq` with fewer than CHECKPOINT_EVERY actions
    replayed on it, in a worker thread — the cost is bounded at any length of battle."""
    memo = {} if _memo is None else _memo
    if seq in memo:
        return memo[seq]
    snap = await session.get(Snapshot, battle.id)
    if snap is not None and snap.seq == seq:
        state = await asyncio.to_thread(rules.load, snap.state)
        memo[seq] = state
        return state
    base = await session.scalar(
        select(Checkpoint)
        .where(Checkpoint.battle_id == battle.id, Checkpoint.seq <= seq)
        .order_by(Checkpoint.seq.desc())
        .limit(1)
    )
    base_seq = base.seq if base is not None else 0
    rows = _plain(
        list(
            await session.scalars(
                select(ActionLog)
                .where(ActionLog.battle_id == battle.id, ActionLog.seq > base_seq, ActionLog.seq <= seq)
                .order_by(ActionLog.seq)
            )
        )
    )
    known: dict[int, BattleState] = {}
    for row in rows:  # a rewind to before the checkpoint: that state comes the same way
        if row.action_type in HISTORY_ACTIONS and _rewind_target(row) < base_seq:
            target = _rewind_target(row)
            known[target] = await state_at(session, battle, target, rules, memo)
    start = await asyncio.to_thread(rules.load, base.state) if base is not None else None
    state = await asyncio.to_thread(
        _replay, rules, battle.system, dict(battle.options), rows, start, base_seq, known
    )
    memo[seq] = state
    return state


async def checkpoint(platform: Platform, battle_id: str, seq: int, state: BattleState | None = None) -> None:
    """Keep the state after action `seq` (every CHECKPOINT_EVERY actions), after the commit and off
    the request path; a failure only means history replays a little further. `state`: that state
    as the action committed it (submit hands it over), else it is replayed."""
    try:
        async with platform.db.transaction() as session:
            if await session.get(Checkpoint, (battle_id, seq)) is not None:
                return
            if state is None:
                state = await state_at(session, await get_battle(session, battle_id), seq, platform.rules)
            session.add(Checkpoint(battle_id=battle_id, seq=seq, state=state.model_dump(mode="json")))
    except IntegrityError:  # another process kept it first
        pass
    except Exception:
        log.warning("checkpoint of %s at %s failed", battle_id, seq, exc_info=True)


def line_of(row: ActionLog | None, referee: bool = False) -> str:
    """How an action reads in the log: its first line as everyone may read it (a hidden line reads
    as others see it), or as the referee reads it."""
    if row is None:
        return "the start of the battle"
    texts = []
    for event in row.events:
        public = event.get("visibility", "public") == "public"
        text = event.get("text") if public or referee else event.get("hidden_text") or "a hidden action"
        if text:
            texts.append(str(text))
    first = texts[0] if texts else row.action_type
    return f"#{row.seq} {first}" + (f" (+{len(texts) - 1} more)" if len(texts) > 1 else "")


@dataclass(frozen=True)
class Tops:
    """The two answers of `stacks` that undo, redo and the referee's forms ask for: the newest real
    action in effect (what Undo takes back) and the newest undone one (what Redo puts back), None
    where there is none; and the log's last seq."""

    undo: int | None
    redo: int | None
    last: int


TAIL = 64  # log rows read at a time from the end while looking for where the redo list began


async def history_tops(session: AsyncSession, battle_id: str) -> Tops:
    """`stacks(rows)`'s tops without walking the whole log, so undo costs the same on a long
    battle as on a short one. The redo list only grows over the undo and redo rows since the last
    row that clears it (a real action, a rewind): the log is read backwards from its end to that
    row. What is in effect after a row is the row itself for a real action, and for a history row
    what was in effect after the row it returns to: a chain of jumps, each to an earlier row."""
    rows: dict[int, tuple[str, dict[str, Any]]] = {}

    async def read(upto: int | None, limit: int | None, seqs: list[int] | None = None) -> list[int]:
        where = [ActionLog.battle_id == battle_id]
        if upto is not None:
            where.append(ActionLog.seq <= upto)
        if seqs is not None:
            where.append(ActionLog.seq.in_(seqs))
        query = select(ActionLog.seq, ActionLog.action_type).where(*where).order_by(ActionLog.seq.desc())
        found = (await session.execute(query.limit(limit) if limit else query)).all()
        history = [seq for seq, kind in found if kind in HISTORY_ACTIONS]
        payloads: dict[int, dict[str, Any]] = {}
        if history:
            payloads = dict(
                (
                    await session.execute(
                        select(ActionLog.seq, ActionLog.payload).where(
                            ActionLog.battle_id == battle_id, ActionLog.seq.in_(history)
                        )
                    )
                ).all()
            )
        for seq, kind in found:
            rows[seq] = (kind, payloads.get(seq, {}))
        return [seq for seq, _ in found]

    def clears_redo(seq: int) -> bool:
        kind, payload = rows[seq]
        return (
            kind not in HISTORY_ACTIONS
            or kind == REWIND
            or (kind == UNDO and not isinstance(payload.get("_undoes"), int))
        )

    window = await read(None, TAIL)
    last = window[0] if window else 0
    since = list(window)  # newest first
    while since and not clears_redo(since[-1]) and len(window) == TAIL:
        window = await read(since[-1] - 1, TAIL)
        since += window
    redo: list[int] = []
    for seq in reversed(since):
        kind, payload = rows[seq]
        if clears_redo(seq):
            redo = []
        elif kind == UNDO:
            redo.append(payload["_undoes"])
        elif redo:  # REDO
            redo.pop()

    top = last
    while top:
        if top not in rows and not await read(None, None, [top]):
            top = 0
            break
        kind, payload = rows[top]
        if kind not in HISTORY_ACTIONS:
            break
        top = _rewind_target_of(kind, payload)
    return Tops(undo=top or None, redo=redo[-1] if redo else None, last=last)


async def _rows_at(session: AsyncSession, battle_id: str, seqs: set[int]) -> dict[int, ActionLog]:
    found = await session.scalars(
        select(ActionLog).where(ActionLog.battle_id == battle_id, ActionLog.seq.in_(sorted(seqs)))
    )
    return {r.seq: r for r in found}


def preview_seqs(tops: Tops) -> set[int]:
    """The rows whose log lines the referee's preview shows (`preview_of`)."""
    return {*_forks(tops.last), *(s for s in (tops.undo, tops.redo) if s)}


def _forks(last: int) -> list[int]:
    """The points a what-if may start from, the last entry first; a rewind offers all but it."""
    return list(range(last, max(0, last - REWIND_POINTS - 1), -1)) if last else []


def preview_of(tops: Tops, lines: Mapping[int, str]) -> dict[str, Any]:
    """The referee's preview of a log whose tops are `tops`, from the referee's line of each row
    `preview_seqs` names (`lines`: seq → `line_of(row, True)`)."""
    undo, redo, forks = tops.undo, tops.redo, _forks(tops.last)
    return {
        "undo": {"seq": undo, "line": lines[undo]} if undo else None,
        "redo": {"seq": redo, "line": lines[redo]} if redo else None,
        "rewind_points": [{"seq": 0, "line": line_of(None)}]
        + [{"seq": s, "line": lines[s]} for s in forks[1:] if s in lines],
        "fork_points": [{"seq": s, "line": lines[s]} for s in forks if s in lines],
    }


async def referee_lines(session: AsyncSession, battle_id: str, seqs: set[int]) -> dict[int, str]:
    """The referee's log line of each of these rows (those that exist)."""
    return {seq: line_of(row, True) for seq, row in (await _rows_at(session, battle_id, seqs)).items()}


async def preview(session: AsyncSession, battle_id: str) -> dict[str, Any]:
    """For the referee's page: what Undo would take back and what Redo would put back (the log
    line of each), the latest points a rewind may return to, and those a what-if may start from
    (the last entry first: a fork of the battle as it stands)."""
    tops = await history_tops(session, battle_id)
    return preview_of(tops, await referee_lines(session, battle_id, preview_seqs(tops)))


REWIND_POINTS = 100  # the latest points a rewind form offers by name (any seq may still be typed)


@dataclass(frozen=True)
class HistoryEntry:
    """What an undo, redo or rewind does, worked out from the log alone: the seq whose state it
    returns to, the payload the log keeps, and its event (without the clock, which needs that state)."""

    target: int
    stored: dict[str, Any]
    text: str
    data: dict[str, Any]

    def event(self, state: BattleState) -> Event:
        clock = state.game.system.short(state.clock)  # where the battle's clock went back to
        return Event(kind="rewind", text=self.text, data={**self.data, "clock": clock})


def history_needs(now: Tops, payload: BaseModel) -> int | None:
    """The one earlier row `history_entry` reads (the action undone, redone or returned to)."""
    if isinstance(payload, UndoPayload):
        return now.undo
    if isinstance(payload, RedoPayload):
        return now.redo
    assert isinstance(payload, RewindPayload)
    return payload.to_seq or None


def history_entry(payload: BaseModel, now: Tops, seq: int, row_at: Callable[[int], Any]) -> HistoryEntry:
    """An undo, redo or rewind as row `seq` of a log whose tops are `now`: the same pure work for
    a live action and for a battle file's row, so an imported row is rebuilt, never trusted.
    `row_at(seq)` gives an earlier row (seq, action_type, events)."""
    if isinstance(payload, UndoPayload):
        if now.undo is None:
            raise Invalid("there is nothing to undo", "battle")
        undone = now.undo
        last = row_at(undone)
        text = f"⚠ UNDO (Referee): action {undone} ({last.action_type}) is undone — “{payload.reason}”"
        stored: dict[str, Any] = {"reason": payload.reason, "_to_seq": undone - 1, "_undoes": undone}
        return HistoryEntry(
            undone - 1, stored, text, {"to_seq": undone - 1, "undoes": undone, "line": line_of(last)}
        )
    if isinstance(payload, RedoPayload):
        if now.redo is None:
            raise Invalid("there is nothing to redo: no undo since the last action", "battle")
        target = now.redo  # the state that action made
        row = row_at(target)
        why = f" — “{payload.reason}”" if payload.reason else ""
        text = f"⚠ REDO (Referee): action {target} ({row.action_type}) is restored{why}"
        stored = {"reason": payload.reason, "_to_seq": target}
        return HistoryEntry(target, stored, text, {"to_seq": target, "redoes": target, "line": line_of(row)})
    assert isinstance(payload, RewindPayload)
    if payload.to_seq >= seq:
        raise Invalid(f"rewind to an earlier action than the current {seq}", "to_seq")
    target = payload.to_seq
    point = line_of(row_at(target)) if target else line_of(None)
    text = f"⚠ REWIND (Referee): back to action {target} (after {point}) — “{payload.reason}”"
    stored = {"to_seq": target, "reason": payload.reason}
    return HistoryEntry(target, stored, text, {"to_seq": target, "line": point})


async def resolve(
    session: AsyncSession, rules: Rules, battle: Battle, action_type: str, payload: BaseModel, seq: int
) -> tuple[BattleState, list[Event], dict[str, Any]]:
    """An undo, redo or rewind: the state it returns to, its event, and the payload the log keeps."""
    tops = await history_tops(session, battle.id)
    needed = history_needs(tops, payload)
    rows = await _rows_at(session, battle.id, {needed}) if needed else {}
    entry = history_entry(payload, tops, seq, rows.get)
    try:
        state = await state_at(session, battle, entry.target, rules)
    except RuleError as exc:  # the log no longer replays under these rules
        raise Invalid(f"the log does not replay to action {entry.target}: {exc.message}", "battle") from None
    return state, [entry.event(state)], entry.stored
