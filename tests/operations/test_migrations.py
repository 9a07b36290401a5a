"""Migrations proven on data: for every migration, a database at the schema before it is filled
(rows in every table, JSON with its keys in a deliberate order, foreign keys pointing at their
parents), then upgraded through it — every row of every table it does not drop is still there,
value for value — then downgraded back, where it has a downgrade: the schema is the one before
again and the rows are still there (a table the downgrade recreates comes back empty: what the
upgrade dropped is gone) — and upgraded again. On SQLite and on PostgreSQL.

The rows are made from the schema itself (reflected at that revision), not by the app of that
time: what each test proves is that the migration keeps whatever rows the schema allowed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from app.db import async_url
from tests.conftest import ROOT, _pg_admin, _pg_url

SCRIPTS = ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini")))
STEPS = [(s.down_revision, s.revision) for s in reversed(list(SCRIPTS.walk_revisions()))]
WHEN = datetime(2026, 12, 1, 20, 30, tzinfo=UTC)
ROWS = 3

Rows = dict[str, list[dict[str, Any]]]


def alembic_config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    return config


def on(url: str, work: Callable[[Connection], Any]) -> Any:
    async def run() -> Any:
        engine = create_async_engine(async_url(url), poolclass=sa.pool.NullPool)
        try:
            async with engine.begin() as conn:
                return await conn.run_sync(work)
        finally:
            await engine.dispose()

    return asyncio.run(run())


def reflected(conn: Connection) -> sa.MetaData:
    meta = sa.MetaData()
    meta.reflect(conn)
    meta.remove(meta.tables["alembic_version"]) if "alembic_version" in meta.tables else None
    return meta


def value(column: sa.Column, table: str, i: int, parents: dict[tuple[str, str], list[Any]]) -> Any:
    """A value the column accepts for row `i`: its parent's key for a foreign key, unique text."""
    for fk in column.foreign_keys:
        key = (fk.column.table.name, fk.column.name)
        if key in parents:
            return parents[key][i]
    kind = column.type
    if isinstance(kind, sa.Boolean):
        return i % 2 == 0
    if isinstance(kind, sa.Integer):
        return 100 + i
    if isinstance(kind, sa.Float):
        return 0.5 + i
    if isinstance(kind, sa.DateTime):
        return WHEN
    if isinstance(kind, sa.JSON):  # JSONB too: keys out of order, nested, unicode
        return {"zulu": [i, "Ω"], "alpha": {"b": 1, "a": None}, "mid": f"v{i}"}
    if isinstance(kind, sa.String | sa.Text):
        text = f"{table[:6]}-{column.name[:6]}-{i}"
        return text[: kind.length] if getattr(kind, "length", None) else text
    raise AssertionError(f"no test value for {table}.{column.name} ({kind!r})")


def serial(table: sa.Table, column: sa.Column) -> bool:
    """An integer primary key of its own (no foreign key): numbered by the database."""
    return bool(
        column.primary_key
        and len(table.primary_key.columns) == 1
        and isinstance(column.type, sa.Integer)
        and not column.foreign_keys
    )


def fill(conn: Connection, meta: sa.MetaData) -> None:
    parents: dict[tuple[str, str], list[Any]] = {}
    for table in meta.sorted_tables:
        rows = []
        for i in range(ROWS):
            row = {}
            for column in table.columns:
                if serial(table, column):  # the database numbers it
                    continue
                row[column.name] = value(column, table.name, i, parents)
            rows.append(row)
        conn.execute(table.insert(), rows)
        kept = conn.execute(sa.select(table)).mappings().all()
        for column in table.columns:
            parents[(table.name, column.name)] = [r[column.name] for r in kept]


def read(conn: Connection, meta: sa.MetaData | None = None) -> Rows:
    meta = meta or reflected(conn)
    out: Rows = {}
    for table in meta.sorted_tables:
        rows = [dict(r) for r in conn.execute(sa.select(table)).mappings()]
        out[table.name] = sorted((normal(r) for r in rows), key=lambda r: json.dumps(r, sort_keys=True))
    return out


def normal(row: dict[str, Any]) -> dict[str, Any]:
    """A row as comparable data: JSON text parsed, times in UTC (SQLite keeps no zone)."""
    out = {}
    for key, v in row.items():
        if isinstance(v, datetime):
            v = (v if v.tzinfo else v.replace(tzinfo=UTC)).astimezone(UTC).isoformat()
        elif isinstance(v, str) and v[:1] in "{[":
            with contextlib.suppress(ValueError):
                v = json.loads(v)
        out[key] = v
    return out


def columns(conn: Connection, meta: sa.MetaData | None = None) -> dict[str, set[str]]:
    return {t.name: {c.name for c in t.columns} for t in (meta or reflected(conn)).sorted_tables}


# Reflecting the schema is most of this file's CPU: one schema, reflected once, serves every look
# at the database until the next migration changes it.


def seen(conn: Connection) -> tuple[Rows, dict[str, set[str]]]:
    """The rows and the columns of every table, from one reflection."""
    meta = reflected(conn)
    return read(conn, meta), columns(conn, meta)


def filled(conn: Connection) -> tuple[Rows, dict[str, set[str]]]:
    """Rows put in every table, then `seen`, from one reflection."""
    meta = reflected(conn)
    fill(conn, meta)
    return read(conn, meta), columns(conn, meta)


@pytest.fixture(params=["sqlite", "postgres"])
def empty_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'migrated.db'}"
        return
    request.getfixturevalue("postgres_url")  # the server is up (and the test marked postgres)
    name = f"starboard_migr_{uuid.uuid4().hex[:10]}"
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    yield _pg_url(name)
    asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.mark.parametrize(("before", "revision"), STEPS[1:], ids=[r for _, r in STEPS[1:]])
def test_each_migration_keeps_the_rows_up_and_down(empty_db: str, before: str, revision: str) -> None:
    config = alembic_config(empty_db)
    command.upgrade(config, before)
    rows_before, schema_before = on(empty_db, filled)
    assert all(len(rows) == ROWS for rows in rows_before.values())

    command.upgrade(config, revision)
    upgraded = on(empty_db, read)
    for table, rows in rows_before.items():
        if table not in upgraded:  # dropped by this migration: it must say so
            assert "drop" in (SCRIPTS.get_revision(revision).doc or "").lower(), f"{revision} lost {table}"
            continue
        new = set(upgraded[table][0]) - set(rows[0]) if upgraded[table] else set()
        kept = [{k: v for k, v in row.items() if k not in new} for row in upgraded[table]]
        assert kept == rows, f"{revision} changed the rows of {table}"

    command.downgrade(config, before)
    downgraded, schema_after = on(empty_db, seen)
    assert schema_after == schema_before
    for table, rows in rows_before.items():
        if table in upgraded:
            assert downgraded[table] == rows, f"{revision}'s downgrade changed the rows of {table}"
        else:
            assert downgraded[table] == [], f"{table} comes back empty"
    command.upgrade(config, revision)  # and up again
    assert set(on(empty_db, columns)) == set(upgraded)


def test_the_first_migration_builds_the_whole_schema_and_the_last_is_the_models(empty_db: str) -> None:
    config = alembic_config(empty_db)
    command.upgrade(config, STEPS[0][1])
    assert all(len(rows) == ROWS for rows in on(empty_db, filled)[0].values())
    command.upgrade(config, "head")
    from app.db import Base

    models = {t.name: {c.name for c in t.columns} for t in Base.metadata.sorted_tables}
    assert on(empty_db, columns) == models  # the chain ends where the app's models are
