"""The reference bot (examples/bot.py, issue 16): two of them, each its own process speaking only
the documented REST API and the push feed, play a B5 Wars battle on a real server (SQLite and
PostgreSQL) until turn 3 begins — no sleeps: they move when the feed says the battle waits on them."""

from __future__ import annotations

import asyncio
import sys
import time

import httpx

from tests.conftest import ROOT, Server
from tests.helpers import set_table, simple_ship
from tests.web.test_feed import live  # noqa: F401  (the module-scoped server per database)


async def test_two_reference_bots_play_b5wars_to_turn_3(live: Server) -> None:  # noqa: F811
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as c:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        table = await set_table(c, ships=ships, options={}, spectator=False)  # a step ends when done
        started = time.monotonic()
        bots = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                str(ROOT / "examples" / "bot.py"),
                "--url",
                live.url,
                "--battle",
                table.battle_id,
                "--token",
                table.tokens[who],
                "--turns",
                "2",
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            for who in ("ann", "bob")
        ]
        outputs = await asyncio.wait_for(asyncio.gather(*(b.communicate() for b in bots)), 60)
        took = time.monotonic() - started
        for bot, (_out, err) in zip(bots, outputs, strict=True):
            assert bot.returncode == 0, err.decode()
        ann_out, bob_out = (out.decode() for out, _ in outputs)

        battle = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
        assert (battle["turn_bar"]["turn"], battle["turn_bar"]["step_label"]) == (3, "Ship Power")
        # Each bot fired once per step that offers damage, then was done with every step.
        entries = (
            await c.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ref"))
        ).json()["entries"]
        played = [e for e in entries if e["action_type"] in ("damage.apply", "step.ready")]
        assert {e["actor"] for e in played} == {"ann", "bob"}
        hits = [e for e in played if e["action_type"] == "damage.apply"]
        # (a stale 409 when both move at once is tried again: every step still gets its one hit from each)
        assert sorted(e["actor"] for e in hits) == ["ann"] * 8 + ["bob"] * 8
        readies = [e for e in played if e["action_type"] == "step.ready"]
        assert len(readies) == 2 * 2 * 4  # two bots × two turns × four steps
        assert ann_out.count("step.ready") == bob_out.count("step.ready") == 8
        audit = (await c.get(f"/api/v1/battles/{table.battle_id}/audit", headers=table.auth("ref"))).json()
        assert audit["snapshot_matches_log"] is True
        print(f"two bots, {len(entries)} log entries, {took:.2f} s")
        assert took < 30
