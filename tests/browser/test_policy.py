"""Under the Content-Security-Policy (scripts and styles from this origin only) a real browser
joins by a fragment link, the battle page goes live, and /docs renders the vendored Swagger UI —
with no policy violation reported anywhere."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import wait_until
from tests.conftest import Server
from tests.helpers import set_table, simple_ship

VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


async def test_pages_and_docs_run_under_the_policy(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
        seat = await c.post(
            f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}/token",
            headers=table.auth("ref"),
        )
    link = seat.json()["join_url"]
    assert "/join#" in link
    context = await browser.new_context()
    await context.add_init_script(VIOLATIONS)
    page = await context.new_page()
    seen: list[str] = []
    page.on("console", lambda m: seen.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: seen.append(f"pageerror: {e}"))
    try:
        # The link as issued, on this server: join.js posts the fragment's token and lands on the page.
        await page.goto(server.url + link[link.index("/join#") :])
        await page.wait_for_url(f"{server.url}/battles/{table.battle_id}")
        assert "#" not in page.url
        await wait_until(page, "document.documentElement.dataset.live === 'connected'", timeout=10000)
        await expect(page.locator("header .role")).to_contain_text("ann · player")
        assert await page.evaluate("window.__csp") == []
        await page.goto(f"{server.url}/")
        assert await page.evaluate("window.__csp") == []
        await page.goto(f"{server.url}/docs")
        await expect(page.locator(".opblock-summary-path").first).to_be_visible(timeout=10000)
        assert await page.locator(".opblock").count() >= 10
        assert await page.evaluate("window.__csp") == []
        assert seen == [], seen
    finally:
        await context.close()
