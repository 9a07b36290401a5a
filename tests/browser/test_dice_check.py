"""Dice anyone can verify, in the browser: after the end, the dice page recomputes every
die from the revealed seed with chromium's own WebCrypto and says that all match (and that the seed
matches the hash shown since the start); a record with one changed die is caught and the die named.
Before the end the page holds no seed at all."""

from __future__ import annotations

import json
import re

import httpx
from playwright.async_api import Browser, Route, expect

from tests.browser.test_accessibility import report, scan
from tests.browser.test_live_damage import open_as
from tests.conftest import ROOT, Server
from tests.helpers import act
from tests.web.test_battle_file import ok, played


async def test_the_browser_recomputes_every_die_and_names_a_tampered_one(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await played(c)  # seeded Traveller dice: initiative twice (one undone) and a barrage
        ctx, bob = await open_as(browser, server, table.tokens["bob"], width=390)
        try:
            # Before the end: no seed on the page, and it says when it opens.
            await bob.goto(f"{server.url}/battles/{table.battle_id}/dice")
            await expect(bob.locator("main")).to_contain_text("The record opens when the battle ends")
            assert "dice-record" not in await bob.content()

            await ok(await act(c, table, "ref", "battle.end", {"reason": "done"}))
            record = await ok(
                await c.get(f"/api/v1/battles/{table.battle_id}/dice", headers=table.auth("bob"))
            )
            count = len(record["rolls"])
            assert count > 3 and record["mismatches"] == []

            await bob.goto(f"{server.url}/battles/{table.battle_id}")
            await bob.get_by_role("link", name="Check every die in your browser").click()
            result = bob.locator("#verify-result")
            await expect(result).to_have_class(re.compile("verified"))
            await expect(result).to_contain_text(f"All {count} dice match the revealed seed")
            await expect(result).to_contain_text("matches the SHA-256 shown since the start")
            await expect(bob.locator("#dice-rows .check.ok")).to_have_count(count)
            found: dict[str, list] = {}  # type: ignore[type-arg]
            await scan(bob, "dice check", found)
            counts, lines = report(found)
            assert not [k for k in counts if k[0] in ("critical", "serious")], "\n".join(lines)
            await bob.screenshot(path=str(ROOT / "var" / "dice-check-phone.png"), full_page=True)

            # The same page with one die changed on its way to the browser: that die is named.
            wrong = record["rolls"][-1]
            changed = wrong["value"] % wrong["sides"] + 1

            async def tamper(route: Route) -> None:
                response = await route.fetch()
                body = await response.text()
                start = body.index('id="dice-record">') + len('id="dice-record">')
                end = body.index("</script>", start)
                data = json.loads(body[start:end])
                data["rolls"][-1]["value"] = changed
                await route.fulfill(response=response, body=body[:start] + json.dumps(data) + body[end:])

            await bob.route(f"{server.url}/battles/{table.battle_id}/dice", tamper)
            await bob.reload()
            await expect(result).to_have_class(re.compile("not-verified"))
            await expect(result).to_contain_text(
                f"1 of {count} dice do not match: action #{wrong['seq']} die {wrong['index'] + 1} "
                f"(d{wrong['sides']}"
            )
            await expect(result).to_contain_text(f"recorded {changed}, the seed makes {wrong['value']}")
            await expect(bob.locator("#dice-rows tr.mismatch")).to_have_count(1)
            await expect(bob.locator("#dice-rows .check.ok")).to_have_count(count - 1)
        finally:
            await ctx.close()
