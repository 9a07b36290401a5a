"""An action's rows in the database: what it is checked against (the battle, its snapshot, the
acting seat, whether its id was used) and what it writes (its log row, the snapshot, the battle).

On PostgreSQL each is one statement on the bare driver, inside the action's transaction
(SQLAlchemy's ORM loading and unit of work for the same rows cost several
times the CPU of the statements themselves). The write is a data-modifying CTE whose battle UPDATE
is guarded by the version the action was checked against, so a writer in another process that got
there first makes it write nothing (answered as `GuardFailed`, a `StaleDataError`, and submit tries
again), as the ORM's version counter does; it is guarded too by the acting seat still holding its
token, role and place, and by the table's options as read, so a write checked against kept rows
(`KeptStates`) is as safe as one checked against rows read just before. It also records that the
actor was just active and whether any seat of the battle wants a webhook
(`seats.seen_and_hooked`). On SQLite the ORM reads and writes them.

A plain action on PostgreSQL is two statements and no BEGIN/COMMIT: the check (which finds the
REST door's seat by its token) and the write (one statement: atomic by itself); once the seat is
kept, the write alone. Statements on the bare driver before any through SQLAlchemy run in
autocommit; an action that changes other rows too (a draft cleared, a history action's reads) has
SQLAlchemy open the transaction first, and the write joins it, so they commit together.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import configure_mappers
from sqlalchemy.orm.attributes import manager_of_class, set_committed_value
from sqlalchemy.orm.exc import StaleDataError

from app.models import ActionLog, Battle, Participant, Snapshot, now
from app.rules.state import BattleState
from app.services.errors import NotFound
from app.services.kept import NOT_READ

WRITE_PG = """
WITH battle AS (
    UPDATE battles SET seq = $2, turn = $3, step = $4, status = $5, updated_at = $6,
                       version = version + 1
    WHERE id = $1 AND version = $7
      AND EXISTS (SELECT 1 FROM participants
                  WHERE id = $10 AND battle_id = $1 AND role = $11 AND token_hash = $17 AND active)
      AND (NOT $18 OR (SELECT options FROM table_settings WHERE battle_id = $1)
                      IS NOT DISTINCT FROM $19::jsonb)
    RETURNING id
), snapshot AS (
    UPDATE snapshots SET seq = $2, state = $8 WHERE battle_id = (SELECT id FROM battle)
), logged AS (
    INSERT INTO action_log (battle_id, seq, action_id, actor_id, actor_role, action_type, clock,
                            payload, dice, events, created_at, request_id)
    SELECT id, $2, $9, $10, $11, $12, $13, $14, $15, $16, $6, $20 FROM battle
    RETURNING id
), seen AS (
    UPDATE seat_status SET last_seen_at = $6, seen_seq = GREATEST(COALESCE(seen_seq, $2), $2)
    WHERE participant_id = $10 AND EXISTS (SELECT 1 FROM battle)
    RETURNING 1
)
SELECT (SELECT id FROM logged) AS id, (SELECT count(*) FROM seen) AS seen,
       EXISTS (SELECT 1 FROM seat_status WHERE battle_id = $1 AND webhook_url IS NOT NULL) AS hooked
"""


BATTLE_COLUMNS = tuple(c.name for c in Battle.__table__.columns)
SEAT_COLUMNS = tuple(c.name for c in Participant.__table__.columns)
SNAPSHOT_COLUMNS = ("battle_id", "seq", "state")

# `$4`: the battle version whose state this process keeps (`KeptStates`; -1: none). At that
# version the snapshot's state is not sent (NULL): the kept one is the same, already parsed.
CONTEXT_PG = f"""
SELECT {", ".join(f"b.{c} AS b_{c}" for c in BATTLE_COLUMNS)},
       s.seq AS s_seq, CASE WHEN b.version = $4 THEN NULL ELSE s.state END AS s_state,
       {", ".join(f"p.{c} AS p_{c}" for c in SEAT_COLUMNS)},
       EXISTS (SELECT 1 FROM action_log WHERE battle_id = b.id AND action_id = $3) AS used
