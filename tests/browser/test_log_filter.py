"""The log's filter bar in chromium: a commander shows All, Mine or Enemy and finds by text; the bar
says how many entries it hides, and an entry that arrives live is filtered as it comes. Only the
entries the page holds are filtered (what the seat may not see never reached it)."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import wait_until
from tests.conftest import ROOT, Server
from tests.helpers import Table, act, set_table, simple_ship


async def shown(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The text of each log event the reader can see now, in order."""
    return await page.evaluate(
        "Array.from(document.querySelectorAll('#log-list .log-entry:not([hidden]) .log-event p'))"
        ".map(p => p.textContent.trim())"
    )


async def fought(server: Server, hits: list[tuple[str, str, int]]) -> Table:
    """Ann's Hawk and Bob's Crow, and the hits (source, target, amount) the referee enters."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        t = await set_table(
            c,
            ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow", structure=400), "bob")},
        )
        for source, target, amount in hits:
            r = await act(c, t, "ref", "damage.apply", {"source": source, "target": target, "amount": amount})
            assert r.status_code == 200, r.text
    return t


async def anns_page(browser: Browser, server: Server, t: Table) -> tuple[BrowserContext, Page]:
    """Ann's battle page in a browser of its own, live."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    await page.goto(f"{server.url}/join/{t.tokens['ann']}")
    await wait_until(page, "document.documentElement.dataset.live === 'connected'")
    return context, page


async def test_a_commander_filters_the_log_by_their_ships_and_by_text_live(
    browser: Browser, server: Server
) -> None:
    t = await fought(server, [("hawk", "crow", 9), ("crow", "hawk", 7)])
    context, page = await anns_page(browser, server, t)
    try:
        everything = await shown(page)
        assert len(everything) == 4, everything
        bar = page.get_by_role("search", name="Filter the log")
        await bar.get_by_role("button", name="Mine").click()
        assert await shown(page) == [everything[0], everything[3]]  # Hawk joins; Crow hits Hawk
        assert everything[3].startswith("Crow hits Hawk for 7")
        await expect(bar.locator(".log-filtered")).to_have_text("2 hidden by filter")
        await expect(bar.get_by_role("button", name="Mine")).to_have_attribute("aria-pressed", "true")
        await bar.get_by_role("button", name="Enemy").click()
        assert await shown(page) == [everything[1], everything[2]]  # Crow joins; Hawk hits Crow
        # An entry arriving live under the filter: about Hawk, so hidden here and counted.
        async with httpx.AsyncClient(base_url=server.url) as c:
            r = await act(c, t, "ref", "damage.apply", {"source": "crow", "target": "hawk", "amount": 5})
            assert r.status_code == 200, r.text
        await expect(bar.locator(".log-filtered")).to_have_text("3 hidden by filter")
        assert await shown(page) == [everything[1], everything[2]]
        await page.locator("section.log").screenshot(path=str(ROOT / "var" / "screenshot-log-filter.png"))
        await bar.get_by_role("button", name="All").click()
        await bar.get_by_label("Find").fill("hits hawk")
        found = await shown(page)
        assert [f.split(":")[0] for f in found] == ["Crow hits Hawk for 7", "Crow hits Hawk for 5"], found
        await expect(bar.locator(".log-filtered")).to_have_text("3 hidden by filter")
        await bar.get_by_label("Find").fill("")
        assert len(await shown(page)) == 5
        await expect(bar.locator(".log-filtered")).to_have_text("")
    finally:
        await context.close()


