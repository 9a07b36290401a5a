"""The action store on SQLite (the embedded default): the ORM reads and writes an action's rows,
inside the action's transaction. The battle's version column guards the write, as on PostgreSQL
(the ORM's version counter raises `StaleDataError`; submit tries again); SQLite runs one writer at
a time, so the seat, the table's options and the seat's drafts cannot move under it. Nothing is
kept between actions: every action reads its rows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle, Draft, Participant, SeatStatus, Snapshot, TableSettings
from app.services.kept import Kept
from app.services.store.action_store import Asked, Found, Write, Written
from app.services.store.seats import seen_at


class SqliteActionStore:
    """`ActionStore` through SQLAlchemy's ORM."""

    async def read(self, session: AsyncSession, asked: Asked) -> Found:
        battle_id, options, seat, participant_id = asked.battle_id, None, None, asked.participant_id
        if asked.token_hash is not None:
            seat = await session.scalar(select(Participant).where(Participant.token_hash == asked.token_hash))
            participant_id = seat.id if seat is not None else None
            options = await session.scalar(
                select(TableSettings.options).where(TableSettings.battle_id == battle_id)
            )
        used = (
            select(ActionLog.id)
            .where(ActionLog.battle_id == battle_id, ActionLog.action_id == asked.action_id)
            .limit(1)
            .scalar_subquery()
        )
        drafts = (
            select(Draft.ship_id)
            .where(Draft.battle_id == battle_id, Draft.participant_id == (participant_id or ""))
            .limit(1)
            .scalar_subquery()
        )
        found = (
            await session.execute(
                select(Battle, Snapshot, Participant, used, drafts)
                .join(Snapshot, Snapshot.battle_id == Battle.id)
                .outerjoin(Participant, Participant.id == (participant_id or ""))
                .where(Battle.id == battle_id)
            )
        ).first()
        if found is None:
            return Found(None, None, seat, False)
        return Found(found[0], found[1], found[2], found[3] is not None, options, found[4] is not None)

    def from_kept(self, kept: Kept) -> tuple[Battle, Snapshot] | None:
        return None  # the ORM's rows belong to their session: every action reads its own

    async def write(self, session: AsyncSession, w: Write) -> Written:
        battle, snap, entry, state = w.battle, w.snap, w.entry, w.state
        row = ActionLog(**entry.columns())
        session.add(row)
        snap.seq, snap.state = entry.seq, state.model_dump(mode="json")
        battle.seq, battle.turn, battle.step = entry.seq, state.clock.turn, state.clock.step
        battle.status = "finished" if state.finished else battle.status
        await session.flush()  # the version counter guards the battle's row here
        seen = await seen_at(session, entry.actor_id, entry.seq)
        hooked = await session.scalar(
            select(SeatStatus.participant_id)
            .where(SeatStatus.battle_id == entry.battle_id, SeatStatus.webhook_url.is_not(None))
            .limit(1)
        )
        return Written(row, seen, hooked is not None)

    async def seat_by_token(
        self, session: AsyncSession, token_hash: str
    ) -> tuple[Participant, dict[str, Any] | None, dict[str, Any] | None] | None:
        row = (
            await session.execute(
                select(Participant, Battle.options, TableSettings.options)
                .join(Battle, Battle.id == Participant.battle_id)
                .outerjoin(TableSettings, TableSettings.battle_id == Battle.id)
                .where(Participant.token_hash == token_hash)
            )
        ).first()
        return None if row is None else (row[0], row[1], row[2])
