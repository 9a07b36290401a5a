"""A battle as a file: export from one database, import into the other (SQLite →
PostgreSQL and back), the imported battle's log rebuilds its own snapshot and its state is the
original's (seat ids renamed); a tampered file — one die, one event — is refused naming its seq;
the file never holds a token, and the seed only once revealed."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.main import create_app
from tests import forked
from tests.conftest import ROOT, SECRET, settings_for
from tests.helpers import Table, act, set_table, ship_def


async def _client(url: str) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings_for(url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            c.db_url = url  # type: ignore[attr-defined]
            c.app = app  # type: ignore[attr-defined]
            yield c


@pytest.fixture(params=[("sqlite", "postgres"), ("postgres", "sqlite")], ids=["sqlite→pg", "pg→sqlite"])
async def pair(
    request: pytest.FixtureRequest, sqlite_url: str, postgres_url: str
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """An app on each database: the battle is played on the first and imported into the second."""
    urls = {"sqlite": sqlite_url, "postgres": postgres_url}
    here, there = (urls[name] for name in request.param)
    async for source in _client(here):
        async for target in _client(there):
            yield source, target


async def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return r.json()


async def played(c: httpx.AsyncClient) -> Table:
    """A Traveller battle with seeded dice: initiative and a barrage that roll, secret orders
    (owner-only until the reveal), an undo, the clock moved."""
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
    }
    table = await set_table(c, system="traveller", ships=ships)
    await ok(await act(c, table, "ref", "traveller.initiative", {}))
    await ok(await act(c, table, "ref", "battle.undo", {"reason": "rolled too soon"}))
    await ok(await act(c, table, "ref", "traveller.initiative", {}))
    draft = {"ship": "arbellatra", "orders": [], "commit": False}
    await ok(await act(c, table, "ann", "traveller.orders", draft))
    await ok(
        await act(c, table, "ann", "traveller.orders", {"ship": "arbellatra", "orders": [], "commit": True})
    )
    await ok(
        await act(c, table, "bob", "traveller.orders", {"ship": "dauntless", "orders": [], "commit": True})
    )  # the last commit ends the orders step by itself
    await ok(await act(c, table, "ref", "clock.advance", {}))  # manoeuvre → combat
    order = (await ok(await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))))[
        "turn_bar"
    ]["order"]
    first, other = (
        ("arbellatra", "dauntless") if order[0]["ship"] == "arbellatra" else ("dauntless", "arbellatra")
    )
    battery = {"arbellatra": "particle-barbettes", "dauntless": "particle-bays"}[first]
    shot = {
        "ship": first,
        "battery": battery,
        "mounts": 10,
        "target": other,
        "range": "long",
        "adjacent": "fore",
    }
    await ok(await act(c, table, "ann" if first == "arbellatra" else "bob", "traveller.barrage", shot))
    return table


async def exported(c: httpx.AsyncClient, table: Table) -> dict[str, Any]:
    r = await c.get(f"/api/v1/battles/{table.battle_id}/export", headers=table.auth("ref"))
    assert r.status_code == 200, r.text
    assert "attachment" in r.headers["content-disposition"]
    return r.json()


def renamed(value: Any, ids: dict[str, str]) -> Any:
    text = json.dumps(value)
    for old, new in ids.items():
        text = text.replace(old, new)
    return json.loads(text)


async def test_export_import_across_databases_rebuilds_the_same_battle(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    source, target = pair
    table = await played(source)
    file = await exported(source, table)
    text = json.dumps(file)
    assert file["format"] == "starboard.battle/1" and file["battle"]["seed"] is None
    assert all(token not in text for token in table.tokens.values())
    assert {s["name"] for s in file["seats"]} == {"Referee", "ann", "bob", "watcher"}
    assert [s["definition"]["name"] for s in file["ships"]] == ["Arbellatra", "Dauntless"]
    assert any(row["dice"] for row in file["log"]), "the battle rolled dice"
    # The file is what its schema says (the parts the schema requires, at least).
    schema = (await target.get("/api/v1/schemas/battle-file")).json()
    assert json.dumps(schema, indent=2, ensure_ascii=False) in (ROOT / "docs" / "battle-file.md").read_text()
    assert set(schema["required"]) <= set(file) and schema["properties"]["format"]["const"] == file["format"]

    r = await target.post("/api/v1/battles/import", json=file)
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["seq"] == file["battle"]["seq"] == len(file["log"])
    ids = {s["file_id"]: s["participant_id"] for s in made["seats"]}
    copy = Table(
        "",
        made["battle_id"],
        {s["name"] if s["role"] != "referee" else "ref": s["token"] for s in made["seats"]},
        {},
    )
    audit = await ok(await target.get(f"/api/v1/battles/{copy.battle_id}/audit", headers=copy.auth("ref")))
    assert audit == {"seq": made["seq"], "snapshot_matches_log": True}
    # Named apart from the original it was exported from; a copy of the copy is not marked twice.
    read = await ok(await target.get(f"/api/v1/battles/{copy.battle_id}", headers=copy.auth("ref")))
    assert read["name"] == file["battle"]["name"] + " (imported)"
    r = await target.post(
        "/api/v1/battles/import", json={**file, "battle": {**file["battle"], "name": read["name"]}}
    )
    assert r.status_code == 201, r.text
    again = r.json()
    ref = next(s["token"] for s in again["seats"] if s["role"] == "referee")
    twice = await ok(
        await target.get(f"/api/v1/battles/{again['battle_id']}", headers={"Authorization": f"Bearer {ref}"})
    )
    assert twice["name"] == read["name"]
    for who in ("ref", "ann", "watcher"):
        there = await ok(await target.get(f"/api/v1/battles/{copy.battle_id}", headers=copy.auth(who)))
        here = await ok(await source.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who)))
        assert there["state"] == renamed(here["state"], ids), who
        assert there["turn_bar"]["clock"] == here["turn_bar"]["clock"]
    # Hidden stays hidden in the copy: Bob reads the same log there as here.
    bob_there = (
        await target.get(f"/api/v1/battles/{copy.battle_id}/events", headers=copy.auth("bob"))
    ).json()
    bob_here = (
        await source.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("bob"))
    ).json()
    assert [e["events"] for e in bob_there["entries"]] == renamed(
        [e["events"] for e in bob_here["entries"]], ids
    )
    # The copy plays on.
    assert (await ok(await act(target, copy, "ref", "clock.advance", {})))["seq"] == made["seq"] + 1

    # Ended, the file carries the seed.
    await ok(await act(source, table, "ref", "battle.end", {"reason": "done"}))
    ended = await exported(source, table)
    dice = await ok(await source.get(f"/api/v1/battles/{table.battle_id}/dice", headers=table.auth("ref")))
    assert ended["battle"]["seed"] == dice["seed"] is not None


async def test_a_tampered_file_is_refused_naming_its_seq(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    source, target = pair
    table = await played(source)
    file = await exported(source, table)
    rolled = next(row for row in file["log"] if row["dice"])
    die = rolled["dice"][0]
    die["value"] = die["value"] % die["sides"] + 1  # another face
    r = await target.post("/api/v1/battles/import", json=file)
    assert r.status_code == 422, r.text
    assert (
        r.json()["detail"]["seq"] == rolled["seq"]
        and r.json()["detail"]["field"] == f"log.{rolled['seq'] - 1}"
    )
    assert f"log seq {rolled['seq']}" in r.json()["detail"]["reason"]

    file = await exported(source, table)
    later = file["log"][-1]
    later["events"][0]["text"] = "Nothing happened here."
    r = await target.post("/api/v1/battles/import", json=file)
    assert r.status_code == 422 and r.json()["detail"]["seq"] == later["seq"], r.text

    r = await target.post("/api/v1/battles/import", json={**file, "format": "other/1"})
    assert r.status_code == 422 and r.json()["detail"]["field"] == "format"
    # Only the referee exports.
    r = await source.get(f"/api/v1/battles/{table.battle_id}/export", headers=table.auth("ann"))
    assert r.status_code == 403


def cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": SECRET, "PUBLIC_BASE_URL": "http://x"}
    return forked.run_cli(list(args), env, timeout=60)


async def test_cli_export_then_import_into_the_other_database(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient], tmp_path: Path
) -> None:
    source, target = pair
    here, there = source.db_url, target.db_url  # type: ignore[attr-defined]
    table = await played(source)
    out = cli(here, "export", table.battle_id)
    assert out.returncode == 0, out.stderr
    path = tmp_path / "battle.json"
    path.write_text(out.stdout)
    assert json.loads(out.stdout) == await exported(source, table)
    done = cli(there, "import", str(path))
    assert done.returncode == 0, done.stderr
    battle_id = done.stdout.split()[1]
    ref_token = next(line for line in done.stdout.splitlines() if line.strip().startswith("referee")).split(
        "#"
    )[1]
    audit = await ok(
        await target.get(
            f"/api/v1/battles/{battle_id}/audit", headers={"Authorization": f"Bearer {ref_token}"}
        )
    )
    assert audit["snapshot_matches_log"] is True and audit["seq"] == len(json.loads(out.stdout)["log"])
    # A tampered file is refused in words naming the seq; nothing is created.
    file = json.loads(out.stdout)
    file["log"][-1]["events"] = []
    path.write_text(json.dumps(file))
    refused = cli(there, "import", str(path))
    assert refused.returncode == 1 and f"log seq {len(file['log'])}" in refused.stderr
    assert cli(here, "export", "no-such-battle").returncode == 1


async def test_cli_verify_recomputes_every_die_and_names_a_tampered_one(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient], tmp_path: Path
) -> None:
    source, _ = pair
    table = await played(source)
    path = tmp_path / "battle.json"
    path.write_text(json.dumps(await exported(source, table)))
    early = cli("sqlite:///nowhere.db", "verify", str(path))  # no seed before the end: refused in words
    assert early.returncode == 1 and "revealed only once the battle has ended" in early.stderr
    await ok(await act(source, table, "ref", "battle.end", {}))
    file = await exported(source, table)
    count = sum(len(row["dice"]) for row in file["log"])
    path.write_text(json.dumps(file))
    # One die changed to another face: named by seq and index, with the value the seed makes.
    rolled = [row for row in file["log"] if row["dice"]][-1]
    die = rolled["dice"][-1]
    honest = die["value"]
    die["value"] = honest % die["sides"] + 1
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(file))
    # A seed that is not the one committed to is refused.
    file["battle"]["seed"] = "00" * 32
    seedless = tmp_path / "forged.json"
    seedless.write_text(json.dumps(file))
    # The three files are verified at once (three processes: each CLI start is most of its time).
    with ThreadPoolExecutor(3) as pool:
        good, bad, forged = pool.map(
            lambda f: cli("sqlite:///nowhere.db", "verify", str(f)), (path, tampered, seedless)
        )
    assert good.returncode == 0 and good.stdout.strip() == f"{count} of {count} dice match the revealed seed"
    index = len(rolled["dice"]) - 1
    assert bad.returncode == 1
    assert bad.stdout.splitlines() == [
        f"seq {rolled['seq']} die {index} (d{die['sides']}, {die['purpose']}): recorded {die['value']}, the seed makes {honest}",
        f"{count - 1} of {count} dice match the revealed seed",
    ]
    assert forged.returncode == 1 and "not the commitment" in forged.stderr
