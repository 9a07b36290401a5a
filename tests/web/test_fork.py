"""A what-if fork: the referee starts a new battle from any seq of an existing one. The
fork's state is the original's at that seq for every seat, what was hidden then stays hidden from the
same seats, and the two battles go on independently."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.helpers import Table, act, set_table, ship_def, simple_ship
from tests.web.test_battle_file import cli, renamed


async def ok(r: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    return r.json()


async def seen(c: httpx.AsyncClient, table: Table) -> dict[str, Any]:
    """What each seat sees now: the state, and Bob's log."""
    views: dict[str, Any] = {}
    for who in ("ref", "ann", "bob", "watcher"):
        views[who] = (await ok(await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))))[
            "state"
        ]
    bob_log = await ok(await c.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("bob")))
    views["bob_log"] = [e["events"] for e in bob_log["entries"]]
    return views


async def test_a_fork_from_seq_n_is_the_original_at_n_hides_what_was_hidden_and_goes_its_own_way(
    client: httpx.AsyncClient,
) -> None:
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
    }
    table = await set_table(client, system="traveller", ships=ships)
    await ok(await act(client, table, "ref", "traveller.initiative", {}))
    # Ann's orders are committed and secret (TR-26): Bob must not read them, here or in the fork.
    orders = {"ship": "arbellatra", "orders": [], "commit": True}
    at = (await ok(await act(client, table, "ann", "traveller.orders", orders)))["seq"]
    then = await seen(client, table)
    # The original goes on past the fork point.
    await ok(
        await act(
            client, table, "bob", "traveller.orders", {"ship": "dauntless", "orders": [], "commit": True}
        )
    )
    await ok(await act(client, table, "ref", "clock.advance", {}))
    original_seq = (
        await ok(await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref")))
    )["seq"]
    assert original_seq > at

    path = f"/api/v1/battles/{table.battle_id}/fork"
    made = await ok(await client.post(path, json={"seq": at}, headers=table.auth("ref")), 201)
    assert made["seq"] == at and made["battle_id"] != table.battle_id
    names = {s["name"] if s["role"] != "referee" else "ref": s for s in made["seats"]}
    fork = Table("", made["battle_id"], {who: s["token"] for who, s in names.items()}, {})
    ids = {s["file_id"]: s["participant_id"] for s in made["seats"]}
    assert await seen(client, fork) == renamed(then, ids)
    bob_fork = json.dumps((await seen(client, fork))["bob_log"])
    assert "Arbellatra has committed its orders." in bob_fork and "cost 0" not in bob_fork
    ann_fork = await ok(
        await client.get(f"/api/v1/battles/{fork.battle_id}/events", headers=fork.auth("ann"))
    )
    assert "Arbellatra commits its orders: no orders (cost 0)." in json.dumps(ann_fork)
    audit = await ok(await client.get(f"/api/v1/battles/{fork.battle_id}/audit", headers=fork.auth("ref")))
    assert audit == {"seq": at, "snapshot_matches_log": True}
    info = await ok(await client.get(f"/api/v1/battles/{fork.battle_id}", headers=fork.auth("ref")))
    assert info["name"].endswith(f"(what-if from seq {at})")

    # Independent: Bob orders differently in the fork; the original neither moves nor changes.
    before = await seen(client, table)
    await ok(
        await act(
            client, fork, "bob", "traveller.orders", {"ship": "dauntless", "orders": [], "commit": True}
        )
    )
    assert (await ok(await client.get(f"/api/v1/battles/{fork.battle_id}", headers=fork.auth("ref"))))[
        "seq"
    ] == at + 1
    assert await seen(client, table) == before
    assert (await ok(await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))))[
        "seq"
    ] == original_seq

    # Refused in words: a seq past the end names the field; only the referee forks.
    r = await client.post(path, json={"seq": original_seq + 1}, headers=table.auth("ref"))
    assert r.status_code == 422 and r.json()["detail"]["field"] == "seq", r.text
    r = await client.post(path, json={"seq": 0}, headers=table.auth("ref"))
    assert r.status_code == 422 and "seq" in r.text
    r = await client.post(path, json={"seq": at}, headers=table.auth("ann"))
    assert r.status_code == 403


async def test_cli_fork_makes_the_what_if_and_refuses_a_seq_past_the_end(
    client: httpx.AsyncClient, db_url: str
) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    seq = (await ok(await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))))["seq"]
    await ok(await act(client, table, "ref", "clock.advance", {}))
    url = db_url
    made = cli(url, "fork", table.battle_id, str(seq))
    assert made.returncode == 0, made.stderr
    battle_id = made.stdout.split()[1]
    ref_token = next(line for line in made.stdout.splitlines() if line.strip().startswith("referee")).split(
        "#"
    )[1]
    auth = {"Authorization": f"Bearer {ref_token}"}
    audit = await ok(await client.get(f"/api/v1/battles/{battle_id}/audit", headers=auth))
    assert audit == {"seq": seq, "snapshot_matches_log": True}
    refused = cli(url, "fork", table.battle_id, str(seq + 5))
    assert refused.returncode == 1 and f"a fork starts from a seq of 1 to {seq + 1}" in refused.stderr
