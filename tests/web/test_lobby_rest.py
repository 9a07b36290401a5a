"""The lobby over REST: the referee's listing (422 naming the field on bad input, nothing
changed), the public list, and claiming an open seat first come or through the referee's approval.
On SQLite and PostgreSQL."""

from __future__ import annotations

import httpx

from tests.helpers import Table, act, set_table, simple_ship

LISTING = {"claims": "first", "open_seats": [], "spectators": True, "delay_actions": 0, "delay_turn": False}


async def table_with_ships(c: httpx.AsyncClient) -> Table:
    return await set_table(
        c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )


async def listed(c: httpx.AsyncClient, table: Table, **changes: object) -> dict:
    body = {**LISTING, "open_seats": [table.ids["bob"]], **changes}
    r = await c.put(f"/api/v1/battles/{table.battle_id}/listing", json=body, headers=table.auth("ref"))
    assert r.status_code == 200, r.text
    return r.json()


async def test_the_referee_lists_and_the_lobby_shows_the_public_view(client: httpx.AsyncClient) -> None:
    table = await table_with_ships(client)
    r = await client.get(f"/api/v1/battles/{table.battle_id}/listing", headers=table.auth("ref"))
    assert r.json() == {
        "claims": "closed",
        "open_seats": [],
        "spectators": False,
        "delay_actions": 0,
        "delay_turn": False,
    }
    assert table.battle_id not in str((await client.get("/api/v1/lobby")).json())
    assert await listed(client, table) == {**LISTING, "open_seats": [table.ids["bob"]]}
    lobby = (await client.get("/api/v1/lobby")).json()
    (looking,) = [e for e in lobby["looking"] if e["battle_id"] == table.battle_id]
    assert looking["system"] == "b5wars" and looking["turn"] == 1 and looking["claims"] == "first"
    assert looking["seats"] == [{"id": table.ids["bob"], "name": "bob", "ships": ["Crow"]}]
    assert sorted(s["name"] for s in looking["ships"]) == ["Crow", "Hawk"]
    assert {s["klass"] for s in looking["ships"]} == {"Test frigate"}
    assert [e["battle_id"] for e in lobby["live"]].count(table.battle_id) == 1
    assert table.battle_id not in [e["battle_id"] for e in lobby["finished"]]


async def test_only_the_referee_lists(client: httpx.AsyncClient) -> None:
    table = await table_with_ships(client)
    for who in ("ann", "watcher"):
        r = await client.put(
            f"/api/v1/battles/{table.battle_id}/listing", json=LISTING, headers=table.auth(who)
        )
        assert r.status_code == 403
    r = await client.put(f"/api/v1/battles/{table.battle_id}/listing", json=LISTING)
    assert r.status_code == 401


async def test_bad_listing_input_is_422_naming_the_field_and_changes_nothing(
    client: httpx.AsyncClient,
) -> None:
    table = await table_with_ships(client)
    await listed(client, table, spectators=False)
    before = (
        await client.get(f"/api/v1/battles/{table.battle_id}/listing", headers=table.auth("ref"))
    ).json()
    bad = [
        ({"claims": "whenever"}, "claims"),
        ({"delay_actions": -1}, "delay_actions"),
        ({"delay_actions": 501}, "delay_actions"),
        ({"spectators": "maybe"}, "spectators"),
        ({"open_seats": [table.ids["watcher"]]}, "open_seats"),  # a spectator's seat is not a player seat
        ({"open_seats": [table.ids["ref"]]}, "open_seats"),
        ({"open_seats": ["nobody"]}, "open_seats"),
    ]
    for change, field in bad:
        r = await client.put(
            f"/api/v1/battles/{table.battle_id}/listing",
            json={**LISTING, **change},
            headers=table.auth("ref"),
        )
        assert r.status_code == 422, (change, r.text)
        assert (
            r.json()["detail"]["field"].split(".")[-1].startswith(field)
            or field in r.json()["detail"]["field"]
        )
    after = (await client.get(f"/api/v1/battles/{table.battle_id}/listing", headers=table.auth("ref"))).json()
    assert after == before


async def test_first_come_claim_gives_a_new_token_and_closes_the_seat(client: httpx.AsyncClient) -> None:
    table = await table_with_ships(client)
    await listed(client, table)
    url = f"/api/v1/lobby/{table.battle_id}/seats/{table.ids['bob']}/claim"
    r = await client.post(url, json={"name": "Zed"})
    assert r.status_code == 201, r.text
    seat = r.json()
    assert seat["participant_id"] == table.ids["bob"] and seat["name"] == "Zed" and seat["role"] == "player"
    # the new token acts for the seat; the old link no longer does
    mine = {"Authorization": f"Bearer {seat['token']}"}
    state = await client.get(f"/api/v1/battles/{table.battle_id}", headers=mine)
    assert state.status_code == 200 and state.json()["me"]["name"] == "Zed"
    assert (
        await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))
    ).status_code == 403
    # the seat is taken: a second claim is refused, naming the seat
    again = await client.post(url, json={"name": "Yan"})
    assert again.status_code == 422 and again.json()["detail"]["field"] == "seat"
    looking = (await client.get("/api/v1/lobby")).json()["looking"]
    assert table.battle_id not in [e["battle_id"] for e in looking]


