"""A page that has lost its live connection says so: a banner while it is lost,
its forms paused, and a note once it is back and has caught up by seq — tested with the browser's
connection to the server cut and restored through a local proxy."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import wait_until
from tests.conftest import Server
from tests.faults.proxy import Proxy
from tests.helpers import act, set_table, simple_ship


async def test_a_lost_connection_shows_its_banner_pauses_forms_and_catches_up(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
    proxy = Proxy("127.0.0.1", server.port)
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(f"http://127.0.0.1:{proxy.port}/join/{table.tokens['bob']}")
        await wait_until(page, "document.documentElement.dataset.live === 'connected'")
        banner = page.locator("#live-banner")
        await expect(banner).to_be_hidden()
        proxy.block()
        proxy.cut()
        await expect(banner).to_be_visible(timeout=8000)
        await expect(banner).to_contain_text("Live connection lost — reconnecting")
        await expect(page.locator("#damage-form button[type=submit]")).to_be_disabled()
        async with httpx.AsyncClient(base_url=server.url) as c:  # the battle goes on meanwhile
            r = await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 5})
            assert r.status_code == 200
            seq = r.json()["seq"]
        proxy.restore()
        await wait_until(page, "document.documentElement.dataset.live === 'connected'", timeout=20000)
        await expect(page.locator("#turnbar")).to_have_attribute("data-seq", str(seq), timeout=8000)
        await expect(banner).to_contain_text("Reconnected")
        await expect(page.locator("#damage-form button[type=submit]")).to_be_enabled()
        await expect(page.locator("#log-list")).to_contain_text("Hawk hits Crow for 5")
    finally:
        await context.close()
        proxy.close()
