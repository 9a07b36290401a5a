"""Who may do what at each door, and what a replay shows: seats, removed seats, other battles'
tokens, referee-only actions, the dice record and the seed before the end, a cloaked path in replays."""

from __future__ import annotations

import contextlib

import httpx
import pytest
import websockets.exceptions

from tests.conftest import Server
from tests.helpers import act, set_table, ship_def, simple_ship
from tests.security.util import HX, browser, has, page_form
from tests.web.wsclient import WsViewer, cookie_for

HIT = {"target": "crow", "source": "hawk", "amount": 5, "direction": "fore"}


async def test_removed_participant_token_and_session_stop_working(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    async with browser(client, table.tokens["ann"]) as ann:
        token = await page_form(ann, table.battle_id)
        r = await client.delete(
            f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}", headers=table.auth("ref")
        )
        assert r.status_code == 204
        assert (await act(client, table, "ann", "damage.apply", HIT)).status_code == 403
        for path in ("", "/events", "/dice"):
            assert (
                await client.get(f"/api/v1/battles/{table.battle_id}{path}", headers=table.auth("ann"))
            ).status_code == 403
        page = await ann.get(f"/battles/{table.battle_id}", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/"
        replay = await ann.get(f"/battles/{table.battle_id}/replay?seq=1", follow_redirects=False)
        assert replay.status_code == 303
        form = await ann.post(
            f"/battles/{table.battle_id}/actions",
            data={
                "csrf_token": token,
                "action_type": "damage.apply",
                "p.target": "crow",
                "p.source": "hawk",
                "p.amount": "5",
            },
            headers=HX,
        )
        assert form.status_code == 403
        rejoin = await ann.get(f"/join/{table.tokens['ann']}", follow_redirects=False)
        assert rejoin.status_code == 303 and rejoin.headers["location"] == "/"
        home = await ann.get("/")
        assert home.status_code == 200 and "Create a battle" in home.text
        assert "Test battle" not in home.text  # the battle she was removed from is not listed
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    assert state["seq"] == 2 and table.ids["ann"] not in [p["id"] for p in state["participants"]]


async def test_a_token_or_seat_of_another_battle_opens_nothing_here(client: httpx.AsyncClient) -> None:
    one = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    two = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    r = await client.get(f"/api/v1/battles/{two.battle_id}", headers=one.auth("ref"))
    assert r.status_code == 403 and r.json()["detail"]["reason"] == "that token belongs to another battle"
    body = {"type": "damage.apply", "payload": HIT, "action_id": "x"}
    r = await client.post(f"/api/v1/battles/{two.battle_id}/actions", json=body, headers=one.auth("ann"))
    assert r.status_code == 403
    r = await client.post(
        f"/api/v1/battles/{two.battle_id}/participants", json={"name": "mole"}, headers=one.auth("ref")
    )
    assert r.status_code == 403
    async with browser(client, one.tokens["ref"]) as ref:
        token = await page_form(ref, one.battle_id)
        assert (await ref.get(f"/battles/{two.battle_id}", follow_redirects=False)).status_code == 303
        r = await ref.post(
            f"/battles/{two.battle_id}/actions",
            data={"csrf_token": token, "action_type": "battle.end", "action_id": "e"},
            headers=HX,
        )
        assert r.status_code == 403
        r = await ref.post(
            f"/battles/{two.battle_id}/participants/{two.ids['ann']}/remove",
            data={"csrf_token": token},
            headers=HX,
        )
        assert r.status_code == 403
    assert (await client.get(f"/api/v1/battles/{two.battle_id}", headers=two.auth("ann"))).json()["seq"] == 2


@pytest.mark.parametrize(
    ("type_", "payload"),
    [
        ("battle.undo", {"reason": "take it back"}),
        ("battle.rewind", {"to_seq": 0, "reason": "start over"}),
        ("battle.end", {}),
        ("override.set", {"path": "ships.crow.crippled", "value": True, "reason": "because"}),
        ("ship.assign", {"ship": "crow", "owner": None}),
        ("ship.move", {"ship": "crow", "position": {"hex": "0101"}}),
        ("damage.apply", {"target": "crow", "source": "crow", "amount": 5}),
    ],
)
async def test_players_and_spectators_cannot_act_as_referee_or_for_others(
    client: httpx.AsyncClient, type_: str, payload: dict
) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    for who in ("ann", "watcher"):
        r = await act(client, table, who, type_, payload, seq=2)
        assert r.status_code == 403, (who, r.text)
    for path in ("audit",):
        assert (
            await client.get(f"/api/v1/battles/{table.battle_id}/{path}", headers=table.auth("ann"))
        ).status_code == 403
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/participants",
        json={"name": "x", "role": "referee"},
        headers=table.auth("ann"),
    )
    assert r.status_code == 403
    assert (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()[
        "seq"
    ] == 2


async def test_seed_and_dice_record_stay_closed_until_the_end(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    assert (await act(client, table, "ann", "damage.apply", HIT)).status_code == 200
    for who in ("ann", "watcher", "ref"):
        r = await client.get(f"/api/v1/battles/{table.battle_id}/dice", headers=table.auth(who))
        assert r.status_code == 403
        assert (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))).json()[
            "seed"
        ] is None
    async with browser(client, table.tokens["ann"]) as ann:
        replay = await ann.get(f"/battles/{table.battle_id}/replay?seq=3")
        assert replay.status_code == 200 and "Seed (revealed)" not in replay.text
    assert (await act(client, table, "ref", "battle.end", {})).status_code == 200
    r = await client.get(f"/api/v1/battles/{table.battle_id}/dice", headers=table.auth("watcher"))
    assert r.status_code == 200 and r.json()["mismatches"] == [] and len(r.json()["seed"]) == 64
    # Nothing acts after the end: no undo, no rewind to reopen the seed's battle.
    for type_, payload in (
        ("battle.undo", {"reason": "oops"}),
        ("battle.rewind", {"to_seq": 1, "reason": "again"}),
    ):
        assert (await act(client, table, "ref", type_, payload)).status_code == 422


