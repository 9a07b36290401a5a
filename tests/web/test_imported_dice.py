"""An imported battle's own dice record checks out: the dice up to the import were
rolled in the battle the file came from, so they are checked against that battle's id and revealed
seed (carried in the file once it has ended), the dice after it against the new battle's own seed.
While the earlier battle's seed is not revealed its dice are reported as not checkable yet — never
as wrong — and a die changed before the import is still named. SQLite → PostgreSQL and back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from app.db import Database
from app.models import ActionLog
from tests.helpers import Table, act
from tests.web.test_battle_file import cli, exported, ok, pair, played  # noqa: F401  (pair: a fixture)


def seated(made: dict[str, Any]) -> Table:
    """The imported battle's seats as a Table (the referee as "ref", players by name)."""
    tokens = {s["name"] if s["role"] != "referee" else "ref": s["token"] for s in made["seats"]}
    return Table("", made["battle_id"], tokens, {})


async def imported(c: httpx.AsyncClient, file: dict[str, Any]) -> Table:
    r = await c.post("/api/v1/battles/import", json=file)
    assert r.status_code == 201, r.text
    return seated(r.json())


async def record(c: httpx.AsyncClient, table: Table) -> dict[str, Any]:
    return await ok(await c.get(f"/api/v1/battles/{table.battle_id}/dice", headers=table.auth("ref")))


async def fire_next(c: httpx.AsyncClient, table: Table) -> None:
    """Play on after `played()`: the ship whose turn it is now (the other one) fires (new dice)."""
    battle = await ok(await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref")))
    now = battle["turn_bar"]["order"][0]["ship"]
    shot = {
        "ship": now,
        "battery": {"arbellatra": "particle-barbettes", "dauntless": "particle-bays"}[now],
        "mounts": 10,
        "target": "dauntless" if now == "arbellatra" else "arbellatra",
        "range": "long",
        "adjacent": "fore",
    }
    await ok(await act(c, table, {"arbellatra": "ann", "dauntless": "bob"}[now], "traveller.barrage", shot))


def dice_up_to(file: dict[str, Any], seq: int) -> int:
    return sum(len(row["dice"]) for row in file["log"] if row["seq"] <= seq)


async def ended_file(c: httpx.AsyncClient) -> tuple[Table, dict[str, Any]]:
    """`played()` to its end, and its file (which then carries the revealed seed)."""
    table = await played(c)
    await ok(await act(c, table, "ref", "battle.end", {"reason": "done"}))
    return table, await exported(c, table)


async def tamper(db_url: str, battle_id: str, seq: int | None = None) -> tuple[int, dict[str, Any], int]:
    """Change the first die of action `seq` (default: the first that rolled) in the stored log,
    behind the server's back; returns the seq, the die as now stored and its honest value."""
    db = Database(db_url)
    try:
        async with db.transaction() as session:
            query = select(ActionLog).where(ActionLog.battle_id == battle_id).order_by(ActionLog.seq)
            rows = (await session.scalars(query)).all()
            row = next(r for r in rows if r.dice and (seq is None or r.seq == seq))
            die = dict(row.dice[0])
            honest = die["value"]
            die["value"] = honest % die["sides"] + 1
            row.dice = [die, *row.dice[1:]]
            return row.seq, die, honest
    finally:
        await db.dispose()


async def test_GEN_02_a_file_exported_after_the_end_imports_with_every_die_checked_by_its_seed(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],  # noqa: F811
) -> None:
    source, target = pair
    table, file = await ended_file(source)
    copy = await imported(target, file)  # the file's log ends with the end: the copy has ended too
    dice = await record(target, copy)
    count = dice_up_to(file, len(file["log"]))
    assert count > 3 and len(dice["rolls"]) == count
    assert dice["mismatches"] == [] and dice["unchecked"] == []
    original, own = dice["sources"]
    assert original == {
        "through_seq": len(file["log"]),
        "battle": table.battle_id,
        "seed_sha256": file["battle"]["seed_sha256"],
        "seed": file["battle"]["seed"],
        "revealed": "file",
        "own": False,
        "seed_matches": True,
    }
    assert own["battle"] == copy.battle_id and own["own"] and own["seed_matches"] is True
    assert {r["source"] for r in dice["rolls"]} == {0}


