"""The battle clock in the turn bar of a 390 × 844 phone: set by the referee over REST while the
page is open, it arrives live (no reload) with each waiting seat's time left, inside the viewport and
without widening the page, axe-clean with the ping settings; a pause shows on the bar live too. Waits are GEN-01's readiness."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser, expect

from tests.browser.conftest import phone_page
from tests.browser.test_accessibility import AXE_URL, FAILING, TAGS
from tests.conftest import Server
from tests.helpers import set_table, simple_ship

# axe-core on the clock and the ping settings only (the rest of the page has its own audit).
AXE_HERE = """async (tags) => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const r = await axe.run({include: [['#turn-clock'], ['#ping-settings']]},
                          {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}));
}"""

BOX = """() => {
  const el = document.getElementById('turn-clock');
  if (!el) return null;
  const r = el.getBoundingClientRect();
  const bar = document.getElementById('turnbar').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: innerWidth,
          scroll: document.documentElement.scrollWidth, bar: bar.height};
}"""


async def test_GEN_01_the_phone_turn_bar_shows_the_clock_live(browser: Browser, server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, options={}, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
        async with phone_page(browser, f"{server.url}/join/{table.tokens['ann']}") as (page, errors):
            await expect(page.locator("#turn-clock")).to_have_count(0)
            body = {"mode": "deadline", "step_seconds": 86400, "reminder_seconds": 3600}
            r = await c.put(f"/api/v1/battles/{table.battle_id}/clock", json=body, headers=table.auth("ref"))
            assert r.status_code == 200, r.text
            clock = page.locator("#turn-clock")
            await expect(clock).to_contain_text("⏱ Deadline", timeout=5000)
            await expect(clock.locator(".clock-seat.running")).to_have_count(2)
            await expect(clock.locator(".clock-seat").first).to_contain_text("ann 23 h 59 min")
            box = await page.evaluate(BOX)
            assert box is not None
            assert box["left"] >= 0 and box["right"] <= box["width"] + 0.5, box
            assert box["top"] >= 0 and box["bottom"] <= 844, box
            assert box["scroll"] <= box["width"], box  # the bar does not widen the page
            assert box["bar"] <= 64, box  # the phone's sticky top stays within its 64 px (54 measured)
            await page.add_script_tag(url=AXE_URL)
            found = await page.evaluate(AXE_HERE, TAGS)
            assert [v for v in found if v["impact"] in FAILING] == [], found
            r = await c.post(f"/api/v1/battles/{table.battle_id}/pause", headers=table.auth("ref"))
            assert r.status_code == 200, r.text
            await expect(clock).to_contain_text("⏸ Paused", timeout=5000)
            await expect(clock.locator(".clock-seat.running")).to_have_count(0)
            assert errors == []
