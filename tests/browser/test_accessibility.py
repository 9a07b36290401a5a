"""Every page passes an axe-core audit (WCAG 2.0/2.1 A and AA and best practice) in a real
browser, at desktop (1366×900) and phone (390×844) sizes, in the light and the dark theme, with every
folded part (<details>) opened first. A critical or serious violation fails the test; moderate and
minor ones are printed. axe-core is vendored under static/vendor (README) and loaded from this
origin with a <script src>, so the pages' Content-Security-Policy stays as served.

The pages scanned: home (empty, and again with a battle card waiting on the player), the create flow (the referee's page with the new join links), /join and its
confirmation, each ruleset's player page (Shadow/SFB, Star Trek in B5 Wars, Traveller), referee,
spectator, replay (chat included: it is part of the battle pages) and the 404 page. The battles are
put in the states that drew the most ink: a ship going to warp, a destroyed ship, a crippled
Traveller ship with a destroyed section, pain on the Shadow, a chat line."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import wait_until
from tests.conftest import ROOT, Server
from tests.helpers import Table, act, set_table, ship_def, simple_ship

AXE_VERSION = "4.14.1"
AXE_URL = f"/static/vendor/axe-core-{AXE_VERSION}/axe.min.js"
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
FAILING = {"critical", "serious"}
DARK_RULES = ["color-contrast", "link-in-text-block"]
LANES = 2  # pages audited at once, each in its own context

RUN_AXE = """async (only) => {
  const r = await axe.run(document, {runOnly: only, resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}));
}"""

OPEN_FOLDS = "document.querySelectorAll('details').forEach(d => { d.open = true; })"


@dataclass
class Battles:
    b5: Table
    sfb: Table
    tr: Table
    extra: dict[str, Any] = field(default_factory=dict)


async def _ok(r: httpx.Response) -> None:
    assert r.status_code in (200, 201), r.text


async def build(server: Server) -> Battles:
    async with httpx.AsyncClient(base_url=server.url) as c:
        # Star Trek in B5 Wars: two Star Trek ships (their sections share names), a cloaking
        # warbird, the Shadow, and a destroyed generic ship; the Excelsior goes to warp.
        b5 = await set_table(
            c,
            players=("kirk", "kosh", "tomalak"),
            ships={
                "excelsior": (ship_def("excelsior"), "kirk"),
                "paine": (ship_def("new-orleans"), "kirk"),
                "shadow": (ship_def("shadow-cruiser"), "kosh"),
                "warbird": (ship_def("romulan-warbird"), "tomalak"),
                "hawk": (simple_ship("Hawk"), "kosh"),
            },
        )
        await _ok(await act(c, b5, "kirk", "startrek.declare_warp", {"ship": b5.ships["excelsior"]}))
        await _ok(
            await act(
                c, b5, "ref", "damage.apply", {"target": b5.ships["hawk"], "amount": 500, "direction": "fore"}
            )
        )
        await _ok(
            await act(
                c, b5, "ref", "damage.apply", {"target": b5.ships["paine"], "amount": 30, "direction": "fore"}
            )
        )
        await _ok(
            await c.post(
                f"/api/v1/battles/{b5.battle_id}/chat", json={"text": "Hail them."}, headers=b5.auth("kirk")
            )
        )

        sfb = await set_table(
            c,
            system="sfb",
            players=("kirk", "kosh"),
            ships={
                "fed": (ship_def("federation-heavy-cruiser"), "kirk"),
                "shadow": (ship_def("shadow-cruiser"), "kosh"),
            },
        )
        await _ok(await act(c, sfb, "ref", "clock.advance", {}))
        await _ok(
            await act(
                c,
                sfb,
                "kirk",
                "damage.apply",
                {
                    "target": sfb.ships["shadow"],
                    "source": sfb.ships["fed"],
                    "amount": 60,
                    "direction": "fore",
                },
            )
        )

        tr = await set_table(
            c,
            system="traveller",
            players=("ann", "bob"),
            ships={
                "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
                "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
            },
        )
        state = (await c.get(f"/api/v1/battles/{tr.battle_id}", headers=tr.auth("ref"))).json()
        ships = state.get("state", state)["ships"]
        sections = ships[tr.ships["dauntless"]]["parts"]["hg_ship"]["sections"]
        await _ok(
            await act(
                c,
                tr,
                "ref",
                "traveller.entered_hit",
                {"target": tr.ships["dauntless"], "section": sections[0]["name"], "hull_damage": 100000},
            )
        )
        await _ok(await act(c, tr, "ref", "traveller.initiative", {}))
    return Battles(b5, sfb, tr)


@pytest.fixture(scope="module")
async def battles(server: Server) -> Battles:
    return await build(server)


async def seated(browser: Browser, server: Server, token: str | None) -> tuple[BrowserContext, Page]:
    context = await browser.new_context(viewport={"width": 1366, "height": 900})
    page = await context.new_page()
    if token:
        await page.goto(f"{server.url}/join/{token}")
    return context, page


async def scan(page: Page, label: str, found: dict[str, list], rules: list[str] | None = None) -> None:  # type: ignore[type-arg]
    await page.evaluate(OPEN_FOLDS)
    if not await page.evaluate("typeof window.axe === 'object'"):
        await page.add_script_tag(url=AXE_URL)  # <script src> from this origin: allowed by the CSP
    only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": TAGS}
    found[label] = await page.evaluate(RUN_AXE, only)


def report(found: dict[str, list]) -> tuple[Counter, list[str]]:  # type: ignore[type-arg]
    counts: Counter = Counter()  # type: ignore[type-arg]
    lines = []
    for label, violations in found.items():
        for v in violations:
            counts[(v["impact"], v["id"])] += len(v["nodes"])
            lines.append(f"  {label}: [{v['impact']}] {v['id']} — {v['help']} ({len(v['nodes'])})")
            lines.extend(
                f"      {n['target']}: {n['summary'].splitlines()[-1].strip()}" for n in v["nodes"][:4]
            )
    return counts, lines


def page_list(battles: Battles) -> list[tuple[str | None, str, str]]:
    """(seat token or None, path, label) of every page scanned, in an order that reuses contexts."""
    pages: list[tuple[str | None, str, str]] = [
        (None, "/", "home"),
        (None, "/join", "join"),
        (None, "/nowhere", "404 page"),
        (None, "/battles/no-such-battle", "no such battle (home with the message)"),
    ]
    for name, table in (("b5", battles.b5), ("sfb", battles.sfb), ("tr", battles.tr)):
        bid = table.battle_id
        player = {"b5": "kirk", "sfb": "kosh", "tr": "ann"}[name]
        pages += [
            (table.tokens[player], f"/battles/{bid}", f"{name} player"),
            (table.tokens["ref"], f"/battles/{bid}", f"{name} referee"),
            (table.tokens["watcher"], f"/battles/{bid}", f"{name} spectator"),
            (table.tokens[player], f"/battles/{bid}/replay?seq=2", f"{name} replay"),
        ]
    # Home again once the browser holds a seat: its battle card, marked for the player's move.
    pages.append((battles.b5.tokens["kirk"], "/", "home with a card"))
    return pages


async def scan_sizes(page: Page, label: str, found: dict[str, list]) -> None:  # type: ignore[type-arg]
    """Desktop and phone, each in the light theme (every rule) and the dark one (the colour rules:
    nothing else changes with the theme)."""
    for size, (w, h) in SIZES.items():
        await page.set_viewport_size({"width": w, "height": h})
        await page.emulate_media(color_scheme="light")
        await scan(page, f"{label} @{size}", found)
        await page.emulate_media(color_scheme="dark")
        await scan(page, f"{label} @{size} dark", found, DARK_RULES)
    await page.emulate_media(color_scheme="light")


def by_seat(battles: Battles) -> dict[str | None, list[tuple[str, str]]]:
    """`page_list`'s pages grouped by the seat that opens them: (path, label), in order."""
    seats: dict[str | None, list[tuple[str, str]]] = {}
    for token, path, label in page_list(battles):
        seats.setdefault(token, []).append((path, label))
    return seats


