"""Played on the map in chromium (B5 Wars): each captain places their ship on
the map by tapping a hex and using the keys; the Haakona, placed off the Excelsior's port quarter,
fires and the damage form, with no direction typed, lands in the Port projection (ST-05, ST-06); the
Excelsior's hit on the Shadow makes it flinch (SH-08), and Kosh moves it to the hex the map marks,
directly away from the Excelsior; the Haakona cloaks and moves (ST-21, ST-22) and Kirk's page, its
frames, its REST answer and its replay carry only the ghost at the last known hex, while Tomalak's
page draws the counter and its hidden path. Screenshots at desktop and phone size; an axe scan."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import wait_until
from tests.browser.test_accessibility import report, scan
from tests.browser.test_live_damage import open_as
from tests.conftest import ROOT, Server
from tests.helpers import Table, act, set_table, ship_def, simple_ship
from tests.web.test_startrek_ws import has

SECRET = "0105"  # where the cloaked Haakona goes: two hexes up-left of 0306
OTHERS = ("kirk", "kosh")


# Records which counters get the brief "changed" ring on this page.
MOVED = """
window.__moved = [];
new MutationObserver((records) => records.forEach((r) => {
  const el = r.target;
  if (el.classList && el.classList.contains('counter') && el.classList.contains('changed')) window.__moved.push(el.id);
})).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['class']});
"""


async def ok(c: httpx.AsyncClient, table: Table, who: str, type_: str, payload: dict, **extra) -> dict:
    r = await act(c, table, who, type_, payload, **extra)
    assert r.status_code == 200, r.text
    return r.json()


async def advance(
    server: Server, table: Table, pages: list[Page], times: int = 1, dice: list[int] | None = None
) -> None:
    """The referee moves the clock over REST; each page has the new seq before anyone acts on it."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        for _ in range(times):
            seq = (await ok(c, table, "ref", "clock.advance", {}, **({"dice": dice} if dice else {})))["seq"]
    for page in pages:
        await expect(page.locator("#turnbar")).to_have_attribute("data-seq", str(seq))


async def tap_hex(page: Page, hex_: str) -> None:
    """Tap the board at a hex's centre (where map.js's own arithmetic puts it)."""
    point = await page.evaluate(
        """(hex) => {
          const svg = document.getElementById('map-board');
          const S = parseFloat(svg.dataset.size), c = parseInt(hex.slice(0, 2)) - 1, r = parseInt(hex.slice(2)) - 1;
          const p = svg.createSVGPoint();
          p.x = S + 1.5 * S * c; p.y = Math.sqrt(3) * S * (0.5 + r + 0.5 * (c & 1));
          const q = p.matrixTransform(svg.getScreenCTM());
          return {x: q.x, y: q.y};
        }""",
        hex_,
    )
    await page.mouse.click(point["x"], point["y"])


async def counter_at(page: Page, ship: str, hex_: str) -> None:
    await expect(page.locator(f"#counter-{ship}")).to_have_attribute("data-hex", hex_, timeout=6000)


async def place(page: Page, ship: str, hex_: str, keys: list[str]) -> None:
    """Pick the ship in the move form, tap its hex, turn it with the keys, Enter confirms."""
    await page.select_option("#map-move-ship", ship)
    await tap_hex(page, hex_)
    await expect(page.locator("#map-move-hex")).to_have_value(hex_)
    for key in keys:
        await page.keyboard.press(key)
    await page.keyboard.press("Enter")
    await counter_at(page, ship, hex_)


