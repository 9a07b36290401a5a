"""The campaign dashboard and a fleet page in chromium, at desktop (1366×900) and phone (390×844):
a referee's browser seated by its campaign link adds a side and a ship with the forms (a tap on the
phone), starts a battle from the fleets and is shown its links; between the second and third
battles it retires the ship the second destroyed, refits another by a ruling and starts the third —
three battles, each brought home; the fleet page draws each ship's
record as an SVG chart with its title and desc; no page scrolls sideways on the phone; axe finds
nothing critical or serious, light or dark."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, expect

from tests.browser.test_accessibility import DARK_RULES, FAILING, report, scan
from tests.conftest import Server
from tests.helpers import eventually, simple_ship

pytestmark = pytest.mark.browser

PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


async def _campaign(server: Server) -> dict[str, Any]:
    """A B5 Wars campaign with a battle fought and brought home, made over REST as a bot would."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        r = await c.post(
            "/api/v1/campaigns",
            json={"name": "Border war", "system": "b5wars", "sides": ["Federation", "Romulan"]},
        )
        assert r.status_code == 201, r.text
        cid, ref = r.json()["campaign_id"], r.json()["referee"]["token"]
        auth = {"Authorization": f"Bearer {ref}"}
        for side, name in (("Federation", "Hawk"), ("Romulan", "Crow")):
            r = await c.post(
                f"/api/v1/campaigns/{cid}/ships",
                json={"side": side, "definition": simple_ship(name), "points": 90},
                headers=auth,
            )
            assert r.status_code == 201, r.text
        r = await c.post(
            f"/api/v1/campaigns/{cid}/battles", json={"name": "Skirmish", "ships": ["s1", "s2"]}, headers=auth
        )
        assert r.status_code == 201, r.text
        battle, bref = r.json()["battle_id"], r.json()["seats"][0]["token"]
        for type_, payload in (
            ("damage.apply", {"target": "crow", "source": "hawk", "amount": 9}),
            ("battle.end", {"reason": "withdrawn"}),
        ):
            body = {"type": type_, "payload": payload, "action_id": uuid.uuid4().hex}
            r = await c.post(
                f"/api/v1/battles/{battle}/actions", json=body, headers={"Authorization": f"Bearer {bref}"}
            )
            assert r.status_code == 200, r.text

        async def home() -> bool:
            view = (await c.get(f"/api/v1/campaigns/{cid}", headers=auth)).json()
            return view["battles"][0]["status"] == "recorded"

        await eventually(home, what="the battle's result at home in the campaign")
    return {"id": cid, "ref": ref}


