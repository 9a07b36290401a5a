"""Restarts nobody notices: a real `python -m app.cli serve` process sent SIGTERM mid-play stops
taking requests, finishes the actions in flight, closes its websockets with 1012, ends its feeds
with a `restart` event, and exits within SHUTDOWN_DEADLINE_SECONDS; no action is lost or applied
twice when the unanswered ones are sent again to the next process."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

import httpx
import pytest
import websockets

from tests.conftest import ROOT
from tests.helpers import eventually, set_table, simple_ship
from tests.security.test_join import CliServer
from tests.web.wsclient import WsViewer, cookie_for

DEADLINE = 5
ACTIONS = 40
HIT = {"target": "hawk", "source": "crow", "amount": 1, "direction": "fore"}


async def read_feed(base: str, battle_id: str, token: str, opened: asyncio.Event) -> list[str]:
    """Every line of a feed until the server ends it."""
    lines: list[str] = []
    async with (
        httpx.AsyncClient(base_url=base, timeout=30) as c,
        c.stream(
            "GET", f"/api/v1/battles/{battle_id}/feed", headers={"Authorization": f"Bearer {token}"}
        ) as r,
    ):
        assert r.status_code == 200
        async for line in r.aiter_lines():
            lines.append(line)
            if line == ": feed open":
                opened.set()
    return lines


async def test_sigterm_finishes_what_is_in_flight_and_tells_every_client_to_reconnect(
    sqlite_url: str, tmp_path: Path
) -> None:
    env = {"SHUTDOWN_DEADLINE_SECONDS": str(DEADLINE)}
    # a new interpreter, as deployed: the signal, the drain and the exit are the process's own
    first = CliServer(sqlite_url, tmp_path / "first.log", real=True, **env)
    try:
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as c:
            ships = {
                "hawk": (simple_ship("Hawk", structure=500), "ann"),
                "crow": (simple_ship("Crow"), "bob"),
            }
            table = await set_table(c, ships=ships)
        cookie = await cookie_for(first.url, table.tokens["bob"])
        opened = asyncio.Event()
        feed = asyncio.create_task(read_feed(first.url, table.battle_id, table.tokens["ann"], opened))
        await asyncio.wait_for(opened.wait(), 10)
        answers: dict[str, int | None] = {}

        async def one(c: httpx.AsyncClient, n: int) -> None:
            action_id = f"hit-{n}"
            answers[action_id] = None
            body = {"type": "damage.apply", "payload": HIT, "action_id": action_id}
            try:
                r = await c.post(
                    f"/api/v1/battles/{table.battle_id}/actions", json=body, headers=table.auth("bob")
                )
            except httpx.TransportError:
                return  # never answered: sent again below, to the next process
            assert r.status_code == 200, r.text  # a request taken is answered, never cut off
            answers[action_id] = r.json()["seq"]

        async with WsViewer(first.url, table.battle_id, cookie) as viewer:
            await viewer.hello(0)
            await viewer.until_answered()
            limits = httpx.Limits(max_connections=ACTIONS, max_keepalive_connections=0)
            async with httpx.AsyncClient(base_url=first.url, timeout=30, limits=limits) as c:
                sent = [asyncio.create_task(one(c, n)) for n in range(ACTIONS)]
                await eventually(
                    lambda: any(seq is not None for seq in answers.values()), what="a first answer"
                )
                first.proc.send_signal(signal.SIGTERM)  # mid-play: some answered, some in flight
                await asyncio.gather(*sent)
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                while True:
                    await viewer.next_frame(timeout=DEADLINE + 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012  # service restart
        lines = await asyncio.wait_for(feed, DEADLINE + 5)
        assert lines[-4:-1] == ["retry: 1000", "event: restart", 'data: {"restart": true}'], lines
        returncode = await asyncio.to_thread(first.proc.wait, DEADLINE + 10)
        assert returncode in (0, -signal.SIGTERM)
        assert "timeout graceful shutdown exceeded" not in first.output()  # nothing had to be cut off
    finally:
        if first.proc.poll() is None:
            first.stop()
        first.log.close()

    answered = {action_id: seq for action_id, seq in answers.items() if seq is not None}
    assert answered, "some actions were answered before the signal"
    second = CliServer(sqlite_url, tmp_path / "second.log")
    try:
        async with httpx.AsyncClient(base_url=second.url, timeout=30) as c:
            for action_id, seq in answers.items():
                body = {"type": "damage.apply", "payload": HIT, "action_id": action_id}
                r = await c.post(
                    f"/api/v1/battles/{table.battle_id}/actions", json=body, headers=table.auth("bob")
                )
                assert r.status_code == 200, r.text
                if seq is not None:  # answered before: its repeat is that same result
                    assert r.json()["seq"] == seq and r.json()["duplicate"] is True
    finally:
        second.stop()
    with sqlite3.connect(sqlite_url.removeprefix("sqlite:///")) as db:
        rows = db.execute(
            "SELECT action_id, seq FROM action_log WHERE battle_id = ? AND action_id LIKE 'hit-%'",
            (table.battle_id,),
        ).fetchall()
    assert sorted(a for a, _ in rows) == sorted(answers)  # each action applied once, none lost
    assert all(dict(rows)[a] == seq for a, seq in answered.items())
    seqs = sorted(seq for _, seq in rows)
    assert seqs == list(range(seqs[0], seqs[0] + ACTIONS))


async def test_readyz_says_not_ready_once_shutting_down(client: httpx.AsyncClient) -> None:
    assert (await client.get("/readyz")).status_code == 200
    client.app.state.draining.begin()  # type: ignore[attr-defined]
    r = await client.get("/readyz")
    assert r.status_code == 503 and r.json()["checks"]["shutdown"] == "shutting down"
    assert r.headers["retry-after"].isdigit()


async def test_the_reference_bot_follows_its_feed_across_a_restart(sqlite_url: str, tmp_path: Path) -> None:
    """examples/bot.py reads the `restart` event as "follow again", not as the battle's end: on the
    next server (the same address) it is sent what it missed."""
    import importlib.util

    from tests.faults.test_rolling_restart import Replica

    spec = importlib.util.spec_from_file_location("reference_bot", ROOT / "examples" / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    replica = Replica(sqlite_url, "memory://", tmp_path / "replica.log")
    try:
        async with httpx.AsyncClient(base_url=replica.url, timeout=30) as c:
            table = await set_table(
                c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
            )
            seq = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("watcher"))).json()[
                "seq"
            ]
        bot = module.Bot(replica.url, table.battle_id, table.tokens["watcher"])  # it only follows
        following = asyncio.create_task(bot.follow(seq))
        log = replica.log_path
        await eventually(lambda: "/feed?since=" in log.read_text(), what="the bot's feed open")
        await asyncio.to_thread(replica.restart)  # SIGTERM: the feed ends with its restart event
        assert await following == seq and bot.done is False  # not taken for the end
        async with httpx.AsyncClient(base_url=replica.url, timeout=30) as c:
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/actions",
                json={"type": "damage.apply", "payload": HIT, "action_id": "after-restart"},
                headers=table.auth("bob"),
            )
            assert r.status_code == 200, r.text
        # followed again from the last seq seen, it is sent the entry (and stops when the feed is cut)
        again = asyncio.create_task(bot.follow(seq))
        await eventually(lambda: log.read_text().count("/feed?since=") >= 2, what="the feed followed again")
        await asyncio.to_thread(replica.restart)
        assert await again == r.json()["seq"]
        await bot.http.aclose()
    finally:
        replica.stop()
