"""Websocket door against a real uvicorn process: several viewers get their own fragments after
each commit; nobody receives what they may not see; reconnect catches up by seq; origin and size
limits hold; actions can be sent over the socket too."""

from __future__ import annotations

import json
import re
import uuid

import httpx
import pytest
import websockets
from sqlalchemy import select

from app.db import Database
from app.models import Battle
from app.web.drawing.render import regions_of
from tests.conftest import Server
from tests.helpers import act, set_table, ship_def, simple_ship
from tests.web.wsclient import WsViewer, cookie_for


async def battle_seed(server: Server, battle_id: str) -> str:
    """Read the secret seed straight from the database (the test's eyes only)."""
    db = Database(server.db)
    async with db.reader() as session:
        seed = await session.scalar(select(Battle.seed).where(Battle.id == battle_id))
    await db.dispose()
    return seed


async def table_on(server: Server, **kw):  # type: ignore[no-untyped-def]
    async with httpx.AsyncClient(base_url=server.url) as c:
        return await set_table(c, **kw)


async def test_every_viewer_gets_fragments_and_no_one_gets_hidden_things(server: Server) -> None:
    table = await table_on(
        server,
        system="sfb",
        ships={"hawk": (simple_ship("Hawk", "sfb"), "ann"), "ker": (ship_def("shadow-cruiser"), "bob")},
    )
    cookies = {
        who: await cookie_for(server.url, table.tokens[who]) for who in ("ann", "bob", "watcher", "ref")
    }
    viewers = {who: WsViewer(server.url, table.battle_id, cookie) for who, cookie in cookies.items()}
    for v in viewers.values():
        await v.__aenter__()
        await v.hello(2)
    try:
        async with httpx.AsyncClient(base_url=server.url) as c:
            r = await act(
                c,
                table,
                "ann",
                "damage.apply",
                {
                    "target": "shadow-cruiser",
                    "source": "hawk",
                    "amount": 7,
                    "direction": "fore",
                    "weapon": "Phaser-1",
                },
            )
            assert r.status_code == 200, r.text
            for v in viewers.values():
                frame = await v.frame_with_seq(3)
                assert frame["seq"] == 3
                assert (
                    'hx-target="#ships"' in frame["content"]
                    and "Hawk hits Shadow Cruiser with Phaser-1 for 7 (fore)" in frame["content"]
                )
            # The pain-reduction reminder at Energy Allocation is for the Shadow's commander (and referee) only.
            r = await act(
                c,
                table,
                "ref",
                "override.set",
                {"path": "ships.shadow-cruiser.parts.pain.level", "value": 5, "reason": "scenario"},
            )
            assert r.status_code == 200, r.text
            await act(c, table, "ref", "clock.advance", {})  # → impulse 1
            for _ in range(32):
                await act(c, table, "ref", "clock.advance", {})
            r = await act(c, table, "ref", "clock.advance", {})  # end of turn → energy allocation of turn 2
            seq = r.json()["seq"]
        for v in viewers.values():
            await v.frame_with_seq(seq)
        everything = {who: "".join(v.raw) for who, v in viewers.items()}
        reminder = "may roll pain reduction"
        assert reminder in everything["bob"] and reminder in everything["ref"]
        assert reminder not in everything["ann"] and reminder not in everything["watcher"]
        for who in ("ann", "bob", "watcher"):
            assert (
                '"amount": 7' not in everything[who] and "&#34;amount&#34;: 7" not in everything[who]
            )  # raw payloads are the referee's
        async with httpx.AsyncClient(base_url=server.url) as c:
            seed_info = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
        assert seed_info["seed"] is None
        seed_hex = await battle_seed(server, table.battle_id)
        for who in viewers:
            assert seed_hex not in everything[who]
    finally:
        for v in viewers.values():
            await v.__aexit__(None, None, None)


