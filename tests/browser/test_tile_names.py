"""Sheet tiles name their systems whole: every sample ship's system names are
drawn in whole words on the tile, none cut with "…", and every line fits inside its tile as
chromium measures it — at phone size (390 × 844) on the referee's page, which draws every sheet."""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.async_api import Browser

from app.services.library.samples import library as samples
from tests.browser.conftest import wait_until
from tests.conftest import Server
from tests.helpers import set_table

MEASURE = """
() => [...document.querySelectorAll('.sheet g.sys')].map(g => ({
  title: g.querySelector('title').textContent.split(':')[0],
  lines: [...g.querySelectorAll('text.tile-name')].map(t => t.textContent),
  widths: [...g.querySelectorAll('text.tile-name')].map(t => t.getBBox().width),
  tile: g.querySelector('rect.tile').getBBox().width,
}))
"""


async def test_every_sample_systems_name_is_whole_and_fits_its_tile(browser: Browser, server: Server) -> None:
    ships = {slug: (dict(d), None) for slug, d in samples().items() if "sheet" in d["parts"]}
    assert len(ships) >= 7  # the Shadow, Federation and Star Trek samples
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, players=(), ships=ships)
    context = await browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = await context.new_page()
    try:
        await page.goto(f"{server.url}/join/{table.tokens['ref']}")
        await wait_until(page, "document.documentElement.dataset.live === 'connected'")
        tiles = await page.evaluate(MEASURE)
        names = {
            s["name"]
            for d, _ in ships.values()
            for sec in d["parts"]["sheet"]["sections"]
            for s in sec.get("systems", [])
        }
        assert {t["title"] for t in tiles} == names
        wrong = [
            t
            for t in tiles
            if " ".join(t["lines"]) != t["title"]
            or any("…" in line for line in t["lines"])
            or any(w > t["tile"] - 2 for w in t["widths"])
        ]
        assert wrong == []
        var = Path(__file__).resolve().parents[2] / "var"
        var.mkdir(exist_ok=True)
        await page.evaluate("document.querySelectorAll('#ships details').forEach(d => { d.open = true; })")
        await page.locator(".sheet figure.section").nth(1).screenshot(path=str(var / "tile-names-phone.png"))
    finally:
        await context.close()
