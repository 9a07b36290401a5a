"""The battle report page in chromium: each demo battle, played some turns, opened as a
player at desktop (1280×900) and phone (375×800) width — screenshots in var/report-*.png, no
horizontal scroll on the phone, every chart an SVG with its title and desc — and scanned with axe
(light and dark: 0 critical or serious). While the battle runs the page looks again by itself and
shows the next action without a reload."""

from __future__ import annotations

from functools import partial

import pytest
from playwright.async_api import Browser

from app.config import ROOT
from app.db import Database
from app.realtime.broker import Broker
from app.services.bootstrap import build_platform
from app.services.platform import Platform
from app.web.pages.report import POLL_SECONDS
from tests.browser.test_accessibility import DARK_RULES, FAILING, in_lanes, report, scan, seated
from tests.conftest import Server, settings_for
from tests.web.test_report import PLAYS, SHADOW, STARTREK, TRAVELLER, Demo, demos, do

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 900), "phone": (375, 800)}
VIEWERS = {SHADOW: ("shadow", "Kosh"), STARTREK: ("startrek", "Kirk"), TRAVELLER: ("traveller", "Bob")}


@pytest.fixture(scope="module")
async def played(server: Server) -> tuple[Platform, list[Demo]]:
    """The three demo battles, made and played on the server's own database."""
    platform = build_platform(settings=settings_for(server.db), db=Database(server.db), broker=Broker())
    made = await demos(platform)
    for index, play in PLAYS.items():
        await play(platform, made[index])
    return platform, made


async def test_each_demo_report_reads_at_desktop_and_phone_width_and_passes_axe(
    browser: Browser, server: Server, played: tuple[Platform, list[Demo]]
) -> None:
    _, made = played
    found: dict[str, list] = {}  # type: ignore[type-arg]

    async def viewed(index: int, name: str, who: str) -> None:
        d = made[index]
        context, page = await seated(browser, server, d.tokens[who])
        try:
            for size, (w, h) in SIZES.items():
                await page.set_viewport_size({"width": w, "height": h})
                await page.goto(f"{server.url}/battles/{d.battle_id}/report")
                assert await page.locator("h1").count() == 1
                charts = page.locator("figure.report-chart svg[role=img]")
                assert await charts.count() >= 3, name
                titles = await page.eval_on_selector_all(
                    "figure.report-chart svg",
                    "els => els.map(e => [e.querySelector('title')?.textContent, e.querySelector('desc')?.textContent])",
                )
                assert all(t and dsc for t, dsc in titles), titles
                wide = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                assert wide <= 0, f"{name} @{size}: {wide}px of horizontal scroll"
                await page.screenshot(path=str(ROOT / "var" / f"report-{name}-{size}.png"), full_page=True)
                await page.emulate_media(color_scheme="light")
                await scan(page, f"{name} report @{size}", found)
                await page.emulate_media(color_scheme="dark")
                await scan(page, f"{name} report @{size} dark", found, DARK_RULES)
                await page.emulate_media(color_scheme="light")
            await page.emulate_media(media="print")
            await page.set_viewport_size({"width": 800, "height": 1100})
            await page.goto(f"{server.url}/battles/{d.battle_id}/report")
            assert not await page.locator(".report-nav").is_visible()  # the print stylesheet
            await page.screenshot(path=str(ROOT / "var" / f"report-{name}-print.png"), full_page=True)
            await page.emulate_media(media="screen")
        finally:
            await context.close()

    await in_lanes([partial(viewed, index, name, who) for index, (name, who) in VIEWERS.items()])
    assert len(found) == len(VIEWERS) * len(SIZES) * 2, sorted(found)
    counts, lines = report(found)
    print(f"\n[axe] {len(found)} report scans:", dict(counts) or "no violations", *lines, sep="\n")
    failing = [line for line in lines if any(f"[{i}]" in line for i in FAILING)]
    assert not failing, "\n".join(failing)


async def test_the_running_report_shows_the_next_action_without_a_reload(
    browser: Browser, server: Server, played: tuple[Platform, list[Demo]]
) -> None:
    platform, made = played
    d = made[SHADOW]
    context, page = await seated(browser, server, d.tokens["Kirk"])
    try:
        await page.clock.install()  # the page's own timers, on a clock the test moves
        await page.goto(f"{server.url}/battles/{d.battle_id}/report")
        seq = int(await page.get_attribute("#report", "data-seq") or 0)
        assert f"every {POLL_SECONDS}s" in (await page.get_attribute("#report", "hx-trigger") or "")
        hit = {
            "target": "federation-heavy-cruiser",
            "source": "shadow-cruiser",
            "amount": 200,
            "section": "Hull",
        }
        await do(platform, d, "Kosh", "damage.apply", hit)
        # The page's own timer looks again (every POLL_SECONDS): moved on, not waited for.
        await page.clock.fast_forward((POLL_SECONDS + 1) * 1000)
        await page.locator(f'#report[data-seq="{seq + 1}"]').wait_for(timeout=10000)
        assert "Federation Heavy Cruiser is destroyed" in await page.locator("#report-turning").inner_text()
    finally:
        await context.close()