async def test_a_b5_battle_placed_moved_and_fought_on_the_map(browser: Browser, server: Server) -> None:
    shadow = ship_def("shadow-cruiser")
    shadow["parts"]["pain"]["level"] = 4  # SH-01: the scenario starts the track at 4
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            players=("kirk", "kosh", "tomalak"),
            dice_mode="physical",
            ships={
                "excelsior": (ship_def("excelsior"), "kirk"),
                "shadow": (shadow, "kosh"),
                "warbird": (ship_def("romulan-warbird"), "tomalak"),
            },
        )
        await ok(c, table, "ref", "clock.advance", {})  # Ship Power → Movement
    frames: dict[str, list[str]] = {"kirk": [], "kosh": []}
    ctx_k, kirk = await open_as(browser, server, table.tokens["kirk"])
    ctx_s, kosh = await open_as(browser, server, table.tokens["kosh"], width=375)
    ctx_t, tomalak = await open_as(browser, server, table.tokens["tomalak"])
    for who, page in (("kirk", kirk), ("kosh", kosh)):  # every frame of the others' sockets, kept
        page.on(
            "websocket",
            lambda ws, who=who: ws.on("framereceived", lambda f, who=who: frames[who].append(str(f))),
        )
        await page.reload()
        await wait_until(page, "document.documentElement.dataset.live === 'connected'")
    try:
        # Kirk places the Excelsior at 0505, facing 1 (up the map): a tap and Enter.
        await place(kirk, "excelsior", "0505", [])
        await counter_at(tomalak, "excelsior", "0505")  # live on the others' pages
        # Tomalak places the Haakona off its port quarter, facing 2; Kosh (a phone) the Shadow
        # ahead of it, turned round to face it (facing 4: three turns right).
        await place(tomalak, "haakona", "0306", ["ArrowRight"])
        await place(kosh, "shadow-cruiser", "0503", ["ArrowRight", "ArrowRight", "ArrowRight"])
        await expect(kosh.locator("#counter-shadow-cruiser")).to_have_attribute("data-facing", "4")
        await counter_at(kirk, "haakona", "0306")
        # Kirk selects the Excelsior by keyboard: its overlays show the Haakona in the Port arc.
        await kirk.locator("#counter-excelsior").focus()
        await kirk.keyboard.press("Enter")
        await expect(kirk.locator("#map-overlay .shield-arc")).to_have_count(4)
        await expect(kirk.locator("#map-selection")).to_contain_text("Haakona")
        row = kirk.locator("#map-selection tr", has_text="Haakona")
        await expect(row).to_contain_text("port · Port shield")
        await expect(kirk.locator("#map-status")).to_have_text("")  # every ship placed
        await expect(kirk.locator("#map-impulses")).to_have_count(0)  # B5 Wars moves in one step
        await kirk.evaluate("document.getElementById('map').scrollIntoView()")
        await kirk.screenshot(path=str(ROOT / "var" / "map-desktop.png"), full_page=False)

        await advance(server, table, [kirk, kosh, tomalak])  # → Combat
        # ST-05/06: Tomalak's hit, no direction typed, lands in the Excelsior's Port projection.
        await tomalak.select_option("#damage-form select[name='p.source']", "haakona")
        await tomalak.select_option("#damage-form select[name='p.target']", "excelsior")
        await tomalak.fill("#damage-form input[name='p.amount']", "12")
        assert await tomalak.input_value("#damage-form select[name='p.direction']") == ""
        await tomalak.click("#damage-form button[type=submit]")
        await expect(kirk.locator("#log-list")).to_contain_text("(Port, from the map)")
        await expect(kirk.locator("#map-selection")).to_contain_text("Port 18/30")  # the selection follows
        # The Excelsior's 53 on the Shadow comes from its fore (it faces the Excelsior).
        await kirk.select_option("#damage-form select[name='p.source']", "excelsior")
        await kirk.select_option("#damage-form select[name='p.target']", "shadow-cruiser")
        await kirk.fill("#damage-form input[name='p.amount']", "53")
        await kirk.click("#damage-form button[type=submit]")
        await expect(kosh.locator("#log-list")).to_contain_text(
            "Excelsior hits Shadow Cruiser for 53 (fore, from the map)"
        )
        # Combat ends (SH-06, band 50–99): the rise roll 1, amount 4 − 3 = 1 → pain 5; the reaction
        # roll 2 makes it ONE, a flinch (SH-08).
        await advance(server, table, [kirk, kosh, tomalak], dice=[1, 4, 2])
        await expect(kosh.locator("#log-list")).to_contain_text("flinches")
        # Adjust Ship Systems: Tomalak cloaks with the sheet's button (ST-21).
        await tomalak.locator("#ship-haakona form.st-form button", has_text="Cloak").click()
        await expect(tomalak.locator("#counter-haakona")).to_have_class(re.compile(r"\bcloaked\b"))
        await expect(kirk.locator("#counter-haakona")).to_have_count(0)
        await expect(kirk.locator("#ghost-haakona")).to_contain_text("seen T1")
        await advance(server, table, [kirk, kosh, tomalak], times=2)  # → turn 2 Ship Power → Movement
        # SH-08 on the map: Kosh taps the Shadow; the hex away from the damage is marked; W (up the
        # map, away from the Excelsior below) and Enter move it there, facing kept.
        await kirk.evaluate(MOVED)  # the others' pages flash the counter that moved
        await kosh.locator("#counter-shadow-cruiser").click()
        await expect(kosh.locator("#map-selection")).to_contain_text("hex 0502")
        await kosh.keyboard.press("w")
        await kosh.keyboard.press("Enter")
        await counter_at(kirk, "shadow-cruiser", "0502")
        await expect(kirk.locator("#counter-shadow-cruiser")).to_have_attribute("data-facing", "4")
        await wait_until(kirk, "window.__moved.includes('counter-shadow-cruiser')")
        await kosh.locator("#ship-shadow-cruiser .pain-duty button", has_text="Done").click()
        await expect(kirk.locator("#log-list")).to_contain_text("Shadow Cruiser has done what it must")
        await expect(kosh.locator("#map-selection .map-away")).to_have_count(0)  # nothing owed now
        # ST-22: the cloaked Haakona moves two hexes up-left by keys; only Tomalak sees it go.
        await tomalak.locator("#counter-haakona").click()
        await tomalak.keyboard.press("q")
        await tomalak.keyboard.press("q")
        await tomalak.keyboard.press("Enter")
        await counter_at(tomalak, "haakona", SECRET)
        await expect(tomalak.locator(".hidden-path")).to_have_count(1)
        await expect(tomalak.locator("#log-list")).to_contain_text(f"Haakona (cloaked) moves: hex {SECRET}")
        await expect(kirk.locator("#log-list")).to_contain_text("A cloaked ship moves.")
        await expect(kirk.locator("#ghost-haakona")).to_have_attribute("transform", re.compile("."))
        kosh_page = await kosh.content()
        await kosh.evaluate("document.getElementById('map').scrollIntoView()")  # below the sticky bar
        await kosh.screenshot(path=str(ROOT / "var" / "map-phone.png"), full_page=False)
        # No other door carries the secret hex: pages, frames, REST, the replay.
        async with httpx.AsyncClient(base_url=server.url) as c:
            for who in OTHERS:
                r = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))
                assert not has(r.text, SECRET), f"{who}'s REST state"
            mine = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("tomalak"))
            assert has(mine.text, SECRET)
        for who, page in (("kirk", kirk), ("kosh", kosh)):
            assert not has(await page.content(), SECRET), f"{who}'s page"
            assert frames[who] and not any(has(f, SECRET) for f in frames[who]), f"{who}'s frames"
            await page.goto(f"{server.url}/battles/{table.battle_id}/replay")
            assert not has(await page.content(), SECRET), f"{who}'s replay"
            await expect(page.locator("#ghost-haakona")).to_have_count(1)
        assert "seen T1" in kosh_page
        found: dict[str, list] = {}  # type: ignore[type-arg]
        await kirk.goto(f"{server.url}/battles/{table.battle_id}")
        await scan(kirk, "map (player)", found)
        await scan(tomalak, "map (cloaked owner)", found)
        await tomalak.goto(f"{server.url}/battles/{table.battle_id}/map?select=haakona")  # no-JS door
        await expect(tomalak.locator("#map-overlay .shield-arc")).to_have_count(4)
        await scan(tomalak, "map page", found)
        counts, lines = report(found)
        serious = {k: n for k, n in counts.items() if k[0] in ("critical", "serious")}
        assert not serious, "\n".join(lines)
    finally:
        for ctx in (ctx_k, ctx_s, ctx_t):
            await ctx.close()