async def test_GEN_02_dice_before_the_import_wait_for_the_original_seed_and_after_it_check_by_the_new(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],  # noqa: F811
    tmp_path: Path,
) -> None:
    source, target = pair
    table = await played(source)
    file = await exported(source, table)  # before the end: no seed in the file
    boundary = len(file["log"])
    copy = await imported(target, file)
    await fire_next(target, copy)
    await ok(await act(target, copy, "ref", "battle.end", {"reason": "done"}))
    dice = await record(target, copy)
    before = dice_up_to(file, boundary)
    after = [r for r in dice["rolls"] if r["seq"] > boundary]
    assert before > 3 and after, "dice on both sides of the import"
    # The original's dice cannot be checked yet (its seed is secret), and are not called wrong.
    assert dice["mismatches"] == []
    assert [(r["seq"], r["index"]) for r in dice["unchecked"]] == [
        (r["seq"], r["index"]) for r in dice["rolls"] if r["seq"] <= boundary
    ]
    assert dice["sources"][0]["seed"] is None and dice["sources"][0]["through_seq"] == boundary
    assert {r["source"] for r in after} == {1}

    # The copy's own file carries where its early dice came from; the CLI checks the rest and says so.
    ended = await exported(target, copy)
    assert ended["battle"]["imported_dice"] == [
        {
            "through_seq": boundary,
            "battle": table.battle_id,
            "seed_sha256": file["battle"]["seed_sha256"],
            "seed": None,
        }
    ]
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(ended))
    out = cli("sqlite:///nowhere.db", "verify", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        f"{before} dice up to seq {boundary} were rolled in battle {table.battle_id}, whose seed is not"
        " revealed yet: they cannot be checked until it has ended",
        f"{len(after)} of {before + len(after)} dice match the revealed seeds",
    ]

    # Imported again, the chain holds: the first battle's dice wait, the copy's check by its seed.
    again = await imported(source, ended)
    chained = await record(source, again)
    assert [(s["battle"], s["through_seq"]) for s in chained["sources"][:-1]] == [
        (table.battle_id, boundary),
        (copy.battle_id, len(ended["log"])),
    ]
    # …and this server has the first battle: once it ends, its seed checks the earliest dice here.
    await ok(await act(source, table, "ref", "battle.end", {"reason": "done"}))
    chained = await record(source, again)
    assert chained["unchecked"] == [] and chained["mismatches"] == []
    assert chained["sources"][0]["revealed"] == "here"


async def test_GEN_02_a_fork_checks_its_early_dice_once_the_original_has_ended(
    client: httpx.AsyncClient,
) -> None:
    table = await played(client)
    last = (await ok(await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))))[
        "seq"
    ]
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/fork", json={"seq": last}, headers=table.auth("ref")
    )
    assert r.status_code == 201, r.text
    fork = seated(r.json())
    await fire_next(client, fork)
    await ok(await act(client, fork, "ref", "battle.end", {}))
    assert len((await record(client, fork))["unchecked"]) > 3  # the original plays on: its seed is secret
    await ok(await act(client, table, "ref", "battle.end", {}))
    dice = await record(client, fork)
    assert dice["unchecked"] == [] and dice["mismatches"] == []
    assert {r["source"] for r in dice["rolls"]} == {0, 1}


async def test_GEN_02_a_die_changed_before_the_import_is_still_named(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],  # noqa: F811
) -> None:
    source, target = pair
    _, file = await ended_file(source)
    copy = await imported(target, file)
    seq, die, honest = await tamper(target.db_url, copy.battle_id)  # type: ignore[attr-defined]
    dice = await record(target, copy)
    assert [(m["seq"], m["index"], m["value"], m["expected"], m["source"]) for m in dice["mismatches"]] == [
        (seq, 0, die["value"], honest, 0)
    ]


async def test_GEN_02_a_file_whose_seed_is_not_its_commitment_is_refused(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],  # noqa: F811
) -> None:
    source, target = pair
    _, file = await ended_file(source)
    file["battle"]["seed"] = "00" * 32
    r = await target.post("/api/v1/battles/import", json=file)
    assert r.status_code == 422 and r.json()["detail"]["field"] == "battle.seed", r.text
    file["battle"]["seed"] = None
    file["battle"]["imported_dice"] = [{"through_seq": 0, "battle": "x", "seed_sha256": "ab", "seed": None}]
    r = await target.post("/api/v1/battles/import", json=file)
    assert r.status_code == 422 and r.json()["detail"]["field"] == "battle.imported_dice.0.through_seq"
