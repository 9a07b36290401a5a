"""The battle page on a 390 × 844 phone (touch, mobile viewport): every seat ends its steps with a
tap, in each ruleset — the three demo battles (Shadow vs Federation in SFB impulses with Skip,
Star Trek vs Shadows in B5 Wars, the Traveller High Guard fleet action with its initiative loop) and
a battle with physical dice, whose Done carries a dice box.

Before every tap the control is checked as a thumb meets it: wholly inside the viewport and inside
every box that clips it, and the element at its centre (document.elementFromPoint) is the control
itself — not the map, a ship or a bar drawn over it. The sticky area at the top of the scrolled page
is at most 64 px, the fixed bar at the foot at most 56 px. After the taps the step has moved on, on
every page's turn bar and in the server's state."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import wait_until
from tests.browser.test_accessibility import FAILING, report, scan
from tests.conftest import Server, settings_for
from tests.helpers import set_table, ship_def, simple_ship

PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1366, "height": 900}}
STICKY_TOP_MAX = 64
BOTTOM_BAR_MAX = 56

# Where a control is and what a tap at its centre would meet.
REACH = """(sel) => {
  const el = document.querySelector(sel);
  if (!el) return {missing: true};
  const r = el.getBoundingClientRect();
  const box = {top: r.top, bottom: r.bottom, left: r.left, right: r.right};
  const inside = r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
    && r.bottom <= innerHeight && r.right <= innerWidth;
  let clippedBy = null;
  for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const c = a.getBoundingClientRect();
    if (r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5 || r.left < c.left - 0.5 || r.right > c.right + 0.5) {
      clippedBy = a.tagName.toLowerCase() + '#' + a.id + '.' + a.className; break;
    }
  }
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {box, inside, clippedBy, hits: !!hit && (hit === el || el.contains(hit)),
          what: hit ? hit.outerHTML.slice(0, 100) : null};
}"""

# The sticky or fixed boxes drawn over the scrolled page: those in the top half make the sticky top
# area (its height is the lowest bottom edge), those in the bottom half the bar at the foot. The
# answer to a form (#flash) floats and fades, and is not part of either.
BARS = """() => {
  const flash = document.getElementById('flash');
  const boxes = [...document.querySelectorAll('body *')].filter(e => {
    const p = getComputedStyle(e).position;
    if (p !== 'sticky' && p !== 'fixed') return false;
    if (flash && flash.contains(e)) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight;
  }).map(e => e.getBoundingClientRect());
  const top = boxes.filter(r => r.top < innerHeight / 2), foot = boxes.filter(r => r.top >= innerHeight / 2);
  return {top: Math.max(0, ...top.map(r => r.bottom)),
          foot: foot.length ? innerHeight - Math.min(...foot.map(r => r.top)) : 0,
          turnbar: document.getElementById('turnbar').scrollHeight};
}"""

STEP = "document.getElementById('turnbar-steps').dataset.value"


async def post(c: httpx.AsyncClient, battle_id: str, token: str, type_: str, payload: dict) -> None:  # type: ignore[type-arg]
    body = {"type": type_, "payload": payload, "action_id": uuid.uuid4().hex}
    r = await c.post(
        f"/api/v1/battles/{battle_id}/actions", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 200, r.text


async def server_clock(c: httpx.AsyncClient, battle_id: str, token: str) -> tuple[Any, ...]:
    r = await c.get(f"/api/v1/battles/{battle_id}", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    clock = r.json().get("state", r.json())["clock"]
    return clock["turn"], clock["step"], clock.get("impulse")


@pytest.fixture(scope="module")
async def demos(server: Server, sqlite_url: str) -> list[dict[str, Any]]:
    """The three demo battles, made as `app.cli demo` makes them, on the test server's database."""
    from app.db import Database
    from app.demo import create_demos
    from app.realtime.broker import Broker
    from app.services.bootstrap import build_platform

    platform = build_platform(settings=settings_for(sqlite_url), db=Database(sqlite_url), broker=Broker())
    try:
        return await create_demos(platform, server.url)
    finally:
        await platform.db.dispose()


def seat(demo: dict[str, Any], who: str) -> str:
    return demo["links"][who].split("#", 1)[1]


def demo_named(demos: list[dict[str, Any]], words: str) -> dict[str, Any]:
    return next(d for d in demos if words in d["battle"])


@pytest.fixture
async def phones(browser: Browser) -> AsyncIterator[list[BrowserContext]]:
    contexts: list[BrowserContext] = []
    yield contexts
    for context in contexts:
        await context.close()


async def on_phone(browser: Browser, server: Server, token: str, contexts: list[BrowserContext]) -> Page:
    context = await browser.new_context(**PHONE)
    contexts.append(context)
    page = await context.new_page()
    await page.goto(f"{server.url}/join/{token}")
    await wait_until(page, "document.documentElement.dataset.live === 'connected'")
    return page


