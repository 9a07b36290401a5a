"""Two players on two pages: one applies damage with the form, the other page shows it without a
reload. Also: the page works on a phone-sized screen and with the keyboard."""

from __future__ import annotations

import statistics

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import wait_until
from tests.conftest import Server
from tests.helpers import set_table, simple_ship

# Records when page B's fore section first shows each structure value (Date.now() is shared by both pages).
WATCH = """
window.__changes = {};
new MutationObserver(() => {
  const el = document.getElementById('sheet-crow-fore');
  const v = el && el.dataset.structure;
  if (v && !(v in window.__changes)) window.__changes[v] = Date.now();
}).observe(document.body, {subtree: true, childList: true, attributes: true});
"""


async def open_as(browser: Browser, server: Server, token: str, width: int = 1280):  # type: ignore[no-untyped-def]
    context = await browser.new_context(viewport={"width": width, "height": 900})
    page = await context.new_page()
    seen: list[str] = []
    page.on("console", lambda m: seen.append(f"console {m.type}: {m.text}"))
    page.on("pageerror", lambda e: seen.append(f"pageerror: {e}"))
    page.on("websocket", lambda ws: seen.append(f"websocket opened {ws.url}"))
    await page.goto(f"{server.url}/join/{token}")
    try:
        await wait_until(page, "document.documentElement.dataset.live === 'connected'", timeout=10000)
    except Exception as exc:
        raise AssertionError(
            f"page never connected live: {seen}; state {await page.evaluate('document.documentElement.dataset.live || document.visibilityState')}"
        ) from exc
    return context, page


async def test_damage_on_one_page_shows_on_the_other_without_reload(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow", structure=400), "bob")},
        )
    ctx_a, ann = await open_as(browser, server, table.tokens["ann"])
    ctx_b, bob = await open_as(browser, server, table.tokens["bob"])
    try:
        await bob.evaluate("window.__loaded = performance.timeOrigin")
        await bob.evaluate(WATCH)
        await ann.evaluate(
            "document.addEventListener('click', () => { window.__clickAt = Date.now(); }, true)"
        )
        fore = bob.locator("#sheet-crow-fore")
        await expect(fore).to_have_attribute("data-structure", "20")
        latencies = []
        structure, armour = 20, 4
        for amount in (6, 3, 2):
            await ann.select_option("#damage-form select[name='p.target']", "crow")
            await ann.fill("#damage-form input[name='p.amount']", str(amount))
            await ann.select_option("#damage-form select[name='p.direction']", "fore")
            await ann.click("#damage-form button[type=submit]")
            structure -= max(0, amount - armour)
            armour = max(0, armour - amount)
            await expect(fore).to_have_attribute("data-structure", str(structure), timeout=5000)
            clicked = await ann.evaluate("window.__clickAt")
            changed = await bob.evaluate(f"window.__changes[{structure}]")
            latencies.append(changed - clicked)
        await expect(bob.locator("#log-list")).to_contain_text("Hawk hits Crow for 2 (fore): 2 to Fore.")
        await expect(ann.locator("#flash")).to_contain_text("Hawk hits Crow for 2")
        assert await bob.evaluate("window.__loaded") is not None  # same document: no reload happened
        print(
            f"\n[browser] click on page A → DOM change on page B: median {statistics.median(latencies):.0f} ms"
        )
        await bob.screenshot(path=str(server_var(server) / "screenshot-player.png"), full_page=True)
    finally:
        await ctx_a.close()
        await ctx_b.close()


async def test_phone_layout_and_keyboard(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
    ctx, page = await open_as(browser, server, table.tokens["ann"], width=360)
    try:
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"page scrolls sideways on a phone: {width}px"
        bar = await page.locator("#turnbar").bounding_box()
        assert bar is not None and bar["height"] <= 64
        # Done rides in the bar fixed at the foot of the screen (tests/browser/test_phone_layout.py).
        done = await page.locator("#ready-button").bounding_box()
        assert done is not None and done["y"] + done["height"] <= 900 and done["y"] > 900 - 56
        # Keyboard only: tab to the damage amount, type, submit with Enter.
        await page.focus("#damage-form select[name='p.source']")
        await page.keyboard.press("Tab")
        await page.keyboard.press("ArrowDown")  # target: next ship
        await page.focus("#damage-form input[name='p.amount']")
        await page.keyboard.type("3")
        await page.keyboard.press("Enter")
        await expect(page.locator("#flash")).to_contain_text("for 3")
        await page.screenshot(path=str(server_var(server) / "screenshot-phone.png"), full_page=True)
    finally:
        await ctx.close()


def server_var(server: Server):  # type: ignore[no-untyped-def]
    from tests.conftest import ROOT

    return ROOT / "var"


async def test_replay_steps_with_the_arrow_keys(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
    context = await browser.new_context()
    page = await context.new_page()
    try:
        await page.goto(f"{server.url}/join/{table.tokens['ann']}")
        await page.goto(f"{server.url}/battles/{table.battle_id}/replay?seq=1")
        await expect(page.locator("#replay-at")).to_have_text("After action #1 of 2")
        await page.keyboard.press("ArrowRight")
        await expect(page.locator("#replay-at")).to_have_text("After action #2 of 2")
        await page.keyboard.press("ArrowLeft")
        await expect(page.locator("#replay-at")).to_have_text("After action #1 of 2")
        assert not await page.locator("#damage-form").count()
    finally:
        await context.close()
