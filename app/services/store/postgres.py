"""The action store on PostgreSQL: each read and the write is one statement on the session's bare
asyncpg connection, inside the action's unit of work (SQLAlchemy's ORM loading and unit of work
for the same rows cost several times the CPU of the statements themselves).

The write is a data-modifying CTE whose battle UPDATE is guarded by the version the action was
checked against, so a writer in another process that got there first makes it write nothing
(`GuardFailed`, a `StaleDataError`: submit tries again), as the ORM's version counter does; it is
guarded too by the acting seat still holding its token, role and place, and by the table's options
as read, so a write checked against kept rows (`KeptStates`) is as safe as one checked against rows
read just before. It also records that the actor was just active and whether any seat of the
battle wants a webhook (the notifier's question), so a plain action is one statement.

A plain action is two statements and no BEGIN/COMMIT: the read and the write (atomic by itself);
once its seat is kept, the write alone. Statements on the bare driver before any through
SQLAlchemy run in autocommit; an action that changes other rows too (a draft cleared, a history
action's reads) has SQLAlchemy open the transaction first, and the write joins it, so they commit
together (`Database.unit`).

Statements are written with named parameters (`:battle_id`) and compiled once to asyncpg's
positional ones (`Statement`). Rows come back as the models' own objects, built with their
constructors and in no session: nothing writes them back by themselves.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import asyncpg
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle, Participant, Snapshot, now
from app.services.kept import Kept
from app.services.store.action_store import Asked, Found, GuardFailed, Write, Written

BATTLE_COLUMNS = tuple(c.name for c in Battle.__table__.columns)
SEAT_COLUMNS = tuple(c.name for c in Participant.__table__.columns)

_NAME = re.compile(r"(?<![:\w]):([a-z_][a-z0-9_]*)")


@dataclass(frozen=True)
class Statement:
    """A statement written with named parameters, compiled once to asyncpg's `$n`."""

    sql: str
    names: tuple[str, ...]

    @classmethod
    def of(cls, named: str) -> Statement:
        names: list[str] = []

        def number(match: re.Match[str]) -> str:
            if match[1] not in names:
                names.append(match[1])
            return f"${names.index(match[1]) + 1}"

        return cls(_NAME.sub(number, named), tuple(names))

    def args(self, values: Mapping[str, Any]) -> list[Any]:
        """The positional arguments; a missing or unknown name is a programming error, said so."""
        unknown = set(values) - set(self.names)
        if unknown:
            raise TypeError(f"unknown parameters {sorted(unknown)}")
        return [values[name] for name in self.names]


WRITE = Statement.of("""
WITH battle AS (
    UPDATE battles SET seq = :seq, turn = :turn, step = :step, status = :status, updated_at = :at,
                       version = version + 1
    WHERE id = :battle_id AND version = :version
      AND EXISTS (SELECT 1 FROM participants
                  WHERE id = :actor_id AND battle_id = :battle_id AND role = :actor_role
                    AND token_hash = :token_hash AND active)
      AND (NOT :options_read OR (SELECT options FROM table_settings WHERE battle_id = :battle_id)
                                IS NOT DISTINCT FROM :options::jsonb)
      AND (NOT :no_drafts OR NOT EXISTS (SELECT 1 FROM drafts
                                         WHERE battle_id = :battle_id AND participant_id = :actor_id))
    RETURNING id
), snapshot AS (
    UPDATE snapshots SET seq = :seq, state = :state WHERE battle_id = (SELECT id FROM battle)
), logged AS (
    INSERT INTO action_log (battle_id, seq, action_id, actor_id, actor_role, action_type, clock,
                            payload, dice, events, created_at, request_id)
    SELECT id, :seq, :action_id, :actor_id, :actor_role, :action_type, :clock, :payload, :dice,
           :events, :at, :request_id
    FROM battle
    RETURNING id
), seen AS (
    UPDATE seat_status SET last_seen_at = :at, seen_seq = GREATEST(COALESCE(seen_seq, :seq), :seq)
    WHERE participant_id = :actor_id AND EXISTS (SELECT 1 FROM battle)
    RETURNING 1
)
SELECT (SELECT id FROM logged) AS id, (SELECT count(*) FROM seen) AS seen,
       EXISTS (SELECT 1 FROM seat_status WHERE battle_id = :battle_id AND webhook_url IS NOT NULL) AS hooked
""")