async def scroll_into_the_ships(page: Page) -> None:
    """Halfway down the page: the map and the ships are under the bars, as in play."""
    await page.evaluate("window.scrollTo(0, (document.documentElement.scrollHeight - innerHeight) / 2)")
    await page.wait_for_timeout(50)


async def check_layout(page: Page, what: str) -> dict[str, float]:
    await scroll_into_the_ships(page)
    bars = await page.evaluate(BARS)
    assert bars["top"] <= STICKY_TOP_MAX, f"{what}: the sticky top area is {bars['top']:.0f} px"
    assert bars["foot"] <= BOTTOM_BAR_MAX, f"{what}: the bar at the foot is {bars['foot']:.0f} px"
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{what}: the page scrolls sideways ({width} px)"
    return bars


async def reachable(page: Page, selector: str, what: str) -> None:
    """A finger can use the control: in view, unclipped, on top — with the page scrolled into the
    ships, as in play."""
    await scroll_into_the_ships(page)
    reach = await page.evaluate(REACH, selector)
    assert not reach.get("missing"), f"{what}: no {selector}"
    assert reach["inside"], f"{what}: {selector} is not inside the viewport: {reach['box']}"
    assert reach["clippedBy"] is None, f"{what}: {selector} is clipped by {reach['clippedBy']}"
    assert reach["hits"], f"{what}: a tap on {selector} lands on {reach['what']}"


async def tap(page: Page, selector: str, what: str) -> None:
    await reachable(page, selector, what)
    await page.tap(selector, timeout=5000)


async def play_step(
    c: httpx.AsyncClient,
    battle_id: str,
    pages: dict[str, Page],
    tokens: dict[str, str],
    button: str = "#ready-button",
) -> tuple[Any, ...]:
    """Every seat the step waits on taps `button` (one at a time, as an initiative loop asks) until the
    step moves on; then every page's turn bar and the server's clock show the new step."""
    first = next(iter(pages.values()))
    before = await first.evaluate(STEP)
    clock_before = await server_clock(c, battle_id, next(iter(tokens.values())))
    for _round in range(len(pages) * 2):
        if await first.evaluate(STEP) != before:
            break
        waited = [(who, page) for who, page in pages.items() if await page.locator(button).count()]
        if not waited:  # the live update that offers the next seat its button is on its way
            await first.wait_for_timeout(200)
            continue
        who, page = waited[0]
        await check_layout(page, f"{who} at {before}")
        await tap(page, button, f"{who} at {before}")
        await wait_until(page, f"{STEP} !== {before!r} || !document.querySelector({button!r})", timeout=5000)
        # The redrawn bar keeps focus on its button, never in a dice box: on a phone that would
        # open the on-screen keyboard after every Done.
        await page.wait_for_timeout(100)
        assert await page.evaluate("document.activeElement.name") != "dice", (
            f"{who}: focus went to the dice box"
        )
    for page in pages.values():
        await wait_until(page, f"{STEP} !== {before!r}", timeout=5000)
    after = await first.evaluate(STEP)
    for page in pages.values():
        assert await page.evaluate(STEP) == after
    clock = await server_clock(c, battle_id, next(iter(tokens.values())))
    assert clock != clock_before, f"the server's clock stayed at {clock}"
    turn, _step, impulse = clock
    assert after.startswith(f"{turn}/") and after.endswith(f"/{impulse}"), (after, clock)
    return clock


async def test_sfb_demo_impulses_and_skip_by_tap(
    browser: Browser, server: Server, demos: list[dict[str, Any]], phones: list[BrowserContext]
) -> None:
    demo = demo_named(demos, "SFB")
    tokens = {who: seat(demo, who) for who in ("Kosh", "Kirk")}
    pages = {who: await on_phone(browser, server, t, phones) for who, t in tokens.items()}
    async with httpx.AsyncClient(base_url=server.url) as c:
        assert (await play_step(c, demo["id"], pages, tokens))[1:] == ("impulse", 1)
        assert (await play_step(c, demo["id"], pages, tokens))[1:] == ("impulse", 2)
        kosh = pages["Kosh"]
        bars = await check_layout(kosh, "Kosh at an impulse")
        print(f"\n[phone] SFB impulse: sticky top {bars['top']:.0f} px, foot {bars['foot']:.0f} px")
        # Skip: each commander is done until the end of the impulses.
        clock = await play_step(c, demo["id"], pages, tokens, button="#skip-button")
        assert clock[1] != "impulse", clock
        while clock[0] == 1:
            clock = await play_step(c, demo["id"], pages, tokens)
        assert clock[0] == 2
        await expect(kosh.locator("#turnbar-steps li.turn")).to_have_text("T2")


