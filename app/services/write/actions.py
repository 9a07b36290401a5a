"""submit(): the only way anything changes in a battle.

A door builds a `Command`; submit authorises, validates and resolves it (the rules' gate, or the
history service for rewind and undo), writes one unit of work through the platform's store — log
row (seq+1, dice, events) and snapshot — and, once it has committed, the bus hands its
`ActionCommitted` to the handlers that keep the state, wake the viewers, checkpoint and notify.
It answers with the events the actor may read, so no door reads the battle again. A repeated action id returns the first result; an action made
against an old seq is refused (409); a concurrent writer in another process collides on
UNIQUE(battle_id, seq) and the battle's version column, and is retried. An exception inside a rule
is logged with its traceback and answered as an error to this one request; nothing changes.

Where the store keeps rows (PostgreSQL), the next action of a seat whose last action this process
committed reads nothing: it is checked against the kept battle, state and seat, and its write is
guarded on each of them (`_kept_context`, `store/postgres.py`); anything moved or refused is read
whole and answered as before.

Damage a player enters on a ship they do not command may wait for the referee (`waiting.py`): the
write path finds that in the action's own read and queues it as a table request in the same unit
of work, answering `Queued` instead of `Submitted` — one decision, the same for every door.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from app.models import ActionLog, Battle, Participant, Snapshot, TableRequest
from app.operations import metrics
from app.operations.request_id import request_id
from app.rules import apply_action
from app.rules.core import Action, NeedRoll, NotAllowed, Outcome, RuleError
from app.rules.dice import DiceSource, EnteredDice, ReplayDice, SeededDice, dice_plan
from app.rules.state import BattleState
from app.rules.views import Viewer, viewer_for
from app.services.bus import ActionCommitted, TableChanged, Unit
from app.services.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    RollNeeded,
    RuleFault,
    ServiceError,
    Stale,
)
from app.services.history import replay as history
from app.services.kept import NOT_READ, Commit, Kept, KeptSeat, credential
from app.services.platform import Platform
from app.services.reading.views import visible_events
from app.services.store import drafts
from app.services.store.action_store import Asked, Entry, Guard, GuardFailed, Write
from app.services.store.battles import checked_seat, get_battle, get_participant, load_state, token_seat
from app.services.store.seats import merged_options, table_options
from app.services.write import waiting

log = logging.getLogger(__name__)

_locks: dict[str, asyncio.Lock] = {}

MAX_PAYLOAD_DEPTH = 32  # ship definitions need under 10; deeper JSON only ever breaks serialisation
MAX_DICE = 200
MAX_DIE_VALUE = 1000  # no rule rolls a die with more sides; bigger entries are refused, not stored


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
        not isinstance(dice, list)
        or len(dice) > MAX_DICE
        or any(type(d) is not int or not 1 <= d <= MAX_DIE_VALUE for d in dice)
    ):
        raise Invalid(
            f"dice must be a list of at most {MAX_DICE} whole numbers from 1 to {MAX_DIE_VALUE}", "dice"
        )


@dataclass(frozen=True)
class Command:
    """One action as a door hands it over: who, what, with which idempotency key, seen at which seq."""

    battle_id: str
    participant_id: str | None
    action_type: str
    payload: dict[str, Any]
    action_id: str
    seen_seq: int | None = None
    dice: list[int] | None = None
    # The REST door's credential: the acting seat is the one holding this token, found in the
    # action's own read (no read before it; `participant_id` may be None).
    token_hash: str | None = None
    # The referee approved this entry (a damage request): it is applied, never queued again.
    approved: bool = False


@dataclass(frozen=True)
class Queued:
    """The action waits for the referee as this table request; nothing of the battle was written."""

    request: TableRequest


@dataclass
class Submitted:
    """The result: the new seq and the events as the actor may read them."""

    battle_id: str
    seq: int
    events: list[dict[str, Any]]
    duplicate: bool = False
    finished: bool = False
    draft: bool = False  # saved as a draft (TR-26): no seq, nothing for anyone else
    commit: Commit | None = None


def _dice_for(battle: Battle, seq: int, entered: list[int] | None) -> DiceSource:
    if battle.dice_mode == "physical":
        return EnteredDice(entered or [])
    return SeededDice(bytes.fromhex(battle.seed), battle.id, seq)


def _rule_error(exc: RuleError) -> Invalid | Forbidden:
    if isinstance(exc, NotAllowed):
        return Forbidden(exc.message, exc.field)
    return Invalid(exc.message, exc.field)


async def _existing(session: AsyncSession, battle_id: str, action_id: str) -> ActionLog | None:
    return await session.scalar(
        select(ActionLog).where(ActionLog.battle_id == battle_id, ActionLog.action_id == action_id)
    )


def _acting_seat(cmd: Command, row: Participant | None) -> Participant:
    """The seat as read for the command, if it may act in this battle (else Forbidden): the one
    holding the REST door's token, or the one a page named."""
    if cmd.token_hash is not None:
        return token_seat(row, cmd.battle_id)
    return checked_seat(row, cmd.battle_id, cmd.participant_id)