FROM battles b
JOIN snapshots s ON s.battle_id = b.id
LEFT JOIN participants p ON p.id = $2
WHERE b.id = $1
"""


# The REST door's variant: the seat is the one holding the bearer token (any battle: the caller
# tells a token of another battle apart), and the table's options come along (whether a player's
# damage waits for the referee). Left joins from one row, so an unknown token is told before an
# unknown battle, as the door did when it read the seat first.
CONTEXT_BY_TOKEN_PG = f"""
SELECT {", ".join(f"b.{c} AS b_{c}" for c in BATTLE_COLUMNS)},
       s.seq AS s_seq, CASE WHEN b.version = $4 THEN NULL ELSE s.state END AS s_state,
       t.options AS t_options,
       {", ".join(f"p.{c} AS p_{c}" for c in SEAT_COLUMNS)},
       EXISTS (SELECT 1 FROM action_log WHERE battle_id = $1 AND action_id = $3) AS used
FROM (SELECT 1) AS one
LEFT JOIN participants p ON p.token_hash = $2
LEFT JOIN battles b ON b.id = $1
LEFT JOIN snapshots s ON s.battle_id = b.id
LEFT JOIN table_settings t ON t.battle_id = b.id
"""


_managers: dict[type, Any] = {}
SEEN_KEY = "seen_and_hooked"  # session.info: (actor, seq, seen, hooked) as the write recorded them


def loaded(cls: type, columns: tuple[str, ...], row: Any, prefix: str = "") -> Any:
    """An ORM object as read by hand, built the way SQLAlchemy's own loading builds one: its values
    put in place as loaded, not set one at a time through the instrumented constructor (a tenth of
    the action path's cost). It is in no session: nothing writes it back by itself."""
    manager = _managers.get(cls)
    if manager is None:  # the attributes exist once the mappers are configured (any ORM use does it)
        configure_mappers()
        manager = _managers[cls] = manager_of_class(cls)
    obj = manager.new_instance()
    obj.__dict__.update({c: row[prefix + c] for c in columns})
    return obj


async def action_context(
    session: AsyncSession, battle_id: str, participant_id: str, action_id: str, known: int = -1
) -> tuple[Battle, Snapshot, Participant | None, bool]:
    """What an action is checked against, in one statement on PostgreSQL's bare driver (the caller
    has checked `driver_of`): the battle, its snapshot, the acting seat (None: no such seat) and
    whether the action id was used. The snapshot's state is None when the battle is at version
    `known` (the caller keeps that state)."""
    row = await run_on_driver(session, CONTEXT_PG, battle_id, participant_id, action_id, known)
    if row is None:
        raise NotFound("no such battle", "battle")
    battle = loaded(Battle, BATTLE_COLUMNS, row, "b_")
    snap = loaded(
        Snapshot, SNAPSHOT_COLUMNS, {"battle_id": battle.id, "seq": row["s_seq"], "state": row["s_state"]}
    )
    seat = loaded(Participant, SEAT_COLUMNS, row, "p_") if row["p_id"] is not None else None
    return battle, snap, seat, bool(row["used"])


async def token_context(
    session: AsyncSession, battle_id: str, token_hash: str, action_id: str, known: int = -1
) -> tuple[Battle | None, Snapshot | None, Participant | None, bool, dict[str, Any] | None]:
    """`action_context` for the seat holding a token, in one statement on the bare driver: the
    battle and its snapshot (None: no such battle), the seat (None: no such token), whether the
    action id was used, and the table's changed options."""
    row = await run_on_driver(session, CONTEXT_BY_TOKEN_PG, battle_id, token_hash, action_id, known)
    seat = loaded(Participant, SEAT_COLUMNS, row, "p_") if row["p_id"] is not None else None
    if row["b_id"] is None:
        return None, None, seat, False, None
    battle = loaded(Battle, BATTLE_COLUMNS, row, "b_")
    snap = loaded(
        Snapshot, SNAPSHOT_COLUMNS, {"battle_id": battle.id, "seq": row["s_seq"], "state": row["s_state"]}
    )
    return battle, snap, seat, bool(row["used"]), row["t_options"]


async def driver_of(session: AsyncSession) -> Any | None:
    """The session's own asyncpg connection (inside its transaction, if one is open), or None on
    SQLite. Kept in the session's `info` for its statements after the first (a session here is
    one unit of work on one connection; a failed statement forgets it)."""
    if "driver" in session.info:
        return session.info["driver"]
    driver = None
    if session.bind is None or session.bind.dialect.name == "postgresql":
        connection = await session.connection()
        if connection.dialect.name == "postgresql":
            driver = (await connection.get_raw_connection()).driver_connection
    session.info["driver"] = driver
    return driver


def driver_failed(exc: BaseException) -> bool:
    """Whether a bare-driver error means the connection is gone (then SQLAlchemy must drop it)."""
    try:
        import asyncpg
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, asyncpg.PostgresConnectionError | asyncpg.InterfaceError | OSError)


