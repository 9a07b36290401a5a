"""Backups that restore: `python -m app.cli backup` taken from a live database while a battle is
being played, `restore` into a fresh database, and the restored battle audits clean (rebuilt from
its log it equals its snapshot), its dice verify once it ends, and play goes on — on SQLite and on
PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx

from tests import forked
from tests.conftest import Server, _pg_admin, _pg_url
from tests.helpers import Table, act, eventually, set_table, ship_def, simple_ship

PAIN = {"target": "shadow-cruiser", "source": "hawk", "amount": 60, "direction": "fore"}


def cli(*args: str, database_url: str) -> subprocess.CompletedProcess[str]:
    """`python -m app.cli ARGS` against this database, as an operator runs it (forked with the app
    already imported: tests/forked.py)."""
    return forked.run_cli(list(args), {**os.environ, "DATABASE_URL": database_url}, timeout=120)


async def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return r.json()


async def play(c: httpx.AsyncClient, table: Table) -> int:
    """A step of the clock: the hurt Shadow ship's pain check rolls dice at each."""
    return (await ok(await act(c, table, "ref", "clock.advance", {})))["seq"]


async def fresh_database(kind: str, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'restored.db'}"
    name = f"starboard_restore_{uuid.uuid4().hex[:12]}"
    await _pg_admin(f'CREATE DATABASE "{name}"')
    return _pg_url(name)


async def test_a_backup_taken_mid_play_restores_a_battle_that_audits_verifies_and_plays_on(
    live: Server, tmp_path: Path
) -> None:
    kind = "sqlite" if live.db.startswith("sqlite") else "postgres"
    out = tmp_path / f"battle.{kind}"
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as c:
        ships = {"ker": (ship_def("shadow-cruiser"), "bob"), "hawk": (simple_ship("Hawk", "sfb"), "ann")}
        table = await set_table(c, system="sfb", ships=ships)
        await ok(await act(c, table, "ann", "damage.apply", PAIN))
        before = await play(c, table)
        seqs: list[int] = []
        stop = asyncio.Event()

        async def keep_playing() -> None:
            while not stop.is_set():
                seqs.append(await play(c, table))

        player = asyncio.create_task(keep_playing())
        await eventually(lambda: len(seqs) >= 2, what="play under way")
        taken = await asyncio.to_thread(cli, "backup", str(out), database_url=live.db)  # mid-play
        stop.set()
        await player
        after = (await ok(await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))))[
            "seq"
        ]
        original = await ok(
            await c.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ref"))
        )
    assert taken.returncode == 0, taken.stderr
    assert out.exists() and out.stat().st_size > 0

    target = await fresh_database(kind, tmp_path)
    try:
        restored = await asyncio.to_thread(cli, "restore", str(out), "--into", target, database_url=live.db)
        assert restored.returncode == 0, restored.stderr
        # into a database that holds data already, only with --clean
        again = await asyncio.to_thread(cli, "restore", str(out), "--into", target, database_url=live.db)
        assert again.returncode == 1 and len(again.stderr.strip().splitlines()) == 1, again.stderr
        srv = Server(target)
        try:
            async with httpx.AsyncClient(base_url=srv.url, timeout=30) as c:
                audit = await ok(
                    await c.get(f"/api/v1/battles/{table.battle_id}/audit", headers=table.auth("ref"))
                )
                assert audit["snapshot_matches_log"] is True
                at = audit["seq"]
                assert before <= at <= after  # one consistent moment of the game in play
                log = await ok(
                    await c.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ref"))
                )
                assert log["entries"] == [e for e in original["entries"] if e["seq"] <= at]
                # play goes on from there, and every die rolled, before and after, verifies at the end
                pain = {**PAIN, "amount": 25}  # 25 or more in an impulse: a pain check (SH-03)
                hurt = await ok(await act(c, table, "ann", "damage.apply", pain))
                assert hurt["seq"] == at + 1
                assert await play(c, table) == at + 2  # a new pain check rolls
                await ok(await act(c, table, "ref", "battle.end", {"reason": "restored and finished"}))
                dice = await ok(
                    await c.get(f"/api/v1/battles/{table.battle_id}/dice", headers=table.auth("ref"))
                )
                assert dice["mismatches"] == [] and dice["seed"] is not None
                assert any(roll["seq"] <= at for roll in dice["rolls"]) and any(
                    roll["seq"] > at for roll in dice["rolls"]
                )
        finally:
            srv.stop()
    finally:
        if kind == "postgres":
            await _pg_admin(f'DROP DATABASE IF EXISTS "{target.rsplit("/", 1)[1]}" WITH (FORCE)')


def test_backup_refuses_to_overwrite_and_says_why_in_one_line(sqlite_url: str, tmp_path: Path) -> None:
    out = tmp_path / "kept.sqlite3"
    out.write_text("an earlier backup")
    done = cli("backup", str(out), database_url=sqlite_url)
    assert (
        done.returncode == 1 and done.stderr.strip() == f"backup: {out} exists already; choose another file"
    )
    assert out.read_text() == "an earlier backup"
