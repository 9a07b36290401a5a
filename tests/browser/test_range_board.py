"""The range board in a real browser (TR-02, TR-06): the referee places Arbellatra–Dauntless at Close
from the board's own form, by keyboard; in the manoeuvre step Ann closes by 1 Thrust from her
manoeuvre form; when the step ends the board moves to Adjacent on Bob's page without a reload; Ann's
barrage form then offers the board's band (nothing to choose) and the log line shows Adjacent with
its −3. The board is photographed at desktop and phone widths and scanned with axe."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Browser, expect

from tests.browser.test_accessibility import DARK_RULES, FAILING, report, scan
from tests.browser.test_live_damage import open_as
from tests.conftest import ROOT, Server
from tests.helpers import act, traveller_table

pytestmark = pytest.mark.browser
# The range board's elements that reach past the viewport's right edge.
WIDEST = """[...document.querySelectorAll('#range-board, #range-board *')].filter(e => e.getBoundingClientRect().right > innerWidth + 1)
  .slice(0, 6).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""


async def test_TR_02_manoeuvre_moves_the_board_and_the_barrage_fires_at_its_band(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await traveller_table(
            c, dice_mode="physical", options={"players_advance_clock": "always", "orders": False}
        )
    ctx_r, ref = await open_as(browser, server, table.tokens["ref"])
    ctx_a, ann = await open_as(browser, server, table.tokens["ann"])
    ctx_b, bob = await open_as(browser, server, table.tokens["bob"])
    found: dict[str, list] = {}  # type: ignore[type-arg]
    try:
        await bob.evaluate("window.__loaded = performance.timeOrigin")
        pair = bob.locator("#rb-arbellatra--dauntless")
        await expect(pair).to_have_attribute("data-band", "")
        await expect(pair).to_contain_text("off the board")

        # The referee, by keyboard: open the fold, choose Close, give the reason, Enter submits.
        fold = ref.locator("#rb-arbellatra--dauntless summary")
        await fold.focus()
        await ref.keyboard.press("Enter")
        form = ref.locator("#rb-arbellatra--dauntless form")
        await form.locator("select[name='p.band']").focus()
        await form.locator("select[name='p.band']").select_option("close")
        await ref.keyboard.press("Tab")
        await ref.keyboard.type("the scenario opens at Close")
        await ref.keyboard.press("Enter")
        await expect(pair).to_have_attribute("data-band", "close", timeout=5000)
        await expect(bob.locator("#log-list")).to_contain_text(
            "⚠ OVERRIDE (Referee): range board Arbellatra–Dauntless off the board→Close — “the scenario opens at Close”"
        )

        async with httpx.AsyncClient(base_url=server.url) as c:
            r = await act(c, table, "ref", "clock.advance", {"expect_step": "orders"})
            assert r.status_code == 200, r.text
        manoeuvre = ann.locator("form.tr-manoeuvre-form")
        await manoeuvre.locator("input[name='p.thrust']").fill("1")
        await manoeuvre.locator("select[name='p.target']").select_option("dauntless")
        await manoeuvre.locator("select[name='p.direction']").select_option("close")
        await manoeuvre.locator("button[type=submit]").click()
        await expect(pair).to_contain_text("This round: Arbellatra closes 1", timeout=5000)

        async with httpx.AsyncClient(base_url=server.url) as c:
            r = await act(c, table, "ref", "clock.advance", {"expect_step": "manoeuvre"})
            assert r.status_code == 200, r.text
        await expect(pair).to_have_attribute("data-band", "adjacent", timeout=5000)
        await expect(pair.locator(".rb-here")).to_contain_text("Adj")
        await expect(bob.locator("#log-list")).to_contain_text(
            "Range board: Arbellatra–Dauntless Close → Adjacent (Arbellatra closes 1: net closing 1)."
        )

        barrage = ann.locator("form.tr-barrage-form")
        await expect(barrage.locator("select[name='p.range']")).to_have_count(0)  # nothing to choose
        await expect(barrage.locator(".tr-board-range")).to_have_text(
            "Range: from the range board — Dauntless Adjacent."
        )
        await expect(barrage.locator("select[name='p.target'] option")).to_have_text(
            ["Dauntless — Adjacent (range board)"]
        )
        await barrage.locator("select[name='p.battery']").select_option("particle-barbettes")
        await barrage.locator("input[name='p.mounts']").fill("16")
        await barrage.locator("select[name='p.adjacent']").select_option("fore")
        # 2D 5+4 = 9 + range (Long row, Adjacent) −3 + FC 3 + Gunner 2 + (4 − armour 8) = 7 → 100% → 16.
        await barrage.locator("input[name='dice']").fill("5 4 4")
        await barrage.locator("button[type=submit]").click()
        await expect(bob.locator("#log-list")).to_contain_text(
            "barrage 16–Particle Beam Barbette–Adjacent–4 at Dauntless: 2D 9 + range −3 + FC +3 + Gunner +2"
            " + (4 − armour 8) = 7 → 100% → 16 damage → location 1d6 4: Main",
            timeout=5000,
        )
        assert await bob.evaluate("window.__loaded") is not None  # the same document: no reload

        board = bob.locator("#range-board")
        await board.scroll_into_view_if_needed()
        await bob.screenshot(path=str(ROOT / "var" / "range-board-desktop.png"))
        await scan(bob, "Bob's page with the range board @desktop", found)
        await scan(ref, "referee's page with the range board @desktop", found)
        for page in (bob, ref):
            await page.set_viewport_size({"width": 375, "height": 800})
        await board.scroll_into_view_if_needed()
        await bob.screenshot(path=str(ROOT / "var" / "range-board-phone.png"))
        await scan(bob, "Bob's page with the range board @phone", found)
        await scan(ref, "referee's page with the range board @phone", found)
        await bob.emulate_media(color_scheme="dark")
        await scan(bob, "Bob's page with the range board @phone dark", found, DARK_RULES)
        await bob.screenshot(path=str(ROOT / "var" / "range-board-phone-dark.png"))
        await bob.emulate_media(color_scheme="light")
        for name, page in (("Bob", bob), ("referee", ref)):
            wide = await page.evaluate(WIDEST)
            assert not wide, f"{name}'s range board reaches past 375 px: {wide}"
        counts, lines = report(found)
        print("\n[axe] range board:\n" + ("\n".join(lines) or "  no violations"))
        assert not [k for k in counts if k[0] in FAILING], "\n".join(lines)
    finally:
        for ctx in (ctx_r, ctx_a, ctx_b):
            await ctx.close()