async def _context(
    platform: Platform, session: AsyncSession, cmd: Command, known: int
) -> _Checked | ActionLog:
    """What an action is checked against, in one read: the battle and its snapshot, the acting
    seat (checked: it may act here; a token is told before the battle), the table's changed
    options for a seat found by its token, and the state. A used action id answers its first
    row instead. The snapshot's state is left out at version `known`, whose state this process
    keeps (`KeptStates`)."""
    participant_id = None if cmd.participant_id is None else str(cmd.participant_id)
    asked = Asked(cmd.battle_id, cmd.action_id, participant_id, cmd.token_hash, known)
    found = await platform.store.read(session, asked)
    if cmd.token_hash is not None:  # an unknown token is told before an unknown battle
        _acting_seat(cmd, found.seat)
    if found.battle is None or found.snap is None:
        raise NotFound("no such battle", "battle")
    participant = _acting_seat(cmd, found.seat)
    previous = await _existing(session, cmd.battle_id, cmd.action_id) if found.used else None
    if previous is not None:
        if previous.actor_id != participant.id:
            raise Conflict("that action id was already used by someone else", "action_id")
        return previous
    options = found.options if cmd.token_hash is not None else NOT_READ
    state = _state_of(platform, found.battle, found.snap)
    return _Checked(found.battle, found.snap, participant, options, state, found.drafts)


async def _repeat(session: AsyncSession, platform: Platform, row: ActionLog) -> Submitted:
    """The first result of a repeated action id, as its author may read it now."""
    battle = await get_battle(session, row.battle_id)
    participant = await get_participant(session, row.battle_id, row.actor_id)
    state, _ = await load_state(session, row.battle_id, platform.rules)
    viewer = viewer_for(participant.id, participant.role, state)
    shown = visible_events(row.events, viewer, battle.status == "finished")
    return Submitted(row.battle_id, row.seq, shown, duplicate=True)


async def submit(platform: Platform, cmd: Command) -> Submitted | Queued:
    """Apply one action for one participant, or queue it where it waits for the referee. Raises a
    ServiceError subclass when nothing changed. Each answer is counted by system and outcome, with
    its time (the operator's metrics)."""
    started = time.perf_counter()
    try:
        result = await _submit(platform, cmd)
    except ServiceError as refused:
        metrics.action_done(_system_of(platform, cmd.battle_id), type(refused).__name__.lower(), started)
        raise
    except BaseException:
        metrics.action_done(_system_of(platform, cmd.battle_id), "error", started)
        raise
    if isinstance(result, Queued):
        metrics.action_done(_system_of(platform, cmd.battle_id), "queued", started)
        return result
    battle = result.commit.battle if result.commit is not None else None
    system = battle.system if battle is not None else _system_of(platform, cmd.battle_id)
    metrics.action_done(system, "duplicate" if result.duplicate else "applied", started)
    return result


def _system_of(platform: Platform, battle_id: str) -> str:
    """The battle's game system as this process last kept it ("unknown" when it keeps nothing)."""
    kept = platform.states.entry(battle_id)
    battle = kept.battle if kept is not None else None
    return battle.system if battle is not None else "unknown"


