"""Reading a battle as one participant may see it — the only way pages, frames and REST read."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle, Participant
from app.rules import STANDARD, Rules
from app.rules.core import Event
from app.rules.generic.timing import paused, settings_of
from app.rules.state import BattleState
from app.rules.system import GameSystem
from app.rules.views import Viewer, battle_view, event_for, viewer_for
from app.services.clock import now as clock_now
from app.services.errors import Forbidden, Invalid
from app.services.history.replay import TakenBack, state_at, taken_back
from app.services.reading.clock_view import clock_view, read_run
from app.services.reading.maps import as_data, read_map
from app.services.store import drafts
from app.services.store.battles import load_state, participants


def viewer_of(participant: Participant, state: BattleState) -> Viewer:
    """The participant as the rules know them in this state (the ships they command now)."""
    return viewer_for(participant.id, participant.role, state)


@dataclass
class LogEntry:
    seq: int
    actor: str
    action_type: str
    clock: str
    at: datetime
    events: list[dict[str, Any]]
    payload: dict[str, Any] | None  # the referee's eyes only
    hidden: bool = False  # an action this viewer may read nothing of: "a hidden action" in its place
    taken_back: TakenBack | None = None  # an undo or rewind took it back (and no redo put it back)

    @property
    def turn(self) -> int | None:
        """The turn it was made in (the log's turn stepper shows one turn at a time)."""
        return GameSystem.turn_of(self.clock)


def visible_events(raw: list[dict[str, Any]], viewer: Viewer, finished: bool) -> list[dict[str, Any]]:
    shown = []
    for item in raw:
        event = event_for(Event.model_validate(item), viewer, finished)
        if event is not None:
            shown.append(event.model_dump(mode="json"))
    return shown


async def visible_log(
    session: AsyncSession,
    battle: Battle,
    viewer: Viewer,
    *,
    since: int = 0,
    until: int | None = None,
    limit: int | None = None,
    names: dict[str, str] | None = None,
    marked: bool = False,
) -> list[LogEntry]:
    """Log entries after `since` (up to `until`), each with only the events this viewer may read;
    `marked`: each says whether an undo or rewind took it back (a page's log)."""
    query = select(ActionLog).where(ActionLog.battle_id == battle.id, ActionLog.seq > since)
    if until is not None:
        query = query.where(ActionLog.seq <= until)
    if limit is not None:
        query = query.order_by(ActionLog.seq.desc()).limit(limit)
    else:
        query = query.order_by(ActionLog.seq)
    rows = list(await session.scalars(query))
    rows.sort(key=lambda r: r.seq)
    if names is None:
        names = {p.id: p.name for p in await participants(session, battle.id)}
    last = until if until is not None else battle.seq
    taken = await taken_back(session, battle.id, last, rows[0].seq - 1 if rows else last) if marked else {}
    return log_entries(rows, battle, viewer, names, taken)


def log_entries(
    rows: list[ActionLog],
    battle: Battle,
    viewer: Viewer,
    names: dict[str, str],
    taken: Mapping[int, TakenBack] | None = None,
) -> list[LogEntry]:
    """Log rows as this viewer may read them (no database: the hub reads the rows once for all);
    `taken`: the actions an undo or rewind took back, marked so."""
    finished = battle.status == "finished"
    entries = []
    for row in rows:
        events = visible_events(row.events, viewer, finished)
        hidden = bool(row.events) and not events  # keeps its number, says nothing of who or what
        entries.append(
            LogEntry(
                seq=row.seq,
                actor="" if hidden else names.get(row.actor_id or "", "system"),
                action_type="hidden" if hidden else row.action_type,
                clock=row.clock,
                at=row.created_at,
                events=events,
                payload=row.payload if viewer.is_referee else None,
                hidden=hidden,
                taken_back=(taken or {}).get(row.seq),
            )
        )
    return entries


def turn_bar(
    state: BattleState,
    viewer: Viewer,
    people: list[Participant],
    *,
    live: bool = True,
    step_since: datetime | None = None,
    clock: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The sticky bar: the step sequence with the current step, who the step waits on (✓ for those
    done, since when the others are pending), the turn order where a ruleset keeps one, and "your
    move" — only for a viewer the step waits on, never in a replay or after the end."""
    game = state.game
    steps = [
        {"key": s.key, "label": s.label, "current": s.key == state.clock.step} for s in game.system.steps
    ]
    step = game.step(state.clock)
    awaited = game.seats(game.awaited(state), [p.id for p in people if p.role == "referee" and p.active])
    later = set(game.later(state))  # their turn has not come: neither pending nor done
    commanders = {ship.owner for ship in state.ships.values() if ship.owner and not game.gone(ship)}
    now = datetime.now(UTC)
    since = step_since.replace(tzinfo=step_since.tzinfo or UTC) if step_since else None
    table = [
        {
            "id": p.id,
            "name": p.name,
            "done": p.id not in awaited and p.id not in later,
            "later": p.id in later,
            "pending_s": int((now - since).total_seconds()) if since and p.id in awaited else None,
        }
        for p in people
        if p.active and (p.id in commanders or p.id in awaited)
    ]
    waiting = [row["name"] for row in table if row["id"] in awaited]
    names = {p.id: p.name for p in people}
    order = [
        {
            "ship": sid,
            "name": state.ships[sid].name,
            "captain": names.get(state.ships[sid].owner or "", ""),
            "now": i == 0,
        }
        for i, sid in enumerate(game.turn_order(state) or [])
        if sid in state.ships
    ]
    mine = live and not state.finished and viewer.participant_id in awaited
    return {
        "clock": game.system.describe(state.clock),
        "step_title": step.title(state.clock),
        "step_label": step.label,
        "repeats": step.repeats,
        "turn": state.clock.turn,
        "impulse": state.clock.impulse,
        "steps": steps,
        "your_move": mine,
        "waiting_on": waiting,
        "waiting_for": game.waiting_for(state),
        "table": table,
        "order": order,
        "acts": step.acts,
        "done": viewer.participant_id in state.ready,
        "finished": state.finished,
        "paused": paused(state),  # the referee paused the battle (every clock stops)
        "clocks": clock,  # the battle clock and each seat's time (reading/clock_view.py), None without one
    }


async def step_began(session: AsyncSession, battle_id: str, seq: int) -> datetime | None:
    """When the current step began: the time of the latest action up to `seq` that moved the clock."""
    rows = await session.scalars(
        select(ActionLog)
        .where(ActionLog.battle_id == battle_id, ActionLog.seq <= seq)
        .order_by(ActionLog.seq.desc())
        .limit(STEP_LOOKBACK)
    )
    for row in rows:
        if moves_clock(row.events):
            return row.created_at
    return None


def moves_clock(events: list[dict[str, Any]]) -> bool:
    """Whether a log row's events moved the clock (its time is when the next step began)."""
    return any(e.get("kind") == "clock" for e in events)


STEP_LOOKBACK = 200  # actions looked back through for the step's start (older: unknown)


@functools.cache
def payload_schema(model: type[BaseModel]) -> dict[str, Any]:
    """An action's payload schema, worked out once per model (pydantic builds it anew each call,
    and every frame and REST read lists the offers). Callers only serialise it."""
    return model.model_json_schema()


def offers_for(state: BattleState, viewer: Viewer) -> list[dict[str, Any]]:
    """What this viewer may submit now, each action with its ships and payload schema: the rules'
    own gate decides, so pages and bots are told what is legal instead of guessing."""
    return [
        {
            "type": o.action,
            "summary": o.summary,
            "ships": list(o.ships),
            "payload_schema": payload_schema(state.game.actions[o.action].payload),
        }
        for o in state.game.offers(state, viewer)
    ]


async def battle_for(
    session: AsyncSession, battle: Battle, participant: Participant, rules: Rules = STANDARD
) -> dict[str, Any]:
    """Everything a participant may see of a battle, as plain data (REST returns it as JSON), with
    the actions they may submit now."""
    data, viewer, _, state = await read_battle(session, battle, participant, rules=rules)
    data["may_submit"] = offers_for(state, viewer)
    # the tactical map: counters (hex, facing, speed), arcs and ranges as this viewer may see them
    model = await read_map(session, battle, data["state"], data["seq"], viewer, all_ranges=True, rules=rules)
    data["map"] = as_data(model)
    return data


async def seen_as(session: AsyncSession, battle_id: str, looker: Participant, seat_id: str) -> Participant:
    """The seat whose view the referee asks to see (the replay's perspective picker): what that seat
    could see, and no more, at each step. Only the referee sees everything already, so only the
    referee may look through another seat's eyes; a seat of another battle, or none, is refused."""
    if seat_id == looker.id:
        return looker
    if looker.role != "referee":
        raise Forbidden("only the referee sees the battle as another seat", "as")
    seat = await session.get(Participant, seat_id)
    if seat is None or seat.battle_id != battle_id or not seat.active:
        raise Invalid(f"as: no seat {seat_id!r} in this battle", "as")
    return seat


async def read_battle(
    session: AsyncSession,
    battle: Battle,
    participant: Participant,
    at_seq: int | None = None,
    rules: Rules = STANDARD,
) -> tuple[dict[str, Any], Viewer, list[Participant], BattleState]:
    """The viewer's data, the viewer, the battle's participants and the state, from one snapshot
    read — or, for a replay, from the log rebuilt up to `at_seq`."""
    if at_seq is None:
        state, seq = await load_state(session, battle.id, rules)
    else:
        state, seq = await state_at(session, battle, at_seq, rules), at_seq
    viewer = viewer_of(participant, state)
    if at_seq is None and drafts.drafts_possible(state):
        # the drafts this viewer may read (their own; the referee all), folded in
        state = with_drafts(state, await drafts.rows(session, battle.id), viewer)
    people = await participants(session, battle.id)
    since = await step_began(session, battle.id, seq)
    run = await read_run(session, battle.id) if at_seq is None and settings_of(state) is not None else None
    data = view_data(
        battle, state, seq, participant, viewer, people, live=at_seq is None, step_since=since, clock_run=run
    )
    return data, viewer, people, state


def with_drafts(state: BattleState, rows: list[Any], viewer: Viewer) -> BattleState:
    """The state as this viewer's page shows it: with the saved drafts they may read."""
    visible = drafts.mine(rows, viewer)
    return drafts.fold(state, visible, viewer) if visible else state


def view_data(
    battle: Battle,
    state: BattleState,
    seq: int,
    participant: Participant,
    viewer: Viewer,
    people: list[Participant],
    *,
    live: bool = True,
    step_since: datetime | None = None,
    clock_run: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The viewer's data from what was read (no database)."""
    clock = clock_view(state, clock_run, clock_now(), people) if live else None  # none in a replay
    return {
        "id": battle.id,
        "name": battle.name,
        "system": battle.system,
        "status": battle.status,
        "dice_mode": battle.dice_mode,
        "seq": seq,
        "seed_sha256": battle.seed_hash,
        "seed": battle.seed if battle.status == "finished" else None,
        "me": {
            "id": participant.id,
            "name": participant.name,
            "role": participant.role,
            "ships": sorted(viewer.ships),
        },
        "participants": [{"id": p.id, "name": p.name, "role": p.role} for p in people if p.active],
        "turn_bar": turn_bar(state, viewer, people, live=live, step_since=step_since, clock=clock),
        "state": battle_view(state, viewer),
    }


CATCH_UP_LINES = 3  # sentences shown in "since your last visit"


async def catch_up(
    session: AsyncSession, battle: Battle, viewer: Any, since: int | None, seq: int
) -> dict[str, Any] | None:
    """The events this viewer may see after `since` up to `seq`, folded: counts and the first lines."""
    if since is None or since >= seq:
        return None
    # Like the log: an action whose events this viewer may not read is not there for them at all.
    entries = [e for e in await visible_log(session, battle, viewer, since=since, until=seq) if e.events]
    events = [e for entry in entries for e in entry.events]
    if not entries:
        return None
    return {
        "since": since,
        "actions": len(entries),
        "events": len(events),
        "lines": [e["text"] for e in events[:CATCH_UP_LINES]],
        "more": max(0, len(events) - CATCH_UP_LINES),
        "first_seq": entries[0].seq,
    }
