"""The shared report in chromium: the Star Trek demo played and ended with a winner, a public link
made by its referee, opened by a browser that holds no seat at desktop and phone width — the
headline, the winner and the story read, the image card loads, no horizontal scroll on the phone,
axe finds nothing critical or serious (light and dark) — screenshots in var/report-share-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser

from app.config import ROOT
from app.db import Database
from app.realtime.broker import Broker
from app.services.bootstrap import build_platform
from app.services.reading.report_share import make_share
from app.services.store.battles import get_battle, participants
from tests.browser.test_accessibility import DARK_RULES, FAILING, report, scan
from tests.conftest import Server, settings_for
from tests.web.test_report import STARTREK, demos, do, play_startrek

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 900), "phone": (375, 800)}


async def test_the_shared_report_reads_without_a_seat_at_desktop_and_phone_and_passes_axe(
    browser: Browser, server: Server
) -> None:
    platform = build_platform(settings=settings_for(server.db), db=Database(server.db), broker=Broker())
    d = (await demos(platform))[STARTREK]
    await play_startrek(platform, d)
    await do(
        platform, d, "Referee", "battle.end", {"reason": "The Romulans withdraw", "winner": "Federation"}
    )
    async with platform.db.transaction() as session:
        battle = await get_battle(session, d.battle_id)
        referee = next(p for p in await participants(session, d.battle_id) if p.role == "referee")
        token = await make_share(session, battle, referee)
    context = await browser.new_context()  # no seat: the link alone
    page = await context.new_page()
    found: dict[str, list[Any]] = {}
    try:
        for size, (w, h) in SIZES.items():
            await page.set_viewport_size({"width": w, "height": h})
            await page.goto(f"{server.url}/reports/{token}")
            text = await page.locator("#report").inner_text()
            assert "the Federation side wins" in text and "The Romulans withdraw" in text
            assert await page.locator("ol.story > li").count() == 2
            loaded = await page.eval_on_selector("img.card-thumb", "img => img.complete && img.naturalWidth")
            assert loaded == 1200, loaded
            wide = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert wide <= 0, f"{size}: {wide}px of horizontal scroll"
            await page.screenshot(path=str(ROOT / "var" / f"report-share-{size}.png"), full_page=True)
            await page.emulate_media(color_scheme="light")
            await scan(page, f"shared report @{size}", found)
            await page.emulate_media(color_scheme="dark")
            await scan(page, f"shared report @{size} dark", found, DARK_RULES)
            await page.emulate_media(color_scheme="light")
        await page.goto(f"{server.url}/reports/{token}.svg")
        await page.set_viewport_size({"width": 1200, "height": 630})
        await page.screenshot(path=str(ROOT / "var" / "report-share-card.png"))
    finally:
        await context.close()
    counts, lines = report(found)
    print(f"\n[axe] {len(found)} shared report scans:", dict(counts) or "no violations", *lines, sep="\n")
    failing = [line for line in lines if any(f"[{i}]" in line for i in FAILING)]
    assert not failing, "\n".join(failing)
