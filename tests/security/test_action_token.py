"""The REST action door finds the acting seat by its bearer token in the action's own read
(one read fewer per action). The answers are the door's as before — an unknown, removed
or replaced token is refused before anything else is told, a token of another battle is told so —
and nothing changes; the seat found acts, is recorded as the actor and is told its repeats.
SQLite and PostgreSQL (the bare-driver statement and the ORM's)."""

from __future__ import annotations

import uuid

import httpx

from tests.helpers import act, set_table, simple_ship

HIT = {"target": "crow", "source": "hawk", "amount": 1, "direction": "fore"}


async def _table(client: httpx.AsyncClient):  # type: ignore[no-untyped-def]
    return await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )


async def _seq(client: httpx.AsyncClient, table) -> int:  # type: ignore[no-untyped-def]
    return (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()["seq"]


def _body() -> dict:  # type: ignore[type-arg]
    return {"type": "damage.apply", "payload": HIT, "action_id": uuid.uuid4().hex}


async def test_unknown_tokens_are_refused_before_the_battle_is_looked_up(client: httpx.AsyncClient) -> None:
    table = await _table(client)
    bad = {"Authorization": "Bearer not-a-token"}
    for battle_id in (table.battle_id, "no-such-battle"):
        r = await client.post(f"/api/v1/battles/{battle_id}/actions", json=_body(), headers=bad)
        assert r.status_code == 403, r.text
        assert r.json()["detail"]["reason"] == "that link or token is not valid"
    r = await client.post(f"/api/v1/battles/{table.battle_id}/actions", json=_body())
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
    # A good token on a battle that is not its own is told so, whether that battle exists or not.
    r = await client.post("/api/v1/battles/no-such-battle/actions", json=_body(), headers=table.auth("ann"))
    assert r.status_code == 403 and r.json()["detail"]["reason"] == "that token belongs to another battle"
    assert await _seq(client, table) == 2


async def test_removed_and_replaced_tokens_act_no_more(client: httpx.AsyncClient) -> None:
    table = await _table(client)
    old = table.auth("ann")
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}/token", headers=table.auth("ref")
    )
    assert r.status_code == 200
    new = {"Authorization": f"Bearer {r.json()['token']}"}
    r = await client.post(f"/api/v1/battles/{table.battle_id}/actions", json=_body(), headers=old)
    assert r.status_code == 403 and r.json()["detail"]["reason"] == "that link or token is not valid"
    assert await _seq(client, table) == 2
    r = await client.post(f"/api/v1/battles/{table.battle_id}/actions", json=_body(), headers=new)
    assert r.status_code == 200 and r.json()["seq"] == 3, r.text
    r = await client.delete(
        f"/api/v1/battles/{table.battle_id}/participants/{table.ids['bob']}", headers=table.auth("ref")
    )
    assert r.status_code == 204
    bob = {**HIT, "target": "hawk", "source": "crow"}
    r = await act(client, table, "bob", "damage.apply", bob)
    assert r.status_code == 403 and r.json()["detail"]["reason"] == "that link or token is not valid"
    assert await _seq(client, table) == 3


async def test_the_token_holder_acts_and_its_repeat_is_its_own(client: httpx.AsyncClient) -> None:
    table = await _table(client)
    body = _body()
    url = f"/api/v1/battles/{table.battle_id}/actions"
    first = await client.post(url, json=body, headers=table.auth("ann"))
    assert first.status_code == 200 and first.json()["seq"] == 3, first.text
    again = await client.post(url, json=body, headers=table.auth("ann"))
    assert again.status_code == 200 and again.json() == {**first.json(), "duplicate": True}
    other = await client.post(url, json=body, headers=table.auth("bob"))
    assert other.status_code == 409 and other.json()["detail"]["field"] == "action_id", other.text
    events = (await client.get(f"{url[:-8]}/events?since=2", headers=table.auth("ref"))).json()
    assert [e["actor"] for e in events["entries"]] == ["ann"]
    assert await _seq(client, table) == 3
