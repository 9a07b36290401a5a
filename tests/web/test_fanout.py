"""Fan-out across processes: two server processes share PostgreSQL; a change committed through one
reaches a websocket viewer on the other, through LISTEN/NOTIFY and through Redis pub/sub.
The latency is printed (benchmarks are measured, not asserted)."""

from __future__ import annotations

import statistics
import time

import httpx

from tests.conftest import Server
from tests.helpers import act, set_table, simple_ship
from tests.web.wsclient import WsViewer, cookie_for


async def test_change_in_one_process_reaches_viewers_of_the_other(
    replicas: tuple[str, Server, Server],
) -> None:
    kind, a, b = replicas
    async with httpx.AsyncClient(base_url=a.url) as c:
        table = await set_table(
            c,
            ships={
                "hawk": (simple_ship("Hawk", structure=400), "ann"),
                "crow": (simple_ship("Crow", structure=400), "bob"),
            },
        )
    cookie = await cookie_for(b.url, table.tokens["bob"])
    latencies = []
    async with WsViewer(b.url, table.battle_id, cookie) as viewer, httpx.AsyncClient(base_url=a.url) as c:
        await viewer.hello(2)
        for i in range(10):
            start = time.perf_counter()
            r = await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 1})
            assert r.status_code == 200
            frame = await viewer.frame_with_seq(3 + i)
            latencies.append((time.perf_counter() - start) * 1000)
            assert frame["seq"] == 3 + i and "Hawk hits Crow for 1" in frame["content"]
    print(
        f"\n[fanout {kind}] submit→other-process frame: median {statistics.median(latencies):.1f} ms over {len(latencies)}"
    )