# --- a newcomer's evening: an SFB battle on a phone and at a desk -----------------------------------

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}


async def open_with(
    browser: Browser, server: Server, token: str, **options: Any
) -> tuple[BrowserContext, Page]:
    """A seat's page in a browser context of its own (a phone with `PHONE`), connected live."""
    context = await browser.new_context(**(options or {"viewport": {"width": 1280, "height": 900}}))
    page = await context.new_page()
    await page.goto(f"{server.url}/join/{token}")
    await wait_until(page, "document.documentElement.dataset.live === 'connected'")
    return context, page


async def hex_point(page: Page, hex_: str) -> dict[str, float]:
    return await page.evaluate(
        """(hex) => {
          const svg = document.getElementById('map-board');
          const S = parseFloat(svg.dataset.size), c = parseInt(hex.slice(0, 2)) - 1, r = parseInt(hex.slice(2)) - 1;
          const p = svg.createSVGPoint();
          p.x = S + 1.5 * S * c; p.y = Math.sqrt(3) * S * (0.5 + r + 0.5 * (c & 1));
          const q = p.matrixTransform(svg.getScreenCTM());
          return {x: q.x, y: q.y};
        }""",
        hex_,
    )


async def touch_hex(page: Page, hex_: str) -> None:
    """A finger's tap on the board at a hex's centre."""
    point = await hex_point(page, hex_)
    await page.touchscreen.tap(point["x"], point["y"])


