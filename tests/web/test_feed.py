"""The bots' push feed: GET /api/v1/battles/{id}/feed, Server-Sent Events from a real
uvicorn server on SQLite and on PostgreSQL — an event per log entry (`id: <seq>`), woken by the
broker, resumable with Last-Event-ID or ?since=, `waiting_on_you` as the rules' awaited() says, and
nothing hidden: a cloaked ship's move and Traveller secret orders never reach another participant."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from tests.conftest import Server
from tests.helpers import Table, act, set_table, ship_def, simple_ship

SECRET_HEX = "0917"
ANN_ORDER_WORDS = ("Screens to Full", "screens_full", "Maximum Speed", "maximum_speed")


async def feed(
    c: httpx.AsyncClient,
    table: Table,
    who: str,
    count: int,
    *,
    timeout: float = 10,
    opened: asyncio.Event | None = None,
    comments: list[str] | None = None,
    **kw: Any,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The first `count` events of a feed (their data, and their raw `id:` lines). `opened` is set
    when the server says the feed is open (it listens for wake-ups from then on); `comments`
    collects its comment lines (`: keep-alive`) in the order they came among the events."""
    items: list[dict[str, Any]] = []
    ids: list[str] = []
    headers = {**table.auth(who), **kw.pop("headers", {})}
    async with asyncio.timeout(timeout):
        async with c.stream(
            "GET", f"/api/v1/battles/{table.battle_id}/feed", headers=headers, params=kw
        ) as r:
            assert r.status_code == 200, await r.aread()
            assert r.headers["content-type"].startswith("text/event-stream")
            async for line in r.aiter_lines():
                if line.startswith(":"):
                    if comments is not None:
                        comments.append(line)
                    if line == ": feed open" and opened is not None:
                        opened.set()
                elif line.startswith("id: "):
                    ids.append(line[4:])
                elif line.startswith("data: "):
                    items.append(json.loads(line[6:]))
                    if len(items) == count:
                        break
    return items, ids


async def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return r.json()


async def test_feed_pushes_each_entry_woken_by_the_broker_and_resumes(live: Server) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as c:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        table = await set_table(c, ships=ships, options={})
        seq = (await ok(await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))))["seq"]

        # Ann's feed is open and idle; Bob's damage on Hawk arrives as soon as it is committed.
        opened, comments = asyncio.Event(), []
        listening = asyncio.create_task(feed(c, table, "ann", 1, since=seq, opened=opened, comments=comments))
        await asyncio.wait_for(opened.wait(), 10)  # the stream is open and listening (no catch-up here)
        dmg = {"target": "hawk", "source": "crow", "amount": 3, "direction": "fore"}
        done = await ok(await act(c, table, "bob", "damage.apply", dmg, seq=seq))
        (item,), ids = await listening
        assert ids == [str(done["seq"])] and item["seq"] == done["seq"] == seq + 1
        assert item["action_type"] == "damage.apply" and item["ships"] == ["hawk"]
        assert item["events"] == done["events"]
        awaited = (await ok(await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))))[
            "turn_bar"
        ]["your_move"]
        assert item["waiting_on_you"] is awaited is True
        # woken by the broker: the entry came before any keep-alive, the other way a feed looks again
        assert comments == [": feed open"], comments

        # Ann says she is done: her feed says the battle no longer waits on her; Bob's says it does.
        await ok(await act(c, table, "ann", "step.ready", {}))
        (mine,), _ = await feed(c, table, "ann", 1, since=seq + 1)
        (his,), _ = await feed(c, table, "bob", 1, since=seq + 1)
        assert mine["seq"] == his["seq"] == seq + 2
        assert (mine["waiting_on_you"], his["waiting_on_you"]) == (False, True)

        # Resumable: Last-Event-ID (what EventSource sends), ?since= wins over it; from 0 the whole log.
        resumed, ids = await feed(c, table, "bob", 1, headers={"Last-Event-ID": str(seq)})
        assert ids == [str(seq + 1)]
        again, _ = await feed(c, table, "bob", 1, since=seq + 1, headers={"Last-Event-ID": "0"})
        assert again[0]["seq"] == seq + 2
        everything, ids = await feed(c, table, "bob", seq + 2)
        assert ids == [str(n) for n in range(1, seq + 3)]
        assert [i["waiting_on_you"] for i in everything] == [False] * (seq + 1) + [True]

        # Doors shut as on every other operation.
        r = await c.get(f"/api/v1/battles/{table.battle_id}/feed")
        assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
        other = await set_table(c, players=("eve",), spectator=False)
        r = await c.get(f"/api/v1/battles/{table.battle_id}/feed", headers=other.auth("eve"))
        assert r.status_code == 403
        r = await c.get(
            f"/api/v1/battles/{table.battle_id}/feed", headers={**table.auth("ann"), "Last-Event-ID": "x"}
        )
        assert r.status_code == 422 and r.json()["detail"]["field"] == "Last-Event-ID"


