"""REST API for bots (httpx against the app, on SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid

import httpx

from tests.helpers import act, set_table, simple_ship


async def test_bot_reads_acts_and_lists_events(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    r = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))
    assert r.status_code == 200 and r.json()["seq"] == 2
    etag = r.headers["etag"]
    assert (
        await client.get(
            f"/api/v1/battles/{table.battle_id}", headers={**table.auth("ann"), "If-None-Match": etag}
        )
    ).status_code == 304
    r = await act(
        client,
        table,
        "ann",
        "damage.apply",
        {"target": "crow", "source": "hawk", "amount": 9, "direction": "fore"},
    )
    assert r.status_code == 200, r.text
    assert (
        r.json()["seq"] == 3
        and r.json()["events"][0]["text"] == "Hawk hits Crow for 9 (fore): 4 to armour, 5 to Fore."
    )
    r = await client.get(
        f"/api/v1/battles/{table.battle_id}/events", params={"since": 2}, headers=table.auth("bob")
    )
    assert [e["seq"] for e in r.json()["entries"]] == [3]
    assert "payload" not in r.json()["entries"][0]
    r = await client.get(
        f"/api/v1/battles/{table.battle_id}/events", params={"since": 2}, headers=table.auth("ref")
    )
    assert r.json()["entries"][0]["payload"]["amount"] == 9
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))).json()
    assert state["state"]["ships"]["crow"]["parts"]["sheet"]["sections"][1]["structure"] == 15


async def test_errors_are_json_with_field_and_reason_and_change_nothing(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    r = await act(client, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": -3})
    assert r.status_code == 422 and r.json()["detail"]["field"] == "amount"
    r = await act(client, table, "ann", "damage.apply", {"target": "crow", "source": "crow", "amount": 3})
    assert r.status_code == 403 and r.json()["detail"]["field"] == "source"  # not Ann's ship, nor at Ann's
    r = await act(
        client, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 3}, seq=1
    )
    assert r.status_code == 409 and r.json()["detail"]["seq"] == 2
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/actions",
        json={"type": "clock.advance"},
        headers=table.auth("ann"),
    )
    assert r.status_code == 422 and r.json()["detail"]["field"] == "action_id"
    r = await act(client, table, "watcher", "clock.advance", {})
    assert r.status_code == 403
    assert (
        await client.get(f"/api/v1/battles/{table.battle_id}", headers={"Authorization": "Bearer nope"})
    ).status_code == 403
    missing = await client.get(f"/api/v1/battles/{table.battle_id}")
    assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
    r = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))
    assert r.json()["seq"] == 2


async def test_duplicate_action_id_returns_first_result(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    key = uuid.uuid4().hex
    first = await act(
        client, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 3}, action_id=key
    )
    second = await act(
        client, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 3}, action_id=key
    )
    assert first.json()["seq"] == second.json()["seq"] == 3 and second.json()["duplicate"] is True


async def test_referee_set_up_and_overrides_over_rest(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    r = await act(
        client,
        table,
        "ref",
        "ship.add",
        {"definition": {"name": "Broken", "system": "b5wars", "parts": {"sheet": {"sections": []}}}},
    )
    assert r.status_code == 422 and "sections" in r.json()["detail"]["reason"]
    r = await act(
        client, table, "ref", "ship.add", {"definition": simple_ship("Hawk"), "owner": table.ids["ann"]}
    )
    assert r.status_code == 200
    r = await act(
        client,
        table,
        "ref",
        "override.set",
        {"path": "ships.hawk.parts.sheet.sections.0.structure", "value": 12, "reason": "scenario start"},
    )
    assert r.status_code == 200 and "⚠ OVERRIDE" in r.json()["events"][0]["text"]
    r = await act(client, table, "ref", "clock.advance", {"expect_step": "ship_power"})
    assert r.status_code == 200
    r = await act(client, table, "ref", "ship.assign", {"ship": "hawk", "owner": table.ids["bob"]})
    assert r.status_code == 200
    me = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))).json()["me"]
    assert me["ships"] == ["hawk"]
    r = await client.delete(
        f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}", headers=table.auth("ref")
    )
    assert r.status_code == 204
    assert (
        await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))
    ).status_code == 403
    audit = (await client.get(f"/api/v1/battles/{table.battle_id}/audit", headers=table.auth("ref"))).json()
    assert audit == {"seq": 4, "snapshot_matches_log": True}
    assert (
        await client.get(f"/api/v1/battles/{table.battle_id}/audit", headers=table.auth("bob"))
    ).status_code == 403


async def test_openapi_documents_the_doors(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    assert "/api/v1/battles/{battle_id}/actions" in spec["paths"]
    assert "/api/v1/battles/{battle_id}/events" in spec["paths"]
    catalogue = (await client.get("/api/v1/actions")).json()["actions"]
    assert {
        "damage.apply",
        "clock.advance",
        "override.set",
        "ship.add",
        "battle.undo",
        "battle.rewind",
    } <= set(catalogue)
    assert catalogue["damage.apply"]["payload_schema"]["properties"]["amount"]["type"] == "integer"
    assert (await client.get("/docs")).status_code == 200


async def test_the_catalogue_lists_each_payload_schema_as_pydantic_builds_it(
    client: httpx.AsyncClient,
) -> None:
    """The catalogue's schemas are worked out once per model and kept: each is still exactly the
    schema pydantic gives its payload model, read twice (a kept schema changed by a reader would
    show on the second read)."""
    from app.rules import STANDARD
    from app.services.history.replay import HISTORY_ACTIONS

    models = {name: spec.payload for name, (spec, _) in STANDARD.all_actions().items()}
    models |= {name: spec.payload for name, spec in HISTORY_ACTIONS.items()}
    for _ in range(2):
        catalogue = (await client.get("/api/v1/actions")).json()["actions"]
        assert set(catalogue) == set(models)
        for name, model in models.items():
            assert catalogue[name]["payload_schema"] == model.model_json_schema(), name


async def test_request_size_limit(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/api/v1/battles", content=b"{" + b" " * 70000 + b"}", headers={"content-type": "application/json"}
    )
    assert r.status_code == 413


async def test_log_entries_say_when_they_happened(client: httpx.AsyncClient) -> None:
    table = await set_table(client, system="sfb", ships={"hawk": (simple_ship("Hawk", "sfb"), "ann")})
    await act(client, table, "ref", "clock.advance", {})
    await act(client, table, "ref", "clock.advance", {})
    r = await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ann"))
    assert [e["clock"] for e in r.json()["entries"]] == ["T1 EA", "T1 EA", "T1 I1"]


async def test_GEN_02_after_the_end_anyone_re_derives_every_roll(client: httpx.AsyncClient) -> None:
    """The seed's SHA-256 is public from the start; at the end the seed and every die are, and each
    die is HMAC(seed, battle, seq, index) — re-derived here from the published recipe alone."""
    import hashlib

    from tests.helpers import ship_def

    table = await set_table(
        client,
        system="sfb",
        ships={"ker": (ship_def("shadow-cruiser"), "bob"), "hawk": (simple_ship("Hawk", "sfb"), "ann")},
    )
    start = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))).json()
    assert start["seed"] is None and len(start["seed_sha256"]) == 64
    assert (
        await client.get(f"/api/v1/battles/{table.battle_id}/dice", headers=table.auth("ann"))
    ).status_code == 403
    await act(client, table, "ref", "clock.advance", {})
    await act(
        client,
        table,
        "ann",
        "damage.apply",
        {"target": "shadow-cruiser", "source": "hawk", "amount": 60, "direction": "fore"},
    )
    await act(client, table, "ref", "clock.advance", {})  # the pain check rolls
    await act(client, table, "ref", "battle.end", {"reason": "over"})
    record = (await client.get(f"/api/v1/battles/{table.battle_id}/dice", headers=table.auth("ann"))).json()
    seed = bytes.fromhex(record["seed"])
    assert hashlib.sha256(seed).hexdigest() == start["seed_sha256"]
    assert record["rolls"] and record["mismatches"] == []
    assert record["rolls"][0]["purpose"] == "pain rise chance, band 50–99"
    assert all(
        rederive(seed, table.battle_id, r["seq"], r["index"], r["sides"]) == r["value"]
        for r in record["rolls"]
    )


def rederive(seed: bytes, battle_id: str, seq: int, index: int, sides: int) -> int:
    """The published recipe, written out independently of app.rules.dice: 8-byte big-endian chunks of
    HMAC-SHA256(seed, "battle:seq:index:dS:attempt"), the first below the largest multiple of S."""
    import hashlib
    import hmac

    limit = (2**64 // sides) * sides
    attempt = 0
    while True:
        digest = hmac.new(
            seed, f"{battle_id}:{seq}:{index}:d{sides}:{attempt}".encode(), hashlib.sha256
        ).digest()
        for offset in range(0, 32, 8):
            value = int.from_bytes(digest[offset : offset + 8], "big")
            if value < limit:
                return value % sides + 1
        attempt += 1
