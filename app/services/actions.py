"""submit(): the only way anything changes in a battle.

authorise → validate → resolve (rules core) → one transaction: log row (seq+1, dice, events) +
snapshot + ship rows → commit → publish (battle, seq). A repeated action id returns the first
result; an action made against an old seq is refused (409); a concurrent writer in another
process collides on UNIQUE(battle_id, seq) and the battle's version column, and is retried.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from app.models import ActionLog, Battle, Checkpoint, ShipRow, Snapshot
from app.rules import apply_action
from app.rules.battle import new_battle
from app.rules.clock import short
from app.rules.core import Action, Actor, Event, NeedRoll, NotAllowed, RuleError
from app.rules.dice import DiceSource, EnteredDice, ReplayDice, SeededDice
from app.rules.registry import ACTIONS
from app.rules.state import BattleState
from app.services.battles import actor_for, get_battle, get_participant, load_state
from app.services.errors import Conflict, Forbidden, Invalid, RollNeeded, Stale
from app.services.platform import Platform

log = logging.getLogger(__name__)

# Actions the service resolves itself because they reach back into the log.
REWIND = "battle.rewind"
UNDO = "battle.undo"
SERVICE_ACTIONS = {REWIND: "Rewind the battle to an earlier action", UNDO: "Undo the last action"}

_locks: dict[str, asyncio.Lock] = {}

MAX_PAYLOAD_DEPTH = 32  # ship definitions need under 10; deeper JSON only ever breaks serialisation
MAX_DICE = 200


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether JSON-like data nests deeper than `limit` objects/lists (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = list(node.values())
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _check_input(payload: Any, seen_seq: Any, dice: Any) -> None:
    """What every door hands over, checked once here: the websocket passes its JSON on as it came."""
    if not isinstance(payload, dict):
        raise Invalid("payload must be an object", "payload")
    if _depth_exceeds(payload, MAX_PAYLOAD_DEPTH):
        raise Invalid(f"the payload is nested more than {MAX_PAYLOAD_DEPTH} levels deep", "payload")
    if seen_seq is not None and (type(seen_seq) is not int or seen_seq < 0):
        raise Invalid("seen_seq must be a whole number", "seen_seq")
    if dice is not None and (
        not isinstance(dice, list) or len(dice) > MAX_DICE or any(type(d) is not int for d in dice)
    ):
        raise Invalid(f"dice must be a list of at most {MAX_DICE} whole numbers", "dice")


class RewindPayload(BaseModel):
    to_seq: int = Field(ge=0, description="the action number to return to (0: the start)")
    reason: str = Field(min_length=3, max_length=300)


class UndoPayload(BaseModel):
    reason: str = Field(min_length=3, max_length=300)


@dataclass
class Submitted:
    battle_id: str
    seq: int
    events: list[dict[str, Any]]
    duplicate: bool = False
    finished: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _dice_for(battle: Battle, seq: int, entered: list[int] | None) -> DiceSource:
    if battle.dice_mode == "physical":
        return EnteredDice(entered or [])
    return SeededDice(bytes.fromhex(battle.seed), battle.id, seq)


def _rule_error(exc: RuleError) -> Invalid | Forbidden:
    if isinstance(exc, NotAllowed):
        return Forbidden(exc.message, exc.field)
    return Invalid(exc.message, exc.field)


def _parse(model: type[BaseModel], payload: dict[str, Any]) -> Any:
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise Invalid(first["msg"], ".".join(str(p) for p in first["loc"]) or None) from None


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
    battle: Battle,
    rows: list[ActionLog] | list[LogRow],
    start: BattleState | None = None,
    start_seq: int = 0,
    known: dict[int, BattleState] | None = None,
) -> BattleState:
    """Rebuild the state from the log alone: the rolls are read from the log, never rolled again.

    From the new battle, or from `start` (the state right after `start_seq`) with the rows after
    it; `known` holds the states before `start_seq` that a rewind or undo in `rows` returns to.
    Only the states that a later rewind or undo returns to are kept in memory."""
    return _replay(battle.system, battle.options, list(rows), start, start_seq, known or {})


def _replay(
    system: str,
    options: dict[str, Any],
    rows: list[ActionLog] | list[LogRow],
    start: BattleState | None,
    start_seq: int,
    known: dict[int, BattleState],
) -> BattleState:
    needed = {_rewind_target(r) for r in rows if r.action_type in SERVICE_ACTIONS}
    state = start if start is not None else new_battle(system, options)
    kept: dict[int, BattleState] = {**known, start_seq: state}
    for row in rows:
        if row.action_type in SERVICE_ACTIONS:
            state = kept[_rewind_target(row)]
        else:
            owned = frozenset(sid for sid, s in state.ships.items() if s.owner == row.actor_id)
            actor = Actor(row.actor_id or "system", row.actor_role, owned)  # type: ignore[arg-type]
            state = apply_action(
                state, Action(row.action_type, row.payload, actor), ReplayDice(row.dice)
            ).state
        if row.seq in needed:
            kept[row.seq] = state
    return state


async def rebuild(platform: Platform, battle_id: str) -> BattleState:
    """The whole log replayed from the start (the audit: it must equal the snapshot), in a worker
    thread so a long battle never blocks the event loop."""
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        rows = _plain(
            list(
                await session.scalars(
                    select(ActionLog).where(ActionLog.battle_id == battle_id).order_by(ActionLog.seq)
                )
            )
        )
    return await asyncio.to_thread(_replay, battle.system, dict(battle.options), rows, None, 0, {})


async def state_at(session, battle: Battle, seq: int, _memo: dict[int, BattleState] | None = None) -> BattleState:  # type: ignore[no-untyped-def]
    """The state right after action `seq` (replay, undo and rewind use it): the snapshot if it is
    at `seq`, else the latest checkpoint at or before `seq` and fewer than CHECKPOINT_EVERY
    actions replayed on it, in a worker thread."""
    memo = {} if _memo is None else _memo
    if seq in memo:
        return memo[seq]
    snap = await session.get(Snapshot, battle.id)
    if snap is not None and snap.seq == seq:
        state = await asyncio.to_thread(BattleState.model_validate, snap.state)
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
        if row.action_type in SERVICE_ACTIONS and _rewind_target(row) < base_seq:
            target = _rewind_target(row)
            known[target] = await state_at(session, battle, target, memo)
    start = await asyncio.to_thread(BattleState.model_validate, base.state) if base is not None else None
    state = await asyncio.to_thread(
        _replay, battle.system, dict(battle.options), rows, start, base_seq, known
    )
    memo[seq] = state
    return state


_background: set[asyncio.Task[None]] = set()


def _spawn(coro: Any) -> None:
    task = asyncio.get_running_loop().create_task(coro)
    _background.add(task)
    task.add_done_callback(_background.discard)


async def _checkpoint(platform: Platform, battle_id: str, seq: int) -> None:
    """Keep the state after action `seq` (every CHECKPOINT_EVERY actions), after the commit and
    off the request path; a failure only means history replays a little further."""
    try:
        async with platform.db.transaction() as session:
            if await session.get(Checkpoint, (battle_id, seq)) is not None:
                return
            battle = await get_battle(session, battle_id)
            state = await state_at(session, battle, seq)
            session.add(Checkpoint(battle_id=battle_id, seq=seq, state=state.model_dump(mode="json")))
    except IntegrityError:  # another process kept it first
        pass
    except Exception:
        log.warning("checkpoint of %s at %s failed", battle_id, seq, exc_info=True)


async def _existing(session, battle_id: str, action_id: str) -> ActionLog | None:  # type: ignore[no-untyped-def]
    return await session.scalar(
        select(ActionLog).where(ActionLog.battle_id == battle_id, ActionLog.action_id == action_id)
    )


def _result_of(row: ActionLog, duplicate: bool) -> Submitted:
    return Submitted(row.battle_id, row.seq, list(row.events), duplicate=duplicate)


async def _sync_ship_rows(session, battle_id: str, state: BattleState) -> None:  # type: ignore[no-untyped-def]
    rows = {
        r.ship_id: r for r in await session.scalars(select(ShipRow).where(ShipRow.battle_id == battle_id))
    }
    for ship_id, ship in state.ships.items():
        data = ship.model_dump(mode="json")
        row = rows.pop(ship_id, None)
        if row is None:
            session.add(
                ShipRow(
                    battle_id=battle_id,
                    ship_id=ship_id,
                    name=ship.name,
                    owner_id=ship.owner,
                    system=ship.system,
                    destroyed=ship.destroyed,
                    state=data,
                )
            )
        elif row.state != data:
            row.name, row.owner_id, row.destroyed, row.state = ship.name, ship.owner, ship.destroyed, data
    for row in rows.values():
        await session.delete(row)


async def submit(
    platform: Platform,
    battle_id: str,
    participant_id: str | None,
    action_type: str,
    payload: dict[str, Any],
    action_id: str,
    seen_seq: int | None = None,
    dice: list[int] | None = None,
) -> Submitted:
    """Apply one action for one participant. Raises a ServiceError subclass when nothing changed."""
    if not action_id or len(action_id) > 64:
        raise Invalid("every action needs an action_id of 1 to 64 characters", "action_id")
    _check_input(payload, seen_seq, dice)
    lock = _locks.setdefault(battle_id, asyncio.Lock())
    async with lock:
        for attempt in range(5):
            try:
                result = await _submit_once(
                    platform, battle_id, participant_id, action_type, payload, action_id, seen_seq, dice
                )
                break
            except (IntegrityError, StaleDataError):
                # Another process wrote this seq first. A repeat of that same action id returns its
                # result; otherwise try again on the new state unless the client pinned a seq.
                async with platform.db.reader() as session:
                    row = await _existing(session, battle_id, action_id)
                if row is not None:
                    if row.actor_id != participant_id:
                        raise Conflict(
                            "that action id was already used by someone else", "action_id"
                        ) from None
                    return _result_of(row, duplicate=True)
                if seen_seq is not None:
                    raise Stale("the battle moved on while you acted; reload and try again") from None
                await asyncio.sleep(0.01 * (attempt + 1))
        else:
            raise Conflict("too many concurrent actions; try again")
    if not result.duplicate:
        # After the commit and off the request path: local viewers are woken now, the other
        # processes by a background publisher with its own timeout (kept pending and sent again
        # when the broker is back). Nothing here can delay or fail the committed action.
        try:
            platform.broker.announce(battle_id, result.seq)
        except Exception:  # the write is committed; the hub's heartbeat catches viewers up
            log.exception("announcing battle %s seq %s failed", battle_id, result.seq)
        every = getattr(platform.settings, "checkpoint_every", 0)
        if every and result.seq % every == 0:
            _spawn(_checkpoint(platform, battle_id, result.seq))
    return result


async def _submit_once(
    platform: Platform,
    battle_id: str,
    participant_id: str | None,
    action_type: str,
    payload: dict[str, Any],
    action_id: str,
    seen_seq: int | None,
    entered: list[int] | None,
) -> Submitted:
    async with platform.db.transaction() as session:
        battle = await get_battle(session, battle_id)
        participant = await get_participant(session, battle_id, participant_id)
        previous = await _existing(session, battle_id, action_id)
        if previous is not None:
            if previous.actor_id != participant.id:
                raise Conflict("that action id was already used by someone else", "action_id")
            return _result_of(previous, duplicate=True)
        if participant.role == "spectator":
            raise Forbidden("spectators watch; they cannot act")
        if seen_seq is not None and seen_seq != battle.seq:
            raise Stale(
                f"this action was made at step {seen_seq} but the battle is at {battle.seq}; look again and retry",
                "seen_seq",
                seq=battle.seq,
            )
        state, seq = await load_state(session, battle_id)
        if battle.status == "finished":
            raise Invalid("the battle has ended", "battle")
        new_seq = seq + 1
        stored_payload = dict(payload)
        if action_type in SERVICE_ACTIONS:
            if participant.role != "referee":
                raise Forbidden("only the referee may rewind or undo")
            new_state, events, stored_payload = await _resolve_rewind(
                session, battle, action_type, payload, seq
            )
            rolled: list[dict[str, Any]] = []
        else:
            if action_type not in ACTIONS:
                raise Invalid(f"unknown action {action_type!r}", "action_type")
            source = _dice_for(battle, new_seq, entered)
            try:
                outcome = apply_action(
                    state, Action(action_type, payload, actor_for(participant, state)), source
                )
            except RuleError as exc:
                raise _rule_error(exc) from None
            except NeedRoll as need:
                raise RollNeeded(
                    f"roll needed: 1d{need.sides} for {need.purpose}", "dice", needed=need.as_dict()
                ) from None
            if isinstance(source, EnteredDice) and source.values:
                raise Invalid(
                    f"{len(source.values)} more dice entered than this action rolls ({source.used} needed)",
                    "dice",
                )
            new_state, events, rolled = outcome.state, outcome.events, source.record
        event_dicts = [e.model_dump(mode="json") for e in events]
        session.add(
            ActionLog(
                battle_id=battle_id,
                seq=new_seq,
                action_id=action_id,
                actor_id=participant.id,
                actor_role=participant.role,
                action_type=action_type,
                clock=short(state.clock),
                payload=stored_payload,
                dice=rolled,
                events=event_dicts,
            )
        )
        snap = await session.get(Snapshot, battle_id)
        snap.seq = new_seq  # type: ignore[union-attr]
        snap.state = new_state.model_dump(mode="json")  # type: ignore[union-attr]
        battle.seq = new_seq
        battle.turn = new_state.clock.turn
        battle.step = new_state.clock.step
        if new_state.finished:
            battle.status = "finished"
        await _sync_ship_rows(session, battle_id, new_state)
        await session.flush()
    return Submitted(battle_id, new_seq, event_dicts, finished=new_state.finished)


async def _resolve_rewind(session, battle: Battle, action_type: str, payload: dict[str, Any], seq: int):  # type: ignore[no-untyped-def]
    if action_type == UNDO:
        body = _parse(UndoPayload, payload)
        if seq == 0:
            raise Invalid("there is nothing to undo", "battle")
        last = await session.scalar(
            select(ActionLog).where(ActionLog.battle_id == battle.id, ActionLog.seq == seq)
        )
        target = seq - 1
        state = await state_at(session, battle, target)
        text = f"⚠ UNDO (Referee): action {seq} ({last.action_type}) is undone — “{body.reason}”"
        stored = {"reason": body.reason, "_to_seq": target}
    else:
        body = _parse(RewindPayload, payload)
        if body.to_seq >= seq:
            raise Invalid(f"rewind to an earlier action than the current {seq}", "to_seq")
        target = body.to_seq
        state = await state_at(session, battle, target)
        text = f"⚠ REWIND (Referee): back to action {target} — “{body.reason}”"
        stored = {"to_seq": target, "reason": body.reason}
    return state, [Event(kind="rewind", text=text, data={"to_seq": target})], stored
