"""Open SSE feeds are bounded: FEED_MAX_PER_SEAT (4) per seat, then 429; FEED_MAX_PER_PROCESS
(256; 6 in this server) per process, then 503 with Retry-After. A feed's place comes back when
its client leaves. (The probe held 200 feeds on one spectator token, and actions slowed sevenfold.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx
import pytest

from tests.conftest import Server
from tests.helpers import Table, eventually, set_table


@pytest.fixture(scope="module")
def bounded(sqlite_url: str) -> Iterator[Server]:
    srv = Server(sqlite_url, env={"FEED_MAX_PER_PROCESS": "6", "RETRY_AFTER_SECONDS": "3"})
    yield srv
    srv.stop()


@asynccontextmanager
async def opened(c: httpx.AsyncClient, table: Table, who: str) -> AsyncIterator[httpx.Response]:
    """A feed held open (its first line read) until the block ends; a refusal is yielded as is."""
    async with c.stream("GET", f"/api/v1/battles/{table.battle_id}/feed", headers=table.auth(who)) as r:
        if r.status_code == 200:
            lines = r.aiter_lines()
            assert await lines.__anext__() == ": feed open"
        else:
            await r.aread()
        yield r


async def test_feeds_per_seat_and_per_process_are_bounded(bounded: Server) -> None:
    async with httpx.AsyncClient(base_url=bounded.url, timeout=10) as c, AsyncExitStack() as held:
        table = await set_table(c)
        for _ in range(4):
            assert (await held.enter_async_context(opened(c, table, "watcher"))).status_code == 200
        r = await held.enter_async_context(opened(c, table, "watcher"))
        assert r.status_code == 429 and int(r.headers["Retry-After"]) == 3, r.text
        assert r.json()["detail"]["error"] == "RateLimited"
        # Other seats still get theirs, up to the process's bound (6 here).
        for who in ("ann", "bob"):
            assert (await held.enter_async_context(opened(c, table, who))).status_code == 200
        r = await held.enter_async_context(opened(c, table, "ref"))
        assert r.status_code == 503 and r.headers["Retry-After"] == "3", r.text
        assert r.json()["detail"]["error"] == "Busy"
        # Actions and reads still answer (a feed is not the game).
        state = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
        assert state.status_code == 200
    # Every client left: their places come back (the server notices each disconnect).
    async with httpx.AsyncClient(base_url=bounded.url, timeout=10) as c:

        async def six_open() -> bool:
            async with AsyncExitStack() as again:
                codes = [
                    (await again.enter_async_context(opened(c, table, who))).status_code
                    for who in ("watcher", "watcher", "watcher", "watcher", "ann", "ref")
                ]
            return codes == [200] * 6

        await eventually(six_open, what="every feed's place given back after its client left")


async def test_a_feed_refused_mid_burst_never_counts(bounded: Server) -> None:
    """Ten feeds asked at once by one seat: exactly four open; the rest are 429."""
    async with httpx.AsyncClient(base_url=bounded.url, timeout=10) as c:
        table = await set_table(c)
        async with AsyncExitStack() as held:
            answers = await asyncio.gather(
                *(held.enter_async_context(opened(c, table, "ann")) for _ in range(10))
            )
            codes = sorted(r.status_code for r in answers)
        assert codes == [200] * 4 + [429] * 6
