"""The dice check of an imported battle, in chromium: the dice up to the import are
recomputed from the seed of the battle the file came from, those after it from the battle's own.
While the original has not ended its dice are marked "not yet checkable" and the page says why
(never "do not match"); once it has ended on this server they check too; a die changed in the
stored log before the import is named."""

from __future__ import annotations

import re

import httpx
from playwright.async_api import Browser, expect

from tests.browser.test_accessibility import report, scan
from tests.browser.test_live_damage import open_as
from tests.conftest import ROOT, Server
from tests.helpers import act
from tests.web.test_battle_file import exported, ok, played
from tests.web.test_imported_dice import fire_next, imported, record, tamper


async def test_an_imported_battle_checks_each_die_by_the_seed_that_rolled_it(
    browser: Browser, server: Server
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        original = await played(c)
        file = await exported(c, original)  # the original plays on: its seed is still secret
        boundary = len(file["log"])
        copy = await imported(c, file)
        await fire_next(c, copy)
        await ok(await act(c, copy, "ref", "battle.end", {"reason": "done"}))
        dice = await record(c, copy)
        total = len(dice["rolls"])
        early = [r for r in dice["rolls"] if r["seq"] <= boundary]
        assert early and len(early) < total

        ctx, bob = await open_as(browser, server, copy.tokens["bob"], width=375)
        try:
            await bob.goto(f"{server.url}/battles/{copy.battle_id}/dice")
            result = bob.locator("#verify-result")
            await expect(result).to_have_class(re.compile("partly-verified"))
            await expect(result).to_contain_text(
                f"{total - len(early)} of {total} dice checked: all match the revealed seeds"
            )
            await expect(result).to_contain_text(
                f"{len(early)} dice up to action #{boundary} were rolled in battle {original.battle_id}"
                " before this battle was imported"
            )
            await expect(result).to_contain_text("cannot be checked yet")
            await expect(result).not_to_contain_text("do not match")
            await expect(bob.locator("#dice-rows .check.ok")).to_have_count(total - len(early))
            await expect(bob.locator("#dice-rows .check", has_text="not yet checkable")).to_have_count(
                len(early)
            )
            await expect(bob.locator(".imported-dice")).to_contain_text("its seed is not revealed yet")
            found: dict[str, list] = {}  # type: ignore[type-arg]
            await scan(bob, "imported dice check", found)
            counts, lines = report(found)
            assert not [k for k in counts if k[0] in ("critical", "serious")], "\n".join(lines)
            assert await bob.evaluate("document.documentElement.scrollWidth") <= 375
            await bob.screenshot(path=str(ROOT / "var" / "dice-check-imported-waiting.png"), full_page=True)

            # The original ends on this server: its revealed seed now checks the early dice here.
            await ok(await act(c, original, "ref", "battle.end", {"reason": "done"}))
            await bob.reload()
            await expect(result).to_have_class(re.compile(r"\bverified\b"))
            await expect(result).to_contain_text(f"All {total} dice match the revealed seeds")
            await expect(result).to_contain_text(
                f"The seed of battle {original.battle_id} (actions up to #{boundary}, rolled there before the"
                " import) matches its SHA-256"
            )
            await expect(bob.locator("#dice-rows .check.ok")).to_have_count(total)
            await bob.screenshot(path=str(ROOT / "var" / "dice-check-imported.png"), full_page=True)

            # One die before the boundary changed in the stored log: the browser names it.
            seq, die, honest = await tamper(server.db, copy.battle_id, early[0]["seq"])
            await bob.reload()
            await expect(result).to_have_class(re.compile("not-verified"))
            await expect(result).to_contain_text(
                f"1 of {total} dice do not match: action #{seq} die 1 (d{die['sides']}"
            )
            await expect(result).to_contain_text(f"recorded {die['value']}, the seed makes {honest}")
            await expect(bob.locator("#dice-rows tr.mismatch")).to_have_count(1)
        finally:
            await ctx.close()