async def in_lanes(jobs: list[Callable[[], Awaitable[None]]]) -> None:
    """Run the jobs LANES at a time (each its own browser context: axe and the layout run in the
    page's own renderer, so two pages use both cores)."""
    gate = asyncio.Semaphore(LANES)

    async def run(job: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await job()

    await asyncio.gather(*(run(job) for job in jobs))


@pytest.mark.timeout(360)  # some forty scans in one test: 46 s on a quiet machine, 2 min under load
async def test_every_page_passes_axe_light_and_dark(
    browser: Browser, server: Server, battles: Battles
) -> None:
    started = time.perf_counter()
    found: dict[str, list] = {}  # type: ignore[type-arg]
    url = server.url
    contexts: list[BrowserContext] = []

    async def pages_of(token: str | None, pages: list[tuple[str, str]]) -> None:
        context, page = await seated(browser, server, token)
        contexts.append(context)
        for path, label in pages:
            await page.goto(url + path)
            assert await page.title(), f"{label}: no title"
            assert await page.locator("h1").count() == 1, f"{label}: not one <h1>"
            if label == "home with a card":
                assert await page.locator(".card.your-move").count() == 1, f"{label}: no card for the move"
            await scan_sizes(page, label, found)
        if token is None:
            # The create flow: the home form (the wizard) → the page of join links, shown until dismissed.
            await page.goto(url + "/")
            await page.fill("input[name=name]", "Audit battle")
            await page.fill("textarea[name=players]", "ann\nbob")
            await page.click("form[action='/battles'] button[type=submit]")
            await page.locator("#links-title").wait_for()
            await scan_sizes(page, "create flow", found)
        elif token == battles.b5.tokens["kirk"]:
            # A seated browser opening another seat's link is asked first.
            await page.goto(f"{url}/join/{battles.b5.tokens['kosh']}")
            await page.locator("#join-confirm").wait_for()
            await scan_sizes(page, "join confirm", found)

    try:
        await in_lanes([partial(pages_of, token, pages) for token, pages in by_seat(battles).items()])
    finally:
        for context in contexts:
            await context.close()
    order = [label for _, _, label in page_list(battles)] + ["create flow", "join confirm"]
    found = {k: found[k] for k in sorted(found, key=lambda k: order.index(k.split(" @")[0]))}
    assert len(found) == len(order) * 4, sorted(found)
    counts, lines = report(found)
    summary = [f"  {n} × {impact} {rule}" for (impact, rule), n in sorted(counts.items())]
    print(
        f"\n[axe {AXE_VERSION}] {len(found)} scans (light + dark, desktop + phone): {time.perf_counter() - started:.1f} s"
    )
    print("\n".join(summary + lines) or "  no violations")
    (ROOT / "var" / "axe-report.txt").write_text("\n".join(summary + lines) + "\n")
    failing = [line for line in lines if any(f"[{i}]" in line for i in FAILING)]
    assert not failing, "\n".join(failing)


SAID = """() => {
  window.__said = [];
  const region = document.getElementById('announcer');
  new MutationObserver(() => { if (region.textContent) window.__said.push(region.textContent); })
    .observe(region, {childList: true, characterData: true, subtree: true});
}"""

LIVE_REGIONS = """() => [...document.querySelectorAll(
  '[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log]:not([aria-live=off])'
)].map(e => e.id)"""


WIDE = """() => [...document.querySelectorAll('main *')].filter(e => {
  const r = e.getBoundingClientRect(), d = getComputedStyle(e).display;
  return r.right > innerWidth + 1 && (!d.startsWith('block') && d !== 'grid' && d !== 'flex' || e.scrollWidth > e.clientWidth + 1);
}).slice(0, 6).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).split(' ')[0] : ''))"""


async def said(page: Page) -> list[str]:
    return await page.evaluate("window.__said")


async def test_live_updates_are_announced_once_for_you_and_can_be_turned_off(
    browser: Browser, server: Server
) -> None:
    from tests.browser.test_live_damage import open_as
    from tests.browser.test_readiness_live import step_is

    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}, options={}
        )
        (ctx_a, ann), (ctx_b, bob) = [await open_as(browser, server, table.tokens[w]) for w in ("ann", "bob")]
        try:
            # One polite region speaks for the page (#flash answers the reader's own forms, the
            # connection banner speaks only while the live connection is lost); the log, the table
            # talk and the turn bar are quiet.
            assert sorted(await ann.evaluate(LIVE_REGIONS)) == ["announcer", "flash", "live-banner"]
            for page in (ann, bob):
                await page.evaluate(SAID)
            for step in ("Movement", "Combat"):
                await ann.click("#ready-button")
                await bob.click("#ready-button")
                await step_is([ann, bob], step)
            await wait_until(ann, "window.__said.some(s => s.endsWith('Your move: Combat.'))")
            moves = " ".join(await said(ann))
            assert moves.count("Your move: Combat.") == 1 and moves.count("Your move: Movement.") <= 1, moves
            # Bob's Crow hits Ann's Hawk: Ann hears it once; Bob, whose ship was not hit, hears nothing.
            r = await act(
                c,
                table,
                "bob",
                "damage.apply",
                {"target": "hawk", "source": "crow", "amount": 3, "direction": "fore"},
            )
            assert r.status_code == 200, r.text
            before = len(await said(ann))
            await wait_until(ann, f"window.__said.length > {before}")
            await ann.wait_for_timeout(600)
            assert (await said(ann))[before:] == ["Crow hits Hawk for 3 (fore): 3 to armour."]
            assert not [s for s in await said(bob) if "hits" in s]
            # Turned off, remembered across a reload: the next hit is not announced.
            await ann.select_option("#announce-mode", "off")
            await ann.reload()
            await expect(ann.locator("#announce-mode")).to_have_value("off")
            await ann.evaluate(SAID)
            r = await act(
                c,
                table,
                "bob",
                "damage.apply",
                {"target": "hawk", "source": "crow", "amount": 2, "direction": "fore"},
            )
            assert r.status_code == 200, r.text
            await expect(ann.locator("#log-list")).to_contain_text("Crow hits Hawk for 2")
            await ann.wait_for_timeout(600)
            assert await said(ann) == []
        finally:
            await ctx_a.close()
            await ctx_b.close()