async def test_the_referee_and_a_spectator_get_find_but_no_mine_or_enemy(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        t = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
    for seat in ("ref", "watcher"):
        context = await browser.new_context()  # a browser of its own: one seat a browser
        try:
            page = await context.new_page()
            await page.goto(f"{server.url}/join/{t.tokens[seat]}")
            bar = page.get_by_role("search", name="Filter the log")
            await expect(bar.get_by_label("Find")).to_be_visible()
            await expect(bar.get_by_role("button", name="Mine")).to_have_count(0)
        finally:
            await context.close()


async def test_the_choice_holds_while_the_replay_steps(browser: Browser, server: Server) -> None:
    """The replay swaps its page in at each step (← →): the bar that comes with it keeps the reader's
    choice, and the step's entries are filtered by it."""
    t = await fought(server, [("hawk", "crow", 9), ("crow", "hawk", 9), ("hawk", "crow", 9)])
    context, page = await anns_page(browser, server, t)
    try:
        await page.goto(f"{server.url}/battles/{t.battle_id}/replay?seq=5")
        bar = page.get_by_role("search", name="Filter the log")
        await bar.get_by_role("button", name="Enemy").click()
        # Entries 1–5: Hawk joins, Crow joins, Hawk hits Crow, Crow hits Hawk, Hawk hits Crow.
        assert [s.split(" for ")[0] for s in await shown(page)] == [
            "Crow (Test frigate) joins the battle.",
            "Hawk hits Crow",
            "Hawk hits Crow",
        ]
        await page.locator("body").press("ArrowLeft")  # the replay at #4
        await page.locator('.replay[data-replay-seq="4"]').wait_for()
        bar = page.get_by_role("search", name="Filter the log")
        await expect(bar.get_by_role("button", name="Enemy")).to_have_attribute("aria-pressed", "true")
        assert [s.split(" for ")[0] for s in await shown(page)] == [
            "Crow (Test frigate) joins the battle.",
            "Hawk hits Crow",
        ]
        await expect(bar.locator(".log-filtered")).to_have_text("2 hidden by filter")
    finally:
        await context.close()


async def stamps(page) -> dict[int, str]:  # type: ignore[no-untyped-def]
    """Each entry's seq → its time stamp as the log prints it ("T1 Power")."""
    pairs = await page.evaluate(
        "Array.from(document.querySelectorAll('#log-list .log-entry'))"
        ".map(e => [Number(e.dataset.seq), e.querySelector('.log-clock').textContent.trim()])"
    )
    return {seq: stamp for seq, stamp in pairs}


async def shown_seqs(page) -> list[int]:  # type: ignore[no-untyped-def]
    return await page.evaluate(
        "Array.from(document.querySelectorAll('#log-list .log-entry:not([hidden])')).map(e => Number(e.dataset.seq))"
    )


async def test_the_turn_stepper_shows_one_turn_at_a_time_and_live_follows_the_battle(
    browser: Browser, server: Server
) -> None:
    """◀ Turn n ▶ Live (ux: the log's one-row control bar): ◀ from Live shows the turn before the
    latest, ▶ past the latest is Live again, ← → step while the list has focus, an entry arriving
    live in another turn is hidden and counted, and the replay (stepped by its own controls) has none."""
    t = await fought(server, [("hawk", "crow", 9)])
    async with httpx.AsyncClient(base_url=server.url) as c:
        for _ in range(4):  # B5 Wars: Ship Power, Movement, Combat, Adjust → turn 2's Ship Power
            r = await act(c, t, "ref", "clock.advance", {})
            assert r.status_code == 200, r.text
        r = await act(c, t, "ref", "damage.apply", {"source": "crow", "target": "hawk", "amount": 7})
        assert r.status_code == 200, r.text
    context, page = await anns_page(browser, server, t)
    try:
        printed = await stamps(page)
        turn = {n: [seq for seq, stamp in printed.items() if stamp.startswith(f"T{n} ")] for n in (1, 2)}
        assert turn[1] and turn[2] and sorted(turn[1] + turn[2]) == sorted(printed), printed
        bar = page.get_by_role("search", name="Filter the log")
        steps = bar.get_by_role("group", name="Turn shown")
        back, on = (
            steps.get_by_role("button", name="Previous turn"),
            steps.get_by_role("button", name="Next turn"),
        )
        live = steps.get_by_role("button", name="Live")
        await expect(steps.locator(".log-turn")).to_have_text("Turn 2")
        await expect(live).to_have_attribute("aria-pressed", "true")
        await expect(on).to_be_disabled()
        assert await shown_seqs(page) == sorted(printed)

        await back.click()  # from Live: the turn before the latest
        await expect(steps.locator(".log-turn")).to_have_text("Turn 1")
        assert await shown_seqs(page) == turn[1]
        await expect(bar.locator(".log-filtered")).to_have_text(f"{len(turn[2])} hidden by filter")
        await expect(back).to_be_disabled()
        await expect(live).to_have_attribute("aria-pressed", "false")
        await on.click()
        await expect(steps.locator(".log-turn")).to_have_text("Turn 2")
        assert await shown_seqs(page) == turn[2]
        await page.screenshot(path=str(ROOT / "var" / "screenshot-log-turns.png"))

        await page.locator("#log-list").focus()
        await page.keyboard.press("ArrowRight")  # past the latest turn: Live
        await expect(live).to_have_attribute("aria-pressed", "true")
        assert await shown_seqs(page) == sorted(printed)
        await page.keyboard.press("ArrowLeft")
        await expect(steps.locator(".log-turn")).to_have_text("Turn 1")
        assert await shown_seqs(page) == turn[1]

        # A hit arriving live is turn 2's: hidden while turn 1 is shown, and counted.
        async with httpx.AsyncClient(base_url=server.url) as c:
            r = await act(c, t, "ref", "damage.apply", {"source": "hawk", "target": "crow", "amount": 3})
            assert r.status_code == 200, r.text
        await expect(bar.locator(".log-filtered")).to_have_text(f"{len(turn[2]) + 1} hidden by filter")
        assert await shown_seqs(page) == turn[1]
        await live.click()
        await expect(bar.locator(".log-filtered")).to_have_text("")
        assert await shown_seqs(page) == [*sorted(printed), max(printed) + 1]

        await page.goto(f"{server.url}/battles/{t.battle_id}/replay?seq=3")
        await expect(page.get_by_role("search", name="Filter the log")).to_be_visible()
        await expect(page.get_by_role("group", name="Turn shown")).to_have_count(0)
    finally:
        await context.close()
