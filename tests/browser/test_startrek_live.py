"""The full Star Trek flow in a real browser (Debian chromium): Kosh, at the Shadow Cruiser's page,
enters damage at the Excelsior with the damage form; on Kirk's page the Excelsior's Fore shield arc
fills — doubled, First One fire (ST-16), in arc only (ST-06) — without a reload. Screenshots of
Kirk's page at desktop width and at 360 px go to var/screenshot-startrek*.png."""

from __future__ import annotations

import time

import httpx
from playwright.async_api import Browser, expect

from tests.browser.test_live_damage import open_as
from tests.conftest import ROOT, Server
from tests.helpers import set_table, ship_def


async def enter_damage(page, target: str, amount: int, direction: str) -> None:  # type: ignore[no-untyped-def]
    await page.select_option("#damage-form select[name='p.source']", "shadow-cruiser")
    await page.select_option("#damage-form select[name='p.target']", target)
    await page.fill("#damage-form input[name='p.amount']", str(amount))
    await page.select_option("#damage-form select[name='p.direction']", direction)
    await page.click("#damage-form button[type=submit]")


async def test_ST_06_ST_16_damage_entered_by_one_player_fills_the_others_shield_arc_live(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            players=("kirk", "kosh", "tomalak"),
            ships={
                "excelsior": (ship_def("excelsior"), "kirk"),
                "paine": (ship_def("new-orleans"), "kirk"),
                "shadow": (ship_def("shadow-cruiser"), "kosh"),
                "warbird": (ship_def("romulan-warbird"), "tomalak"),
            },
        )
        for _ in range(2):  # → Combat (GEN-01: Ship Power, Movement, Combat)
            await c.post(
                f"/api/v1/battles/{table.battle_id}/actions",
                json={"type": "clock.advance", "payload": {}, "action_id": f"adv-{_}"},
                headers=table.auth("ref"),
            )
    ctx_a, kosh = await open_as(browser, server, table.tokens["kosh"])
    ctx_b, kirk = await open_as(browser, server, table.tokens["kirk"])
    try:
        await kirk.evaluate("window.__sameDocument = true")
        fore = kirk.locator("#shield-excelsior-fore")
        port = kirk.locator("#shield-excelsior-port")
        await expect(fore).to_have_attribute("data-current", "40")
        empty_dash = await fore.get_attribute("stroke-dasharray")
        # 10 First One damage from fore counts 20 on the Fore shield: 40 → 20, nothing through.
        started = time.perf_counter()
        await enter_damage(kosh, "excelsior", 10, "fore")
        await expect(fore).to_have_attribute("data-current", "20", timeout=5000)
        first_ms = (time.perf_counter() - started) * 1000
        assert await fore.get_attribute("stroke-dasharray") != empty_dash
        await expect(kirk.locator("#shields-excelsior")).to_contain_text("Fore 20/40")
        await expect(port).to_have_attribute("data-current", "30")  # ST-06: only the arc fired into
        # 25 more: 10 fill the last 20 (doubled), 15 reach the ship.
        await enter_damage(kosh, "excelsior", 25, "fore")
        await expect(fore).to_have_attribute("data-current", "0", timeout=5000)
        await expect(kirk.locator("#log-list")).to_contain_text(
            "Excelsior: First One fire counts double on shields — 10 fill Fore "
            "shield (20/40 → 0/40), 15 reach the ship."
        )
        await expect(kosh.locator("#flash")).to_contain_text("Shadow Cruiser hits Excelsior for 25")
        assert await kirk.evaluate("window.__sameDocument") is True  # no reload happened
        print(
            f"\n[browser] Star Trek: damage form on Kosh's page → Kirk's shield arc filled in {first_ms:.0f} ms"
        )
        await kirk.screenshot(path=str(ROOT / "var" / "screenshot-startrek.png"), full_page=True)
        await kirk.set_viewport_size({"width": 360, "height": 800})
        width = await kirk.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"Kirk's Star Trek page scrolls sideways on a phone: {width}px"
        ring = await kirk.locator("#shields-excelsior svg").bounding_box()
        assert ring is not None and ring["width"] <= 360
        await kirk.screenshot(path=str(ROOT / "var" / "screenshot-startrek-phone.png"), full_page=True)
    finally:
        await ctx_a.close()
        await ctx_b.close()
