"""The ship library on the referee dashboard in a real browser, on a phone-sized page and
by keyboard: the referee saves a damaged ship of the battle as it is now, sees it in the library's
list and in the Add a ship list without a reload, then deletes it through the confirmation page.
Every page passes axe (no critical or serious violation); screenshots go to var/."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Browser, expect

from tests.browser.test_accessibility import FAILING, report, scan
from tests.browser.test_shadow_live import open_as
from tests.conftest import ROOT, Server
from tests.helpers import act, set_table, simple_ship

PHONE = 375
# Elements of the library section that reach past the right edge of the window (it must fit a phone).
WIDER_THAN_THE_PHONE = """Array.from(document.querySelectorAll('#ship-library *'))
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
  .map(e => e.tagName + ' ' + (e.textContent || '').trim().slice(0, 40))"""


@pytest.mark.browser
async def test_the_referee_saves_a_ship_from_the_battle_and_deletes_it(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "gull": (simple_ship("Gull"), "bob")}
        )
        hit = {"target": table.ships["gull"], "source": table.ships["hawk"], "amount": 7, "direction": "fore"}
        assert (await act(c, table, "ann", "damage.apply", hit)).status_code == 200
    context, page = await open_as(browser, server, table.tokens["ref"], width=PHONE)
    found: dict[str, list] = {}  # type: ignore[type-arg]
    try:
        section = page.locator("#ship-library")
        await section.locator("summary").focus()
        await page.keyboard.press("Enter")  # open the fold by keyboard
        await expect(section).to_have_attribute("open", "")
        form = page.locator("#library-save-ship")
        await form.locator("select[name='ship']").select_option(table.ships["gull"])
        await expect(form.locator("input[name='state'][value='now']")).to_be_checked()
        await form.locator("input[name='name']").fill("Gull (battered)")
        await form.locator("input[name='name']").press("Enter")  # submit from the keyboard
        await expect(page.locator("#flash .flash-info")).to_contain_text("Saved Gull (battered) as")
        saved = page.locator("#ship-library-list li", has_text="Gull (battered)")
        await expect(saved).to_be_visible()
        await expect(saved).to_contain_text("only you see it until this battle ends")
        slug = await saved.get_attribute("data-slug")
        assert slug and slug.startswith("gull-battered")
        options = page.locator("#add-ship-library option", has_text="Gull (battered)")
        await expect(options).to_have_count(1)  # the Add a ship list has it too, without a reload
        wide = await page.evaluate(WIDER_THAN_THE_PHONE)
        assert not wide, f"the library section is wider than a phone: {wide}"
        await saved.scroll_into_view_if_needed()
        await page.screenshot(path=str(ROOT / "var" / "ship-library-saved-phone.png"))
        await scan(page, "referee dashboard with the ship library", found)

        # The export link downloads the ship as it is now: the fore section took all 7 points.
        async with httpx.AsyncClient(base_url=server.url) as c:
            exported = await c.get(f"/api/v1/ships/{slug}", headers=table.auth("ref"))
        assert exported.status_code == 200
        fore = exported.json()["parts"]["sheet"]["sections"][1]
        assert (fore["armour"], fore["structure"]) == (0, 17)

        delete = saved.get_by_role("button", name="Delete Gull (battered)…")
        await delete.focus()
        await page.keyboard.press("Enter")
        await expect(page.locator("#confirm-title")).to_have_text(
            "Delete Gull (battered) from the ship library?"
        )
        yes = page.get_by_role("button", name="Yes, delete Gull (battered)")
        await expect(yes).to_be_focused()  # the one button, ready for Enter
        await page.screenshot(path=str(ROOT / "var" / "ship-library-confirm-phone.png"), full_page=True)
        await scan(page, "delete confirmation", found)
        await page.keyboard.press("Enter")
        await expect(page.locator("#flash")).to_contain_text("Deleted Gull (battered)")
        await expect(page.locator(f"#ship-library-list li[data-slug='{slug}']")).to_have_count(0)
        await expect(page.locator("#add-ship-library option", has_text="Gull (battered)")).to_have_count(0)
    finally:
        await context.close()
    counts, lines = report(found)
    print("\n".join(lines))
    assert not [k for k in counts if k[0] in FAILING], "\n".join(lines)
