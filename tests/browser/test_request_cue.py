"""A player's request reaches the referee's eye: while requests wait, the referee's
bar at the top links to the queue with their count and the tab's title starts with it — on the page
as loaded and live, as requests arrive and are decided. At phone size (390 × 844)."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import phone_page, wait_until
from tests.conftest import Server
from tests.helpers import act, set_table, simple_ship


async def test_pending_requests_are_on_the_referees_bar_and_tab_title(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        table = await set_table(c, ships=ships)
        hit = {"target": "crow", "source": "hawk", "amount": 9, "direction": "fore"}
        assert (await act(c, table, "ann", "damage.apply", hit)).status_code == 200
        async with phone_page(browser, f"{server.url}/join/{table.tokens['ref']}") as (page, errors):
            cue = page.locator("#requests-waiting")
            await expect(cue).to_be_hidden()
            assert not (await page.title()).startswith("(")
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/requests",
                json={"reason": "I entered 9, meant 3"},
                headers=table.auth("ann"),
            )
            assert r.status_code == 201, r.text
            await expect(cue).to_be_visible(timeout=5000)
            await expect(cue).to_have_text("1 request from players waiting")
            await expect(page).to_have_title("(1 request) Referee · Test battle · Starboard")
            assert await cue.locator("a").get_attribute("href") == "#requests"
            top = await cue.bounding_box()
            assert top is not None and top["y"] < 844 / 2  # in the bar at the top, not down the page
            # A reload draws the same from the server; the referee's decision takes it away live.
            await page.reload()
            await wait_until(page, "document.documentElement.dataset.live === 'connected'")
            await expect(cue).to_have_text("1 request from players waiting")
            assert (await page.title()).startswith("(1 request) ")
            rid = r.json()["id"]
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/requests/{rid}",
                json={"approve": False, "answer": "it stands"},
                headers=table.auth("ref"),
            )
            assert r.status_code == 200, r.text
            await expect(cue).to_be_hidden(timeout=5000)
            await expect(page).to_have_title("Referee · Test battle · Starboard")
            assert errors == []
