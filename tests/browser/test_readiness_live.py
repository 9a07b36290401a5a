"""Three browsers — two commanders and a spectator — play a whole turn of each ruleset driven only by
readiness: nobody clicks the clock. At every step the waiting-on list is right on every page, "your
move" (and the tab title's marker) shows only for those the step waits on, and the step ends by
itself on every page when the last one is done."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, Page, expect

from tests.browser.test_live_damage import open_as
from tests.conftest import Server
from tests.helpers import act, set_table, ship_def, simple_ship


async def step_is(pages: list[Page], label: str) -> None:
    for page in pages:
        await expect(page.locator("#turnbar-steps li.current")).to_contain_text(label, timeout=5000)


async def waiting(pages: list[Page], text: str) -> None:
    for page in pages:
        await expect(page.locator("#waiting-on")).to_contain_text(text, timeout=5000)


async def your_move(page: Page, yes: bool) -> None:
    await expect(page.locator("#turnbar")).to_have_attribute(
        "data-your-move", "yes" if yes else "no", timeout=5000
    )
    title = await page.title()
    assert title.startswith("● Your move") == yes, title


async def both_done(ann: Page, bob: Page, everyone: list[Page], next_label: str) -> None:
    await your_move(ann, True)
    await your_move(bob, True)
    await ann.click("#ready-button")
    await waiting(everyone, "ann ✓")
    await your_move(ann, False)
    await your_move(bob, True)
    await expect(everyone[2].locator(".your-move")).to_have_count(0)
    await bob.click("#ready-button")
    await step_is(everyone, next_label)


async def three(browser: Browser, server: Server, table) -> tuple[list, list[Page]]:  # type: ignore[no-untyped-def]
    opened = [await open_as(browser, server, table.tokens[who]) for who in ("ann", "bob", "watcher")]
    return [c for c, _ in opened], [p for _, p in opened]


async def test_GEN_01_a_b5wars_turn_by_readiness_in_three_browsers(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}, options={}
        )
    contexts, pages = await three(browser, server, table)
    ann, bob, watcher = pages
    try:
        await waiting(pages, "Waiting on: ann, bob")
        await expect(watcher.locator("#ready-button")).to_have_count(0)
        await expect(ann.locator("#advance-clock")).to_have_count(0)  # not while Bob is pending
        await both_done(ann, bob, pages, "Movement")
        await both_done(ann, bob, pages, "Combat")
        await ann.select_option("#damage-form select[name='p.target']", "crow")
        await ann.fill("#damage-form input[name='p.amount']", "6")
        await ann.click("#damage-form button[type=submit]")
        await expect(bob.locator("#log-list")).to_contain_text("Hawk hits Crow for 6")
        # The form clears after a success: a second Enter does not send the hit again.
        await expect(ann.locator("#damage-form input[name='p.amount']")).to_have_value("")
        # A player's target list leaves out their own ships; the ship's owner credits the firer.
        assert await ann.locator("#damage-form select[name='p.target'] option").all_inner_texts() == ["Crow"]
        await expect(bob.locator("#damage-taken-form select[name='p.source']")).to_contain_text("Hawk")
        await both_done(ann, bob, pages, "Adjust Ship Systems")
        await both_done(ann, bob, pages, "Ship Power")
        for page in pages:
            await expect(page.locator("#turnbar-steps")).to_contain_text("T2")
    finally:
        for ctx in contexts:
            await ctx.close()


async def test_GEN_01_SH_03_an_sfb_turn_by_readiness_and_skips(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {"ker": (ship_def("shadow-cruiser"), "bob"), "hawk": (simple_ship("Hawk", "sfb"), "ann")}
        table = await set_table(c, system="sfb", ships=ships, options={})
    contexts, pages = await three(browser, server, table)
    ann, bob, watcher = pages
    try:
        await both_done(ann, bob, pages, "Impulse")
        await ann.click("#skip-button")  # done until the end of the impulses
        await waiting(pages, "ann ✓")
        await your_move(ann, False)
        await bob.click("#skip-button")
        await step_is(pages, "End of turn")
        await expect(watcher.locator("#log-list")).to_contain_text("pass quietly")
        await both_done(ann, bob, pages, "Energy Allocation")
    finally:
        for ctx in contexts:
            await ctx.close()


async def test_TR_04_TR_26_a_traveller_round_by_readiness(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {
            "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
            "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
        }
        table = await set_table(c, system="traveller", ships=ships, options={})
        r = await act(c, table, "ref", "traveller.initiative", {})  # the referee rolls; no clock click
        assert r.status_code == 200, r.text
    contexts, pages = await three(browser, server, table)
    ann, bob, watcher = pages
    try:
        await both_done(ann, bob, pages, "Manoeuvre")  # done = commit the (empty) draft; reveal follows
        await expect(watcher.locator("#log-list")).to_contain_text("orders revealed")
        await both_done(ann, bob, pages, "Combat")
        # The loop waits on the ship with initiative only; "done" passes it (TR-04).
        await expect(watcher.locator("#turn-order strong")).to_contain_text("▶")
        arbellatra_first = "Arbellatra" in await watcher.locator("#turn-order strong").inner_text()
        first, second = (ann, bob) if arbellatra_first else (bob, ann)
        await your_move(first, True)
        await your_move(second, False)
        await expect(watcher.locator("#turn-order")).to_contain_text("▶")
        await first.click("#ready-button")
        await your_move(second, True)
        await second.click("#ready-button")
        await step_is(pages, "Ship action")
        await both_done(ann, bob, pages, "End of round")
        await both_done(ann, bob, pages, "Orders")
    finally:
        for ctx in contexts:
            await ctx.close()