async def run_on_driver(session: AsyncSession, sql: str, *args: Any) -> Any:
    """One statement on the session's asyncpg connection, its errors told the way SQLAlchemy tells
    them: a lost connection is invalidated in the pool and raised as an `OperationalError` with
    `connection_invalidated` (submit goes again once, the doors answer 503); a statement that ran
    past the statement timeout an `OperationalError` (503); a unique violation an `IntegrityError`
    (another writer got there first)."""
    import asyncpg

    driver = await driver_of(session)
    try:
        return await driver.fetchrow(sql, *args)
    except asyncpg.UniqueViolationError as exc:
        raise IntegrityError(sql, None, exc) from exc
    except asyncpg.QueryCanceledError as exc:  # the statement timeout: the doors answer 503
        raise OperationalError(sql, None, exc) from exc
    except Exception as exc:
        if not driver_failed(exc):
            raise
        session.info.pop("driver", None)
        connection = await session.connection()
        await connection.invalidate(exc)
        raise OperationalError(sql, None, exc, connection_invalidated=True) from exc


LOG_COLUMNS = tuple(c.name for c in ActionLog.__table__.columns)


async def new_log_row(session: AsyncSession, **values: Any) -> ActionLog:
    """The action's log row, before it is written: on PostgreSQL built as a hand-read row (the
    write fills in its id and time), on SQLite an ORM object the session will insert."""
    if await driver_of(session) is None:
        return ActionLog(**values)
    return loaded(ActionLog, LOG_COLUMNS, {"id": None, "created_at": None, **values})


class GuardFailed(StaleDataError):
    """The write found the battle, the acting seat or the table's options not as the action was
    checked against them (another writer, a rotated token, a removed seat): nothing was written."""


async def write_action(
    session: AsyncSession,
    battle: Battle,
    snap: Snapshot,
    row: ActionLog,
    new_state: BattleState,
    seat: Participant,
    options: Any = NOT_READ,
) -> None:
    """Write the action; afterwards `battle`, `row` and `snap.seq` hold what the database holds
    (the live path hands them to this process's viewers without reading them back). On
    PostgreSQL `snap.state` is left as read: the state is written as pydantic serialises it to
    JSON, in one step (a fifth of the dict-then-text cost), and the new state is the caller's
    `new_state`. The write is guarded there on the battle's version, on `seat` still holding its
    token, role and place, and (unless `NOT_READ`) on the table's `options` as the action read
    them; if any moved, nothing is written and `GuardFailed` is raised."""
    status = "finished" if new_state.finished else battle.status
    if await driver_of(session) is None:
        state = new_state.model_dump(mode="json")
        session.add(row)
        snap.seq, snap.state = row.seq, state
        battle.seq, battle.turn, battle.step, battle.status = (
            row.seq,
            new_state.clock.turn,
            new_state.clock.step,
            status,
        )
        await session.flush()
        return
    if session.new or session.dirty or session.deleted:
        await session.flush()  # what else the action changed commits with it, not after it
    at = now()
    found = await run_on_driver(
        session,
        WRITE_PG,
        battle.id,
        row.seq,
        new_state.clock.turn,
        new_state.clock.step,
        status,
        at,
        battle.version,
        new_state.model_dump_json(),
        row.action_id,
        row.actor_id,
        row.actor_role,
        row.action_type,
        row.clock,
        json.dumps(row.payload),
        json.dumps(row.dice),
        json.dumps(row.events),
        seat.token_hash,
        options is not NOT_READ,
        None if options is NOT_READ or options is None else json.dumps(options),
        row.request_id,
    )
    if found["id"] is None:
        raise GuardFailed(
            f"battle {battle.id} or its seat changed since it was read (version {battle.version})"
        )
    row.id, row.created_at = found["id"], at
    # The actor's last seen went with it (`seats.seen_and_hooked` answers from here, no statement).
    session.info[SEEN_KEY] = (row.actor_id, row.seq, bool(found["seen"]), bool(found["hooked"]))
    # Written by hand, so set as committed: the session must not write them again at its commit.
    for name, value in (
        ("seq", row.seq),
        ("turn", new_state.clock.turn),
        ("step", new_state.clock.step),
        ("status", status),
        ("updated_at", at),
        ("version", battle.version + 1),
    ):
        set_committed_value(battle, name, value)
    set_committed_value(snap, "seq", row.seq)
