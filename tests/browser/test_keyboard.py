"""A turn of each ruleset played with the keyboard alone — Tab to a control, Enter or Space
to use it (and digits typed into the damage amount). Every stop on the way shows a visible focus
ring; the whole page can be tabbed through and back to its start (no trap); focus survives the live
update that the reader's own action causes; the damage form clears after a success."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, Page, expect

from tests.browser.conftest import wait_until
from tests.browser.test_live_damage import open_as
from tests.conftest import Server
from tests.helpers import act, set_table, ship_def, simple_ship

FOCUS = """(selector) => {
  const el = document.activeElement;
  if (!el || el === document.body) return {body: true};
  const s = getComputedStyle(el);
  const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none'
    || el.tabIndex < 0;  // a programmatic target (#main) is no Tab stop and wears no ring
  return {body: false, match: el.matches(selector), ring, what: el.tagName + '#' + el.id + '.' + el.className,
          visible: !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length)};
}"""


async def tab_to(page: Page, selector: str, limit: int = 300) -> int:
    """Tab until `selector` has focus (it may have it already); every element passed shows a ring."""
    for presses in range(limit):
        state = await page.evaluate(FOCUS, selector)
        if not state["body"]:
            assert state["ring"], f"no visible focus on {state['what']}"
            if state["match"]:
                return presses
        await page.keyboard.press("Tab")
    raise AssertionError(f"{selector} not reached with {limit} Tabs")


async def done_by_keyboard(page: Page, key: str = "Enter") -> None:
    await tab_to(page, "#ready-button")
    await page.keyboard.press(key)


async def step_is(pages: list[Page], label: str) -> None:
    for page in pages:
        await expect(page.locator("#turnbar-steps li.current")).to_contain_text(label, timeout=5000)


async def both_done(ann: Page, bob: Page, label: str) -> None:
    await expect(ann.locator("#ready-button")).to_be_visible()
    await done_by_keyboard(ann, "Enter")
    await expect(ann.locator("#waiting-on")).to_contain_text("ann ✓")
    await done_by_keyboard(bob, " ")  # Space works as well as Enter
    await step_is([ann, bob], label)
    # The turn bar was redrawn under both readers' focus: it stayed in the bar's form, or went to the
    # main content where that form is no longer offered — never to <body>.
    for page in (ann, bob):
        assert await page.evaluate("!!document.activeElement.closest('.ready-form, main')"), (
            await page.evaluate("document.activeElement.outerHTML.slice(0, 120)")
        )


async def no_trap(page: Page, limit: int = 400) -> int:
    """Tabbing from the skip link through the whole page comes back to it: nothing holds focus, and
    every stop shows a ring. Returns the number of stops."""
    await page.evaluate("document.querySelector('.skip').focus()")
    for stops in range(1, limit):
        await page.keyboard.press("Tab")
        state = await page.evaluate(FOCUS, ".skip")
        if state["body"]:
            continue  # past the last control the browser's own UI would take focus
        assert state["ring"], f"no visible focus on {state['what']}"
        if state["match"]:
            return stops
    raise AssertionError(f"focus never came back to the start in {limit} Tabs")


async def test_a_b5wars_turn_by_keyboard(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}, options={}
        )
    (ctx_a, ann), (ctx_b, bob) = [await open_as(browser, server, table.tokens[w]) for w in ("ann", "bob")]
    try:
        await no_trap(ann)
        await both_done(ann, bob, "Movement")
        await both_done(ann, bob, "Combat")
        # Damage by keyboard: Tab to the amount, type it, Enter submits; the amount clears after.
        await tab_to(ann, "#damage-form input[name='p.amount']")
        await ann.keyboard.type("6")
        await ann.keyboard.press("Enter")
        await expect(bob.locator("#log-list")).to_contain_text("Hawk hits Crow for 6")
        await expect(ann.locator("#damage-form input[name='p.amount']")).to_have_value("")
        # The dismissible answer gives focus back to where the reader was.
        await tab_to(ann, ".flash-close")
        await ann.keyboard.press("Enter")
        await expect(ann.locator("#flash .flash")).to_have_count(0)
        assert await ann.evaluate("document.activeElement.name") == "p.amount"
        await both_done(ann, bob, "Adjust Ship Systems")
        await both_done(ann, bob, "Ship Power")
        await expect(ann.locator("#turnbar-steps")).to_contain_text("T2")
    finally:
        await ctx_a.close()
        await ctx_b.close()


async def test_an_sfb_turn_by_keyboard(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {"ker": (ship_def("shadow-cruiser"), "bob"), "hawk": (simple_ship("Hawk", "sfb"), "ann")}
        table = await set_table(c, system="sfb", ships=ships, options={})
    (ctx_a, ann), (ctx_b, bob) = [await open_as(browser, server, table.tokens[w]) for w in ("ann", "bob")]
    try:
        await both_done(ann, bob, "Impulse")
        for page in (ann, bob):  # skip the quiet impulses: done until the end of them
            await tab_to(page, "#skip-button")
            await page.keyboard.press("Enter")
        await step_is([ann, bob], "End of turn")
        await both_done(ann, bob, "Energy Allocation")
        await no_trap(bob)
    finally:
        await ctx_a.close()
        await ctx_b.close()


async def test_a_traveller_round_by_keyboard(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {
            "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
            "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
        }
        table = await set_table(c, system="traveller", ships=ships, options={})
        r = await act(c, table, "ref", "traveller.initiative", {})
        assert r.status_code == 200, r.text
    (ctx_a, ann), (ctx_b, bob) = [await open_as(browser, server, table.tokens[w]) for w in ("ann", "bob")]
    try:
        await both_done(ann, bob, "Manoeuvre")
        await both_done(ann, bob, "Combat")
        first_is_ann = "Arbellatra" in await ann.locator("#turn-order strong").inner_text()
        first, second = (ann, bob) if first_is_ann else (bob, ann)
        await done_by_keyboard(first)
        await wait_until(second, "document.getElementById('turnbar').dataset.yourMove === 'yes'")
        await done_by_keyboard(second, " ")
        await step_is([ann, bob], "Ship action")
        await both_done(ann, bob, "End of round")
        await both_done(ann, bob, "Orders")
        await no_trap(ann)
    finally:
        await ctx_a.close()
        await ctx_b.close()