# `:known`: the battle version whose state this process keeps (`KeptStates`; -1: none). At that
# version the snapshot's state is not sent (NULL): the kept one is the same, already parsed.
# `drafts`: whether the seat has drafts saved here (the write path reads them only then).
_BATTLE_AND_SNAPSHOT = f"""
{", ".join(f"b.{c} AS b_{c}" for c in BATTLE_COLUMNS)},
s.seq AS s_seq, CASE WHEN b.version = :known THEN NULL ELSE s.state END AS s_state,
{", ".join(f"p.{c} AS p_{c}" for c in SEAT_COLUMNS)},
EXISTS (SELECT 1 FROM drafts d WHERE d.battle_id = b.id AND d.participant_id = p.id) AS drafts"""

READ_BY_ID = Statement.of(f"""
SELECT {_BATTLE_AND_SNAPSHOT},
       EXISTS (SELECT 1 FROM action_log WHERE battle_id = b.id AND action_id = :action_id) AS used
FROM battles b
JOIN snapshots s ON s.battle_id = b.id
LEFT JOIN participants p ON p.id = :participant_id
WHERE b.id = :battle_id
""")

# The REST door's variant: the seat is the one holding the bearer token (any battle: the caller
# tells a token of another battle apart), and the table's options come along (whether a player's
# damage waits for the referee). Left joins from one row, so an unknown token is told before an
# unknown battle, as the door did when it read the seat first.
READ_BY_TOKEN = Statement.of(f"""
SELECT {_BATTLE_AND_SNAPSHOT}, t.options AS t_options,
       EXISTS (SELECT 1 FROM action_log WHERE battle_id = :battle_id AND action_id = :action_id) AS used
FROM (SELECT 1) AS one
LEFT JOIN participants p ON p.token_hash = :token_hash
LEFT JOIN battles b ON b.id = :battle_id
LEFT JOIN snapshots s ON s.battle_id = b.id
LEFT JOIN table_settings t ON t.battle_id = b.id
""")

SEAT_BY_TOKEN = Statement.of(f"""
SELECT {", ".join(f"p.{c} AS p_{c}" for c in SEAT_COLUMNS)},
       b.options AS battle_options, t.options AS table_options
FROM participants p
JOIN battles b ON b.id = p.battle_id
LEFT JOIN table_settings t ON t.battle_id = b.id
WHERE p.token_hash = :token_hash
""")


def _battle(row: Mapping[str, Any]) -> Battle:
    return Battle(**{c: row[f"b_{c}"] for c in BATTLE_COLUMNS})


def _seat(row: Mapping[str, Any]) -> Participant | None:
    return Participant(**{c: row[f"p_{c}"] for c in SEAT_COLUMNS}) if row["p_id"] is not None else None


async def bare_connection(session: AsyncSession) -> Any:
    """The session's own asyncpg connection (inside its transaction, if one is open). The action's
    unit of work puts it in the session's `info` from the start (`Database.unit`); another session
    has it fetched once. A failed statement forgets it."""
    if "driver" not in session.info:
        connection = await session.connection()
        session.info["driver"] = (await connection.get_raw_connection()).driver_connection
    return session.info["driver"]


def connection_lost(exc: BaseException) -> bool:
    """Whether a bare-driver error means the connection is gone (then SQLAlchemy must drop it)."""
    if isinstance(exc, asyncpg.InternalClientError):  # left mid-operation by a lost server
        return True
    return isinstance(exc, asyncpg.PostgresConnectionError | asyncpg.InterfaceError | OSError)


