"""The Shadow issue in a real browser: Kirk (page A) enters damage on the Shadow Cruiser with the
page's damage form and ends the impulse; its end waits for the pain check's physical dice, which
Kosh, the Shadow's commander, types into the one Dice box his turn bar offers (GEN-02). Both pages
show the new pain level and reaction, with the obligation and the rolls, without a reload
(SH-03…SH-06, SH-09, SH-16). The sheet also fits a 360 px phone."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import wait_until
from tests.conftest import ROOT, Server
from tests.helpers import act, set_table, ship_def

SHADOW = "shadow-cruiser"
FED = "federation-heavy-cruiser"

# Records when page B's pain section first shows each level (Date.now() is shared by both pages).
WATCH = """
window.__pain = {};
new MutationObserver(() => {
  const el = document.getElementById('pain-shadow-cruiser');
  const v = el && el.dataset.level;
  if (v && !(v in window.__pain)) window.__pain[v] = Date.now();
}).observe(document.body, {subtree: true, childList: true, attributes: true});
"""


async def open_as(browser: Browser, server: Server, token: str, width: int = 1280):  # type: ignore[no-untyped-def]
    """A page joined with `token`, its websocket connected. base.html loads htmx and its ws
    extension with `defer`: htmx then initialises from a setTimeout that can run before
    hx-ws.min.js has registered, and such a page never connects (about 1 load in 30 here). Until
    that is fixed, a page that is not live after 6 s is loaded again — before the test acts, so
    "without a reload" below still holds."""
    context = await browser.new_context(viewport={"width": width, "height": 900})
    page = await context.new_page()
    await page.goto(f"{server.url}/join/{token}")
    for attempt in range(3):
        try:
            await wait_until(page, "document.documentElement.dataset.live === 'connected'", timeout=6000)
            return context, page
        except PlaywrightTimeout:
            print(f"\n[browser] page not live after 6 s (attempt {attempt + 1}); loading it again")
            await page.reload()
    raise AssertionError("the battle page never connected its websocket")


async def enter_hit(page: Page, amount: int, direction: str, seq: int) -> int:
    """Fill and submit the damage form, then wait until this page has the new seq (its next form
    is then made against the right seq)."""
    await page.select_option("#damage-form select[name='p.source']", FED)
    await page.select_option("#damage-form select[name='p.target']", SHADOW)
    await page.fill("#damage-form input[name='p.amount']", str(amount))
    await page.select_option("#damage-form select[name='p.direction']", direction)
    await page.click("#damage-form button[type=submit]")
    await expect(page.locator("#turnbar")).to_have_attribute("data-seq", str(seq + 1), timeout=5000)
    return seq + 1


async def test_SH_16_kirk_ends_the_impulse_and_kosh_sees_pain_and_reaction_live(
    browser: Browser, server: Server
) -> None:
    """SH-06, SH-09, SH-16: pain 4 (scenario), Kirk lands 53 + 47 = 100 (band 100–149) and ends
    impulse 1; the end waits for Kosh, who enters dice 2 6 1 (GEN-02): rise, +4 → pain 8, reaction
    TWO: must target the Federation Heavy Cruiser next turn. Both pages change in place; the log
    reads the rolls."""
    shadow = ship_def(SHADOW)
    shadow["parts"]["pain"]["level"] = 4  # SH-01: the scenario starts the track at 4
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            system="sfb",
            dice_mode="physical",
            players=("kirk", "kosh"),
            ships={"fed": (ship_def(FED), "kirk"), "shadow": (shadow, "kosh")},
        )
        r = await act(c, table, "ref", "clock.advance", {"expect_step": "energy_allocation"})
        assert r.status_code == 200, r.text
        seq = r.json()["seq"]
    ctx_a, kirk = await open_as(browser, server, table.tokens["kirk"])
    ctx_b, kosh = await open_as(browser, server, table.tokens["kosh"])
    try:
        await kosh.evaluate("window.__loaded = performance.timeOrigin")
        await kosh.evaluate(WATCH)
        pain = kosh.locator(f"#pain-{SHADOW}")
        await expect(pain).to_have_attribute("data-level", "4")
        await expect(pain).to_have_attribute("data-reaction", "ZERO")
        await expect(kirk.locator("#advance-clock")).to_have_text("End Impulse 1 →")

        seq = await enter_hit(kirk, 53, "fore", seq)
        seq = await enter_hit(kirk, 47, "aft", seq)
        await expect(kosh.locator(f"#pain-{SHADOW} .pain-impulse")).to_contain_text(
            "This impulse: 100 damage to armour and internals · band 100–149 · most from Federation Heavy Cruiser (100)"
        )

        await kirk.click("#advance-clock")  # no dice asked of Kirk: the Shadow's are Kosh's to roll
        roll = kosh.locator("#turnbar form.roll-form")
        await expect(roll.locator("#roll-button")).to_contain_text(
            "dice for Shadow Cruiser: 1d6 for pain rise chance, band 100–149", timeout=5000
        )
        await expect(kirk.locator("#turnbar")).to_contain_text("kirk ✓, kosh — dice for Shadow Cruiser")
        await expect(kirk.locator("#roll-button")).to_have_count(0)
        await roll.locator("input[name='dice']").fill("2")  # one die short: the page asks for the next
        await kosh.click("#roll-button")
        # Every die the check still needs, by purpose, at once (once pain rises, its reaction is rolled).
        await expect(kosh.locator("#flash")).to_contain_text(
            "die 2: 1d6 for rise amount; die 3: 1d6 for reaction chance, band 100–149."
        )
        await expect(pain).to_have_attribute("data-level", "4")
        await kirk.evaluate(WATCH)
        await roll.locator("input[name='dice']").fill("2 6 1")
        await kosh.evaluate(
            "document.addEventListener('click', () => { window.__clickAt = Date.now(); }, true)"
        )
        await kosh.click("#roll-button")

        await expect(pain).to_have_attribute("data-level", "8", timeout=5000)
        await expect(pain).to_have_attribute("data-reaction", "TWO")
        await expect(kirk.locator(f"#pain-{SHADOW}")).to_have_attribute("data-level", "8", timeout=5000)
        latency = await kirk.evaluate("window.__pain['8']") - await kosh.evaluate("window.__clickAt")
        await expect(pain.locator(".pain-badge")).to_have_text("TWO")
        await expect(pain.locator(".pain-duty")).to_contain_text(
            "must target Federation Heavy Cruiser next turn (turn 2)"
        )
        await expect(pain.locator(".pain-box.pain-on")).to_have_count(9)  # boxes 0…8 crossed off
        # The obligation is public: Kirk's page shows it on the Shadow's card too.
        await expect(kirk.locator(f"#pain-{SHADOW} .pain-duty")).to_contain_text(
            "must target Federation Heavy Cruiser next turn (turn 2)"
        )
        log = kosh.locator("#log-list")
        await expect(log).to_contain_text(
            "Shadow Cruiser took 100 damage to armour and internals in turn 1 impulse 1 "
            "(most from Federation Heavy Cruiser, 100): pain rises 4 → 8."
        )
        await expect(log).to_contain_text(
            "Shadow Cruiser is angered — reaction TWO: must target Federation Heavy Cruiser next turn (turn 2)."
        )
        await expect(log).to_contain_text("pain rise chance, band 100–149: 1d6 [2] = 2, needs ≤ 3 → rises")
        await expect(log).to_contain_text("rise amount: 1d6 − 2 [6] = 4 → pain 8")
        await expect(kosh.locator("#turnbar")).to_contain_text("Impulse 2/32")
        assert await kosh.evaluate("window.__loaded") is not None  # same document: no reload
        print(f"\n[browser] Kosh enters the pain check's dice → Kirk's pain track changes: {latency} ms")
        # The steady look, without the 1.6 s "changed" highlight.
        await kosh.evaluate(
            "document.querySelectorAll('.changed').forEach(e => e.classList.remove('changed'))"
        )
        await kosh.screenshot(path=str(ROOT / "var" / "screenshot-shadow.png"), full_page=True)
        await pain.screenshot(path=str(ROOT / "var" / "screenshot-shadow-sheet.png"))

        # The same sheet on a 360 px phone: no sideways scrolling, the 17 boxes fit.
        ctx_p, phone = await open_as(browser, server, table.tokens["kosh"], width=360)
        try:
            width = await phone.evaluate("document.documentElement.scrollWidth")
            assert width <= 360, f"page scrolls sideways on a phone: {width}px"
            track = await phone.locator(f"#pain-{SHADOW} .pain-track").bounding_box()
            assert track is not None and track["x"] >= 0 and track["x"] + track["width"] <= 360
            box = await phone.locator(f"#pain-{SHADOW} .pain-box rect").first.bounding_box()
            assert box is not None and box["width"] >= 14, f"pain boxes too small on a phone: {box}"
            await phone.locator(f"#pain-{SHADOW}").screenshot(
                path=str(ROOT / "var" / "screenshot-shadow-phone.png")
            )
        finally:
            await ctx_p.close()
    finally:
        await ctx_a.close()
        await ctx_b.close()
