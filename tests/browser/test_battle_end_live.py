"""The battle's end reaches every open page live, for every role: the turn bar, the revealed seed and
the dice check's link, the cloaked ship's path on the map and in the log (ST-22: revealed to all at
the end) and the map's move form (no moves after the end) — with no reload, and nothing of the
cloaked path on a page that may not see it before the end."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, Page, expect

from tests.browser.test_live_damage import open_as
from tests.conftest import Server
from tests.helpers import set_table, ship_def
from tests.web.test_startrek_rest import ok
from tests.web.test_startrek_ws import has

SECRET = "0912"  # where the cloaked Haakona goes
MOVE = "Haakona (cloaked) moves: hex 0912, facing 2, speed 6."


async def html(page: Page) -> str:
    return str(await page.content())


async def test_the_end_reaches_every_open_page_live(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            players=("kirk", "tomalak"),
            ships={
                "excelsior": (ship_def("excelsior"), "kirk"),
                "warbird": (ship_def("romulan-warbird"), "tomalak"),
            },
        )
        await ok(c, table, "ref", "clock.advance")  # → Movement
        await ok(
            c, table, "kirk", "ship.move", {"ship": "excelsior", "position": {"hex": "0505", "facing": 1}}
        )
        await ok(
            c, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": "0306", "facing": 2}}
        )
        for _ in range(2):  # → Adjust Ship Systems
            await ok(c, table, "ref", "clock.advance")
        await ok(c, table, "tomalak", "startrek.cloak", {"ship": "haakona"})
        for _ in range(2):  # → turn 2 Movement
            await ok(c, table, "ref", "clock.advance")
        pos = {"hex": SECRET, "facing": 2, "speed": 6}
        await ok(c, table, "tomalak", "ship.move", {"ship": "haakona", "position": pos})
    seats = ("ref", "kirk", "tomalak", "watcher")
    opened = {who: await open_as(browser, server, table.tokens[who]) for who in seats}
    pages = {who: page for who, (_, page) in opened.items()}
    try:
        for who, page in pages.items():
            await page.evaluate("window.__loaded = performance.timeOrigin")
            await expect(page.locator(".fairness, #referee-tools")).not_to_have_count(0)
            await expect(page.get_by_text("The dice check (opens at the end)")).to_be_visible()
            if who in ("kirk", "watcher"):  # the path is the owner's and the referee's until the end
                assert not has(await html(page), SECRET), who
                await expect(page.locator(".hidden-path")).to_have_count(0)
        await expect(pages["kirk"].locator("#map-move-form")).to_be_visible()
        await expect(pages["kirk"].locator("#ask-undo")).to_be_visible()
        async with httpx.AsyncClient(base_url=server.url) as c:
            end = (await ok(c, table, "ref", "battle.end", {"reason": "the Romulans withdraw"}))["seq"]
            seed = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("watcher"))).json()[
                "seed"
            ]
        assert seed
        for who, page in pages.items():
            await expect(page.locator("#turnbar")).to_have_attribute("data-seq", str(end))
            await expect(page.locator("#turnbar")).to_contain_text("Battle over")
            await expect(page.get_by_text(seed)).to_be_visible()
            link = page.get_by_role("link", name="Check every die in your browser")
            await expect(link).to_be_visible()
            await expect(page.locator("#map-move-form")).to_have_count(0)
            await expect(page.get_by_text("Ask the referee to undo my last action")).to_have_count(0)
            await expect(page.locator("#log-list")).to_contain_text(MOVE)
            await expect(page.locator("#log-list")).not_to_contain_text("A cloaked ship moves.")
            assert await page.evaluate("window.__loaded") is not None, who  # no reload
        # what the end changed live is what a reload shows (the map draws the path for those who
        # could see it; the others keep the ghost, ST-22)
        for who, page in pages.items():
            live = (await page.locator(".hidden-path").count(), await page.locator("#log-list").inner_text())
            await page.reload()
            await expect(page.locator("#turnbar")).to_have_attribute("data-seq", str(end))
            again = (await page.locator(".hidden-path").count(), await page.locator("#log-list").inner_text())
            assert live == again, who
            assert live[0] == (1 if who in ("ref", "tomalak") else 0), who
    finally:
        for context, _ in opened.values():
            await context.close()
