"""The replay stepper: key presses made while a step is loading are counted, not
dropped, and the log's replay link follows the battle instead of the seq the page was drawn at."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Browser, expect

from tests.browser.test_live_damage import open_as
from tests.conftest import ROOT, Server
from tests.helpers import Table, act, set_table, simple_ship

pytestmark = pytest.mark.browser


async def hits(c: httpx.AsyncClient, table, n: int) -> None:  # type: ignore[no-untyped-def]
    for _ in range(n):
        r = await act(
            c,
            table,
            "ann",
            "damage.apply",
            {"target": "crow", "source": "hawk", "amount": 1, "direction": "fore"},
        )
        assert r.status_code == 200, r.text


async def hawk_and_crow(c: httpx.AsyncClient) -> Table:
    """Ann's Hawk and Bob's Crow: the battle is at #2."""
    return await set_table(
        c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )


async def test_rapid_arrow_presses_all_count(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await hawk_and_crow(c)
        await hits(c, table, 8)  # the battle is at #10
    context, page = await open_as(browser, server, table.tokens["ann"])
    try:
        await page.goto(f"{server.url}/battles/{table.battle_id}/replay?seq=0")
        await expect(page.locator("#replay-at")).to_have_text("After action #0 of 10")
        for _ in range(7):  # typed faster than a page loads
            await page.keyboard.press("ArrowRight", delay=5)
        await expect(page.locator("#replay-at")).to_have_text("After action #7 of 10")
        assert page.url.endswith("?seq=7")
        for _ in range(3):
            await page.keyboard.press("ArrowLeft", delay=5)
        await expect(page.locator("#replay-at")).to_have_text("After action #4 of 10")
        for _ in range(12):  # past the end stops at the end
            await page.keyboard.press("ArrowRight", delay=5)
        await expect(page.locator("#replay-at")).to_have_text("After action #10 of 10")
        await page.locator("#replay-prev").click()
        await expect(page.locator("#replay-at")).to_have_text("After action #9 of 10")
        await expect(page.locator("#replay-prev")).to_be_focused()
    finally:
        await context.close()


async def test_the_log_replay_link_follows_the_battle(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await hawk_and_crow(c)
        context, page = await open_as(browser, server, table.tokens["bob"])
        try:
            await hits(c, table, 3)  # #5 arrives live on an open page
            await expect(page.locator("#turnbar")).to_have_attribute("data-seq", "5")
            await page.get_by_role("link", name="replay ◀").click()
            await expect(page.locator("#replay-at")).to_have_text("After action #4 of 5")
        finally:
            await context.close()


async def test_the_referee_picks_a_seat_and_steps_through_the_battle_as_it_saw_it(
    browser: Browser, server: Server
) -> None:
    """The perspective picker (a plain GET form), and ← → keeping the seat chosen."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await hawk_and_crow(c)
        await hits(c, table, 2)  # the battle is at #4
        seats = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    ann = next(p["id"] for p in seats["participants"] if p["name"] == "ann")
    context, page = await open_as(browser, server, table.tokens["ref"])
    try:
        await page.goto(f"{server.url}/battles/{table.battle_id}/replay?seq=4")
        await page.get_by_label("Seen as").select_option(label="ann (player)")
        await page.get_by_role("button", name="Show").click()
        await expect(page.locator("#replay-at")).to_have_text("After action #4 of 4, as ann saw it")
        assert page.url.endswith(f"?seq=4&as={ann}")
        await page.keyboard.press("ArrowLeft")
        await expect(page.locator("#replay-at")).to_have_text("After action #3 of 4, as ann saw it")
        assert page.url.endswith(f"?seq=3&as={ann}")
        await expect(page.get_by_label("Seen as")).to_have_value(ann)
        await page.locator(".replay-bar").screenshot(path=str(ROOT / "var" / "screenshot-replay-as.png"))
        await page.get_by_label("Seen as").select_option(label="Referee (everything)")
        await page.get_by_role("button", name="Show").click()
        await expect(page.locator("#replay-at")).to_have_text("After action #3 of 4")
    finally:
        await context.close()
