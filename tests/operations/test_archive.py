"""Data that does not grow for ever: `python -m app.cli archive` writes finished battles older than
the given age as battle files and, with --remove, deletes them from the database; the file still
verifies every die (`verify`) and brings the battle back to read its report (`import`). Battles in
play, and finished ones too recent, are left alone."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select, update

from app.models import ActionLog, Battle, Participant, Snapshot, now
from tests.helpers import Table, act, set_table, ship_def
from tests.operations.test_backup import cli

TRAVELLER_SHIPS = {
    "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
    "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
}


async def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code in (200, 201), r.text
    return r.json()


async def battle(c: httpx.AsyncClient, end: bool) -> Table:
    """A Traveller battle whose initiative rolls dice; ended when `end`."""
    table = await set_table(c, system="traveller", ships=TRAVELLER_SHIPS)
    await ok(await act(c, table, "ref", "traveller.initiative", {}))
    if end:
        await ok(await act(c, table, "ref", "battle.end", {"reason": "over"}))
    return table


async def test_old_finished_battles_are_archived_removed_and_still_readable(
    client: httpx.AsyncClient, db_url: str, tmp_path: Path
) -> None:
    platform = client.app.state.platform  # type: ignore[attr-defined]
    old, recent, playing = await battle(client, True), await battle(client, True), await battle(client, False)
    async with platform.db.transaction() as session:  # as if they had been left 40 days ago
        await session.execute(
            update(Battle)
            .where(Battle.id.in_([old.battle_id, playing.battle_id]))
            .values(updated_at=now() - timedelta(days=40))
        )
    report = await ok(await client.get(f"/api/v1/battles/{old.battle_id}/report", headers=old.auth("ref")))
    out = tmp_path / "archive"

    done = await asyncio.to_thread(
        cli, "archive", "--older-than-days", "30", "--to", str(out), "--remove", database_url=db_url
    )
    assert done.returncode == 0, done.stderr
    file = out / f"{old.battle_id}.json"
    assert f"archived {old.battle_id}" in done.stdout and file.exists()
    assert sorted(p.name for p in out.iterdir()) == [file.name]  # neither the recent nor the one in play

    async with platform.db.reader() as session:
        for model in (Battle, Participant, ActionLog, Snapshot):
            column = model.id if model is Battle else model.battle_id
            assert await session.scalar(select(func.count()).where(column == old.battle_id)) == 0, model
        left = set(
            await session.scalars(
                select(Battle.id).where(Battle.id.in_([recent.battle_id, playing.battle_id]))
            )
        )
    assert left == {recent.battle_id, playing.battle_id}
    gone = await client.get(f"/api/v1/battles/{old.battle_id}", headers=old.auth("ref"))
    assert gone.status_code in (401, 403, 404)  # the seat's token went with the battle

    # the archive: every die verifies from the file alone, with no database
    data = json.loads(file.read_text())
    assert data["battle"]["seed"] is not None and all(t not in file.read_text() for t in old.tokens.values())
    verified = await asyncio.to_thread(cli, "verify", str(file), database_url=db_url)
    assert verified.returncode == 0 and "dice match the revealed seed" in verified.stdout, verified.stdout
    # and brought back, its report reads as it did
    made = await ok(await client.post("/api/v1/battles/import", json=data))
    ref = next(s["token"] for s in made["seats"] if s["role"] == "referee")
    again = await ok(
        await client.get(
            f"/api/v1/battles/{made['battle_id']}/report", headers={"Authorization": f"Bearer {ref}"}
        )
    )
    # the new battle's id, name ("… (imported)") and seat; its dice name the archived battle
    own = ("battle_id", "name", "viewer", "dice")
    assert {k: v for k, v in again.items() if k not in own} == {
        k: v for k, v in report.items() if k not in own
    }
    assert again["headline"] and again["finished"] is True and again["name"].startswith(report["name"])