async def test_ST_22_a_cloaked_move_never_reaches_another_feed(live: Server) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as c:
        ships = {
            "bird": (ship_def("klingon-bird-of-prey"), "ann"),
            "excelsior": (ship_def("excelsior"), "bob"),
        }
        table = await set_table(c, ships=ships, players=("ann", "bob", "cat"))
        for _ in range(3):  # Ship Power → Movement → Combat → Adjust Ship Systems
            await ok(await act(c, table, "ref", "clock.advance", {}))
        await ok(await act(c, table, "ann", "startrek.cloak", {"ship": "kor-vaq"}))
        for _ in range(3):  # → turn 2 Combat
            await ok(await act(c, table, "ref", "clock.advance", {}))
        move = {"ship": "kor-vaq", "position": {"hex": SECRET_HEX, "facing": 2}}
        moved = await ok(await act(c, table, "ann", "ship.move", move))
        for who in ("bob", "cat", "watcher"):
            items, _ = await feed(c, table, who, moved["seq"])
            text = json.dumps(items)
            assert SECRET_HEX not in text, f"{who} reads the cloaked ship's hex in the feed"
            assert items[-1]["events"][0]["text"] == "A cloaked ship moves."
        for who in ("ann", "ref"):
            items, _ = await feed(c, table, who, moved["seq"])
            assert SECRET_HEX in json.dumps(items[-1])


async def test_TR_26_secret_orders_never_reach_another_feed(live: Server) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as c:
        table = await set_table(
            c,
            system="traveller",
            dice_mode="physical",
            players=("ann", "bob", "cid"),
            ships={
                "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
                "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
                "vigilant": (ship_def("tr-vigilant-escort"), "cid"),
            },
        )
        await ok(await act(c, table, "ref", "traveller.initiative", {}, dice=[6, 1, 1]))
        draft = {"ship": "arbellatra", "orders": [{"order": "screens_full"}], "commit": False}
        drafted = await ok(await act(c, table, "ann", "traveller.orders", draft))
        orders = {"ship": "arbellatra", "orders": [{"order": "screens_full"}, {"order": "maximum_speed"}]}
        committed = await ok(await act(c, table, "ann", "traveller.orders", {**orders, "commit": True}))
        assert committed["seq"] == drafted["seq"] + 1
        for who in ("bob", "cid", "watcher"):
            items, _ = await feed(c, table, who, committed["seq"])
            text = json.dumps(items)
            for word in ANN_ORDER_WORDS:
                assert word not in text, f"{who} reads {word!r} in the feed before the reveal"
            assert "Arbellatra has committed its orders." in text
        mine, _ = await feed(c, table, "ann", committed["seq"])
        assert "Screens to Full!" in json.dumps(mine)


async def test_the_feed_ends_with_the_battle_and_with_the_token(live: Server) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
        seq = (await ok(await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))))["seq"]
        # A new token for Ann's seat: the seats wake-up closes her open feed at once, nothing sent.
        opened, comments = asyncio.Event(), []
        listening = asyncio.create_task(
            feed(c, table, "ann", 99, since=seq, opened=opened, comments=comments)
        )
        await asyncio.wait_for(opened.wait(), 10)
        r = await c.post(
            f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}/token",
            headers=table.auth("ref"),
        )
        assert r.status_code == 200
        items, _ = await listening
        assert items == []
        assert comments == [": feed open"]  # closed by the wake-up, not at a keep-alive's look
        await ok(await act(c, table, "ref", "clock.advance", {}))
        # The end: the entry that finishes the battle says so, and the stream closes after it.
        opened = asyncio.Event()
        listening = asyncio.create_task(feed(c, table, "watcher", 99, since=seq + 1, opened=opened))
        await asyncio.wait_for(opened.wait(), 10)
        ended = await ok(await act(c, table, "ref", "battle.end", {"reason": "enough"}))
        items, ids = await listening
        assert ids == [str(ended["seq"])] and items[0]["finished"] is True
        assert items[0]["waiting_on_you"] is False
        # A feed opened after the end sends what is left and closes at once.
        items, _ = await feed(c, table, "watcher", 99, since=ended["seq"])
        assert items == []


async def test_an_action_on_one_replica_wakes_a_feed_on_the_other(
    replicas: tuple[str, Server, Server],
) -> None:
    _, a, b = replicas
    async with (
        httpx.AsyncClient(base_url=a.url, timeout=10) as ca,
        httpx.AsyncClient(base_url=b.url, timeout=10) as cb,
    ):
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        table = await set_table(ca, ships=ships)
        seq = (await ok(await ca.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))))["seq"]
        opened, comments = asyncio.Event(), []
        listening = asyncio.create_task(
            feed(ca, table, "ann", 1, since=seq, opened=opened, comments=comments)
        )
        await asyncio.wait_for(opened.wait(), 10)
        dmg = {"target": "hawk", "source": "crow", "amount": 2, "direction": "fore"}
        done = await ok(await act(cb, table, "bob", "damage.apply", dmg))
        (item,), _ = await listening
        assert item["seq"] == done["seq"]
        assert comments == [": feed open"]  # the broker's wake-up, before any keep-alive looked again