async def test_replay_of_a_cloaked_path_shows_it_to_nobody_else(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client,
        players=("kirk", "tomalak"),
        ships={"ex": (ship_def("excelsior"), "kirk"), "wb": (ship_def("romulan-warbird"), "tomalak")},
    )
    for _ in range(3):
        await act(client, table, "ref", "clock.advance", {})
    assert (await act(client, table, "tomalak", "startrek.cloak", {"ship": "haakona"})).status_code == 200
    for _ in range(2):
        await act(client, table, "ref", "clock.advance", {})
    moved = await act(client, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": "0707"}})
    seq = moved.json()["seq"]
    await act(client, table, "ref", "clock.advance", {})
    for who, sees in (("kirk", False), ("watcher", False), ("tomalak", True), ("ref", True)):
        async with browser(client, table.tokens[who]) as b:
            for at in (seq, seq + 1, seq + 50):
                r = await b.get(f"/battles/{table.battle_id}/replay?seq={at}")
                assert r.status_code == 200 and has(r.text, "0707") == sees, (who, at)


async def test_sockets_of_removed_or_foreign_seats_get_nothing(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
        other = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
    foreign = await cookie_for(server.url, other.tokens["ref"])
    with pytest.raises(websockets.exceptions.InvalidStatus):
        async with WsViewer(server.url, table.battle_id, foreign):
            pass
    cookie = await cookie_for(server.url, table.tokens["ann"])
    async with WsViewer(server.url, table.battle_id, cookie) as v:
        await v.hello(2)
        async with httpx.AsyncClient(base_url=server.url) as c:
            r = await c.delete(
                f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}",
                headers=table.auth("ref"),
            )
            assert r.status_code == 204
            r = await act(c, table, "bob", "damage.apply", {**HIT, "target": "hawk", "source": "crow"})
            assert r.status_code == 200
        # The next wake-up (or her next hello) closes the socket as a policy violation, with
        # nothing of the battle sent.
        with contextlib.suppress(websockets.exceptions.ConnectionClosed):
            await v.hello(0)
        with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
            while True:
                frame = await v.next_frame()
                assert "content" not in frame
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    with pytest.raises(websockets.exceptions.InvalidStatus):
        async with WsViewer(server.url, table.battle_id, cookie):
            pass
