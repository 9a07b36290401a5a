"""The reference bot (examples/bot.py): two of them, each its own process speaking only
the documented REST API and the push feed, play a battle on a real server (SQLite and PostgreSQL)
to its end, in each ruleset — no sleeps: they move when the feed says the battle waits on them, and
stop when its last entry says the battle is finished. The end is checked exactly: which ship went
down, who was left, the battle's last seq is the feed's last entry and the bots' last word."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT, Server
from tests.helpers import Table, act, set_table, ship_def, simple_ship
from tests.web.test_feed import feed, ok

ONE_SIDE_LEFT = {"end_when_one_side_left": True}  # readiness as by default: a step ends when all are done


async def bots(
    server: Server, table: Table, hit: int = 1, seats: tuple[str, ...] = ("ann", "bob")
) -> list[str]:
    """Run one bot per seat until each stops by itself; their outputs (each must exit 0). A bot
    that fails fails the test at once with its stderr (its peer would wait on it for ever), and
    every bot still running when the test gives up is killed."""
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            str(ROOT / "examples" / "bot.py"),
            "--url",
            server.url,
            "--battle",
            table.battle_id,
            "--token",  # as documented; a token may begin with "-" (the bot copes)
            table.tokens[who],
            "--hit",
            str(hit),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for who in seats
    ]

    async def finished(proc: asyncio.subprocess.Process) -> str:
        out, err = await proc.communicate()
        assert proc.returncode == 0, f"a bot exited {proc.returncode}: {err.decode()}"
        return out.decode()

    try:
        async with asyncio.timeout(60):  # a deadline for bots that hang, not a claim about speed
            return list(await asyncio.gather(*(finished(p) for p in procs)))
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def the_end(
    c: httpx.AsyncClient, table: Table, outputs: list[str]
) -> tuple[dict[str, Any], list[dict]]:
    """The finished battle as the referee reads it and its log; checks the end is one and the same
    everywhere: the snapshot is the log's, the feed's last entry is the battle's last seq and says
    finished, and each bot's last line names that seq and the end's own words."""
    battle = await ok(await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref")))
    assert battle["status"] == "finished" and battle["seed"] is not None
    entries = (await ok(await c.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ref"))))[
        "entries"
    ]
    assert entries[-1]["seq"] == battle["seq"]
    ending = entries[-1]["events"][-1]
    assert ending["kind"] == "battle_end"
    items, _ = await feed(c, table, "ann", battle["seq"] + 1)  # the feed closes after the end
    assert items[-1]["seq"] == battle["seq"] and items[-1]["finished"] is True
    assert [i["finished"] for i in items].count(True) == 1
    for out in outputs:
        assert out.splitlines()[-1] == f"end at seq {battle['seq']}: {ending['text']}", out
    audit = await ok(await c.get(f"/api/v1/battles/{table.battle_id}/audit", headers=table.auth("ref")))
    assert audit["snapshot_matches_log"] is True
    return battle, entries


def test_the_bot_takes_a_token_that_begins_with_a_dash() -> None:
    """One token in 64 begins with "-" (URL-safe base64): `--token -x…` as documented must still be
    the token, not an option argparse refuses (a bot that died so left its peer waiting for ever)."""
    spec = importlib.util.spec_from_file_location("reference_bot", ROOT / "examples" / "bot.py")
    assert spec is not None and spec.loader is not None
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    args = bot.arguments(["--url", "http://x", "--battle", "b1", "--token", "-Ab_9", "--hit", "10"])
    assert (args.url, args.battle, args.token, args.hit, args.turns) == ("http://x", "b1", "-Ab_9", 10, None)
    assert bot.arguments(["--battle=b1", "--token=--x"]).token == "--x"
    with pytest.raises(SystemExit):
        bot.arguments(["--battle", "b1"])  # the token is still required


def moves(entries: list[dict], kind: str, actor: str) -> list[dict]:
    """The log entries of one kind by one participant (by name, as the log names them)."""
    return [e for e in entries if e["action_type"] == kind and e["actor"] == actor]


async def test_GEN_04_two_bots_fight_a_b5wars_battle_until_one_side_is_left(live: Server) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as c:
        # Hawk holds 4 + 20 + 40 boxes from the fore, Crow 4 + 20 + 16: Ann's fourth hit of 10 ends it.
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow", structure=16), "bob")}
        table = await set_table(c, ships=ships, options=ONE_SIDE_LEFT, spectator=False)
        outputs = await bots(live, table, hit=10)
        battle, entries = await the_end(c, table, outputs)
        assert entries[-1]["events"][-1]["text"] == (
            "The battle ends: only Hawk still fights (Crow out of the battle). The dice seed is revealed."
        )
        ships_now = battle["state"]["ships"]
        assert (ships_now["crow"]["destroyed"], ships_now["hawk"]["destroyed"]) == (True, False)
        # One hit a step from each bot: Ann's four (Ship Power to Adjust Ship Systems of turn 1);
        # Bob's last may come too late in the step that kills Crow.
        assert [e["clock"] for e in moves(entries, "damage.apply", "ann")] == [
            "T1 Power",
            "T1 Move",
            "T1 Fire",
            "T1 Adjust",
        ]
        assert len(moves(entries, "damage.apply", "bob")) in (3, 4)
        assert battle["turn_bar"]["turn"] == 1 and battle["turn_bar"]["step_label"] == "Adjust Ship Systems"


async def test_SH_03_GEN_04_two_bots_fight_an_sfb_shadow_battle_until_one_side_is_left(live: Server) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as c:
        ships = {
            "kosh": (ship_def("shadow-cruiser"), "ann"),
            "kirk": (ship_def("federation-heavy-cruiser"), "bob"),
        }
        table = await set_table(c, system="sfb", ships=ships, options=ONE_SIDE_LEFT, spectator=False)
        outputs = await bots(live, table, hit=10)
        battle, entries = await the_end(c, table, outputs)
        kosh, kirk = table.ships["kosh"], table.ships["kirk"]
        assert entries[-1]["events"][-1]["text"] == (
            "The battle ends: only the Shadows side still fights (Federation Heavy Cruiser out of the"
            " battle). The dice seed is revealed."
        )
        ships_now = battle["state"]["ships"]
        assert (ships_now[kirk]["destroyed"], ships_now[kosh]["destroyed"]) == (True, False)
        # The Federation cruiser holds 20 + 24 from the fore: Kosh's fifth hit, in impulse 4.
        hits = moves(entries, "damage.apply", "ann")
        assert [e["clock"] for e in hits] == ["T1 EA", "T1 I1", "T1 I2", "T1 I3", "T1 I4"]
        assert battle["turn_bar"]["step_title"] == "Impulse 4/32"
        # 10 points an impulse reach the Shadow's armour and internals: under 25, no pain check (SH-03).
        checks = [ev["text"] for e in entries for ev in e["events"] if ev["kind"].startswith("pain")]
        assert len(checks) >= 4 and all(t.endswith(": under 25, no pain check.") for t in checks), checks
        assert ships_now[kosh]["parts"]["pain"]["level"] == 0


async def test_TR_04_TR_26_two_bots_fight_a_traveller_battle_to_its_turn_limit(live: Server) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as c:
        ships = {
            "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
            "dauntless": ({**ship_def("tr-dauntless-battlecruiser"), "side": "Rebel squadron"}, "bob"),
        }
        options = {"turn_limit": 2, "range_start": "long"}
        table = await set_table(c, system="traveller", ships=ships, options=options, spectator=False)
        await ok(await act(c, table, "ref", "traveller.initiative", {}))  # TR-03: the referee, once
        outputs = await bots(live, table)
        battle, entries = await the_end(c, table, outputs)
        assert [e["text"] for e in entries[-1]["events"][-2:]] == [
            "Turn 2 · End of round ends.",
            "The battle ends: turn 2 was the last (the turn limit). The dice seed is revealed.",
        ]
        for who, ship in (("ann", "arbellatra"), ("bob", "dauntless")):
            # Each round: orders committed (TR-26), then one barrage in the combat loop (TR-04).
            committed = [
                ev["text"]
                for e in moves(entries, "step.ready", who)
                for ev in e["events"]
                if ev["kind"] == "orders_committed"
            ]
            assert committed == [f"{ship.title()} commits its orders: no orders (cost 0)."] * 2
            fired = moves(entries, "traveller.barrage", who)
            assert [e["clock"] for e in fired] == ["T1 Fire", "T2 Fire"], outputs
            assert all(e["payload"]["ship"] == ship and e["payload"]["mounts"] == 10 for e in fired)
            assert all(e["events"][0]["data"]["range"] == "long" for e in fired)
        assert battle["turn_bar"]["turn"] == 2
        assert not [s for s in battle["state"]["ships"].values() if s["destroyed"]]  # capital ships endure
