"""The Traveller issue in a real browser: Ann (page A) fires a barrage with the barrage form on her
ship's sheet, typing the physical dice into its Dice box; Bob's page (B) shows Dauntless's struck
section bars change without a reload (TR-05, TR-06, TR-08, TR-15…TR-18). B is then photographed at
desktop and phone widths."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.test_live_damage import open_as
from tests.conftest import ROOT, Server
from tests.helpers import act, traveller_table

# When page B's Main section bar first shows each Hull value (Date.now() is shared by both pages).
WATCH = """
window.__hull = {};
new MutationObserver(() => {
  const el = document.getElementById('tr-dauntless-main');
  const v = el && el.dataset.hull;
  if (v && !(v in window.__hull)) window.__hull[v] = Date.now();
}).observe(document.body, {subtree: true, childList: true, attributes: true});
"""


async def test_TR_05_TR_18_barrage_from_the_form_updates_the_other_captains_sheet_live(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await traveller_table(c, dice_mode="physical")
        for step in ("orders", "manoeuvre"):  # leaving Orders reveals (no orders given): combat
            r = await act(c, table, "ref", "clock.advance", {"expect_step": step})
            assert r.status_code == 200, r.text
    ctx_a, ann = await open_as(browser, server, table.tokens["ann"])
    ctx_b, bob = await open_as(browser, server, table.tokens["bob"])
    try:
        await bob.evaluate("window.__loaded = performance.timeOrigin")
        await bob.evaluate(WATCH)
        main, forward = bob.locator("#tr-dauntless-main"), bob.locator("#tr-dauntless-forward")
        await expect(main).to_have_attribute("data-hull", "250")
        await ann.evaluate(
            "document.addEventListener('click', () => { window.__clickAt = Date.now(); }, true)"
        )

        form = ann.locator("form.tr-barrage-form")
        await form.locator("select[name='p.battery']").select_option("particle-barbettes")
        await form.locator("input[name='p.mounts']").fill("16")
        await form.locator("select[name='p.target']").select_option("dauntless")
        await form.locator("select[name='p.range']").select_option("long")
        await form.locator("select[name='p.adjacent']").select_option("fore")
        # 2D 4+3 = 7 + FC 3 + Gunner 2 + (4 − armour 8) = 8 → 125% → 20; location 4 (Main), 10/10 with
        # Forward; net 8: Main External 2D 9 (Hull +10), Forward External 2D 6 (Hull +10).
        await form.locator("input[name='dice']").fill("4 3 4 4 5 3 3")
        await form.locator("button[type=submit]").click()

        await expect(main).to_have_attribute("data-hull", "230", timeout=5000)
        await expect(main).to_have_attribute("data-structure", "250")
        await expect(forward).to_have_attribute("data-hull", "230")
        await expect(bob.locator("#tr-dauntless-engineering")).to_have_attribute("data-hull", "250")
        await expect(bob.locator("#log-list")).to_contain_text(
            "barrage 16–Particle Beam Barbette–Long–4 at Dauntless: 2D 7 + range 0 + FC +3 + Gunner +2"
            " + (4 − armour 8) = 8 → 125% → 20 damage → location 1d6 4: Main"
        )
        await expect(bob.locator("#log-list")).to_contain_text(
            "Dauntless Main section hit (External, 2D 9): Hull — +10 Hull damage: Main Hull 240→230."
        )
        await expect(ann.locator("#flash")).to_contain_text("barrage 16–Particle Beam Barbette")
        assert await bob.evaluate("window.__loaded") is not None  # the same document: no reload
        latency = await bob.evaluate("window.__hull[230]") - await ann.evaluate("window.__clickAt")
        print(f"\n[browser] Traveller barrage click on page A → bar change on page B: {latency} ms")

        await bob.screenshot(path=str(ROOT / "var" / "screenshot-traveller.png"), full_page=True)
        await bob.set_viewport_size({"width": 360, "height": 800})
        await bob.screenshot(path=str(ROOT / "var" / "screenshot-traveller-phone.png"), full_page=True)
        await bob.locator("#ship-dauntless").screenshot(
            path=str(ROOT / "var" / "screenshot-traveller-phone-sheet.png")
        )
        width = await bob.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"Bob's page scrolls sideways at 360 px: {width}px"
    finally:
        await ctx_a.close()
        await ctx_b.close()