async def fetch(session: AsyncSession, statement: Statement, **values: Any) -> Any:
    """One statement on the session's asyncpg connection, its errors told the way SQLAlchemy tells
    them: a lost connection is invalidated in the pool and raised as an `OperationalError` with
    `connection_invalidated` (submit goes again once, the doors answer 503); a statement that ran
    past the statement timeout an `OperationalError` (503); a unique violation an `IntegrityError`
    (another writer got there first)."""
    driver = await bare_connection(session)
    try:
        return await driver.fetchrow(statement.sql, *statement.args(values))
    except asyncpg.UniqueViolationError as exc:
        raise IntegrityError(statement.sql, None, exc) from exc
    except asyncpg.QueryCanceledError as exc:  # the statement timeout: the doors answer 503
        raise OperationalError(statement.sql, None, exc) from exc
    except Exception as exc:
        if not connection_lost(exc):
            raise
        session.info.pop("driver", None)
        connection = await session.connection()
        await connection.invalidate(exc)
        raise OperationalError(statement.sql, None, exc, connection_invalidated=True) from exc


class PostgresActionStore:
    """`ActionStore` on PostgreSQL's bare driver."""

    async def read(self, session: AsyncSession, asked: Asked) -> Found:
        wanted = {"battle_id": asked.battle_id, "action_id": asked.action_id, "known": asked.known}
        if asked.token_hash is not None:
            row = await fetch(session, READ_BY_TOKEN, token_hash=asked.token_hash, **wanted)
        else:
            row = await fetch(session, READ_BY_ID, participant_id=asked.participant_id or "", **wanted)
        if row is None or row["b_id"] is None:
            return Found(None, None, _seat(row) if row is not None else None, False)
        battle = _battle(row)
        snap = Snapshot(battle_id=battle.id, seq=row["s_seq"], state=row["s_state"])
        options = row["t_options"] if asked.token_hash is not None else None
        return Found(battle, snap, _seat(row), bool(row["used"]), options, bool(row["drafts"]))

    def from_kept(self, kept: Kept) -> tuple[Battle, Snapshot] | None:
        if kept.battle is None:
            return None
        battle = Battle(
            **{c: getattr(kept.battle, c) for c in BATTLE_COLUMNS}
        )  # live frames draw the kept one
        return battle, Snapshot(battle_id=battle.id, seq=kept.seq, state=None)

    async def write(self, session: AsyncSession, w: Write) -> Written:
        """On PostgreSQL `snap.state` is left as read: the state is written as pydantic serialises
        it to JSON, in one step (a fifth of the dict-then-text cost)."""
        battle, snap, entry, state, guard = w.battle, w.snap, w.entry, w.state, w.guard
        if session.new or session.dirty or session.deleted:
            await session.flush()  # what else the action changed commits with it, not after it
        at = now()
        status = "finished" if state.finished else battle.status
        found = await fetch(
            session,
            WRITE,
            battle_id=battle.id,
            version=battle.version,
            seq=entry.seq,
            turn=state.clock.turn,
            step=state.clock.step,
            status=status,
            at=at,
            state=state.model_dump_json(),
            action_id=entry.action_id,
            actor_id=entry.actor_id,
            actor_role=entry.actor_role,
            action_type=entry.action_type,
            clock=entry.clock,
            payload=json.dumps(entry.payload),
            dice=json.dumps(entry.dice),
            events=json.dumps(entry.events),
            request_id=entry.request_id,
            token_hash=guard.seat.token_hash,
            options_read=guard.options_read,
            options=None if guard.options is None else json.dumps(guard.options),
            no_drafts=guard.no_drafts,
        )
        if found["id"] is None:
            raise GuardFailed(
                f"battle {battle.id} or its seat changed since it was read (version {battle.version})"
            )
        battle.seq, battle.turn, battle.step, battle.status = (
            entry.seq,
            state.clock.turn,
            state.clock.step,
            status,
        )
        battle.updated_at, battle.version = at, battle.version + 1
        snap.seq = entry.seq
        row = ActionLog(id=found["id"], created_at=at, **entry.columns())
        return Written(row, bool(found["seen"]), bool(found["hooked"]))

    async def seat_by_token(
        self, session: AsyncSession, token_hash: str
    ) -> tuple[Participant, dict[str, Any] | None, dict[str, Any] | None] | None:
        row = await fetch(session, SEAT_BY_TOKEN, token_hash=token_hash)
        seat = _seat(row) if row is not None else None
        return None if seat is None else (seat, row["battle_options"], row["table_options"])
