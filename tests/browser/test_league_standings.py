"""The league standings page in chromium, at desktop (1280×900) and phone (390×844) width: a season
of four rated battles between three profiles, rated by the server as each ended; the table reads in
rating order with every column, the page never scrolls sideways (the table scrolls in its own
region if it must), each rating change links to its report and dice check, and axe finds nothing
critical or serious in the light or the dark theme. The league list is scanned too, and the
referee's choice on a battle at set-up (the league, each side's fleet points, the handicap)."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Browser

from app.config import ROOT
from app.db import Database
from app.realtime.broker import Broker
from app.services.bootstrap import build_platform
from tests.browser.test_accessibility import DARK_RULES, FAILING, report, scan
from tests.conftest import Server, settings_for
from tests.helpers import eventually, set_table, simple_ship
from tests.web.league_season import season

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
GAMES = [("Ann", "Bob", "Blue"), ("Bob", "Cat", "Red"), ("Cat", "Ann", "draw"), ("Ann", "Cat", "Blue")]


async def test_the_standings_page_reads_at_desktop_and_phone_width_and_passes_axe(
    browser: Browser, server: Server
) -> None:
    platform = build_platform(settings=settings_for(server.db), db=Database(server.db), broker=Broker())
    try:
        async with httpx.AsyncClient(base_url=server.url) as c:
            made = await season(platform, c, ("Ann", "Bob", "Cat"), GAMES, league_name="Browser season")

            async def all_rated() -> bool:
                got = (await c.get(f"/api/v1/leagues/{made.league_id}")).json()
                return all(b["rated"] for b in got["battles"])

            await eventually(all_rated, what="the server to rate each battle as it ended")
            expected = [
                s["name"] for s in (await c.get(f"/api/v1/leagues/{made.league_id}")).json()["standings"]
            ]
            ships = {
                "x": ({**simple_ship("Hawk"), "side": "Blue"}, "ann"),
                "y": ({**simple_ship("Crow"), "side": "Red", "klass": "Scout"}, "bob"),
            }
            setup = await set_table(c, ships=ships, options={})
            marked = await c.put(
                f"/api/v1/battles/{setup.battle_id}/league",
                json={"league": made.league_id, "points": {setup.ships["x"]: 300, setup.ships["y"]: 120}},
                headers=setup.auth("ref"),
            )
            assert marked.status_code == 200, marked.text
    finally:
        await platform.db.dispose()
    found: dict[str, list] = {}  # type: ignore[type-arg]
    context = await browser.new_context()
    page = await context.new_page()
    try:
        for size, (w, h) in SIZES.items():
            await page.set_viewport_size({"width": w, "height": h})
            await page.goto(f"{server.url}/leagues/{made.league_id}")
            names = await page.locator("#standings tbody th[scope=row]").all_inner_texts()
            assert names == expected
            headers = await page.locator("#standings thead th").all_inner_texts()
            assert len(headers) == 8 and "Rating" in headers
            assert await page.locator("#rating-changes li").count() == 2 * len(GAMES)
            assert await page.locator(f'a[href="/battles/{made.battles[0]}/dice"]').count() == 2
            wide = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert wide <= 0, f"@{size}: {wide}px of horizontal scroll"
            await page.screenshot(path=str(ROOT / "var" / f"league-standings-{size}.png"), full_page=True)
            await page.emulate_media(color_scheme="light")
            await scan(page, f"standings @{size}", found)
            await page.emulate_media(color_scheme="dark")
            await scan(page, f"standings @{size} dark", found, DARK_RULES)
            await page.emulate_media(color_scheme="light")
            await page.goto(f"{server.url}/leagues")
            assert await page.get_by_role("link", name="Browser season").count() >= 1
            await scan(page, f"league list @{size}", found)
        # the referee's choice on a battle at set-up: the league, and each side's fleet points
        await page.goto(f"{server.url}/join/{setup.tokens['ref']}")
        for size, (w, h) in SIZES.items():
            await page.set_viewport_size({"width": w, "height": h})
            await page.goto(f"{server.url}/battles/{setup.battle_id}/league")
            assert await page.locator("#league-choice select[name=league]").input_value() == made.league_id
            # Blue 300, Red 120: 180 behind (60%) — the Red side may add 180 points
            assert "Red side may add 180 points" in await page.locator("#fleet-suggestion").inner_text()
            wide = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert wide <= 0, f"league choice @{size}: {wide}px of horizontal scroll"
            await page.screenshot(path=str(ROOT / "var" / f"league-choice-{size}.png"), full_page=True)
            await page.emulate_media(color_scheme="light")
            await scan(page, f"league choice @{size}", found)
            await page.emulate_media(color_scheme="dark")
            await scan(page, f"league choice @{size} dark", found, DARK_RULES)
            await page.emulate_media(color_scheme="light")
    finally:
        await context.close()
    counts, lines = report(found)
    print(f"\n[axe] {len(found)} league scans:", dict(counts) or "no violations", *lines, sep="\n")
    failing = [line for line in lines if any(f"[{i}]" in line for i in FAILING)]
    assert not failing, "\n".join(failing)