async def test_claim_input_is_checked(client: httpx.AsyncClient) -> None:
    table = await table_with_ships(client)
    await listed(client, table)
    url = f"/api/v1/lobby/{table.battle_id}/seats/{table.ids['bob']}/claim"
    r = await client.post(url, json={"name": "x" * 41})
    assert r.status_code == 422 and r.json()["detail"]["field"].endswith("name")
    r = await client.post(f"/api/v1/lobby/{table.battle_id}/seats/{table.ids['ann']}/claim", json={})
    assert r.status_code == 422 and r.json()["detail"]["field"] == "seat"  # not an open seat
    r = await client.post(f"/api/v1/lobby/nosuch/seats/{table.ids['bob']}/claim", json={})
    assert r.status_code == 404
    # nothing changed: bob's old token still works
    assert (
        await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))
    ).status_code == 200


async def test_a_claim_the_referee_approves_is_collected_once_with_its_secret(
    client: httpx.AsyncClient,
) -> None:
    table = await table_with_ships(client)
    await listed(client, table, claims="approve")
    url = f"/api/v1/lobby/{table.battle_id}/seats/{table.ids['bob']}/claim"
    first = await client.post(url, json={"name": "Zed"})
    second = await client.post(url, json={"name": "Yan"})
    assert first.status_code == second.status_code == 202
    claim, other = first.json(), second.json()
    status_url = f"/api/v1/lobby/{table.battle_id}/claims/{claim['claim_id']}"
    secret = {"Authorization": f"Bearer {claim['claim_secret']}"}
    assert (await client.get(status_url, headers=secret)).json()["status"] == "pending"
    assert (await client.get(status_url, headers={"Authorization": "Bearer wrong"})).status_code == 404
    assert (await client.post(f"{status_url}/collect", headers=secret)).status_code == 422  # not yet
    # the referee's queue shows the claim; a player's does not
    queue = (
        await client.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth("ref"))
    ).json()
    shown = {r["id"]: r for r in queue["requests"]}
    assert (
        shown[claim["claim_id"]]["who"] == "Zed"
        and shown[claim["claim_id"]]["summary"] == "claims the open seat bob"
    )
    mine = (await client.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth("bob"))).json()
    assert mine["requests"] == []
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/requests/{claim['claim_id']}",
        json={"approve": True},
        headers=table.auth("ref"),
    )
    assert r.status_code == 200, r.text
    assert (await client.get(status_url, headers=secret)).json()["status"] == "approved"
    other_status = await client.get(
        f"/api/v1/lobby/{table.battle_id}/claims/{other['claim_id']}",
        headers={"Authorization": f"Bearer {other['claim_secret']}"},
    )
    assert other_status.json()["status"] == "refused"
    seat = await client.post(f"{status_url}/collect", headers=secret)
    assert seat.status_code == 200 and seat.json()["name"] == "Zed"
    assert (await client.post(f"{status_url}/collect", headers=secret)).status_code == 422  # once
    token = {"Authorization": f"Bearer {seat.json()['token']}"}
    assert (await client.get(f"/api/v1/battles/{table.battle_id}", headers=token)).status_code == 200
    assert (
        await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))
    ).status_code == 403


async def test_finished_public_battles_are_listed_with_their_report(client: httpx.AsyncClient) -> None:
    table = await table_with_ships(client)
    await listed(client, table, open_seats=[])
    assert (await act(client, table, "ref", "battle.end", {})).status_code == 200
    lobby = (await client.get("/api/v1/lobby")).json()
    assert table.battle_id in [e["battle_id"] for e in lobby["finished"]]
    assert table.battle_id not in [e["battle_id"] for e in lobby["live"] + lobby["looking"]]


async def test_the_lobby_is_in_the_openapi_schema(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert "get" in paths["/api/v1/lobby"]
    assert {"get", "put"} <= set(paths["/api/v1/battles/{battle_id}/listing"])
    assert "post" in paths["/api/v1/lobby/{battle_id}/seats/{seat_id}/claim"]
    assert "post" in paths["/api/v1/lobby/{battle_id}/claims/{claim_id}/collect"]


async def test_the_viewscreen_as_data_runs_behind_by_the_delay_and_shows_only_the_public(
    client: httpx.AsyncClient,
) -> None:
    """GET /api/v1/battles/{id}/screen: the screen's seq, how far behind the battle it is, each
    ship's public figures then and the ticker, newest first. Open to anyone while the battle is
    listed for spectators; otherwise a seat's token."""
    table = await table_with_ships(client)
    url = f"/api/v1/battles/{table.battle_id}/screen"
    assert (await client.get(url)).status_code == 401  # not listed: a seat's token is asked
    hit = {"target": "crow", "source": "hawk", "amount": 4, "direction": "fore"}
    assert (await act(client, table, "ann", "damage.apply", hit)).status_code == 200
    seated = await client.get(url, headers=table.auth("bob"))
    assert seated.status_code == 200, seated.text
    now = seated.json()
    assert (now["seq"], now["behind"], now["status"]) == (3, 0, "active")
    assert now["ticker"][0]["seq"] == 3 and now["ticker"][0]["texts"][0].startswith("Hawk hits Crow for 4")
    await listed(client, table, open_seats=[], delay_actions=1)
    public = await client.get(url)  # listed for spectators: no token needed
    assert public.status_code == 200, public.text
    behind = public.json()
    assert (behind["seq"], behind["behind"]) == (2, 1)
    assert [t["seq"] for t in behind["ticker"]] == [2, 1]  # the hit is not on the screen yet
    crow_now = next(s for s in now["ships"] if s["name"] == "Crow")
    crow_then = next(s for s in behind["ships"] if s["name"] == "Crow")
    assert crow_then["points"] - crow_now["points"] == 4
    assert "token" not in public.text and table.tokens["ref"] not in public.text
