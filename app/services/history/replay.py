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
from collections.abc import Sequence
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


def _plain(rows: list[ActionLog]) -> list[LogRow]:
    return [LogRow(r.seq, r.action_type, r.actor_id, r.actor_role, r.payload, r.dice) for r in rows]


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
    for row in rows:
        if row.action_type in HISTORY_ACTIONS:
            state = kept[_rewind_target(row)]
        else:
            actor = viewer_for(row.actor_id or "system", row.actor_role, state)
            payload = row.payload
            if FOLDED in payload:  # the author's drafts, folded in as this action was made
                state = fold(state, payload[FOLDED], actor)
                payload = {k: v for k, v in payload.items() if k != FOLDED}
            state = apply_action(state, Action(row.action_type, payload, actor), ReplayDice(row.dice)).state
        if row.seq in needed:
            kept[row.seq] = state
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


def stacks(rows: Sequence[Any]) -> Stacks:
    """Walk the log: a real action goes on top of what is in effect and clears what may be redone;
    a history row returns to the stack that was in effect after the row it returns to."""
    after: dict[int, _Node | None] = {0: None}
    top: _Node | None = None
    redo: list[int] = []
    for row in rows:
        if row.action_type in HISTORY_ACTIONS:
            target = _rewind_target(row)
            top = after.get(target)
            undone = row.payload.get("_undoes")
            if row.action_type == UNDO and isinstance(undone, int):
                redo = [*redo, undone]
            elif row.action_type == REDO and redo:
                redo = redo[:-1]
            else:  # a rewind, or an undo logged before undo was honest: nothing to redo
                redo = []
        else:
            top = _Node(row.seq, top)
            redo = []
        after[row.seq] = top
    in_effect: list[int] = []
    while top is not None:
        in_effect.append(top.seq)
        top = top.below
    return Stacks(in_effect[::-1], redo)


@dataclass(frozen=True)
class TakenBack:
    """A real action no longer in effect: the history row that took it back and how (undo, rewind)."""

    by: int
    how: str


class TakenBackWalk:
    """Which real actions an undo or a rewind took back, walked from the log row by row (a redo, or
    a rewind to a point where it was in effect, puts one back): the log marks them so. `add`
    answers which actions' marks that row changed, so a live frame updates only those entries."""

    def __init__(self) -> None:
        self.after: dict[int, _Node | None] = {0: None}
        self.top: _Node | None = None
        self.taken: dict[int, TakenBack] = {}

    def add(self, seq: int, action_type: str, payload: dict[str, Any]) -> set[int]:
        if action_type not in HISTORY_ACTIONS:
            self.top = _Node(seq, self.top)
            self.after[seq] = self.top
            return set()
        before, self.top = _seqs(self.top), self.after.get(_rewind_target_of(action_type, payload))
        self.after[seq] = self.top
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


async def taken_back(session: AsyncSession, battle_id: str, until: int) -> dict[int, TakenBack]:
    """The real actions up to `until` that an undo or rewind took back (and no redo put back), from
    the log's types, and the payloads of its history rows only (a ship's definition is not read)."""
    upto = (ActionLog.battle_id == battle_id, ActionLog.seq <= until)
    kinds = (await session.execute(select(ActionLog.seq, ActionLog.action_type).where(*upto))).all()
    if not any(kind in HISTORY_ACTIONS for _, kind in kinds):
        return {}
    history = await session.execute(
        select(ActionLog.seq, ActionLog.payload).where(
            *upto, ActionLog.action_type.in_(list(HISTORY_ACTIONS))
        )
    )
    payloads: dict[int, dict[str, Any]] = {seq: payload for seq, payload in history}
    walk = TakenBackWalk()
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


async def _history_stacks(session: AsyncSession, battle_id: str) -> tuple[Stacks, int]:
    """What is in effect and what may be redone now, from the log's types and payloads only (not
    its events or dice), and the last seq."""
    rows = (
        await session.execute(
            select(ActionLog.seq, ActionLog.action_type, ActionLog.payload)
            .where(ActionLog.battle_id == battle_id)
            .order_by(ActionLog.seq)
        )
    ).all()
    return stacks(rows), (rows[-1].seq if rows else 0)


