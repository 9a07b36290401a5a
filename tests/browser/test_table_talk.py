"""Table talk in a real browser: Ann writes at the table, Bob's open page shows it without
a reload and Ann's box is cleared; a private line to the referee reaches the referee's page and not
Bob's; no script errors."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import wait_until
from tests.browser.test_live_damage import open_as
from tests.conftest import Server
from tests.helpers import set_table, simple_ship


async def test_chat_shows_on_other_pages_without_reload(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
    pages = {who: await open_as(browser, server, table.tokens[who]) for who in ("ann", "bob", "ref")}
    errors: list[str] = []
    for _, page in pages.values():
        page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        ann = pages["ann"][1]
        await ann.fill("#chat-form textarea[name=text]", "<b>guns hot</b>")
        await ann.click("#chat-send")
        for who in ("bob", "ref"):
            await expect(pages[who][1].locator("#chat-list")).to_contain_text("<b>guns hot</b>", timeout=5000)
        await expect(ann.locator("#chat-form textarea[name=text]")).to_have_value("")
        await ann.fill("#chat-form textarea[name=text]", "only for the referee")
        await ann.select_option("#chat-form select[name=to]", "referee")
        await ann.click("#chat-send")
        await expect(pages["ref"][1].locator("#chat-list")).to_contain_text(
            "only for the referee", timeout=5000
        )
        await expect(ann.locator("#chat-list")).to_contain_text("only for the referee")
        await pages["bob"][1].wait_for_timeout(500)
        assert "only for the referee" not in await pages["bob"][1].content()
        assert await pages["bob"][1].locator("#chat-list b").count() == 0  # shown as text, not markup
        assert errors == []
    finally:
        for ctx, _ in pages.values():
            await ctx.close()


STUB = """
window.__notes = [];
Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden === true });
window.Notification = function (title, options) { window.__notes.push([title, options && options.body]); };
window.Notification.permission = "granted";
window.Notification.requestPermission = () => Promise.resolve("granted");
"""


async def test_a_hidden_tab_gets_a_browser_notification_when_it_becomes_your_move(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, options={})
        context = await browser.new_context()
        page = await context.new_page()
        await page.add_init_script(STUB)
        try:
            await page.goto(f"{server.url}/join/{table.tokens['ann']}")
            await wait_until(page, "document.documentElement.dataset.live === 'connected'")
            assert await page.get_attribute("#turnbar", "data-your-move") == "no"
            await page.evaluate("window.__hidden = true")
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/actions",
                json={
                    "type": "ship.add",
                    "action_id": "hawk-for-ann",
                    "payload": {"definition": simple_ship("Hawk"), "owner": table.ids["ann"]},
                },
                headers=table.auth("ref"),
            )
            assert r.status_code == 200, r.text
            await wait_until(page, "document.getElementById('turnbar').dataset.yourMove === 'yes'")
            await page.wait_for_timeout(200)
            notes = await page.evaluate("window.__notes")
            assert len(notes) == 1 and notes[0][0] == "Starboard: your move"
            # Another change while it stays her move: no second notification.
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/chat", json={"text": "hello"}, headers=table.auth("bob")
            )
            await page.wait_for_timeout(300)
            assert len(await page.evaluate("window.__notes")) == 1
        finally:
            await context.close()
