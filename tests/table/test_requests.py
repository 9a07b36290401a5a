"""Players' requests to the referee: undo my own last action (only while it is the battle's
last), approved through `battle.undo` or refused with a reason the player is told privately; with
`damage_needs_approval`, a player's damage on an enemy ship waits in the queue until approved. Seen
by the referee and the asking player only."""

from __future__ import annotations

import httpx

from tests.helpers import act, set_table, simple_ship
from tests.table.test_chat import chat_of, page_as
from tests.web.test_pages import csrf


async def seq_of(c: httpx.AsyncClient, table) -> int:  # type: ignore[no-untyped-def]
    return (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()["seq"]


async def ask(c: httpx.AsyncClient, table, who: str, reason: str = "I entered 9, meant 3") -> httpx.Response:  # type: ignore[no-untyped-def]
    return await c.post(
        f"/api/v1/battles/{table.battle_id}/requests", json={"reason": reason}, headers=table.auth(who)
    )


async def decide(c: httpx.AsyncClient, table, rid: int, approve: bool, answer: str = "") -> httpx.Response:  # type: ignore[no-untyped-def]
    return await c.post(
        f"/api/v1/battles/{table.battle_id}/requests/{rid}",
        json={"approve": approve, "answer": answer},
        headers=table.auth("ref"),
    )


def two_ships():  # type: ignore[no-untyped-def]
    return {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}


HIT = {"target": "crow", "source": "hawk", "amount": 9, "direction": "fore"}


async def test_undo_request_approved_goes_through_battle_undo(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships=two_ships())
    assert (await act(client, table, "ann", "damage.apply", HIT)).status_code == 200
    assert (await ask(client, table, "bob")).status_code == 422  # not Bob's action
    assert (await ask(client, table, "watcher")).status_code == 403
    r = await ask(client, table, "ann")
    assert r.status_code == 201 and r.json()["target_seq"] == 3, r.text
    assert (await ask(client, table, "ann")).status_code == 422  # asked already
    queue = (
        await client.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth("ref"))
    ).json()
    assert [q["summary"] for q in queue["requests"]] == ["undo action #3"]
    for who in ("bob", "watcher"):  # nobody else sees it
        r = await client.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth(who))
        assert r.json()["requests"] == []
        assert "I entered 9, meant 3" not in await page_as(client, table.tokens[who], table.battle_id)
    assert "I entered 9, meant 3" in await page_as(client, table.tokens["ref"], table.battle_id)
    rid = queue["requests"][0]["id"]
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/requests/{rid}", json={"approve": True}, headers=table.auth("ann")
    )
    assert r.status_code == 403  # only the referee answers
    r = await decide(client, table, rid, True)
    assert r.status_code == 200 and r.json()["status"] == "approved" and r.json()["result_seq"] == 4
    events = (
        await client.get(f"/api/v1/battles/{table.battle_id}/events?since=3", headers=table.auth("ann"))
    ).json()
    assert events["entries"][0]["action_type"] == "battle.undo"
    text = events["entries"][0]["events"][0]["text"]
    assert f"at ann's request (#{rid})" in text and "meant 3" not in text  # the reason stays between them
    assert (await decide(client, table, rid, True)).status_code == 422  # answered already
    assert "Your undo request is approved (action #4)." in await chat_of(client, table, "ann")


async def test_undo_request_refused_tells_the_player_only(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships=two_ships())
    await act(client, table, "ann", "damage.apply", HIT)
    rid = (await ask(client, table, "ann")).json()["id"]
    assert (await decide(client, table, rid, False)).status_code == 422  # a refusal says why
    r = await decide(client, table, rid, False, "the hit stands: it was announced")
    assert r.status_code == 200 and r.json()["status"] == "refused"
    assert await seq_of(client, table) == 3  # nothing undone
    told = "Your undo request is refused: the hit stands: it was announced"
    assert told in await chat_of(client, table, "ann")
    assert told not in await chat_of(client, table, "bob")
    mine = (await client.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth("ann"))).json()
    assert (
        mine["requests"][0]["status"] == "refused"
        and mine["requests"][0]["answer"] == "the hit stands: it was announced"
    )


async def test_only_while_it_is_the_last_action(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships=two_ships())
    await act(client, table, "ann", "damage.apply", HIT)
    rid = (await ask(client, table, "ann")).json()["id"]
    await act(
        client,
        table,
        "bob",
        "damage.apply",
        {"target": "hawk", "source": "crow", "amount": 2, "direction": "fore"},
    )
    assert (await ask(client, table, "ann")).status_code == 422
    r = await decide(client, table, rid, True)
    assert r.status_code == 422 and "no longer the last action" in r.json()["detail"]["reason"]
    assert await seq_of(client, table) == 4


