"""The action's unit of work (`Database.unit`, app/db.py): its ORM session takes part only when
used, and then everything done in the unit — through the ORM and on the bare driver — commits
together at the end or not at all."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text

from app.db import Database
from app.services.store.postgres import bare_connection

PROBE = "CREATE TABLE IF NOT EXISTS unit_probe (id VARCHAR(40) PRIMARY KEY)"


class Boom(Exception):
    pass


async def _ids(db: Database) -> set[str]:
    async with db.reader() as session:
        return set((await session.scalars(text("SELECT id FROM unit_probe"))).all())


@pytest.fixture
async def db(db_url: str):  # type: ignore[no-untyped-def]
    database = Database(db_url)
    async with database.engine.begin() as conn:
        await conn.execute(text(PROBE))
    yield database
    await database.dispose()


async def test_what_the_orm_did_commits_at_the_end_and_nothing_of_a_failed_unit_stays(db: Database) -> None:
    kept, lost = uuid.uuid4().hex, uuid.uuid4().hex
    async with db.unit() as session:
        await session.execute(text("INSERT INTO unit_probe (id) VALUES (:i)"), {"i": kept})
    with pytest.raises(Boom):
        async with db.unit() as session:
            await session.execute(text("INSERT INTO unit_probe (id) VALUES (:i)"), {"i": lost})
            raise Boom
    ids = await _ids(db)
    assert kept in ids and lost not in ids


async def test_a_unit_the_orm_never_touched_opens_no_transaction(db: Database) -> None:
    async with db.unit() as session:
        assert not session.in_transaction()


@pytest.mark.postgres
async def test_bare_statements_autocommit_alone_and_join_the_orm_once_it_began(postgres_url: str) -> None:
    """A plain action writes with one bare statement, atomic by itself; once the ORM
    took part (a draft cleared), the bare write joins its transaction and fails with it."""
    db = Database(postgres_url)
    try:
        async with db.engine.begin() as conn:
            await conn.execute(text(PROBE))
        alone, orm, joined = (uuid.uuid4().hex for _ in range(3))
        with pytest.raises(Boom):
            async with db.unit() as session:
                driver = await bare_connection(session)
                assert driver is not None
                await driver.execute("INSERT INTO unit_probe (id) VALUES ($1)", alone)
                raise Boom
        with pytest.raises(Boom):
            async with db.unit() as session:
                await session.execute(text("INSERT INTO unit_probe (id) VALUES (:i)"), {"i": orm})
                driver = await bare_connection(session)
                await driver.execute("INSERT INTO unit_probe (id) VALUES ($1)", joined)
                raise Boom
        ids = await _ids(db)
        assert alone in ids  # committed by itself: nothing else was in the unit
        assert orm not in ids and joined not in ids  # one transaction, rolled back together
    finally:
        await db.dispose()


@pytest.mark.postgres
async def test_a_database_opened_from_the_settings_keeps_the_operators_timeouts_and_pool(
    postgres_url: str,
) -> None:
    """The server and every command line open the database the same way: a statement timeout and
    pool size set in the environment hold for `starboard import` as they do for the server."""
    import inspect

    from app.config import Settings
    from app.db import ENGINE_OPTIONS, make_engine

    assert set(ENGINE_OPTIONS) == set(inspect.signature(make_engine).parameters) - {"url"}
    assert all(f"db_{option}" in Settings.model_fields for option in ENGINE_OPTIONS)
    settings = Settings(
        database_url=postgres_url, db_statement_timeout=0.75, db_pool_size=3, db_max_overflow=2
    )
    db = Database.from_settings(settings)
    try:
        async with db.reader() as session:
            assert (await session.scalar(text("SHOW statement_timeout"))) == "750ms"
        assert db.engine.pool.size() == 3
    finally:
        await db.dispose()
