"""A destroyed Traveller section stays readable: the Hull and Structure labels on
its bars were white on the empty track's pale grey. Every bar label on the sheet must reach 4.5:1
against what is drawn under it — as chromium computes both colours — in the light and the dark
theme, at phone size (390 × 844), for a whole section, a damaged one and a destroyed one."""

from __future__ import annotations

import httpx
from playwright.async_api import Browser

from tests.browser.conftest import wait_until
from tests.conftest import Server
from tests.helpers import act, traveller_table

# Each label's own fill and the fill of the topmost bar rect under its first letters, as contrast.
CONTRAST = """
() => {
  const rgb = c => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
  const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  return [...document.querySelectorAll('svg.tr-bar text.tr-bar-label')].map(t => {
    const x = t.x.baseVal[0].value;
    const under = [...t.ownerSVGElement.querySelectorAll('rect')].filter(r => {
      const rx = r.x.baseVal.value, w = r.width.baseVal.value; return rx <= x + 1 && rx + w >= x + 20; }).pop();
    return {bar: t.ownerSVGElement.id, label: t.textContent,
            ratio: ratio(getComputedStyle(t).fill, getComputedStyle(under).fill)};
  });
}
"""


async def test_bar_labels_read_on_whole_damaged_and_destroyed_sections(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await traveller_table(c)
        ship = table.ships["arbellatra"]
        at = f"ships.{ship}.parts.hg_ship.sections"
        for path, value in (
            (f"{at}.0.hull", 0),
            (f"{at}.0.structure", 0),
            (f"{at}.0.destroyed", True),
            (f"{at}.1.hull", 1),
        ):
            r = await act(c, table, "ref", "override.set", {"path": path, "value": value, "reason": "test"})
            assert r.status_code == 200, r.text
    context = await browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = await context.new_page()
    try:
        await page.goto(f"{server.url}/join/{table.tokens['ann']}")
        await wait_until(page, "document.documentElement.dataset.live === 'connected'")
        assert await page.locator(".tr-section.tr-destroyed").count() == 1
        for scheme in ("light", "dark"):
            await page.emulate_media(color_scheme=scheme)
            found = await page.evaluate(CONTRAST)
            assert len(found) >= 6, found
            low = [f for f in found if f["ratio"] < 4.5]
            assert low == [], f"{scheme}: {low}"
    finally:
        await context.close()