async def test_reconnect_catches_up_from_last_seq(server: Server) -> None:
    table = await table_on(
        server, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    cookie = await cookie_for(server.url, table.tokens["bob"])
    async with httpx.AsyncClient(base_url=server.url) as c:
        for amount in (1, 2, 3):
            await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": amount})
    async with WsViewer(server.url, table.battle_id, cookie) as v:
        await v.hello(3)  # we saw seq 3; 4 and 5 happened while we were away
        frame = await v.frame_with_seq(5)
        assert frame["seq"] == 5
        assert (
            'id="log-4"' in frame["content"]
            and 'id="log-5"' in frame["content"]
            and 'id="log-3"' not in frame["content"]
        )
        assert await v.until_answered() == []  # up to date: nothing more


async def test_actions_over_the_socket_use_the_service(server: Server) -> None:
    table = await table_on(
        server, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    cookie = await cookie_for(server.url, table.tokens["ann"])
    async with WsViewer(server.url, table.battle_id, cookie) as v:
        await v.hello(2)
        key = uuid.uuid4().hex
        msg = {
            "type": "action",
            "action_type": "damage.apply",
            "payload": {"target": "crow", "source": "hawk", "amount": 4},
            "action_id": key,
            "seen_seq": 2,
        }
        await v.socket.send(json.dumps(msg))
        frames = [await v.next_frame(), await v.next_frame()]
        assert {"type": "result", "seq": 3, "duplicate": False} in frames
        await v.socket.send(json.dumps(msg))
        assert (await v.next_frame()) == {"type": "result", "seq": 3, "duplicate": True}
        await v.socket.send(
            json.dumps(
                {
                    **msg,
                    "action_id": "other",
                    "payload": {"target": "crow", "source": "crow", "amount": 1},
                    "seen_seq": 3,
                }
            )
        )
        error = await v.next_frame()
        assert error["type"] == "error" and error["field"] == "source" and "#flash" in error["content"]


async def test_damage_that_waits_for_the_referee_is_answered_queued_over_the_socket(server: Server) -> None:
    """The socket door hands the entry to the same write path: where the table asks for approval it
    waits as a request (the socket says `queued` with its number) and nothing reaches the log."""
    table = await table_on(
        server, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    async with httpx.AsyncClient(base_url=server.url) as c:
        r = await c.patch(
            f"/api/v1/battles/{table.battle_id}/table",
            json={"damage_needs_approval": True},
            headers=table.auth("ref"),
        )
        assert r.status_code == 200, r.text
    cookie = await cookie_for(server.url, table.tokens["ann"])
    async with WsViewer(server.url, table.battle_id, cookie) as v:
        await v.hello(2)
        msg = {
            "type": "action",
            "action_type": "damage.apply",
            "payload": {"target": "crow", "source": "hawk", "amount": 4},
            "action_id": uuid.uuid4().hex,
            "seen_seq": 2,
        }
        await v.socket.send(json.dumps(msg))
        queued = await v.next_frame()
        while queued.get("type") != "queued":  # the table's regions may be redrawn first
            queued = await v.next_frame()
        assert isinstance(queued["request"], int)
    async with httpx.AsyncClient(base_url=server.url) as c:
        battle = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
        waiting = (
            await c.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth("ref"))
        ).json()["requests"]
    assert battle["seq"] == 2
    assert [(q["id"], q["summary"]) for q in waiting] == [(queued["request"], "damage 4 on Crow from Hawk")]


async def test_hostile_names_arrive_escaped_in_frames(server: Server) -> None:
    evil = "<script>alert(1)</script>"
    table = await table_on(
        server, ships={"hawk": (simple_ship("Hawk"), "ann"), "evil": (simple_ship(evil), "bob")}
    )
    cookie = await cookie_for(server.url, table.tokens["ann"])
    async with (
        WsViewer(server.url, table.battle_id, cookie) as v,
        httpx.AsyncClient(base_url=server.url) as c,
    ):
        await v.hello(2)
        evil_id = table.ships["evil"]
        await act(c, table, "ann", "damage.apply", {"target": evil_id, "source": "hawk", "amount": 1})
        frame = await v.frame_with_seq(3)
        assert evil not in frame["content"] and "&lt;script&gt;alert(1)&lt;/script&gt;" in frame["content"]


async def test_origin_and_frame_size_are_checked(server: Server) -> None:
    table = await table_on(server, ships={"hawk": (simple_ship("Hawk"), "ann")})
    cookie = await cookie_for(server.url, table.tokens["ann"])
    with pytest.raises(websockets.exceptions.InvalidStatus):
        async with WsViewer(server.url, table.battle_id, cookie, origin="http://evil.example"):
            pass
    with pytest.raises(websockets.exceptions.InvalidStatus):
        async with WsViewer(server.url, table.battle_id, "not-a-session"):
            pass
    async with WsViewer(server.url, table.battle_id, cookie) as v:
        await v.socket.send("x" * 20000)
        with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
            await v.next_frame()
        assert closed.value.rcvd.code == 1009


def referee_state(frame: dict) -> str:
    """The referee's own region (seats, ship assignment) in a frame, or "" if the frame has none."""
    parts = frame.get("content", "").split('<hx-partial hx-target="#referee-state"')
    return parts[1].split("<hx-partial ")[0] if len(parts) > 1 else ""


async def test_seats_added_and_removed_are_pushed_like_any_change(server) -> None:  # type: ignore[no-untyped-def]
    """Connection state: a seat added or removed reaches open pages without a reload —
    here the referee's own page, whose seat list changes — though no seq moves."""
    from tests.web.wsclient import WsViewer, cookie_for

    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
        cookie = await cookie_for(server.url, table.tokens["ref"])
        async with WsViewer(server.url, table.battle_id, cookie) as ref:
            seq = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()["seq"]
            await ref.hello(seq)
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/participants",
                json={"name": "Dora Newcomer", "role": "player"},
                headers=table.auth("ref"),
            )
            assert r.status_code == 201, r.text
            dora = r.json()["participant_id"]
            offered = f"<option value='\"{dora}\"' >Dora Newcomer</option>"  # a ship may be assigned to her
            for _ in range(10):
                frame = await ref.next_frame()
                if offered in referee_state(frame):
                    break
            else:
                raise AssertionError("the new seat never reached the referee's page")
            r = await c.delete(
                f"/api/v1/battles/{table.battle_id}/participants/{dora}", headers=table.auth("ref")
            )
            assert r.status_code == 204, r.text
            for _ in range(10):
                seats = referee_state(await ref.next_frame())
                if seats and "Dora Newcomer" not in seats:
                    break
            else:
                raise AssertionError("the removal never reached the referee's page")
            assert ">ann</option>" in seats and ">bob</option>" in seats  # the other seats stay


async def test_a_frame_carries_only_what_changed_in_the_ship_cards(server: Server) -> None:
    """Send what changed: after hello a page behind gets every region whole; a hit on Crow then
    sends Crow's card as the hunks that changed in it (not Hawk's card, not the ship list, not the
    unchanged map), with the turn bar and the new log entry, and the page rebuilds the card from
    its copy; a ship added is a hunk of the list (its place) and the new card whole."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            ships={
                "hawk": (simple_ship("Hawk", structure=400), "ann"),
                "crow": (simple_ship("Crow", structure=400), "bob"),
            },
        )
        cookie = await cookie_for(server.url, table.tokens["watcher"])
        async with WsViewer(server.url, table.battle_id, cookie) as viewer:
            await viewer.hello(1)  # a page as of seq 1: it is sent every region
            first = await viewer.frame_with_seq(2)
            assert 'hx-target="#ships"' in first["content"] and "patch" not in json.loads(viewer.raw[-1])
            r = await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 1})
            assert r.status_code == 200
            hit = (await viewer.frame_with_seq(3))["content"]
            raw = json.loads(viewer.raw[-1])
            assert [target for target, _, _ in raw["patch"]] == ["#turnbar", "#ship-crow"], raw["patch"]
            assert re.findall(r'<hx-partial hx-target="([^"]+)"', raw["content"]) == ["#log-list"]
            assert "Hawk hits Crow for 1" in hit and 'id="ship-crow"' in hit  # rebuilt whole on the page
            assert 'id="ship-hawk"' not in hit  # the page keeps the card it holds
            assert 'id=\\"ship-hawk\\"' in viewer.raw[-2] and 'id=\\"ship-hawk\\"' not in viewer.raw[-1]
            assert len(viewer.raw[-1]) < len(viewer.raw[-2]) / 10
            added = await act(c, table, "ref", "ship.add", {"definition": simple_ship("Kite"), "owner": None})
            assert added.status_code == 200
            grown = (await viewer.frame_with_seq(4))["content"]
            assert 'id="ship-kite"' in grown and 'id="ship-hawk"' in grown  # Hawk's place in the list
            assert "Kite" in dict(regions_of(grown))["#ship-kite"]
            assert 'id=\\"ship-kite\\"' in viewer.raw[-1] and 'id=\\"ship-hawk\\"' not in viewer.raw[-1]
