"""What a battle costs in storage, measured (never asserted):
`PYTHONPATH=. .venv/bin/python scripts/storage_cost.py [actions] [postgres-admin-url]`.

On a fresh SQLite file and a fresh PostgreSQL database: the three demo battles are created
(their ships added), then the Shadow demo is played for `actions` actions as
scripts/bench_report.py plays it (the clock moved impulse by impulse, a 1-point hit every third
action). Each table's size is read after the set-up and after the play, compacted first (SQLite
VACUUM; PostgreSQL VACUUM FULL), so the figures are live data and indexes, not free space. The
difference divided by the actions is the cost of an action; the set-up divided by three, of a
battle before play. docs/operations.md ("What the data costs") has the figures."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.db import Database  # noqa: E402
from app.demo import create_demos  # noqa: E402
from app.realtime.broker import Broker  # noqa: E402
from app.services.errors import ServiceError  # noqa: E402
from app.services.platform import Platform  # noqa: E402
from app.services.store.battles import participants  # noqa: E402
from app.services.write import actions  # noqa: E402
from app.services.write.actions import Command  # noqa: E402
from tests.conftest import migrate, settings_for  # noqa: E402

TABLES = (
    "battles",
    "participants",
    "action_log",
    "snapshots",
    "checkpoints",
    "table_settings",
    "seat_status",
)


async def play(url: str, n: int) -> tuple[dict[str, int], dict[str, int], int, int]:
    db = Database(url)
    platform = Platform(settings=settings_for(url), db=db, broker=Broker())
    demos = await create_demos(platform, "http://measure")
    await db.dispose()
    setup = await sizes(url)
    db = Database(url)
    platform = Platform(settings=settings_for(url), db=db, broker=Broker())
    shadow = demos[0]["id"]
    async with db.reader() as session:
        referee = next(p for p in await participants(session, shadow) if p.role == "referee")
    applied = 0
    for done in range(n):
        kind, payload = "clock.advance", {}
        if done % 3 == 0:
            pair = ("federation-heavy-cruiser", "shadow-cruiser")
            target, source = pair if done % 2 else pair[::-1]
            kind, payload = "damage.apply", {"target": target, "source": source, "amount": 1}
        try:
            await actions.submit(platform, Command(shadow, referee.id, kind, payload, uuid.uuid4().hex))
        except ServiceError:  # a destroyed ship's hit is refused (and written nowhere)
            continue
        applied += 1
    await db.dispose()
    return setup, await sizes(url), len(demos), applied


async def sizes(url: str) -> dict[str, int]:
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        with sqlite3.connect(path) as db:
            db.execute("VACUUM")
            try:
                rows = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
            except sqlite3.OperationalError:  # no dbstat: the whole file only
                return {"(file)": Path(path).stat().st_size}
        by_name = dict(rows)
        out = {t: by_name.get(t, 0) for t in TABLES}
        for name, size in by_name.items():  # indexes (sqlite_autoindex_<table>_N, ix_<table>_…)
            owner = next((t for t in TABLES if name.startswith((f"sqlite_autoindex_{t}_", f"ix_{t}_"))), None)
            if owner:
                out[owner] += size
        return out
    return await _pg_sizes(url)


async def _pg_sizes(url: str) -> dict[str, int]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute("VACUUM FULL")
        return {t: await conn.fetchval("SELECT pg_total_relation_size($1)", t) for t in TABLES}
    finally:
        await conn.close()


def report(label: str, setup: dict[str, int], after: dict[str, int], battles: int, n: int) -> None:
    print(f"\n{label}: {battles} demo battles set up, then {n} actions in one")
    print(f"{'table':<16}{'after set-up':>14}{'per battle':>12}{'after play':>12}{'per action':>12}")
    for table in setup:
        grown = after[table] - setup[table]
        print(
            f"{table:<16}{setup[table]:>14,}{setup[table] // battles:>12,}{after[table]:>12,}{grown / n:>12,.0f}"
        )
    total_setup, total_after = sum(setup.values()), sum(after.values())
    print(
        f"{'all':<16}{total_setup:>14,}{total_setup // battles:>12,}{total_after:>12,}"
        f"{(total_after - total_setup) / n:>12,.0f}"
    )


def main(n: int, pg_admin: str | None) -> None:
    url = f"sqlite:///{tempfile.mkdtemp()}/cost.db"
    migrate(url)
    setup, after, battles, applied = asyncio.run(play(url, n))
    report("SQLite", setup, after, battles, applied)
    if pg_admin:
        name = f"starboard_cost_{uuid.uuid4().hex[:8]}"
        asyncio.run(_admin(pg_admin, f'CREATE DATABASE "{name}"'))
        pg = f"{pg_admin.rsplit('/', 1)[0]}/{name}"
        try:
            migrate(pg)
            setup, after, battles, applied = asyncio.run(play(pg, n))
            report("PostgreSQL", setup, after, battles, applied)
        finally:
            asyncio.run(_admin(pg_admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def _admin(url: str, sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500, sys.argv[2] if len(sys.argv) > 2 else None)