async def _fight_to_the_end(
    server: Server, camp: dict[str, Any], referee: str, target: str, amount: int
) -> None:
    """At the battle's table, as its referee's bot: Hawk hits `target`, the battle ends, and its
    result comes home to the campaign."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        auth = {"Authorization": f"Bearer {camp['ref']}"}
        running = [
            b["id"]
            for b in (await c.get(f"/api/v1/campaigns/{camp['id']}", headers=auth)).json()["battles"]
            if b["status"] == "running"
        ]
        assert len(running) == 1, running
        for type_, payload in (
            ("damage.apply", {"target": target, "source": "hawk", "amount": amount}),
            ("battle.end", {"reason": "the fight is over"}),
        ):
            body = {"type": type_, "payload": payload, "action_id": uuid.uuid4().hex}
            r = await c.post(
                f"/api/v1/battles/{running[0]}/actions",
                json=body,
                headers={"Authorization": f"Bearer {referee}"},
            )
            assert r.status_code == 200, r.text

        async def home() -> bool:
            view = (await c.get(f"/api/v1/campaigns/{camp['id']}", headers=auth)).json()
            return all(b["status"] == "recorded" for b in view["battles"])

        await eventually(home, what="the battle's result at home in the campaign")


async def test_the_campaign_dashboard_and_fleet_page_at_desktop_and_phone(
    browser: Browser, server: Server
) -> None:
    camp = await _campaign(server)
    found: dict[str, list] = {}  # type: ignore[type-arg]
    for size, options in (("desktop", {"viewport": {"width": 1366, "height": 900}}), ("phone", PHONE)):
        context = await browser.new_context(**options)
        page = await context.new_page()
        try:
            await page.goto(f"{server.url}/campaigns")  # start, import, the campaigns held
            assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), size
            await scan(page, f"campaigns @{size}", found)
            await page.goto(f"{server.url}/campaigns/join/{camp['ref']}")
            await expect(page.locator("h1")).to_have_text("Border war")
            # A side added with the form: tapped on the phone, clicked on the desktop.
            side = f"Klingon {size}"
            await page.get_by_label("New side").fill(side)
            button = page.get_by_role("button", name="Add side")
            await (button.tap() if size == "phone" else button.click())
            await expect(page.locator("#fleets-title ~ h3", has_text=side)).to_be_visible()
            # A ship from the library, with its point value.
            form = page.locator("form[action$='/ships']")
            await form.get_by_label("Side").select_option("Federation")
            await form.get_by_label("From the library").select_option("excelsior")
            await form.get_by_label("Point value (optional)").fill("200")
            await form.get_by_role("button", name="Add ship").click()
            await expect(page.locator("table.fleet").first).to_contain_text("Excelsior")
            assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), size
            await scan(page, f"dashboard @{size}", found)
            await page.emulate_media(color_scheme="dark")
            await scan(page, f"dashboard @{size} dark", found, DARK_RULES)
            await page.emulate_media(color_scheme="light")
            # The fleet page: the record of the battle brought home, charted.
            await page.goto(f"{server.url}/campaigns/{camp['id']}/fleets/Romulan")
            chart = page.locator("figure.report-chart svg[role=img]")
            await expect(chart).to_have_count(1)
            assert (
                await chart.locator("title").first.text_content()
                == "Crow: damage taken and dealt, battle by battle"
            )
            await expect(page.locator(".ship-history")).to_contain_text("took 9")
            assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), size
            await scan(page, f"fleet @{size}", found)
            await page.emulate_media(color_scheme="dark")
            await scan(page, f"fleet @{size} dark", found, DARK_RULES)
            await page.emulate_media(color_scheme="light")
        finally:
            await context.close()
    # A battle from the fleets: its links shown once, on the desktop.
    context = await browser.new_context(viewport={"width": 1366, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(f"{server.url}/campaigns/join/{camp['ref']}")
        form = page.locator("form[action$='/battles']")
        await form.get_by_label("Battle name").fill("Second skirmish")
        await form.get_by_label("Hawk (Federation)").check()
        await form.get_by_label("Crow (Romulan)").check()
        await form.get_by_role("button", name="Start the battle").click()
        await expect(page.locator("#links-title")).to_be_visible()
        first = await page.locator(".links input").first.input_value()
        assert "/join#" in first
        # The second battle is fought at its table (over REST here) to Crow's loss and comes home…
        await _fight_to_the_end(server, camp, first.split("#", 1)[1], "crow", 200)
        # …then, in the browser, between battles: the lost Crow is retired, Hawk refitted by the
        # referee's ruling, a new Romulan ship added, and the third battle started from the fleets.
        await page.goto(f"{server.url}/campaigns/join/{camp['ref']}")
        retire = page.locator("form[action$='/retire']")
        await retire.locator("select[name=ship]").select_option(label="Crow (destroyed)")
        await retire.get_by_label("Reason").fill("lost with all hands")
        await retire.get_by_role("button", name="Retire").click()
        await expect(page.locator("table.fleet", has_text="Crow")).to_contain_text("retired")
        ruling = page.locator("form[action$='/ruling']")
        await ruling.locator("select[name=ship]").select_option(label="Hawk")
        await ruling.get_by_label("Reason").fill("refit at the yards")
        await ruling.get_by_label("Restore the ship as built (a refit)").check()
        await ruling.get_by_role("button", name="Log the ruling").click()
        await expect(page.locator("body")).to_contain_text("refit at the yards")
        ships = page.locator("form[action$='/ships']")
        await ships.get_by_label("Side").select_option("Romulan")
        await ships.get_by_label("Or a definition as JSON").fill(json.dumps(simple_ship("Kite")))
        await ships.get_by_role("button", name="Add ship").click()
        start = page.locator("form[action$='/battles']")
        await start.get_by_label("Battle name").fill("Third clash")
        await start.get_by_label("Hawk (Federation)").check()
        await start.get_by_label("Kite (Romulan)").check()
        await start.get_by_role("button", name="Start the battle").click()
        await expect(page.locator("#links-title")).to_be_visible()
        third = await page.locator(".links input").first.input_value()
        await _fight_to_the_end(server, camp, third.split("#", 1)[1], "kite", 5)
        # Hawk's record across the three battles, on its fleet page
        await page.goto(f"{server.url}/campaigns/{camp['id']}/fleets/Federation")
        await expect(page.locator("figure.report-chart svg[role=img]").first).to_be_visible()
        async with httpx.AsyncClient(base_url=server.url) as c:
            view = (
                await c.get(
                    f"/api/v1/campaigns/{camp['id']}", headers={"Authorization": f"Bearer {camp['ref']}"}
                )
            ).json()
        hawk = next(s for s in view["ships"] if s["name"] == "Hawk")
        crow = next(s for s in view["ships"] if s["name"] == "Crow")
        assert (hawk["status"], hawk["totals"]["battles"], crow["status"]) == ("ready", 3, "retired")
        assert [b["status"] for b in view["battles"]] == ["recorded", "recorded", "recorded"]
    finally:
        await context.close()
    counts, lines = report(found)
    bad = {k: v for k, v in counts.items() if k[0] in FAILING}
    assert not bad, "\n".join(lines)


async def test_an_open_dashboard_shows_what_the_campaign_logs_without_a_reload(
    browser: Browser, server: Server
) -> None:
    """A ship added over REST reaches an open dashboard by its own poll (every POLL_SECONDS, on a
    clock the test moves): the fleets and the log are morphed in, the document is the same, what the
    referee was typing in a form is left alone and the focus stays where the reader had it."""
    from app.web.pages.campaigns import POLL_SECONDS

    camp = await _campaign(server)
    context = await browser.new_context(viewport={"width": 1366, "height": 900})
    page = await context.new_page()
    try:
        await page.clock.install()
        await page.goto(f"{server.url}/campaigns/join/{camp['ref']}")
        await expect(page.locator("h1")).to_have_text("Border war")
        seq = int(await page.get_attribute("#campaign-fleets", "data-seq") or 0)
        assert f"every {POLL_SECONDS}s" in (await page.get_attribute("#campaign-fleets", "hx-trigger") or "")
        await page.evaluate("window.__sameDocument = true")
        await page.get_by_label("Player name").fill("Worf, half typed")
        await page.get_by_role("region", name="Romulan ships").focus()  # a keyboard reader in the table
        async with httpx.AsyncClient(base_url=server.url) as c:
            r = await c.post(
                f"/api/v1/campaigns/{camp['id']}/ships",
                json={"side": "Romulan", "definition": simple_ship("Raven"), "points": 70},
                headers={"Authorization": f"Bearer {camp['ref']}"},
            )
            assert r.status_code == 201, r.text
        await page.clock.fast_forward((POLL_SECONDS + 1) * 1000)
        await page.locator(f'#campaign-fleets[data-seq="{seq + 1}"]').wait_for(timeout=10000)
        await expect(page.locator("#campaign-fleets table.fleet").nth(1)).to_contain_text("Raven")
        await expect(page.locator("#campaign-log li").first).to_contain_text("Raven")
        assert await page.evaluate("window.__sameDocument") is True
        assert await page.get_by_label("Player name").input_value() == "Worf, half typed"
        # Morphed, not replaced: the table the reader was in still has the focus.
        assert await page.evaluate("document.activeElement.getAttribute('aria-label')") == "Romulan ships"
    finally:
        await context.close()