async def _rows_at(session: AsyncSession, battle_id: str, seqs: set[int]) -> dict[int, ActionLog]:
    found = await session.scalars(
        select(ActionLog).where(ActionLog.battle_id == battle_id, ActionLog.seq.in_(sorted(seqs)))
    )
    return {r.seq: r for r in found}


async def preview(session: AsyncSession, battle_id: str) -> dict[str, Any]:
    """For the referee's page: what Undo would take back and what Redo would put back (the log
    line of each), the latest points a rewind may return to, and those a what-if may start from
    (the last entry first: a fork of the battle as it stands)."""
    now, last = await _history_stacks(session, battle_id)
    undo = now.in_effect[-1] if now.in_effect else None
    redo = now.redoable[-1] if now.redoable else None
    points = list(range(max(1, last - REWIND_POINTS), last))[::-1]
    forks = [last, *points] if last else []
    by_seq = await _rows_at(session, battle_id, {*forks, *(s for s in (undo, redo) if s)})
    return {
        "undo": {"seq": undo, "line": line_of(by_seq[undo], True)} if undo else None,
        "redo": {"seq": redo, "line": line_of(by_seq[redo], True)} if redo else None,
        "rewind_points": [{"seq": 0, "line": line_of(None)}]
        + [{"seq": s, "line": line_of(by_seq[s], True)} for s in points if s in by_seq],
        "fork_points": [{"seq": s, "line": line_of(by_seq[s], True)} for s in forks if s in by_seq],
    }


REWIND_POINTS = 100  # the latest points a rewind form offers by name (any seq may still be typed)


async def resolve(
    session: AsyncSession, rules: Rules, battle: Battle, action_type: str, payload: BaseModel, seq: int
) -> tuple[BattleState, list[Event], dict[str, Any]]:
    """An undo, redo or rewind: the state it returns to, its event, and the payload the log keeps."""
    now, _ = await _history_stacks(session, battle.id)
    if isinstance(payload, UndoPayload):
        in_effect = now.in_effect
        if not in_effect:
            raise Invalid("there is nothing to undo", "battle")
        undone = in_effect[-1]
        target = undone - 1  # the state just before that action
        last = (await _rows_at(session, battle.id, {undone}))[undone]
        text = f"⚠ UNDO (Referee): action {undone} ({last.action_type}) is undone — “{payload.reason}”"
        stored: dict[str, Any] = {"reason": payload.reason, "_to_seq": target, "_undoes": undone}
        data: dict[str, Any] = {"to_seq": target, "undoes": undone, "line": line_of(last)}
    elif isinstance(payload, RedoPayload):
        redoable = now.redoable
        if not redoable:
            raise Invalid("there is nothing to redo: no undo since the last action", "battle")
        target = redoable[-1]  # the state that action made
        row = (await _rows_at(session, battle.id, {target}))[target]
        why = f" — “{payload.reason}”" if payload.reason else ""
        text = f"⚠ REDO (Referee): action {target} ({row.action_type}) is restored{why}"
        stored = {"reason": payload.reason, "_to_seq": target}
        data = {"to_seq": target, "redoes": target, "line": line_of(row)}
    else:
        assert isinstance(payload, RewindPayload)
        if payload.to_seq >= seq:
            raise Invalid(f"rewind to an earlier action than the current {seq}", "to_seq")
        target = payload.to_seq
        point = (
            line_of((await _rows_at(session, battle.id, {target})).get(target)) if target else line_of(None)
        )
        text = f"⚠ REWIND (Referee): back to action {target} (after {point}) — “{payload.reason}”"
        stored = {"to_seq": target, "reason": payload.reason}
        data = {"to_seq": target, "line": point}
    try:
        state = await state_at(session, battle, target, rules)
    except RuleError as exc:  # the log no longer replays under these rules
        raise Invalid(f"the log does not replay to action {target}: {exc.message}", "battle") from None
    data["clock"] = state.game.system.short(state.clock)  # where the battle's clock went back to
    return state, [Event(kind="rewind", text=text, data=data)], stored
