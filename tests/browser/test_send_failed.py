"""A form sent while the server cannot be reached says it failed: the chat form
and an action form whose request never reaches the server (the network drops it) put an error in
the page's message region, keep what was typed, and change nothing. At phone size (390 × 844)."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, Route, expect

from tests.browser.conftest import phone_page
from tests.conftest import Server
from tests.helpers import set_table, simple_ship


async def test_a_send_that_never_reaches_the_server_says_so_and_keeps_the_entry(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        table = await set_table(c, ships=ships)
        async with phone_page(browser, f"{server.url}/join/{table.tokens['ann']}") as (page, errors):
            before = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()[
                "seq"
            ]

            async def drop(route: Route) -> None:
                await route.abort("internetdisconnected")

            await page.route(f"**/battles/{table.battle_id}/chat", drop)
            await page.route(f"**/battles/{table.battle_id}/actions", drop)

            await page.fill("#chat-form textarea[name=text]", "shields up")
            await page.click("#chat-send")
            failed = page.locator("#flash .send-failed")
            await expect(failed).to_be_visible(timeout=5000)
            await expect(failed).to_contain_text("that was not sent and nothing changed")
            assert await failed.get_attribute("role") == "alert"
            await expect(page.locator("#chat-form textarea[name=text]")).to_have_value("shields up")

            await page.evaluate("document.getElementById('flash').replaceChildren()")
            form = page.locator("#damage-form")
            await form.locator("input[name='p.amount']").fill("6")
            await form.locator("button[type=submit]").click()
            await expect(failed).to_be_visible(timeout=5000)
            await expect(form.locator("input[name='p.amount']")).to_have_value("6")

            read = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
            assert read.json()["seq"] == before  # nothing was taken
            chat = await c.get(f"/api/v1/battles/{table.battle_id}/chat", headers=table.auth("ref"))
            assert chat.json()["messages"] == []
            assert errors == []