async def test_b5wars_demo_turn_by_tap(
    browser: Browser, server: Server, demos: list[dict[str, Any]], phones: list[BrowserContext]
) -> None:
    demo = demo_named(demos, "B5 Wars")
    tokens = {who: seat(demo, who) for who in ("Kirk", "Kosh", "Tomalak")}
    pages = {who: await on_phone(browser, server, t, phones) for who, t in tokens.items()}
    async with httpx.AsyncClient(base_url=server.url) as c:
        clock = await play_step(c, demo["id"], pages, tokens)
        while clock[0] == 1:
            clock = await play_step(c, demo["id"], pages, tokens)
        assert clock[0] == 2
    await expect(pages["Tomalak"].locator("#turnbar-steps li.turn")).to_have_text("T2")


async def test_traveller_demo_round_by_tap_with_the_initiative_loop(
    browser: Browser, server: Server, demos: list[dict[str, Any]], phones: list[BrowserContext]
) -> None:
    demo = demo_named(demos, "Traveller")
    tokens = {who: seat(demo, who) for who in ("Ann", "Bob")}
    async with httpx.AsyncClient(base_url=server.url) as c:
        await post(c, demo["id"], seat(demo, "Referee"), "traveller.initiative", {})
        pages = {who: await on_phone(browser, server, t, phones) for who, t in tokens.items()}
        steps = [await play_step(c, demo["id"], pages, tokens)]
        while steps[-1][0] == 1:
            steps.append(await play_step(c, demo["id"], pages, tokens))
        assert "combat" in [step for _turn, step, _ in steps], steps  # the loop: one seat at a time
        assert steps[-1][0] == 2


async def test_physical_dice_battle_turn_by_tap(
    browser: Browser, server: Server, phones: list[BrowserContext]
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")},
            dice_mode="physical",
            options={},
        )
        tokens = {who: table.tokens[who] for who in ("ann", "bob")}
        pages = {who: await on_phone(browser, server, t, phones) for who, t in tokens.items()}
        # The dice box rides with Done, and a finger reaches it too.
        await tap(pages["ann"], ".ready-form input[name=dice]", "ann's dice box")
        clock = await play_step(c, table.battle_id, pages, tokens)
        while clock[0] == 1:
            clock = await play_step(c, table.battle_id, pages, tokens)
        assert clock[0] == 2


async def test_phone_pages_with_the_bar_at_the_foot_pass_axe(
    browser: Browser, server: Server, phones: list[BrowserContext]
) -> None:
    """The bar at the foot in its fullest forms — SFB impulses (Skip beside Done) and physical
    dice (a dice box in each form) — passes axe-core at 390 × 844 in the light and dark themes."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            system="sfb",
            ships={"hawk": (simple_ship("Hawk", "sfb"), "ann"), "crow": (simple_ship("Crow", "sfb"), "bob")},
            dice_mode="physical",
            options={},
        )
        for who in ("ann", "bob"):
            await post(c, table.battle_id, table.tokens[who], "step.ready", {})
    page = await on_phone(browser, server, table.tokens["ann"], phones)
    await expect(page.locator("#skip-button")).to_be_visible()
    await check_layout(page, "physical SFB impulse")
    for selector in ("#ready-button", "#skip-button", ".ready-form input[name=dice]"):
        await reachable(page, selector, "physical SFB impulse")
    found: dict[str, list] = {}  # type: ignore[type-arg]
    await scan(page, "phone SFB physical", found)
    await page.emulate_media(color_scheme="dark")
    await scan(page, "phone SFB physical dark", found, ["color-contrast", "link-in-text-block"])
    _counts, lines = report(found)
    failing = [line for line in lines if any(f"[{i}]" in line for i in FAILING)]
    assert not failing, "\n".join(failing)


async def test_desktop_turn_bar_keeps_its_controls_in_the_bar(browser: Browser, server: Server) -> None:
    """At 1366 × 900 Done and Skip stay in the turn bar at the top, which shows all it holds."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {"ker": (ship_def("shadow-cruiser"), "bob"), "hawk": (simple_ship("Hawk", "sfb"), "ann")}
        table = await set_table(c, system="sfb", ships=ships, options={})
        for who in ("ann", "bob"):
            await post(c, table.battle_id, table.tokens[who], "step.ready", {})
    context = await browser.new_context(**DESKTOP)
    try:
        page = await context.new_page()
        await page.goto(f"{server.url}/join/{table.tokens['ann']}")
        await wait_until(page, "document.documentElement.dataset.live === 'connected'")
        await expect(page.locator("#turnbar-steps li.current")).to_contain_text("Impulse")
        bar = await page.locator("#turnbar").bounding_box()
        assert bar is not None and bar["y"] < 120
        for selector in ("#skip-button", "#ready-button"):
            box = await page.locator(selector).first.bounding_box()
            assert box is not None
            assert bar["y"] <= box["y"] and box["y"] + box["height"] <= bar["y"] + bar["height"], selector
        clipped = await page.evaluate(
            "(() => { const b = document.getElementById('turnbar'); return b.scrollHeight - b.clientHeight; })()"
        )
        assert clipped <= 0, f"the turn bar hides {clipped} px of its content"
    finally:
        await context.close()