async def _submit(platform: Platform, cmd: Command) -> Submitted | Queued:
    if not isinstance(cmd.action_id, str) or not 1 <= len(cmd.action_id) <= 64:
        raise Invalid("every action needs an action_id of 1 to 64 characters", "action_id")
    _check_input(cmd.payload, cmd.seen_seq, cmd.dice)
    lock = _locks.setdefault(cmd.battle_id, asyncio.Lock())
    async with lock:
        renewed = False
        for attempt in range(5):
            try:
                result = await _submit_once(platform, cmd)
                break
            except (IntegrityError, StaleDataError):
                # Another process wrote this seq first. A repeat of that same action id returns its
                # result; otherwise try again on the new state unless the client pinned a seq.
                async with platform.db.reader() as session:
                    row = await _existing(session, cmd.battle_id, cmd.action_id)
                    if row is not None:
                        actor = cmd.participant_id
                        if cmd.token_hash is not None:
                            actor = await session.scalar(
                                select(Participant.id).where(Participant.token_hash == cmd.token_hash)
                            )
                        if row.actor_id != actor:
                            raise Conflict(
                                "that action id was already used by someone else", "action_id"
                            ) from None
                        return await _repeat(session, platform, row)
                await asyncio.sleep(0.01 * (attempt + 1))
            except DBAPIError as exc:
                # A pooled connection the database had dropped (a restart): the pool is renewed;
                # go again once on a fresh one — nothing was committed, or the action id finds it.
                if not exc.connection_invalidated or renewed:
                    raise
                renewed = True
        else:
            raise Conflict("too many concurrent actions; try again")
    return result