async def sfb_table(c: httpx.AsyncClient) -> Table:
    """Ann's Federation Heavy Cruiser (speed 12, 0505) and Shadow Cruiser (speed 16, 0805), both
    "… Cruiser"; Bob's Hawk, not placed yet."""
    table = await set_table(
        c,
        system="sfb",
        ships={
            "fhc": (ship_def("federation-heavy-cruiser"), "ann"),
            "sc": (ship_def("shadow-cruiser"), "ann"),
            "hawk": (simple_ship("Hawk", system="sfb"), "bob"),
        },
    )
    for label, hex_, speed in (("fhc", "0505", 12), ("sc", "0805", 16)):
        ship = table.ships[label]
        await ok(
            c,
            table,
            "ann",
            "ship.move",
            {"ship": ship, "position": {"hex": hex_, "facing": 1, "speed": speed}},
        )
    return table


# Everything the page's one announcer says, kept in order (the live log speaks there too).
SAID = """
window.__said = [];
new MutationObserver(() => window.__said.push(document.getElementById('announcer').textContent))
  .observe(document.getElementById('announcer'), {childList: true, characterData: true, subtree: true});
"""


async def said(page: Page, words: str) -> None:
    await wait_until(page, f"window.__said.some((t) => t.includes({words!r}))", timeout=5000)


def shot(name: str) -> str:
    folder = Path("/tmp/map-shots")
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / name)


