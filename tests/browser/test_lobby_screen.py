"""The lobby and the viewscreen in chromium, with browsers that hold no seat: the lobby lists a
battle looking for a player and live to watch, at desktop and phone (390 × 844) without horizontal
scroll; a stranger takes the open seat from it; the public watch page goes live over the battle's
socket and shows a hit without a reload; the viewscreen shows the map, the ships and the hit in its
ticker once its poll comes round, and a delay holds it back. axe finds nothing critical or serious
(light and dark). Screenshots in var/lobby-*.png and var/screen-*.png."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import Browser

from tests.browser.conftest import phone_page, wait_until
from tests.browser.test_accessibility import DARK_RULES, FAILING, report, scan
from tests.conftest import ROOT, Server
from tests.helpers import Table, act, set_table, ship_def
from tests.web.test_startrek_rest import advance, ok

pytestmark = pytest.mark.browser

SHIPS = {"excelsior": (ship_def("excelsior"), "kirk"), "shadow": (ship_def("shadow-cruiser"), "kosh")}
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


async def listed_battle(c: httpx.AsyncClient, **listing: Any) -> Table:
    table = await set_table(c, players=("kirk", "kosh"), ships=SHIPS)
    await advance(c, table)  # → Movement
    await ok(c, table, "kirk", "ship.move", {"ship": "excelsior", "position": {"hex": "0505", "facing": 1}})
    await ok(
        c, table, "kosh", "ship.move", {"ship": "shadow-cruiser", "position": {"hex": "0503", "facing": 4}}
    )
    body = {"claims": "first", "open_seats": [table.ids["kosh"]], "spectators": True, **listing}
    r = await c.put(f"/api/v1/battles/{table.battle_id}/listing", json=body, headers=table.auth("ref"))
    assert r.status_code == 200, r.text
    return table


async def scan_both(page: Any, label: str, found: dict[str, list]) -> None:  # type: ignore[type-arg]
    await page.emulate_media(color_scheme="light")
    await scan(page, label, found)
    await page.emulate_media(color_scheme="dark")
    await scan(page, f"{label} dark", found, DARK_RULES)
    await page.emulate_media(color_scheme="light")


async def test_the_lobby_the_watch_page_and_the_screen_for_strangers(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await listed_battle(c)
    bid = table.battle_id
    found: dict[str, list[Any]] = {}
    context = await browser.new_context()
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for size, (w, h) in SIZES.items():
            await page.set_viewport_size({"width": w, "height": h})
            await page.goto(f"{server.url}/lobby")
            entry = page.locator(f"#looking-{bid}")
            assert "Seat kosh — commands Shadow Cruiser" in " ".join((await entry.inner_text()).split())
            assert await page.locator(f"#live-{bid} a[href='/battles/{bid}/screen']").count() == 1
            wide = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert wide <= 0, f"lobby @{size}: {wide}px of horizontal scroll"
            await page.screenshot(path=str(ROOT / "var" / f"lobby-{size}.png"), full_page=True)
            await scan_both(page, f"lobby @{size}", found)

        # the public watch page: live over the socket, no seat
        await page.set_viewport_size({"width": 1280, "height": 800})
        await page.goto(f"{server.url}/battles/{bid}/watch")
        await wait_until(page, "document.documentElement.dataset.live === 'connected'")
        async with httpx.AsyncClient(base_url=server.url) as c:
            hit = {"target": "shadow-cruiser", "source": "excelsior", "amount": 7, "direction": "fore"}
            seq = (await ok(c, table, "kirk", "damage.apply", hit))["seq"]
        await wait_until(page, f"!!document.getElementById('log-{seq}')")
        await scan_both(page, "watch page", found)
        async with phone_page(browser, f"{server.url}/battles/{bid}/watch") as (phone, phone_errors):
            wide = await phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert wide <= 0 and not phone_errors, (wide, phone_errors)
            await phone.screenshot(path=str(ROOT / "var" / "watch-phone.png"))
            await scan_both(phone, "watch page @phone", found)

        # the viewscreen: its poll brings the hit into the ticker
        for size, (w, h) in SIZES.items():
            await page.set_viewport_size({"width": w, "height": h})
            await page.goto(f"{server.url}/battles/{bid}/screen")
            assert await page.locator("#map-board").count() == 1
            assert await page.locator(".screen-ship").count() == 2
            assert await page.locator("#screen form, #screen button").count() == 0
            await page.screenshot(path=str(ROOT / "var" / f"screen-{size}.png"), full_page=True)
            await scan_both(page, f"screen @{size}", found)
        shown = await page.locator("#screen").get_attribute("data-seq")
        async with httpx.AsyncClient(base_url=server.url) as c:
            again = (await ok(c, table, "kirk", "damage.apply", {**hit, "amount": 3}))["seq"]
        await wait_until(page, f"document.getElementById('screen').dataset.seq === '{again}'")
        assert int(shown or 0) < again
        ticker = await page.locator(".screen-ticker li").first.inner_text()
        assert "Shadow Cruiser" in ticker, ticker

        # a delay: the screen stays an action behind
        async with httpx.AsyncClient(base_url=server.url) as c:
            body = {
                "claims": "first",
                "open_seats": [table.ids["kosh"]],
                "spectators": True,
                "delay_actions": 1,
            }
            r = await c.put(f"/api/v1/battles/{bid}/listing", json=body, headers=table.auth("ref"))
            assert r.status_code == 200
            last = (await act(c, table, "ref", "clock.advance", {})).json()["seq"]
        await wait_until(
            page, "document.getElementById('screen-delay').textContent.includes('1 action behind')"
        )
        assert await page.locator("#screen").get_attribute("data-seq") == str(last - 1)

        # a stranger takes the open seat from the lobby
        await page.goto(f"{server.url}/lobby")
        form = page.locator(f"#looking-{bid} form.lobby-claim-form")
        await form.locator("input[name=name]").fill("Zed")
        await form.locator("button[type=submit]").click()
        await page.wait_for_url(f"{server.url}/battles/{bid}")
        assert "Zed" in await page.locator("header.site .role").inner_text()
        assert not errors, errors
    finally:
        await context.close()
    counts, lines = report(found)
    print(f"\n[axe] {len(found)} lobby and screen scans:", dict(counts) or "no violations", *lines, sep="\n")
    failing = [line for line in lines if any(f"[{i}]" in line for i in FAILING)]
    assert not failing, "\n".join(failing)