async def test_reduced_motion_stops_the_highlight(browser: Browser, server: Server, battles: Battles) -> None:
    context, page = await seated(browser, server, battles.b5.tokens["kirk"])
    try:
        await page.goto(f"{server.url}/battles/{battles.b5.battle_id}")
        mark = "(() => { const el = document.querySelector('[data-watch][id]'); el.classList.add('changed'); return getComputedStyle(el).animationName; })()"
        assert await page.evaluate(mark) == "changed"
        await page.emulate_media(reduced_motion="reduce")
        assert await page.evaluate(mark) == "none"
        assert await page.evaluate(
            "getComputedStyle(document.querySelector('.st-arc-fill')).transitionDuration"
        ) in ("0s", "1e-05s")
    finally:
        await context.close()


async def test_200_percent_zoom_keeps_every_page_without_sideways_scrolling(
    browser: Browser, server: Server, battles: Battles
) -> None:
    """683 × 450 CSS pixels at device scale 2 is a 1366 × 900 screen at 200% zoom (WCAG 1.4.4, 1.4.10).
    Screenshots of the zoomed and the dark pages go to var/a11y-*.png."""
    var = ROOT / "var"
    contexts: list[BrowserContext] = []
    wide = []

    async def pages_of(token: str | None, pages: list[tuple[str, str]]) -> None:
        context = await browser.new_context(viewport={"width": 683, "height": 450}, device_scale_factor=2)
        contexts.append(context)
        page = await context.new_page()
        if token:
            await page.goto(f"{server.url}/join/{token}")
        for path, label in pages:
            await page.goto(server.url + path)
            await page.evaluate(OPEN_FOLDS)
            width = await page.evaluate("document.documentElement.scrollWidth")
            if width > 683:
                culprits = await page.evaluate(WIDE)
                wide.append(f"{label}: {width}px ({', '.join(culprits)})")
            if label in ("b5 player", "tr player"):
                name = label.replace(" ", "-")
                await page.screenshot(path=str(var / f"a11y-zoom200-{name}.png"), full_page=True)
                await page.emulate_media(color_scheme="dark")
                await page.set_viewport_size({"width": 1366, "height": 900})
                await page.screenshot(path=str(var / f"a11y-dark-{name}.png"), full_page=True)
                await page.set_viewport_size({"width": 390, "height": 844})
                await page.screenshot(path=str(var / f"a11y-dark-phone-{name}.png"), full_page=True)
                await page.set_viewport_size({"width": 683, "height": 450})
                await page.emulate_media(color_scheme="light")

    try:
        await in_lanes([partial(pages_of, token, pages) for token, pages in by_seat(battles).items()])
    finally:
        for context in contexts:
            await context.close()
    assert not wide, f"pages that scroll sideways at 200% zoom: {wide}"