async def test_phone_tap_places_the_only_ship_labels_tell_ships_apart_and_bearings_are_whole(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await sfb_table(c)
    fhc, sc, hawk = (table.ships[k] for k in ("fhc", "sc", "hawk"))
    ctx, bob = await open_with(browser, server, table.tokens["bob"], **PHONE)
    try:
        # Bob's only ship is not placed: the Ship list has one option, so picking it is no change.
        # A tap on a hex still puts the Hawk there.
        await expect(bob.locator("#map-move-ship option")).to_have_count(1)
        await touch_hex(bob, "0607")
        await expect(bob.locator("#map-move-hex")).to_have_value("0607")
        await expect(bob.locator("#map-move-facing")).to_have_value("1")
        await bob.fill("#map-move-speed", "10")
        await bob.tap("#map-move-confirm")
        await counter_at(bob, hawk, "0607")
        await expect(bob.locator(f"#counter-{hawk}")).to_have_attribute("data-speed", "10")
        # A tap on its counter, a tap on the next hex up, Confirm: the speed typed before is kept.
        await bob.tap(f"#counter-{hawk}")
        await expect(bob.locator("#map-selection h3")).to_contain_text("Hawk")
        await touch_hex(bob, "0606")
        await expect(bob.locator("#map-move-hex")).to_have_value("0606")
        await bob.tap("#map-move-confirm")
        await counter_at(bob, hawk, "0606")
        await expect(bob.locator(f"#counter-{hawk}")).to_have_attribute("data-speed", "10")
        await expect(bob.locator("#log-list")).to_contain_text("Hawk moves: hex 0606, facing 1, speed 10")

        # Two "… Cruiser"s: each counter's own short code, told apart, the full name in its title.
        codes = await bob.locator("#map-board .counter-code").all_text_contents()
        names = await bob.locator("#map-board .counter-text .counter-name").all_text_contents()
        assert len(set(codes)) == 3 and len(set(names)) == 3, (codes, names)
        assert set(codes) == {"FHC", "SC", "HA"}, codes
        await expect(bob.locator(f"#counter-{fhc} title")).to_have_text("Federation Heavy Cruiser")
        await expect(bob.locator(f"#counter-{sc}")).to_have_attribute(
            "aria-label", re.compile("^Shadow Cruiser: hex 0805")
        )

        # The Federation cruiser's bearings, in whole degrees.
        await bob.tap(f"#counter-{fhc}")
        await expect(bob.locator("#map-selection tr", has_text="Hawk")).to_have_count(1)
        bearings = await bob.locator("#map-selection .map-ranges tbody td:nth-child(3)").all_text_contents()
        assert bearings and all(re.fullmatch(r"\d{1,3}°", b) for b in bearings), bearings

        # Impulse 2 of 32: the Shadow (speed 16) moves, the Federation cruiser (12) and the Hawk (10)
        # do not; impulse 3: only the Federation cruiser (⌊3·12/32⌋ = 1).
        async with httpx.AsyncClient(base_url=server.url) as c:
            for _ in range(2):
                await ok(c, table, "ref", "clock.advance", {})
        await expect(bob.locator("#map-impulses")).to_contain_text("Impulse 2 of 32")
        await expect(bob.locator(f"#counter-{sc}")).to_have_class(re.compile(r"\bdue\b"))
        await expect(bob.locator(f"#counter-{fhc}")).not_to_have_class(re.compile(r"\bdue\b"))
        await expect(bob.locator(f"#counter-{hawk}")).not_to_have_class(re.compile(r"\bdue\b"))
        await expect(bob.locator("#map-impulses .map-due")).to_have_text(re.compile("Shadow Cruiser"))
        await bob.evaluate("document.getElementById('map').scrollIntoView()")
        await bob.screenshot(path=shot("phone-impulse-2.png"))
        await bob.locator("#map-impulses summary").tap()  # the turn's chart, opened; it stays open
        await expect(bob.locator("#map-chart th.now")).to_have_text("2")
        async with httpx.AsyncClient(base_url=server.url) as c:
            await ok(c, table, "ref", "clock.advance", {})
        await expect(bob.locator("#map-impulses")).to_contain_text("Impulse 3 of 32")
        await expect(bob.locator(f"#counter-{fhc}")).to_have_class(re.compile(r"\bdue\b"))
        await expect(bob.locator(f"#counter-{sc}")).not_to_have_class(re.compile(r"\bdue\b"))
        await expect(bob.locator("#map-chart th.now")).to_have_text("3")
        await expect(bob.locator("#map-chart")).to_have_attribute("open", "")
        row = bob.locator("#map-chart tbody tr", has_text="FHC")  # speed 12: impulses 3, 6, 8, 11…
        cells = await row.locator("td").all_text_contents()
        assert [i for i, cell in enumerate(cells[1:], start=1) if cell] == [
            3,
            6,
            8,
            11,
            14,
            16,
            19,
            22,
            24,
            27,
            30,
            32,
        ]
        width = await bob.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], f"the page scrolls sideways: {width}"  # only the chart does
        await bob.locator("#flash .flash-close").tap()
        await bob.locator("#map-status").screenshot(path=shot("phone-impulse-chart.png"))
        found: dict[str, list[Any]] = {}  # once the turn bar's change highlight has faded
        await wait_until(bob, "document.getAnimations().every((a) => a.playState !== 'running')")
        await scan(bob, "map with the impulse chart open (phone)", found)
        counts, lines = report(found)
        assert not {k: n for k, n in counts.items() if k[0] in ("critical", "serious")}, "\n".join(lines)
    finally:
        await ctx.close()


