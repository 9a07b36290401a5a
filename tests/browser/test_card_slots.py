"""A live frame carries the ship list with each card's place held and only the cards that changed:
on the page a hit changes the hit card alone, the cards around it stay the very elements they were
(folded as the reader left them), and a ship added mid-battle arrives whole in its new place."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import wait_until
from tests.browser.test_live_damage import open_as
from tests.conftest import Server
from tests.helpers import act, set_table, simple_ship


async def test_a_hit_changes_one_card_and_a_new_ship_arrives_whole(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow", structure=400), "bob")},
        )
        ctx, page = await open_as(browser, server, table.tokens["watcher"])
        try:
            # The reader folds Hawk's card; both cards are marked as the elements they are now.
            await page.evaluate(
                """() => {
                  const hawk = document.getElementById('ship-hawk');
                  hawk.querySelector('details.ship-fold').open = false;
                  hawk.__same = true;
                  document.getElementById('ship-crow').__same = true;
                }"""
            )
            hit = {"target": "crow", "source": "hawk", "amount": 6, "direction": "fore"}
            r = await act(c, table, "ann", "damage.apply", hit)
            assert r.status_code == 200, r.text
            await expect(page.locator("#sheet-crow-fore")).to_have_attribute("data-structure", "18")
            assert await page.evaluate("document.getElementById('ship-hawk').__same === true")
            assert await page.evaluate(
                "document.getElementById('ship-crow').__same === true"
            )  # morphed in place
            assert not await page.evaluate("document.querySelector('#ship-hawk details.ship-fold').open")

            added = await act(c, table, "ref", "ship.add", {"definition": simple_ship("Kite"), "owner": None})
            assert added.status_code == 200, added.text
            kite = page.locator("#ship-kite")
            await expect(kite.locator("h3")).to_have_text("Kite")
            await expect(kite.locator("#sheet-kite-fore")).to_have_attribute("data-structure", "20")
            # no place is left marked: Kite's was filled, the kept cards lost the mark the morph gave them
            await wait_until(page, "!document.querySelector('#ships [data-card-slot]')")
            # the list's order is the battle's: Hawk, Crow, then Kite, and Hawk stayed as the reader left it
            order = await page.evaluate(
                "[...document.querySelectorAll('#ships article.ship')].map(a => a.id)"
            )
            assert order == ["ship-hawk", "ship-crow", "ship-kite"], order
            assert await page.evaluate("document.getElementById('ship-hawk').__same === true")
            assert not await page.evaluate("document.querySelector('#ship-hawk details.ship-fold').open")
        finally:
            await ctx.close()
