"""An open page's log marks what an undo or a rewind took back the moment it lands (no reload), in
words a screen reader reads, and a redo takes the mark away; a mark for an entry the page does not
hold (older than its log) changes nothing else."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import wait_until
from tests.browser.test_accessibility import DARK_RULES, report, scan
from tests.browser.test_live_damage import open_as
from tests.conftest import ROOT, Server
from tests.helpers import set_table, simple_ship
from tests.web.test_startrek_rest import ok


async def test_undo_rewind_and_redo_mark_the_open_log(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
        seqs = [(await ok(c, table, "ref", "clock.advance"))["seq"] for _ in range(4)]
    ctx, page = await open_as(browser, server, table.tokens["watcher"])
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        await page.evaluate("window.__loaded = performance.timeOrigin")
        # as if the oldest of the entries to be taken back were past the page's log
        await page.evaluate(f"document.getElementById('log-{seqs[1]}').remove()")
        async with httpx.AsyncClient(base_url=server.url) as c:
            rewind = (
                await ok(c, table, "ref", "battle.rewind", {"to_seq": seqs[0], "reason": "wrong step"})
            )["seq"]
        for seq in seqs[2:]:
            await expect(page.locator(f"#log-mark-{seq}")).to_have_text(f"↶ Taken back by #{rewind} (rewind)")
        await expect(page.locator(f"#log-{rewind} .log-back")).to_contain_text("back to")
        struck = await page.evaluate(
            f"getComputedStyle(document.querySelector('#log-{seqs[2]} .log-event p')).textDecorationLine"
        )
        assert struck == "line-through"
        assert await page.locator(f"#log-mark-{seqs[0]}").is_hidden()

        async with httpx.AsyncClient(base_url=server.url) as c:
            undo = (await ok(c, table, "ref", "battle.undo", {"reason": "not that either"}))["seq"]
        await expect(page.locator(f"#log-mark-{seqs[0]}")).to_have_text(f"↶ Taken back by #{undo} (undo)")
        async with httpx.AsyncClient(base_url=server.url) as c:
            redo = (await ok(c, table, "ref", "battle.redo", {}))["seq"]
        await expect(page.locator(f"#log-{redo}")).to_be_attached()
        await expect(page.locator(f"#log-mark-{seqs[0]}")).to_be_hidden()
        await expect(page.locator(f"#log-mark-{seqs[2]}")).to_be_visible()  # the rewind's marks stay
        assert await page.evaluate("window.__loaded") is not None  # the same document: no reload
        assert errors == []
        await page.locator("#log-list").screenshot(path=str(ROOT / "var" / "log-marks.png"))
        # the struck-through entries and their marks read well enough, light and dark (axe)
        found: dict[str, list[Any]] = {}  # once the turn bar's change highlight has faded
        await wait_until(page, "document.getAnimations().every((a) => a.playState !== 'running')")
        await scan(page, "log with marks", found)
        await page.emulate_media(color_scheme="dark")
        await scan(page, "log with marks, dark", found, DARK_RULES)
        assert not report(found)[1], "\n".join(report(found)[1])
    finally:
        await ctx.close()
