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


HIDDEN = """
Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden === true });
"""


async def test_table_talk_missed_in_a_hidden_tab_is_counted_unread_on_the_chat(
    browser: Browser, server: Server
) -> None:
    """At phone size (390 × 844): lines Bob writes while Ann's tab is hidden are counted on the chat's
    heading ("2 unread"), her own line is not, and the count goes once she looks at the chat."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
        context = await browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
        page = await context.new_page()
        await page.add_init_script(HIDDEN)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            await page.goto(f"{server.url}/join/{table.tokens['ann']}")
            await wait_until(page, "document.documentElement.dataset.live === 'connected'")
            await page.locator("#chat-list").scroll_into_view_if_needed()
            badge = page.locator("#chat-unread")
            await expect(badge).to_be_hidden()
            await page.evaluate("window.__hidden = true")
            for line in ("torpedoes away", "second volley"):
                r = await c.post(
                    f"/api/v1/battles/{table.battle_id}/chat", json={"text": line}, headers=table.auth("bob")
                )
                assert r.status_code == 201, r.text
                await expect(page.locator("#chat-list")).to_contain_text(line, timeout=5000)
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/chat", json={"text": "mine"}, headers=table.auth("ann")
            )
            await expect(page.locator("#chat-list")).to_contain_text("mine", timeout=5000)
            await expect(badge).to_have_text("2 unread")
            await expect(page.locator("#chat-title")).to_have_accessible_name("Table talk 2 unread")
            await page.evaluate(
                "window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))"
            )
            await expect(badge).to_be_hidden()
            assert errors == []
        finally:
            await context.close()
