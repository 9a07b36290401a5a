"""Benchmarks, measured (never asserted): run `.venv/bin/python scripts/bench.py`.

Prints medians and, since machines are noisy, ratios against a baseline measured in the same run
(the pure rules call). Needs PostgreSQL and Redis like the test suite, and Debian chromium.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)

import httpx  # noqa: E402

from app.rules import Action, apply_action, new_battle  # noqa: E402
from app.rules.core import REFEREE  # noqa: E402
from app.rules.dice import SeededDice  # noqa: E402
from tests.conftest import PG_ADMIN, REDIS_URL, Server, _pg_admin, _pg_url, migrate  # noqa: E402
from tests.helpers import act, set_table, simple_ship  # noqa: E402
from tests.web.wsclient import WsViewer, cookie_for  # noqa: E402


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_rules(n: int = 500) -> float:
    state = new_battle("b5wars")
    for name in ("Hawk", "Crow"):
        state = apply_action(
            state,
            Action("ship.add", {"definition": simple_ship(name, structure=5000)}, REFEREE),
            SeededDice(b"x", "b", 0),
        ).state
    samples = []
    for i in range(n):
        start = time.perf_counter()
        state = apply_action(
            state,
            Action("damage.apply", {"target": "crow", "source": "hawk", "amount": 1}, REFEREE),
            SeededDice(b"x", "b", i),
        ).state
        samples.append(time.perf_counter() - start)
    return median_ms(samples)


async def bench_rest_submit(server: Server, n: int = 100) -> float:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            ships={
                "hawk": (simple_ship("Hawk"), "ann"),
                "crow": (simple_ship("Crow", structure=5000), "bob"),
            },
        )
        samples = []
        for _ in range(n):
            start = time.perf_counter()
            r = await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 1})
            assert r.status_code == 200
            samples.append(time.perf_counter() - start)
    return median_ms(samples)


async def bench_fanout(submit_to: Server, watch_on: Server, viewers: int = 5, n: int = 30) -> float:
    async with httpx.AsyncClient(base_url=submit_to.url) as c:
        table = await set_table(
            c,
            players=("ann",) + tuple(f"p{i}" for i in range(viewers)),
            ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow", structure=5000), None)},
        )
        cookies = [await cookie_for(watch_on.url, table.tokens[f"p{i}"]) for i in range(viewers)]
        socks = [WsViewer(watch_on.url, table.battle_id, ck) for ck in cookies]
        for s in socks:
            await s.__aenter__()
            await s.hello(table_seq := 2)
        samples = []
        try:
            for i in range(n):
                start = time.perf_counter()
                await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 1})
                await asyncio.gather(*(s.frame_with_seq(table_seq + 1 + i) for s in socks))
                samples.append(time.perf_counter() - start)
        finally:
            for s in socks:
                await s.__aexit__(None, None, None)
    return median_ms(samples)


async def bench_browser(server: Server, n: int = 10) -> float | None:
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        return None
    from tests.browser.conftest import ARGS, CHROMIUM

    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            ships={
                "hawk": (simple_ship("Hawk"), "ann"),
                "crow": (simple_ship("Crow", structure=5000), "bob"),
            },
        )
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pages = []
        for who in ("ann", "bob"):
            ctx = await browser.new_context()
            page = await ctx.new_page()
            await page.goto(f"{server.url}/join/{table.tokens[who]}")
            await page.wait_for_function("document.documentElement.dataset.live === 'connected'")
            pages.append(page)
        ann, bob = pages
        await ann.evaluate(
            "document.addEventListener('click', () => { window.__clickAt = Date.now(); }, true)"
        )
        await bob.evaluate("""window.__changes = {}; new MutationObserver(() => { const el = document.getElementById('sheet-crow-primary');
            const v = el && el.dataset.structure; if (v && !(v in window.__changes)) window.__changes[v] = Date.now(); })
            .observe(document.body, {subtree: true, childList: true, attributes: true});""")
        samples = []
        structure = 5000
        for _ in range(n):
            await ann.select_option("#damage-form select[name='p.target']", "crow")
            await ann.fill("#damage-form input[name='p.amount']", "1")
            await ann.click("#damage-form button[type=submit]")
            structure -= 1
            await bob.wait_for_function(f"window.__changes['{structure}'] !== undefined")
            samples.append(
                (
                    await bob.evaluate(f"window.__changes['{structure}']")
                    - await ann.evaluate("window.__clickAt")
                )
                / 1000
            )
        await browser.close()
    return median_ms(samples)


async def main() -> None:
    (ROOT / "var").mkdir(exist_ok=True)
    name = f"starboard_bench_{os.getpid()}"
    await _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await _pg_admin(f'CREATE DATABASE "{name}"')
    pg = _pg_url(name)
    sqlite = f"sqlite:///{ROOT / 'var' / 'bench.db'}"
    (ROOT / "var" / "bench.db").unlink(missing_ok=True)
    migrate(pg)
    migrate(sqlite)
    rows: list[tuple[str, float | None]] = []
    rules = bench_rules()
    rows.append(("rules core: damage.apply (baseline)", rules))
    servers: list[Server] = []
    try:
        one_sqlite = Server(sqlite)
        one_pg = Server(pg)
        servers += [one_sqlite, one_pg]
        rows.append(("REST submit, SQLite, one process", await bench_rest_submit(one_sqlite)))
        rows.append(("REST submit, PostgreSQL, one process", await bench_rest_submit(one_pg)))
        rows.append(
            ("submit → 5 websocket viewers, one process (SQLite)", await bench_fanout(one_sqlite, one_sqlite))
        )
        for label, broadcast in (("PostgreSQL NOTIFY", pg), ("Redis pub/sub", REDIS_URL)):
            a, b = Server(pg, broadcast), Server(pg, broadcast)
            servers += [a, b]
            rows.append((f"submit on A → 5 viewers on B, {label}", await bench_fanout(a, b)))
        rows.append(("browser click on page A → DOM change on page B", await bench_browser(one_sqlite)))
    finally:
        for s in servers:
            s.stop()
        await _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print(
        f"\nStarboard benchmarks ({time.strftime('%Y-%m-%d %H:%M')}, PostgreSQL at {PG_ADMIN.rsplit('@', 1)[-1]})"
    )
    print(f"{'measure':<55} {'median ms':>10} {'× baseline':>11}")
    for label, value in rows:
        if value is None:
            print(f"{label:<55} {'n/a':>10}")
        else:
            print(f"{label:<55} {value:>10.2f} {value / rules:>11.0f}")


if __name__ == "__main__":
    asyncio.run(main())
