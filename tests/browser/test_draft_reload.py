"""Orders that cannot be lost (TR-26): a saved draft comes back into the form on another
device, Commit commits exactly what the form shows, and committing no orders asks first."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Browser, Dialog, Page, expect

from tests.browser.test_live_damage import open_as
from tests.conftest import Server
from tests.helpers import act, traveller_table

pytestmark = pytest.mark.browser

SCREENS = 'input[value=\'{"order": "screens_full"}\']'
ANGLE = 'input[value=\'{"order": "angle_max_effect"}\']'


def orders_form(page: Page, ship: str):  # type: ignore[no-untyped-def]
    return page.locator(f"form.tr-orders-form:has(input[name='p.ship'][value='{ship}'])")


async def round_of(c: httpx.AsyncClient, table, who: str, ship: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    state = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))).json()["state"]
    return state["ships"][ship]["parts"]["hg_ship"]["round"]


async def test_TR_26_a_saved_draft_survives_a_reload_and_is_what_gets_committed(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await traveller_table(c, dice_mode="physical", options={})
        laptop, ann = await open_as(browser, server, table.tokens["ann"])
        await expect(orders_form(ann, "arbellatra")).to_have_count(0)  # nothing to order yet: no dead end
        await expect(ann.locator("#orders-wait-arbellatra")).to_contain_text("referee rolls initiative")
        await laptop.close()
        r = await act(c, table, "ref", "traveller.initiative", {}, dice=[6, 6])  # high enough for any order
        assert r.status_code == 200, r.text
        laptop, ann = await open_as(browser, server, table.tokens["ann"])
        try:
            form = orders_form(ann, "arbellatra")
            await form.locator(SCREENS).check()
            await form.locator(ANGLE).check()
            await form.get_by_role("button", name="Save draft").click()
            await expect(ann.locator("#flash")).to_contain_text("draft")
            drafted = (await round_of(c, table, "ann", "arbellatra"))["drafts"]
            assert sorted(d["order"] for d in drafted) == ["angle_max_effect", "screens_full"]
        finally:
            await laptop.close()

        phone, ann = await open_as(browser, server, table.tokens["ann"], width=375)  # another device
        try:
            form = orders_form(ann, "arbellatra")
            await expect(form.locator(SCREENS)).to_be_checked()
            await expect(form.locator(ANGLE)).to_be_checked()
            await expect(form).to_contain_text("Your saved draft is ticked above")
            await form.locator(ANGLE).uncheck()  # what the form shows is what is committed
            await form.get_by_role("button", name="✓ Commit").click()
            await expect(ann.locator("#log-list")).to_contain_text(
                "Arbellatra commits its orders: Screens to Full! (cost"
            )
            committed = await round_of(c, table, "ann", "arbellatra")
            assert committed["committed"] and [o["order"] for o in committed["orders"]] == ["screens_full"]
        finally:
            await phone.close()


async def test_TR_26_committing_no_orders_asks_first(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await traveller_table(c, dice_mode="physical", options={})
        r = await act(c, table, "ref", "traveller.initiative", {}, dice=[6, 6])  # high enough for any order
        assert r.status_code == 200, r.text
        context, bob = await open_as(browser, server, table.tokens["bob"])
        try:
            asked: list[str] = []

            async def refuse(dialog: Dialog) -> None:
                asked.append(dialog.message)
                await dialog.dismiss()

            bob.once("dialog", refuse)
            commit = orders_form(bob, "dauntless").get_by_role("button", name="✓ Commit")
            await commit.click()
            assert asked == ["Commit no orders this round?"]
            assert not (await round_of(c, table, "bob", "dauntless"))["committed"]

            async def agree(dialog: Dialog) -> None:
                asked.append(dialog.message)
                await dialog.accept()

            bob.once("dialog", agree)
            await commit.click()
            await expect(bob.locator("#log-list")).to_contain_text("Dauntless commits its orders: no orders")
            assert len(asked) == 2 and (await round_of(c, table, "bob", "dauntless"))["committed"]
        finally:
            await context.close()
