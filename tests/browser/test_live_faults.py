"""The page's own recovery in a real browser (static/js/live.js with the htmx ws extension): a
process cut off from PostgreSQL closes the page's socket with 1013, the page reconnects and
catches up by seq once the database is back; a frame the page lost is noticed from the next
heartbeat and fetched again. The log never shows an entry twice."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest
from playwright.async_api import Browser

from tests.browser.conftest import wait_until
from tests.browser.test_live_damage import open_as
from tests.conftest import Server
from tests.faults.proxy import Proxy
from tests.helpers import act, eventually, set_table, simple_ship

pytestmark = [pytest.mark.fault, pytest.mark.postgres]
HIT = {"target": "crow", "source": "hawk", "amount": 1}
PAGE_STATE = """() => {
  const ids = [...document.querySelectorAll('#log-list [id^="log-"]')].map(e => e.id);
  return {seq: parseInt(document.getElementById('turnbar').dataset.seq, 10), log: ids.length, unique: new Set(ids).size};
}"""


async def _page_reaches(page, seq: int, timeout: float) -> None:  # type: ignore[no-untyped-def]
    """The page shows `seq` (within `timeout` seconds, a deadline), no log entry twice."""
    state = await eventually(
        lambda: _at(page, seq), timeout=timeout, interval=0.05, what=f"the page at seq {seq}"
    )
    assert state["log"] == state["unique"], state


async def _at(page, seq: int) -> dict | None:  # type: ignore[no-untyped-def]
    state = await page.evaluate(PAGE_STATE)
    return state if state["seq"] >= seq else None


async def _status(c: httpx.AsyncClient, path: str, status: int) -> bool:
    return (await c.get(path)).status_code == status


async def test_page_reconnects_after_a_database_cut_and_resyncs_a_lost_frame(
    browser: Browser, postgres_url: str
) -> None:
    parts = urlsplit(postgres_url)
    proxy = Proxy(parts.hostname or "127.0.0.1", parts.port or 5432)
    beat = {"WS_HEARTBEAT_SECONDS": "1", "DB_CONNECT_TIMEOUT": "1", "DB_POOL_TIMEOUT": "1"}
    a = Server(postgres_url, postgres_url, env=beat)
    b = Server(proxy.url_for(postgres_url), postgres_url, env=beat)
    try:
        async with httpx.AsyncClient(base_url=a.url) as c:
            table = await set_table(
                c,
                ships={
                    "hawk": (simple_ship("Hawk", structure=400), "ann"),
                    "crow": (simple_ship("Crow", structure=400), "bob"),
                },
            )
            ctx, page = await open_as(browser, b, table.tokens["bob"])
            try:
                await _page_reaches(page, 2, 10)
                proxy.block()
                for _ in range(3):
                    assert (await act(c, table, "ann", "damage.apply", HIT)).status_code == 200
                await wait_until(
                    page, "document.documentElement.dataset.live === 'disconnected'", timeout=8000
                )
                # b knows it is cut off before the cut ends (its readiness check fails)
                async with httpx.AsyncClient(base_url=b.url, timeout=10) as cb:
                    await eventually(lambda: _status(cb, "/readyz", 503), what="b's /readyz answering 503")
                proxy.restore()
                await _page_reaches(page, 5, 10)
                # The page loses the next frame (as if dropped): the heartbeat after it says 6, so it asks again.
                await page.evaluate("""() => document.addEventListener('htmx:ws:before:message:incoming', function drop(evt) {
                    const d = evt.detail.message.data;
                    if (typeof d === 'string' && d.startsWith('{"content"')) { evt.detail.cancelled = true; window.__dropped = true;
                        document.removeEventListener('htmx:ws:before:message:incoming', drop); }
                })""")
                assert (await act(c, table, "ann", "damage.apply", HIT)).status_code == 200
                await wait_until(page, "window.__dropped === true", timeout=5000)
                await _page_reaches(page, 6, 10)  # resynced after losing a frame
            finally:
                await ctx.close()
    finally:
        a.stop()
        b.stop()
        proxy.close()
