"""The answer to a form never covers the log's newest lines: the message floats at
the foot of the screen, and when the log is read there it moves up under the sticky bar. At phone
size (390 × 844), with the log's foot at the foot of the screen."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import phone_page, wait_until
from tests.conftest import Server
from tests.helpers import act, set_table, simple_ship

COVERED = """
() => {
  const newest = document.getElementById('log-list').lastElementChild.getBoundingClientRect();
  const msg = document.querySelector('#flash .flash').getBoundingClientRect();
  return newest.left < msg.right && msg.left < newest.right && newest.top < msg.bottom && msg.top < newest.bottom;
}
"""


async def test_the_message_moves_off_the_logs_newest_line(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        table = await set_table(c, ships=ships)
        for amount in range(1, 7):  # a log long enough to fill its list
            hit = {"target": "crow", "source": "hawk", "amount": amount, "direction": "fore"}
            assert (await act(c, table, "ann", "damage.apply", hit)).status_code == 200
    async with phone_page(browser, f"{server.url}/join/{table.tokens['ann']}") as (page, errors):
        # The log's foot at the foot of the screen, where the message floats.
        await page.evaluate("document.getElementById('log-list').scrollIntoView({block: 'end'})")
        await page.evaluate("window.scrollBy(0, 60)")  # past the foot bar, if the page has one
        await page.evaluate("document.getElementById('log-list').scrollIntoView({block: 'end'})")
        form = page.locator("#damage-form")
        await form.locator("input[name='p.amount']").fill("2")
        await form.evaluate("f => f.requestSubmit()")  # sent without scrolling the page to the form
        await expect(page.locator("#flash .flash")).to_be_visible(timeout=5000)
        await expect(page.locator("#log-list li").last).to_contain_text("Hawk hits Crow for 2", timeout=5000)
        await page.evaluate("document.getElementById('log-list').scrollIntoView({block: 'end'})")
        await wait_until(page, f"!({COVERED})()", timeout=3000)  # well before an info message fades (8 s)
        assert await page.evaluate(COVERED) is False
        assert errors == []
