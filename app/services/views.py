"""Reading a battle as one participant may see it — the only way pages, frames and REST read."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle, Participant
from app.rules.clock import SEQUENCES, STEP_LABELS, describe
from app.rules.core import Event
from app.rules.state import BattleState
from app.rules.views import Viewer, battle_view, event_for
from app.services.battles import get_participant, load_state, participants


def viewer_of(participant: Participant, state: BattleState) -> Viewer:
    ships = frozenset(sid for sid, ship in state.ships.items() if ship.owner == participant.id)
    return Viewer(participant.id, participant.role, ships)


@dataclass
class LogEntry:
    seq: int
    actor: str
    action_type: str
    clock: str
    at: datetime
    events: list[dict[str, Any]]
    payload: dict[str, Any] | None  # the referee's eyes only


def visible_events(raw: list[dict[str, Any]], viewer: Viewer, finished: bool) -> list[dict[str, Any]]:
    shown = []
    for item in raw:
        event = event_for(Event.model_validate(item), None, viewer, finished)
        if event is not None:
            shown.append(event.model_dump(mode="json"))
    return shown


async def answer_events(
    session: AsyncSession, battle: Battle, participant_id: str | None, raw: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The events of an action as the one who submitted it may read them (an action can cause
    events other players own, e.g. a clock advance running every ship's step hooks)."""
    participant = await get_participant(session, battle.id, participant_id)
    state, _ = await load_state(session, battle.id)
    return visible_events(raw, viewer_of(participant, state), battle.status == "finished")


async def visible_log(
    session: AsyncSession,
    battle: Battle,
    viewer: Viewer,
    *,
    since: int = 0,
    until: int | None = None,
    limit: int | None = None,
    names: dict[str, str] | None = None,
) -> list[LogEntry]:
    """Log entries after `since` (up to `until`), each with only the events this viewer may read."""
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
    return log_entries(rows, battle, viewer, names)


def log_entries(
    rows: list[ActionLog], battle: Battle, viewer: Viewer, names: dict[str, str]
) -> list[LogEntry]:
    """Log rows as this viewer may read them (no database: the hub reads the rows once for all)."""
    finished = battle.status == "finished"
    entries = []
    for row in rows:
        events = visible_events(row.events, viewer, finished)
        entries.append(
            LogEntry(
                seq=row.seq,
                actor=names.get(row.actor_id or "", "system"),
                action_type=row.action_type,
                clock=row.clock,
                at=row.created_at,
                events=events,
                payload=row.payload if viewer.is_referee else None,
            )
        )
    return entries


def turn_bar(battle: Battle, state: BattleState, viewer: Viewer, people: list[Participant]) -> dict[str, Any]:
    """The sticky bar: the step sequence with the current step, and who the battle waits on."""
    steps = [
        {"key": s, "label": STEP_LABELS.get(s, s), "current": s == state.clock.step}
        for s in SEQUENCES[state.system]
    ]
    commanders = {ship.owner for ship in state.ships.values() if ship.owner and not ship.destroyed}
    waiting = [p.name for p in people if p.id in commanders and p.active]
    mine = viewer.is_referee or bool(viewer.ships)
    return {
        "clock": describe(state.clock),
        "turn": state.clock.turn,
        "impulse": state.clock.impulse,
        "steps": steps,
        "your_move": mine and not state.finished,
        "waiting_on": waiting,
        "finished": state.finished,
    }


async def battle_for(session: AsyncSession, battle: Battle, participant: Participant) -> dict[str, Any]:
    """Everything a participant may see of a battle, as plain data (REST returns it as JSON)."""
    data, _, _ = await read_battle(session, battle, participant)
    return data


async def read_battle(
    session: AsyncSession, battle: Battle, participant: Participant, at_seq: int | None = None
) -> tuple[dict[str, Any], Viewer, list[Participant]]:
    """The viewer's data, the viewer, and the battle's participants, from one snapshot read — or,
    for a replay, from the log rebuilt up to `at_seq`."""
    if at_seq is None:
        state, seq = await load_state(session, battle.id)
    else:
        from app.services.actions import state_at

        state, seq = await state_at(session, battle, at_seq), at_seq
    viewer = viewer_of(participant, state)
    people = await participants(session, battle.id)
    return view_data(battle, state, seq, participant, viewer, people), viewer, people


def view_data(
    battle: Battle,
    state: BattleState,
    seq: int,
    participant: Participant,
    viewer: Viewer,
    people: list[Participant],
) -> dict[str, Any]:
    """The viewer's data from what was read (no database)."""
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
        "turn_bar": turn_bar(battle, state, viewer, people),
        "state": battle_view(state, viewer),
    }
