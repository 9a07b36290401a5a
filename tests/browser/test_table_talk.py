"""Table talk in a real browser (issue 11): Ann writes at the table, Bob's open page shows it without
a reload and Ann's box is cleared; a private line to the referee reaches the referee's page and not
Bob's; no script errors."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

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