async def test_desk_keys_keep_speed_ship_and_send_no_empty_move(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await sfb_table(c)
    fhc, sc, hawk = (table.ships[k] for k in ("fhc", "sc", "hawk"))
    ctx, ann = await open_with(browser, server, table.tokens["ann"])
    await ann.evaluate(SAID)
    try:
        # Keys move the Federation cruiser twice; its speed 12 stays with it. After each move, Enter
        # again on the counter where it now stands has nothing to send.
        await ann.locator(f"#counter-{fhc}").focus()
        await ann.keyboard.press("Enter")
        await expect(ann.locator("#map-selection h3")).to_contain_text("Federation Heavy Cruiser")
        for hex_ in ("0504", "0503"):
            await ann.keyboard.press("w")
            await ann.keyboard.press("Enter")
            await counter_at(ann, fhc, hex_)
            await expect(ann.locator("#flash .flash")).to_have_count(1)  # the answer came, too
            await expect(ann.locator(f"#counter-{fhc}")).to_have_attribute("data-speed", "12")
            await expect(ann.locator("#map-move-speed")).to_have_value("12")
            await ann.evaluate("window.__said = []")
            await ann.locator(f"#counter-{fhc}").focus()
            await ann.keyboard.press("Enter")
            await said(ann, "Nothing to confirm")
        await expect(ann.locator("#log-list")).to_contain_text(
            "Federation Heavy Cruiser moves: hex 0503, facing 1, speed 12"
        )
        async with httpx.AsyncClient(base_url=server.url) as c:  # a later line proves nothing came before it
            await ok(c, table, "bob", "ship.move", {"ship": hawk, "position": {"hex": "0909", "facing": 1}})
        await expect(ann.locator("#log-list")).to_contain_text("Hawk moves")
        # placed at 0505 (the table's set-up), then moved twice: three lines, no fourth
        await expect(ann.locator("#log-list li", has_text="Federation Heavy Cruiser moves")).to_have_count(3)

        # The second ship: after its move the form still names it, at its new hex and facing.
        await ann.locator(f"#counter-{sc}").click()
        await expect(ann.locator("#map-selection h3")).to_contain_text("Shadow Cruiser")
        await ann.keyboard.press("e")
        await ann.keyboard.press("ArrowRight")
        await ann.keyboard.press("Enter")
        await counter_at(ann, sc, "0905")
        await expect(ann.locator("#flash .flash")).to_have_count(1)
        await expect(ann.locator("#map-move-ship")).to_have_value(sc)
        await expect(ann.locator("#map-move-hex")).to_have_value("0905")
        await expect(ann.locator("#map-move-facing")).to_have_value("2")
        await expect(ann.locator("#map-move-speed")).to_have_value("16")
        await ann.evaluate("document.getElementById('map').scrollIntoView()")
        await ann.screenshot(path=shot("desk-after-second-ship.png"))
        await ann.locator("#map-move-form").screenshot(path=shot("desk-move-form-stays.png"))
        # Confirm now sends nothing: it is where the form says.
        await ann.evaluate("window.__said = []")
        await ann.click("#map-move-confirm")
        await said(ann, "Nothing to confirm")
        # A speed left blank is the ship's own: one hex up and Confirm keeps speed 16.
        await ann.fill("#map-move-speed", "")
        await ann.locator(f"#counter-{sc}").focus()
        await ann.keyboard.press("w")
        await ann.click("#map-move-confirm")
        await expect(ann.locator("#log-list")).to_contain_text(
            "Shadow Cruiser moves: hex 0904, facing 2, speed 16"
        )
        # Energy Allocation: the turn's chart, no impulse shaded yet; the Hawk has no speed.
        await expect(ann.locator("#map-impulses .map-due")).to_contain_text("No speed set: Hawk")
        await ann.locator("#map-chart summary").click()
        await expect(ann.locator("#map-chart .now")).to_have_count(0)
        await ann.locator("#map-status").screenshot(path=shot("desk-impulse-chart.png"))
    finally:
        await ctx.close()