def _ships_named(value: Any, ships: dict[str, Any]) -> set[str]:
    """The ship ids a payload names, at any depth."""
    found: set[str] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str) and node in ships:
            found.add(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


async def _still_current(session: AsyncSession, state: BattleState, cmd: Command, seq: int) -> None:
    """Concurrent entries: an action made at an earlier seq still applies when what it depends on has
    not changed since — the same step, and none of the ships it names touched in between except by
    a change the rules say commutes with it (two damage entries on one target: `Game.commute`).
    Otherwise it is refused in the page's words, naming what moved on."""
    if cmd.seen_seq is None or cmd.seen_seq > seq:
        raise Stale("that page is from a battle state the server never had; reload", "seen_seq", seq=seq)
    since = await session.scalars(
        select(ActionLog)
        .where(ActionLog.battle_id == cmd.battle_id, ActionLog.seq > cmd.seen_seq)
        .order_by(ActionLog.seq)
    )
    named = _ships_named(cmd.payload, state.ships)
    for row in since:
        for event in row.events:
            if event.get("kind") in ("clock", "rewind"):
                what = (
                    event["text"].split(";")[0]
                    if event.get("kind") == "clock"
                    else "the referee went back in time"
                )
                raise Stale(f"the battle moved on: {what}; look again", "seen_seq", seq=seq)
        touched = named & ({e.get("ship") for e in row.events} | _ships_named(row.payload, state.ships))
        if touched and not state.game.commute(state, cmd.action_type, row.action_type, touched):
            names = ", ".join(sorted(state.ships[s].name for s in touched))
            raise Stale(
                f"{names} changed while you acted (action #{row.seq}); look again", "seen_seq", seq=seq
            )


def _state_of(platform: Platform, battle: Battle, snap: Snapshot) -> BattleState:
    """The state the action is checked against: the one kept from this process's last commit when
    the database left it out (the battle is still at that version), else the snapshot's, parsed."""
    if snap.state is not None:
        return platform.rules.load(snap.state)
    kept = platform.states.state(battle.id, battle.version, snap.seq)
    if kept is None:  # the version matched and the seq did not: never kept so; read it whole again
        platform.states.forget(battle.id)
        raise StaleDataError(f"battle {battle.id}: the kept state is not the snapshot's")
    return kept


def _resolve(state: BattleState, action: Action, source: DiceSource, entered: list[int] | None) -> Outcome:
    """Run the rules; a rule's refusal becomes the door's answer, a rule's crash a logged fault.
    A missing physical die is answered with every die the action may still need, by purpose."""
    try:
        return apply_action(state, action, source)
    except RuleError as exc:
        raise _rule_error(exc) from None
    except NeedRoll as need:
        plan = dice_plan(lambda dice: apply_action(state, action, dice), list(entered or []))
        raise RollNeeded(
            f"roll needed: 1d{need.sides} for {need.purpose}", "dice", needed=need.as_dict(), plan=plan
        ) from None
    except Exception:
        log.exception("rule fault in %s (payload %r)", action.type, action.payload)
        raise RuleFault(
            f"the rules could not resolve {action.type}; nothing changed (the fault is logged)", "action_type"
        ) from None


@dataclass
class _Checked:
    """What an action is resolved against: the battle and its snapshot (the write updates both),
    the acting seat (checked: it may act here), the table's options read with it (`NOT_READ`:
    none), the state at the snapshot's seq, and whether the seat has drafts saved (False: none
    found, or none read; the write is then guarded on there being none)."""

    battle: Battle
    snap: Snapshot
    participant: Participant
    options: Any
    state: BattleState
    drafts: bool = False


def _kept_context(platform: Platform, cmd: Command, kept: Kept) -> _Checked | None:
    """The action's context from what this process's last commit in the battle kept, without a
    read (so a plain action is one statement): only for a seat kept there, an action that
    is no draft or history action and was made at the kept seq, where the store keeps rows. The
    seat is checked as read then; the write's guard checks it, the battle's version, the
    table's options are still as kept and (in a game with drafts) that the seat has none saved:
    a draft saved since is folded in by the whole read that a failed guard leads to. The kept
    rows are copied: live frames still draw them."""
    if cmd.action_type in history.HISTORY_ACTIONS:
        return None
    if cmd.seen_seq is not None and cmd.seen_seq != kept.seq:
        return None
    seat = kept.seats.get(credential(cmd.token_hash, cmd.participant_id))
    rows = platform.store.from_kept(kept)
    if seat is None or rows is None or drafts.is_draft(kept.state, cmd.action_type, cmd.payload):
        return None
    if cmd.token_hash is not None and seat.options is NOT_READ:
        return None
    participant = _acting_seat(cmd, seat.row)
    return _Checked(rows[0], rows[1], participant, seat.options, kept.state)


async def _submit_once(platform: Platform, cmd: Command) -> Submitted | Queued:
    async with platform.unit() as work:
        session = work.session
        kept = platform.states.entry(cmd.battle_id)  # this process's last commit may spare the read
        try:
            checked = _kept_context(platform, cmd, kept) if kept is not None else None
            resolved = await _resolve_action(platform, session, cmd, checked) if checked is not None else None
        except ServiceError:
            resolved = None  # the whole read answers it: a repeated action id first, then in its own words
        # An entry that waits for the referee is read whole too: a repeated action id answers first.
        if isinstance(resolved, _Resolved):
            try:
                return await _write(platform, work, cmd, resolved)
            except GuardFailed:
                platform.states.forget(cmd.battle_id)  # something moved: read it all again
                kept = None
        read = await _context(platform, session, cmd, -1 if kept is None else kept.version)
        if isinstance(read, ActionLog):
            return await _repeat(session, platform, read)
        resolved = await _resolve_action(platform, session, cmd, read)
        if isinstance(resolved, Submitted):  # a draft
            return resolved
        if isinstance(resolved, _Waits):
            request = await waiting.queue(session, cmd, resolved.participant_id, resolved.seq)
            work.emit(TableChanged(cmd.battle_id))
            return Queued(request)
        return await _write(platform, work, cmd, resolved)


@dataclass
class _Resolved:
    """An action resolved and not yet written: its log row and the state it leaves."""

    checked: _Checked
    entry: Entry
    new_state: BattleState
    events: list[dict[str, Any]]


@dataclass(frozen=True)
class _Waits:
    """The entry waits for the referee (`waiting.py`): queued by this seat, at this seq."""

    participant_id: str
    seq: int


async def _resolve_action(
    platform: Platform, session: Any, cmd: Command, checked: _Checked
) -> _Resolved | _Waits | Submitted:
    """Resolve the action against its context: the log row and state to write, that it waits for
    the referee, or a draft's answer (a draft is saved here: it has no log row). Nothing of the
    battle is written yet."""
    rules = platform.rules
    battle, snap, participant, state = checked.battle, checked.snap, checked.participant, checked.state
    if waiting.may_wait(cmd, participant):
        options = (
            merged_options(battle.options, checked.options)
            if checked.options is not NOT_READ
            else await table_options(session, battle)
        )
        if waiting.waits(cmd, participant, options, state):
            return _Waits(participant.id, snap.seq)
    seq = snap.seq
    if cmd.seen_seq is not None and cmd.seen_seq != seq:
        await _still_current(session, state, cmd, seq)
    actor = viewer_for(participant.id, participant.role, state)
    new_seq = seq + 1
    stored_payload = dict(cmd.payload)
    rolled: list[dict[str, Any]] = []
    if cmd.action_type not in history.HISTORY_ACTIONS and drafts.is_draft(
        state, cmd.action_type, cmd.payload
    ):
        # A draft: checked by the rules, kept outside the log — no seq, no frame for anyone else.
        outcome = _resolve(state, Action(cmd.action_type, cmd.payload, actor), ReplayDice([]), None)
        ship_id = drafts.ship_of(state, cmd.action_type, cmd.payload)
        await drafts.save(session, cmd.battle_id, actor, cmd.action_type, cmd.payload, ship_id)
        shown = visible_events([e.model_dump(mode="json") for e in outcome.events], actor, state.finished)
        return Submitted(cmd.battle_id, seq, shown, draft=True)
    own = [
        {"type": d.action_type, "payload": d.payload}
        for d in (await drafts.rows(session, cmd.battle_id) if checked.drafts else [])
        if d.participant_id == participant.id
    ]
    if own and cmd.action_type not in history.HISTORY_ACTIONS:
        # The author's drafts join the state now, and the log keeps them for replay.
        state = drafts.fold(state, own, actor)
        stored_payload[drafts.FOLDED] = own
        await drafts.clear(session, cmd.battle_id, participant.id)
    if cmd.action_type in history.HISTORY_ACTIONS:
        spec = history.HISTORY_ACTIONS[cmd.action_type]
        try:
            state.game.admit(state, spec, actor)
            body = state.game.parse(spec, cmd.payload)
        except RuleError as exc:
            raise _rule_error(exc) from None
        new_state, events, stored_payload = await history.resolve(
            session, rules, battle, cmd.action_type, body, seq
        )
    else:
        source = _dice_for(battle, new_seq, cmd.dice)
        outcome = _resolve(state, Action(cmd.action_type, cmd.payload, actor), source, cmd.dice)
        if isinstance(source, EnteredDice) and source.values:
            raise Invalid(
                f"{len(source.values)} more dice entered than this action rolls ({source.used} needed)",
                "dice",
            )
        new_state, events, rolled = outcome.state, outcome.events, source.record
    event_dicts = [e.model_dump(mode="json") for e in events]
    entry = Entry(
        battle_id=cmd.battle_id,
        seq=new_seq,
        action_id=cmd.action_id,
        actor_id=participant.id,
        actor_role=participant.role,
        action_type=cmd.action_type,
        clock=state.game.system.short(state.clock),
        payload=stored_payload,
        dice=rolled,
        events=event_dicts,
        request_id=request_id(),
    )
    return _Resolved(checked, entry, new_state, event_dicts)


async def _write(platform: Platform, work: Unit, cmd: Command, resolved: _Resolved) -> Submitted:
    """Write a resolved action and answer it; what follows the commit is its `ActionCommitted`."""
    checked, new_state, event_dicts = resolved.checked, resolved.new_state, resolved.events
    battle, participant = checked.battle, checked.participant
    read = checked.options is not NOT_READ
    folds = cmd.action_type not in history.HISTORY_ACTIONS and drafts.drafts_possible(checked.state)
    guard = Guard(participant, options_read=read, options=checked.options if read else None, no_drafts=folds)
    written = await platform.store.write(
        work.session, Write(battle, checked.snap, resolved.entry, new_state, guard)
    )
    new_seq = written.row.seq
    after: Viewer = viewer_for(participant.id, participant.role, new_state)
    shown = visible_events(event_dicts, after, new_state.finished)
    seat = (credential(cmd.token_hash, cmd.participant_id), KeptSeat(participant, checked.options))
    commit = Commit(cmd.battle_id, new_seq, battle, new_state, written.row, seat)
    work.emit(ActionCommitted(commit, written.seen, written.hooked))
    return Submitted(cmd.battle_id, new_seq, shown, finished=new_state.finished, commit=commit)
