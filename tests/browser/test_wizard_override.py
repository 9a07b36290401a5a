"""In chromium: a referee creates a battle through the wizard (3 players, a bot seat and a
spectator, each ship given its commander on the way), copies a player's link with the keyboard,
opens that player's page with it, corrects a shield by picking it (⚑ on the player's page, without
a reload: var/override-flag.png), then undoes twice and watches two real actions go back (the override, then the last ship added). Every
error shown names its field; the wizard and links pages pass axe on desktop and a 375 px phone."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Page, expect

from tests.browser.conftest import wait_until
from tests.browser.test_accessibility import report, scan
from tests.browser.test_shadow_live import open_as
from tests.conftest import ROOT, Server
from tests.helpers import act, set_table, ship_def, simple_ship

VAR = ROOT / "var"
PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 900}


async def _errors_name_their_fields(page: Page) -> list[str]:
    """Every field message on the page starts with its field's own label, and its control says it
    is invalid and points at it."""
    notes = await page.evaluate(
        """Array.from(document.querySelectorAll('.field-error')).map(n => {
             const control = document.querySelector(`[aria-describedby~="${n.id}"]`);
             const label = control && control.closest('label');
             return {text: n.textContent.trim(), invalid: control && control.getAttribute('aria-invalid'),
                     label: label ? label.firstChild.textContent.trim() : null};
           })"""
    )
    assert notes, "no field message shown"
    for note in notes:
        assert note["invalid"] == "true" and note["label"], note
        assert note["text"].startswith(note["label"] + ":"), note
    return [n["text"] for n in notes]


async def _shot(page: Page, name: str, size: dict[str, int] | None = None) -> Path:
    if size:
        await page.set_viewport_size(size)
    path = VAR / name
    await page.screenshot(path=str(path), full_page=True)
    return path


@pytest.mark.browser
async def test_wizard_then_override_by_picking_then_undo_twice(browser: Browser, server: Server) -> None:
    found: dict[str, list] = {}  # type: ignore[type-arg]
    ref_ctx = await browser.new_context(viewport=DESKTOP)
    await ref_ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    ref = await ref_ctx.new_page()
    kirk_ctx = None
    try:
        await ref.goto(server.url + "/")
        wizard = ref.locator("#wizard")
        await expect(wizard.locator("#seat-limit")).to_contain_text("Up to 32 seats")
        await ref.check("#wizard input[name=system][value=b5wars]")
        await expect(ref.locator("#library-traveller")).to_be_hidden()  # only the system's ships
        await expect(ref.locator("#library-b5wars")).to_be_visible()
        await ref.fill("#wizard textarea[name=players]", "Kirk\nKosh\nTomalak")
        await ref.fill("#wizard textarea[name=bots]", "Autopilot")
        await expect(ref.locator("#seat-count")).to_have_text("6 of 32 seats, yours included.")
        for slug, who in (("excelsior", "Kirk"), ("shadow-cruiser", "Kosh"), ("romulan-warbird", "Tomalak")):
            await ref.check(f"#library-b5wars input[name=ships][value={slug}]")
            await ref.select_option(f"#library-b5wars select[name='commander.{slug}']", who)  # the seats
        await _shot(ref, "wizard-desktop.png")
        await scan(ref, "wizard @desktop", found)
        await ref.set_viewport_size(PHONE)
        await scan(ref, "wizard @phone", found)
        await _shot(ref, "wizard-phone.png")
        await ref.locator("#wizard-ships").screenshot(path=str(VAR / "wizard-phone-ships.png"))
        await ref.set_viewport_size(DESKTOP)

        # Refused: no name. The form comes back as typed, the field marked and named, focused.
        await ref.click("#wizard button[type=submit]")
        await expect(ref.locator("#error-name")).to_have_text(
            "Battle name: a battle needs a name of 1 to 120 characters"
        )
        assert await _errors_name_their_fields(ref) == [
            "Battle name: a battle needs a name of 1 to 120 characters"
        ]
        assert await ref.evaluate("document.activeElement.name") == "name"
        assert await ref.input_value("#library-b5wars select[name='commander.excelsior']") == "Kirk"
        await ref.fill("#wizard input[name=name]", "Wizard night")
        await ref.click("#wizard button[type=submit]")

        # The links page: every seat, the bot's and the spectator's included; copy with the keyboard.
        await expect(ref.locator("#links-title")).to_have_text("Wizard night is ready")
        rows = ref.locator(".link-row")
        await expect(rows).to_have_count(5)
        for who in ("Kirk", "Kosh", "Tomalak", "Autopilot", "Spectators"):
            await expect(ref.locator(".link-row", has_text=who)).to_have_count(1)
        await expect(ref.locator(".link-row", has_text="Kirk")).to_contain_text("commands Excelsior")
        copy = ref.get_by_role("button", name="Copy Kirk's link")
        await copy.focus()
        await ref.keyboard.press("Enter")
        status = ref.locator(".link-row", has_text="Kirk").locator(".copied")
        await expect(status).to_have_text("✓ Copied")
        await expect(copy).to_have_class("copy small is-copied")
        link = await ref.evaluate("navigator.clipboard.readText()")
        assert link == await ref.locator(".link-row", has_text="Kirk").locator("input").input_value()
        await scan(ref, "links @desktop", found)
        await _shot(ref, "wizard-links-desktop.png")
        await ref.set_viewport_size(PHONE)
        await scan(ref, "links @phone", found)
        await ref.screenshot(path=str(VAR / "wizard-links-phone.png"))
        await ref.set_viewport_size(DESKTOP)
        await ref.click("#links-dismiss")
        await expect(ref.locator("header.site .role")).to_have_text("Referee dashboard")

        # Kirk opens the copied link (its fragment, on this test server).
        kirk_ctx = await browser.new_context(viewport=DESKTOP)
        kirk = await kirk_ctx.new_page()
        await kirk.goto(server.url + "/join#" + link.split("#", 1)[1])
        await wait_until(kirk, "document.documentElement.dataset.live === 'connected'", timeout=15000)
        await expect(kirk.locator("#my-ships")).to_contain_text("Excelsior")
        # The ships were added in the library's order: Excelsior (#1), Haakona (#2), Shadow Cruiser (#3).
        await expect(kirk.locator("#other-ships h3")).to_have_text(["Haakona", "Shadow Cruiser"])

        # The referee picks Excelsior's fore shield: its own number box (0 to 40) appears.
        await wait_until(ref, "document.documentElement.dataset.live === 'connected'", timeout=15000)
        await ref.click("#override-picker > summary")
        ship = ref.locator("details.override-ship", has_text="Excelsior")
        await ship.locator("summary").click()
        pick = ship.get_by_role("radio", name="Fore shield: 40")
        await pick.check()
        box = ship.get_by_role("spinbutton", name="Fore shield")
        await expect(box).to_be_visible()
        assert await box.get_attribute("min") == "0" and await box.get_attribute("max") == "40"
        await expect(ship.get_by_role("spinbutton", name="Aft shield")).to_be_hidden()
        await pick.scroll_into_view_if_needed()
        await ref.screenshot(path=str(VAR / "override-picker.png"))
        await ref.set_viewport_size(PHONE)
        await pick.scroll_into_view_if_needed()
        await ref.screenshot(path=str(VAR / "override-picker-phone.png"))
        await ref.set_viewport_size(DESKTOP)
        # Past the range, with the browser's own check taken away: the server refuses it, naming it.
        await box.evaluate("el => el.removeAttribute('max')")
        await box.fill("41")
        await ship.get_by_label("Reason (goes in the log)").fill("misread the hit")
        await ship.get_by_role("button", name="Set the value on Excelsior").click()
        await expect(ref.locator("#flash .flash-error")).to_contain_text(
            "Fore shield: must be 0 to 40 (you sent 41)"
        )
        await expect(box).to_have_attribute("aria-invalid", "true")
        assert await _errors_name_their_fields(ref) == ["Fore shield: must be 0 to 40 (you sent 41)"]
        await box.fill("32")
        await ship.get_by_role("button", name="Set the value on Excelsior").click()
        await expect(ref.locator("#flash .flash-info")).to_contain_text(
            "⚠ OVERRIDE (Referee): Excelsior — Fore shield: 40 → 32 — “misread the hit”"
        )

        # Kirk's page shows it with the ⚑, without a reload.
        flag = kirk.locator("#my-ships [data-flag-value='32']")
        await expect(flag).to_be_visible()
        await expect(kirk.locator("#my-ships .flags")).to_contain_text(
            "Fore shield: 32 (was 40; set by the referee: “misread the hit”)"
        )
        card = kirk.locator("#my-ships article.ship").first
        # The whole card, with its ⚑ list and its shields, as on a page taller than the window (an
        # element shot scrolls it under the sticky turn bar).
        box = await card.evaluate(
            "el => { const r = el.getBoundingClientRect(); return [r.x, r.y + scrollY, r.width, r.height]; }"
        )
        clip = dict(zip(("x", "y", "width", "height"), box, strict=True))
        await kirk.screenshot(path=str(VAR / "override-flag.png"), full_page=True, clip=clip)
        await kirk.set_viewport_size(PHONE)
        await card.locator(".flags").screenshot(path=str(VAR / "override-flag-phone-list.png"))
        await card.locator(".st-shields").screenshot(path=str(VAR / "override-flag-phone.png"))
        await kirk.set_viewport_size(DESKTOP)

        # Undo twice: the override, then the last ship added (Shadow Cruiser) — two real actions back.
        for undone, line in ((4, "action 4 (override.set) is undone"), (3, "action 3 (ship.add) is undone")):
            undo = ref.locator("#referee-state details.action", has=ref.locator("#undo-form"))
            if await undo.get_attribute("open") is None:
                await undo.locator("summary").click()
            await expect(ref.locator("#undo-form button[type=submit]")).to_have_text(f"Undo #{undone}")
            await ref.fill("#undo-form input[name='p.reason']", "table ruling")
            await ref.click("#undo-form button[type=submit]")
            await expect(ref.locator("#log-list")).to_contain_text(line)
        await expect(kirk.locator("#my-ships [data-flag-value]")).to_have_count(0)
        await expect(kirk.locator("#my-ships .flags")).to_have_count(0)
        await expect(kirk.locator("#my-ships .st-legend")).to_contain_text("Fore 40/40")
        await expect(kirk.locator("#other-ships h3")).to_have_text(["Haakona"])  # ship #3 is gone
        await expect(ref.locator("#undo-form button[type=submit]")).to_have_text("Undo #2")
    finally:
        if kirk_ctx is not None:
            await kirk_ctx.close()
        await ref_ctx.close()
    counts, lines = report(found)
    bad = {k: n for k, n in counts.items() if k[0] in ("critical", "serious")}
    assert not bad, "\n".join(lines)


def _fore(target: str, source: str, amount: int) -> dict[str, object]:
    """A damage entry in the target's fore arc."""
    return {"target": target, "source": source, "amount": amount, "direction": "fore"}


