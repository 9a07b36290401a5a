"""In a real browser: a value the server refuses marks its field — the damage box gets
aria-invalid="true", the message in the user's words next to it (its label's name, aria-describedby)
and the focus; submitting again clears it."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.test_shadow_live import open_as
from tests.conftest import Server
from tests.helpers import set_table, simple_ship


async def test_a_refused_value_marks_its_field(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
    context, page = await open_as(browser, server, table.tokens["ann"])
    try:
        amount = page.locator("#damage-form input[name='p.amount']")
        # An old or hand-edited page: the box no longer says min=1, the server still does.
        await page.evaluate(
            "document.querySelector(\"#damage-form input[name='p.amount']\").removeAttribute('min')"
        )
        await page.select_option("#damage-form select[name='p.target']", "crow")
        await amount.fill("0")
        await page.click("#damage-form button[type=submit]")
        await expect(page.locator("#flash .flash-error")).to_contain_text(
            "amount: must be at least 1 (you sent 0)"
        )
        await expect(amount).to_have_attribute("aria-invalid", "true")
        note = page.locator("#damage-form .field-error")
        await expect(note).to_have_text("Damage: must be at least 1 (you sent 0)")
        described = await amount.get_attribute("aria-describedby")
        assert described and await note.get_attribute("id") in described.split()
        assert await page.evaluate("document.activeElement.name") == "p.amount"
        await amount.fill("3")
        await page.click("#damage-form button[type=submit]")
        await expect(page.locator("#flash .flash-info")).to_contain_text("Hawk hits Crow for 3")
        assert await amount.get_attribute("aria-invalid") is None
        assert await page.locator("#damage-form .field-error").count() == 0
    finally:
        await context.close()
