"""Engine and sessions. One async engine per process; SQLite gets WAL and a busy timeout so the
embedded default copes with a few concurrent writers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import JSON, MetaData, event, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase

if TYPE_CHECKING:
    from app.config import Settings

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def json_column_type() -> JSON:
    """A fresh JSON type per column: JSONB on PostgreSQL (queryable), JSON text elsewhere."""
    return JSON().with_variant(JSONB(), "postgresql")


def ordered_json_type() -> JSON:
    """JSON kept as written on every database. The battle state and the log use it: JSONB would
    reorder object keys, so ships would come back in another order on PostgreSQL than on SQLite,
    and rules that walk the ships (rolling dice in that order) would differ between the live state
    and a rebuild."""
    return JSON()


def async_url(url: str) -> str:
    """Accept plain postgresql:// and sqlite:// URLs and pick the async drivers."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    if url.startswith("sqlite://"):
        return "sqlite+aiosqlite://" + url.split("://", 1)[1]
    return url


def make_engine(
    url: str,
    *,
    connect_timeout: float = 5.0,
    statement_timeout: float = 15.0,
    pool_size: int = 10,
    max_overflow: int = 10,
    pool_timeout: float = 5.0,
    pre_ping: bool = False,
) -> AsyncEngine:
    url = async_url(url)
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    return create_async_engine(
        url,
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_timeout=pool_timeout,
        pool_pre_ping=pre_ping,
        connect_args={
            "timeout": connect_timeout,  # asyncpg: opening a connection
            "command_timeout": statement_timeout,  # asyncpg: the client gives up on a statement
            "server_settings": {"statement_timeout": str(int(statement_timeout * 1000))},
        },
    )


# `make_engine`'s options, each configured as the setting `db_<option>`
ENGINE_OPTIONS = (
    "connect_timeout",
    "statement_timeout",
    "pool_size",
    "max_overflow",
    "pool_timeout",
    "pre_ping",
)


class Database:
    """The engine and a session factory; `transaction()` is the unit of work."""

    def __init__(self, url: str, **engine_options: Any) -> None:
        self.url = async_url(url)
        self.engine = make_engine(url, **engine_options)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # Readers on PostgreSQL run in autocommit: no BEGIN before and no ROLLBACK after, two round
        # trips fewer per read. A reader's statements see the latest commit each, as
        # they did under READ COMMITTED; callers that need one moment use `snapshot_reader`.
        readers = (
            self.engine if self.is_sqlite else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self.read_sessions = async_sessionmaker(readers, expire_on_commit=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> Database:
        """The database as the operator configured it: the server and the command line alike honour
        its timeouts and pool (a command that hung on a dead database would not say why)."""
        options = {option: getattr(settings, f"db_{option}") for option in ENGINE_OPTIONS}
        return cls(settings.database_url, **options)

    @property
    def is_sqlite(self) -> bool:
        return self.url.startswith("sqlite")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        async with self.sessions() as session, session.begin():
            yield session

    @asynccontextmanager
    async def unit(self) -> AsyncIterator[AsyncSession]:
        """An action's unit of work (the action path's cost): like `transaction`, one
        session on one pooled connection, committed at the end, rolled back on an error — but the
        session only takes part once something is done through it. On PostgreSQL the connection's
        bare asyncpg driver is in `info["driver"]` (`store/postgres.bare_connection`) from the start, and a
        plain action's two statements run there in autocommit; the ORM session begins a
        transaction on the connection the first time it is used (a draft, a history action), the
        bare statements after it join that transaction, and the end commits both. An action the
        ORM never touched has no BEGIN, COMMIT or session bookkeeping to pay for."""
        async with self.engine.connect() as connection:
            session = AsyncSession(bind=connection, expire_on_commit=False)
            if not self.is_sqlite:
                session.info["driver"] = (await connection.get_raw_connection()).driver_connection
            try:
                yield session
                if session.in_transaction():  # the ORM took part: commit it all, then let it go
                    await session.commit()
                    await session.close()
            finally:
                if session.in_transaction():  # an error on the way: nothing of it is kept
                    await session.close()

    @asynccontextmanager
    async def reader(self) -> AsyncIterator[AsyncSession]:
        async with self.read_sessions() as session:
            yield session

    @asynccontextmanager
    async def snapshot_reader(self) -> AsyncIterator[AsyncSession]:
        """A read-only session whose statements all see one moment (REPEATABLE READ on PostgreSQL;
        on SQLite each read sees the latest commit, and callers bound what they read by seq)."""
        async with self.sessions() as session:
            if not self.is_sqlite:
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            yield session

    async def ping(self) -> str | None:
        """The migration revision the database is at (raises if it cannot be reached)."""
        async with self.engine.connect() as conn:
            return (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar()

    async def dispose(self) -> None:
        await self.engine.dispose()


Row = TypeVar("Row")


async def existing(session: AsyncSession, model: type[Row], key: Any) -> Row:
    """The row `key` of `model`, which the caller knows is there (its battle was read or written in
    this same transaction): a missing one is a fault, said as such rather than met later as None."""
    row = await session.get(model, key)
    if row is None:
        raise LookupError(f"{model.__name__} {key!r} is gone")
    return row
