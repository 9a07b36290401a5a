"""At the table: each seat's status — last seen on the page, the last seq looked at or
acted on (catch-up), the webhook they opted into — and the table's options a referee may change."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import case, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database, existing
from app.models import Battle, Participant, SeatStatus, TableSettings
from app.services.bus import TableChanged, Unit
from app.services.errors import Forbidden, Invalid


class WithDatabase(Protocol):
    """What the seat services use of the platform: its database (the store stands below it), and
    a unit of work whose events follow its commit."""

    db: Database

    def transaction(self) -> AbstractAsyncContextManager[Unit]: ...


ASKERS = ("player", "bot")  # the roles that ask the referee (undo, damage that waits)
DAMAGE = "damage.apply"  # the action whose entry by an asker may wait for the referee

TABLE_DEFAULTS: dict[str, Any] = {
    "spectators_chat": False,  # spectators may write public chat
    "damage_needs_approval": False,  # a player's damage on an enemy ship waits for the referee
    "step_deadline_minutes": None,  # the referee is told when a step waits longer than this
}


def utcnow() -> datetime:
    return datetime.now(UTC)


def aware(value: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone; they were written in UTC."""
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


async def table_options(session: AsyncSession, battle: Battle) -> dict[str, Any]:
    """The table's options: defaults, then those given when the battle was created, then the
    referee's later changes."""
    row = await session.get(TableSettings, battle.id)
    return merged_options(battle.options, row.options if row is not None else None)


def merged_options(created: dict[str, Any] | None, changed: dict[str, Any] | None) -> dict[str, Any]:
    """The defaults, then the options given at creation, then the referee's changes."""
    options = dict(TABLE_DEFAULTS)
    options.update({k: v for k, v in (created or {}).items() if k in TABLE_DEFAULTS})
    options.update({k: v for k, v in (changed or {}).items() if k in TABLE_DEFAULTS})
    return options


def clean_options(changes: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in TABLE_DEFAULTS:
            raise Invalid(f"unknown table option {key!r}; known: {', '.join(TABLE_DEFAULTS)}", key)
        if key == "step_deadline_minutes":
            if value in (None, "", 0):
                out[key] = None
                continue
            if type(value) is not int or not 1 <= value <= 60 * 24 * 14:
                raise Invalid("a step deadline is a whole number of minutes (1 to 20160)", key)
            out[key] = value
        else:
            if type(value) is not bool:
                raise Invalid(f"{key} is true or false", key)
            out[key] = value
    return out


async def set_table_options(
    platform: WithDatabase, battle_id: str, referee: Participant, changes: dict[str, Any]
) -> dict[str, Any]:
    if referee.role != "referee" or referee.battle_id != battle_id:
        raise Forbidden("only the referee changes the table's options")
    cleaned = clean_options(changes)
    async with platform.transaction() as work:
        session = work.session
        row = await session.get(TableSettings, battle_id)
        if row is None:
            row = TableSettings(battle_id=battle_id, options={})
            session.add(row)
        row.options = {**row.options, **cleaned}
        battle = await existing(session, Battle, battle_id)
        work.emit(TableChanged(battle_id))
        return await table_options(session, battle)


async def status_of(session: AsyncSession, participant: Participant) -> SeatStatus:
    """The seat's status row, made if missing (flushed by the caller's transaction)."""
    row = await session.get(SeatStatus, participant.id)
    if row is None:
        row = SeatStatus(participant_id=participant.id, battle_id=participant.battle_id, awaited=False)
        session.add(row)
    return row


async def read_status(session: AsyncSession, participant_id: str) -> SeatStatus | None:
    return await session.get(SeatStatus, participant_id)


async def statuses(session: AsyncSession, battle_id: str) -> dict[str, SeatStatus]:
    rows = await session.scalars(select(SeatStatus).where(SeatStatus.battle_id == battle_id))
    return {r.participant_id: r for r in rows}


async def mark_seen(platform: WithDatabase, participant_id: str, seq: int | None = None) -> int | None:
    """The seat was on the page (a page load, a socket hello or farewell, an action): record when,
    and the seq they have now seen (None: leave it). Answers the seq they had seen before."""
    for _attempt in range(3):
        try:
            async with platform.db.transaction() as session:
                participant = await session.get(Participant, participant_id)
                if participant is None:
                    return None
                row = await status_of(session, participant)
                before = row.seen_seq
                row.last_seen_at = utcnow()
                if seq is not None:  # seqs only grow (a rewind is an action too): keep the highest
                    row.seen_seq = seq if before is None else max(before, seq)
                return before
        except IntegrityError:  # two first visits at once: the other made the row; go again
            continue
    return None


async def seen_at(session: AsyncSession, participant_id: str, seq: int) -> bool:
    """`mark_seen` as one UPDATE inside the caller's transaction (after every action): False when
    the seat has no status row yet (then `mark_seen` makes it)."""
    done = await session.execute(
        update(SeatStatus)
        .where(SeatStatus.participant_id == participant_id)
        .values(
            last_seen_at=utcnow(),
            seen_seq=case(
                (or_(SeatStatus.seen_seq.is_(None), SeatStatus.seen_seq < seq), seq),
                else_=SeatStatus.seen_seq,
            ),
        )
        .execution_options(synchronize_session=False)
    )
    return bool(done.rowcount)


def recently_seen(row: SeatStatus | None, within_seconds: float) -> bool:
    seen = aware(row.last_seen_at) if row is not None else None
    return seen is not None and (utcnow() - seen).total_seconds() < within_seconds
