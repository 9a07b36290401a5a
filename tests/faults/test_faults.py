"""The live path under faults, one test per fault (issue 12), each ending with every watcher —
on both processes — at the database's seq within 5 s of the fault's end, no log entry twice.

Brokers and databases are cut through local TCP proxies and a redis-server of our own; the shared
PostgreSQL and Redis servers are never stopped. Heartbeats are made slow (30 s) where the test is
about the broker's own recovery, so the heartbeat's catch-up cannot hide a broken one."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import Server
from tests.faults.proxy import Proxy
from tests.faults.watcher import Watcher, all_reach
from tests.helpers import Table, act, set_table, simple_ship
from tests.web.wsclient import cookie_for

pytestmark = [pytest.mark.fault, pytest.mark.postgres]

SLOW_BEAT = {"WS_HEARTBEAT_SECONDS": "30", "BROKER_PUBLISH_TIMEOUT": "0.5", "BROKER_RETRY_MAX": "0.5"}
HIT = {"target": "crow", "source": "hawk", "amount": 1}


def _pg_proxy(postgres_url: str) -> Proxy:
    parts = urlsplit(postgres_url)
    return Proxy(parts.hostname or "127.0.0.1", parts.port or 5432)


async def _table(a: Server) -> Table:
    async with httpx.AsyncClient(base_url=a.url) as c:
        return await set_table(
            c,
            ships={
                "hawk": (simple_ship("Hawk", structure=400), "ann"),
                "crow": (simple_ship("Crow", structure=400), "bob"),
            },
        )


async def _watchers(table: Table, servers: list[Server]) -> list[Watcher]:
    out = []
    for srv in servers:
        for who in ("bob", "watcher"):
            cookie = await cookie_for(srv.url, table.tokens[who])
            out.append(Watcher(srv.url, table.battle_id, cookie, 2, f"{who}@{srv.port}").start())
    await all_reach(out, 2, 5)
    await asyncio.sleep(0.3)  # every hello answered
    return out


async def _db_seq(a: Server, table: Table) -> int:
    async with httpx.AsyncClient(base_url=a.url) as c:
        r = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
        return r.json()["seq"]


async def _hits(a: Server, table: Table, n: int) -> list[float]:
    """n actions through `a`; how long each answer took (publishing must never delay it)."""
    took = []
    async with httpx.AsyncClient(base_url=a.url, timeout=10) as c:
        for _ in range(n):
            start = time.perf_counter()
            r = await act(c, table, "ann", "damage.apply", HIT)
            took.append(time.perf_counter() - start)
            assert r.status_code == 200, r.text
    return took


async def _finish(watchers: list[Watcher], a: Server, table: Table) -> float:
    seq = await _db_seq(a, table)
    try:
        took = await all_reach(watchers, seq, 5)
        for w in watchers:
            assert not w.duplicates, (w.name, w.duplicates)
        return took
    finally:
        for w in watchers:
            await w.stop()


async def _ready(srv: Server) -> int:
    async with httpx.AsyncClient(base_url=srv.url, timeout=10) as c:
        return (await c.get("/readyz")).status_code


async def test_broker_killed_then_back(postgres_url: str, own_redis) -> None:  # type: ignore[no-untyped-def]
    """Redis dies: actions answer at once, local viewers still update; when Redis is back the
    other process resubscribes, catches its viewers up, and the pending wake-ups go out."""
    a, b = (Server(postgres_url, own_redis.url, env=SLOW_BEAT) for _ in range(2))
    try:
        table = await _table(a)
        watchers = await _watchers(table, [a, b])
        own_redis.kill()
        took = await _hits(a, table, 3)
        assert max(took) < 1.0, took
        await all_reach(watchers[:2], 5, 3)  # a's own viewers are woken without the broker
        assert await _ready(b) == 503
        own_redis.start()
        print(
            f"\n[fault broker-killed] slowest answer while down {max(took) * 1000:.0f} ms; "
            f"caught up {await _finish(watchers, a, table):.2f} s after Redis came back"
        )
        assert await _ready(b) == 200
    finally:
        a.stop()
        b.stop()


async def test_listen_connection_restarted(postgres_url: str, proxies) -> None:  # type: ignore[no-untyped-def]
    """Every broker connection to PostgreSQL is reset (a server restart as the app sees it): the
    lost LISTEN is noticed at once, re-established, and the viewers catch up."""
    proxy = _pg_proxy(postgres_url)
    proxies.append(proxy)
    via = proxy.url_for(postgres_url)
    a, b = (Server(postgres_url, via, env=SLOW_BEAT) for _ in range(2))
    try:
        table = await _table(a)
        watchers = await _watchers(table, [a, b])
        proxy.cut()
        await asyncio.sleep(0.05)
        took = await _hits(a, table, 3)
        assert max(took) < 1.0, took
        caught = await _finish(watchers, a, table)
        print(f"\n[fault listen-reset] caught up {caught:.2f} s after the reset")
        assert caught < 3  # not the old 5-second poll
    finally:
        a.stop()
        b.stop()


async def test_one_process_cut_from_the_database(postgres_url: str, own_redis, proxies) -> None:  # type: ignore[no-untyped-def]
    """Process b loses its database for 3 s while a goes on: b answers 503 with Retry-After (JSON
    for the API, a page for browsers) on a kept connection, is not ready, closes its viewers with
    a reconnect code instead of forgetting them; after the cut everyone is caught up."""
    proxy = _pg_proxy(postgres_url)
    proxies.append(proxy)
    beat = {"WS_HEARTBEAT_SECONDS": "1", "DB_CONNECT_TIMEOUT": "1", "DB_POOL_TIMEOUT": "1"}
    a = Server(postgres_url, own_redis.url, env=beat)
    b = Server(proxy.url_for(postgres_url), own_redis.url, env=beat)
    try:
        table = await _table(a)
        watchers = await _watchers(table, [a, b])
        proxy.block()
        await _hits(a, table, 3)
        async with httpx.AsyncClient(base_url=b.url, timeout=10) as c:
            r = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
            assert r.status_code == 503 and r.headers["retry-after"].isdigit(), r.text
            assert set(r.json()["detail"]) == {"error", "field", "reason"}
            assert r.headers.get("connection", "keep-alive") != "close"
            r = await c.get(f"/battles/{table.battle_id}", headers={"accept": "text/html"})
            assert r.status_code == 503 and "flash-error" in r.text and "<html" in r.text
            assert (await c.get("/healthz")).status_code == 200
            assert (await c.get("/readyz")).status_code == 503
        await asyncio.sleep(2)
        await _hits(a, table, 1)
        proxy.restore()
        print(f"\n[fault db-cut] caught up {await _finish(watchers, a, table):.2f} s after the cut ended")
        closes = [code for w in watchers[2:] for code in w.closes]
        assert closes and set(closes) <= {1011, 1013, 1006}, closes  # closed with a code, never left dangling
    finally:
        a.stop()
        b.stop()


async def test_redis_paused(postgres_url: str, own_redis, proxies) -> None:  # type: ignore[no-untyped-def]
    """Redis stops answering (connections open, no bytes): actions still answer at once (the
    publish has its own timeout, off the request path); when it answers again the pending
    wake-ups go out and the other process's viewers catch up."""
    proxy = Proxy("127.0.0.1", own_redis.port)
    proxies.append(proxy)
    a, b = (Server(postgres_url, proxy.url_for(own_redis.url), env=SLOW_BEAT) for _ in range(2))
    try:
        table = await _table(a)
        watchers = await _watchers(table, [a, b])
        proxy.pause()
        took = await _hits(a, table, 3)
        assert max(took) < 1.0, took
        await all_reach(watchers[:2], 5, 3)
        await asyncio.sleep(1.5)
        proxy.resume()
        print(
            f"\n[fault redis-paused] slowest answer while paused {max(took) * 1000:.0f} ms; "
            f"caught up {await _finish(watchers, a, table):.2f} s after the pause"
        )
    finally:
        a.stop()
        b.stop()