@pytest.mark.browser
async def test_a_live_update_keeps_the_referees_pick_and_no_javascript_still_creates(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c, ships={"ex": (ship_def("excelsior"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
        ctx, ref = await open_as(browser, server, table.tokens["ref"])
        try:
            await ref.click("#override-picker > summary")
            ship = ref.locator("details.override-ship", has_text="Excelsior")
            await ship.locator("summary").click()
            await ship.get_by_role("radio", name="Fore shield: 40").check()
            await ship.get_by_role("spinbutton", name="Fore shield").fill("25")
            seq = await ref.evaluate("document.getElementById('turnbar').dataset.seq")
            hit = _fore(table.ships["crow"], table.ships["ex"], 3)
            assert (await act(c, table, "ann", "damage.apply", hit)).status_code == 200
            await wait_until(ref, f"document.getElementById('turnbar').dataset.seq !== '{seq}'")
            # The morph brought the new state but left the referee's pick and typing alone.
            await expect(ship.get_by_role("radio", name="Fore shield: 40")).to_be_checked()
            await expect(ship.get_by_role("spinbutton", name="Fore shield")).to_have_value("25")
            # A hit on the open ship itself: its values are fetched again (the frame carries only
            # their version). ST-06: 3 points in the fore arc fill the fore shield first, 40 → 37.
            hit = _fore(table.ships["ex"], table.ships["crow"], 3)
            assert (await act(c, table, "bob", "damage.apply", hit)).status_code == 200
            await expect(ship.get_by_role("radio", name="Fore shield: 37")).to_be_checked()
            await expect(ship.get_by_role("spinbutton", name="Fore shield")).to_have_value("25")
            shell = await ship.element_handle()
            assert await ref.evaluate(
                "s => s.dataset.values === s.querySelector('.override-shown').dataset.values", shell
            )
            # Closed, it keeps what it shows until it is opened again: then the values are fetched.
            await ship.locator("summary").click()
            seq = await ref.evaluate("document.getElementById('turnbar').dataset.seq")
            hit["amount"] = 2  # 37 → 35
            assert (await act(c, table, "bob", "damage.apply", hit)).status_code == 200
            await wait_until(ref, f"document.getElementById('turnbar').dataset.seq !== '{seq}'")
            assert await ref.evaluate(
                "s => s.dataset.values !== s.querySelector('.override-shown').dataset.values", shell
            )
            await ship.locator("summary").click()
            await expect(ship.get_by_role("radio", name="Fore shield: 35")).to_be_visible()
        finally:
            await ctx.close()
    # Without JavaScript: every system's ships listed, commanders typed, the same links page.
    plain = await browser.new_context(java_script_enabled=False, viewport=PHONE)
    try:
        page = await plain.new_page()
        await page.goto(server.url + "/")
        await page.fill("#wizard input[name=name]", "No script")
        await page.fill("#wizard textarea[name=players]", "Ann")
        await expect(page.locator("#library-traveller")).to_be_visible()
        await page.check("#library-b5wars input[name=ships][value=excelsior]")
        await page.fill("#library-b5wars input[name='commander.excelsior']", "ann")
        await page.click("#wizard button[type=submit]")  # still on the first system, SFB: refused
        await expect(page.locator("#error-ships")).to_contain_text(
            "Ships from the library: 'excelsior' is not in the Star Fleet Battles (impulses) library"
        )
        await page.check("#wizard input[name=system][value=b5wars]")
        await page.click("#wizard button[type=submit]")
        await expect(page.locator("#links-title")).to_have_text("No script is ready")
        await expect(page.locator(".link-row", has_text="Ann")).to_contain_text("commands Excelsior")
        await expect(page.locator(".link-row", has_text="Spectators")).to_have_count(1)
    finally:
        await plain.close()