async def test_damage_waits_for_approval_where_the_battle_asks(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships=two_ships())
    r = await client.patch(
        f"/api/v1/battles/{table.battle_id}/table",
        json={"damage_needs_approval": True},
        headers=table.auth("ref"),
    )
    assert r.status_code == 200
    r = await act(client, table, "ann", "damage.apply", HIT)
    assert r.status_code == 202 and r.json()["status"] == "pending", r.text
    assert await seq_of(client, table) == 2  # nothing applied yet
    # Damage on one's own ship is not queued: it goes to the rules at once (which refuse this one).
    own = {"target": "hawk", "source": "hawk", "amount": 1, "direction": "fore"}
    r = await act(client, table, "ann", "damage.apply", own)
    assert r.status_code == 422 and r.json()["detail"]["field"] == "source", r.text
    queue = (
        await client.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth("ref"))
    ).json()
    pending = [q for q in queue["requests"] if q["status"] == "pending"]
    assert [q["summary"] for q in pending] == ["damage 9 on Crow from Hawk (fore)"]
    before = await seq_of(client, table)
    r = await decide(client, table, pending[0]["id"], True)
    assert r.status_code == 200 and r.json()["result_seq"] == before + 1, r.text
    events = (
        await client.get(
            f"/api/v1/battles/{table.battle_id}/events?since={before}", headers=table.auth("bob")
        )
    ).json()
    entry = events["entries"][0]
    assert entry["actor"] == "ann" and entry["events"][0]["text"].startswith("Hawk hits Crow for 9")
    # The page door queues too.
    html = await page_as(client, table.tokens["ann"], table.battle_id)
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={
            "csrf_token": csrf(html),
            "action_type": "damage.apply",
            "p.target": "crow",
            "p.source": "hawk",
            "p.amount": "4",
            "p.direction": "fore",
        },
        headers={"hx-request": "true"},
    )
    assert r.status_code == 200 and "Sent to the referee for approval." in r.text
    ref = await page_as(client, table.tokens["ref"], table.battle_id)
    assert "damage 4 on Crow from Hawk (fore)" in ref and 'value="approve"' in ref
    r = await client.post(
        f"/battles/{table.battle_id}/requests/{pending[0]['id'] + 1}",
        data={"csrf_token": csrf(ref), "decision": "refuse", "answer": "out of range"},
        headers={"hx-request": "true"},
    )
    assert r.status_code == 200 and "Request refused." in r.text
    assert "Your damage request is refused: out of range" in await chat_of(client, table, "ann")


async def test_the_pages_ask_and_the_referee_sets_the_table(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships=two_ships())
    await act(client, table, "ann", "damage.apply", HIT)
    html = await page_as(client, table.tokens["ann"], table.battle_id)
    assert 'id="ask-undo-button"' in html and "action #3" in html
    r = await client.post(
        f"/battles/{table.battle_id}/requests",
        data={"csrf_token": csrf(html), "reason": "wrong ship"},
        headers={"hx-request": "true"},
    )
    assert r.status_code == 200 and "Asked the referee to undo action #3." in r.text
    ref = await page_as(client, table.tokens["ref"], table.battle_id)
    assert "undo action #3" in ref and "wrong ship" in ref and 'id="table-options"' in ref
    r = await client.post(
        f"/battles/{table.battle_id}/table",
        data={"csrf_token": csrf(ref), "spectators_chat": "on", "step_deadline_minutes": "15"},
        headers={"hx-request": "true"},
    )
    assert r.status_code == 200 and "Table options saved." in r.text
    options = (await client.get(f"/api/v1/battles/{table.battle_id}/table", headers=table.auth("ann"))).json()
    assert options["options"] == {
        "spectators_chat": True,
        "damage_needs_approval": False,
        "step_deadline_minutes": 15,
    }
    bob = await page_as(client, table.tokens["bob"], table.battle_id)
    assert "wrong ship" not in bob and 'id="table-options"' not in bob
    r = await client.post(
        f"/battles/{table.battle_id}/table",
        data={"csrf_token": csrf(bob), "spectators_chat": "on"},
        headers={"hx-request": "true"},
    )
    assert r.status_code == 403


async def test_a_waiting_damage_entry_sent_twice_waits_once(client: httpx.AsyncClient) -> None:
    """The same action id sent again (a retry after a lost answer) answers the request it made
    the first time; nothing more waits and nothing is applied. The socket door answers as queued too."""
    table = await set_table(client, ships=two_ships())
    await client.patch(
        f"/api/v1/battles/{table.battle_id}/table",
        json={"damage_needs_approval": True},
        headers=table.auth("ref"),
    )
    first = await act(client, table, "ann", "damage.apply", HIT, action_id="hit-once")
    again = await act(client, table, "ann", "damage.apply", HIT, action_id="hit-once")
    assert first.status_code == again.status_code == 202, (first.text, again.text)
    assert (
        again.json()
        == first.json()
        == {"queued_request": first.json()["queued_request"], "status": "pending"}
    )
    queue = (
        await client.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth("ref"))
    ).json()
    assert [q["summary"] for q in queue["requests"] if q["status"] == "pending"] == [
        "damage 9 on Crow from Hawk (fore)"
    ]
    assert await seq_of(client, table) == 2
