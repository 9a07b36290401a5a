"""The live path under faults, one test per fault, each ending with every watcher —
on both processes — at the database's seq after the fault's end, no log entry twice. Each step waits
for the signal that the fault was felt (a viewer closed, a server's log line), not for a guessed time.

Brokers and databases are cut through local TCP proxies and a redis-server of our own; the shared
PostgreSQL and Redis servers are never stopped. Heartbeats are made slow (30 s) where the test is
about the broker's own recovery, so the heartbeat's catch-up cannot hide a broken one."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import Server
from tests.faults.proxy import Proxy
from tests.faults.watcher import Watcher, all_reach
from tests.helpers import Table, act, eventually, set_table, simple_ship
from tests.web.wsclient import cookie_for

pytestmark = [pytest.mark.fault, pytest.mark.postgres]

SLOW_BEAT = {"WS_HEARTBEAT_SECONDS": "30", "BROKER_PUBLISH_TIMEOUT": "0.5", "BROKER_RETRY_MAX": "0.5"}
HIT = {"target": "crow", "source": "hawk", "amount": 1}
# What app.realtime.broker logs (the servers run at --log-level warning)
LISTEN_LOST = "LISTEN connection lost; re-establishing"
LISTEN_UNANSWERED = "LISTEN connection does not answer"
PUBLISH_FAILED = "publish of "


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
    """Two viewers on each server, each holding nothing at first: reaching seq 2 means its hello
    was answered (the server holds it as a viewer)."""
    out = []
    for srv in servers:
        for who in ("bob", "watcher"):
            cookie = await cookie_for(srv.url, table.tokens[who])
            out.append(Watcher(srv.url, table.battle_id, cookie, 0, f"{who}@{srv.port}").start())
    await all_reach(out, 2, 10)
    return out


async def _db_seq(a: Server, table: Table) -> int:
    async with httpx.AsyncClient(base_url=a.url) as c:
        r = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
        return r.json()["seq"]


async def _hits(a: Server, table: Table, n: int) -> list[int]:
    """n actions through `a`, each answered 200 (a broker that is away must not fail or hold up a
    write): their seqs, one after the other, and the database at the last."""
    before = await _db_seq(a, table)
    seqs = []
    async with httpx.AsyncClient(base_url=a.url, timeout=10) as c:
        for _ in range(n):
            r = await act(c, table, "ann", "damage.apply", HIT)
            assert r.status_code == 200, r.text
            seqs.append(r.json()["seq"])
    assert seqs == list(range(before + 1, before + n + 1)), seqs
    assert await _db_seq(a, table) == seqs[-1]
    return seqs


async def _finish(watchers: list[Watcher], a: Server, table: Table) -> None:
    seq = await _db_seq(a, table)
    try:
        await all_reach(watchers, seq, 10)
        for w in watchers:
            assert not w.duplicates, (w.name, w.duplicates)
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
        await _hits(a, table, 3)  # answered, and written, while the broker is dead
        await all_reach(watchers[:2], 5, 10)  # a's own viewers are woken without the broker
        assert await _ready(b) == 503
        own_redis.start()
        await _finish(watchers, a, table)  # b resubscribed and caught its viewers up
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
        # noticed at once: the connection's termination callback, not a later check that finds a
        # LISTEN that does not answer (the heartbeat is 30 s here, so only the broker can catch up)
        for srv in (a, b):
            await eventually(lambda srv=srv: LISTEN_LOST in srv.output(), what=f"{srv.port}: {LISTEN_LOST}")
        await _hits(a, table, 3)
        await _finish(watchers, a, table)
        for srv in (a, b):
            assert LISTEN_UNANSWERED not in srv.output()
    finally:
        a.stop()
        b.stop()


async def test_one_process_cut_from_the_database(postgres_url: str, own_redis, proxies) -> None:  # type: ignore[no-untyped-def]
    """Process b loses its database while a goes on: b answers 503 with Retry-After (JSON for the
    API, a page for browsers) on a kept connection, is not ready, closes its viewers with a
    reconnect code instead of forgetting them; after the cut everyone is caught up."""
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
        # b's viewers are told to reconnect (its reads of the woken battle fail), not left hanging
        await eventually(lambda: all(w.closes for w in watchers[2:]), what="b's viewers closed")
        await _hits(a, table, 1)
        proxy.restore()
        await _finish(watchers, a, table)
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
        published = a.output().count(PUBLISH_FAILED)
        await _hits(a, table, 3)  # answered, and written, while Redis does not answer
        await all_reach(watchers[:2], 5, 10)
        # a's publish timed out (BROKER_PUBLISH_TIMEOUT): the wake-ups are pending, to be sent again
        await eventually(lambda: a.output().count(PUBLISH_FAILED) > published, what="a failed publish")
        proxy.resume()
        await _finish(watchers, a, table)
    finally:
        a.stop()
        b.stop()
