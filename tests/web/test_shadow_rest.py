"""The Shadow living ship through the REST door (/api/v1, bearer tokens), on SQLite and PostgreSQL,
as bots would play it: a physical-dice SFB battle set up by the referee, Kirk's Federation Heavy
Cruiser firing the seed's 217 points, Kirk ending the impulse with the entered dice, the Shadow's
bot reading its new pain and rolling reduction at the next Energy Allocation. Then the websocket
door: the Shadow's commander acts over the socket and every viewer is pushed the new pain."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import httpx

from app.rules.core import Roll
from tests.conftest import Server
from tests.helpers import Table, act, set_table, ship_def, simple_ship
from tests.web.wsclient import WsViewer, cookie_for

SHADOW = "shadow-cruiser"
FED = "federation-heavy-cruiser"
# The seed's 217 points, spread over the sample cruiser's arcs so no section is destroyed (see
# tests/service/test_shadow_service.py).
SEED_HITS: list[dict[str, Any]] = [
    {"amount": 53, "direction": "fore", "weapon": "Photon Torpedo"},
    {"amount": 47, "direction": "aft", "weapon": "Photon Torpedo"},
    {"amount": 41, "direction": "port", "weapon": "Phaser-1"},
    {"amount": 41, "direction": "starboard", "weapon": "Phaser-1"},
    {"amount": 35, "section": "Core", "weapon": "Phaser-1"},
]
SEED_SENTENCES = [
    "pain rise chance, band 200–249: 1d6 = 3, needs ≤ 5 → rises",
    "rise amount: 1d6 = 3 → pain 3",
    "reaction chance, band 200–249: 1d6 = 2, needs ≤ 5 → pain 3 reads ZERO: no reaction",
]


async def shadow_table(c: httpx.AsyncClient) -> Table:
    """Referee, Kirk (player) with the Federation Heavy Cruiser and the Hawk escort, the Shadow's bot
    seat and a spectator; the Shadow is the bot's."""
    table = await set_table(
        c,
        system="sfb",
        dice_mode="physical",
        players=("kirk",),
        ships={"fed": (ship_def(FED), "kirk"), "hawk": (simple_ship("Hawk", "sfb"), "kirk")},
    )
    r = await c.post(
        f"/api/v1/battles/{table.battle_id}/participants",
        json={"name": "Kosh bot", "role": "bot"},
        headers=table.auth("ref"),
    )
    assert r.status_code == 201, r.text
    table.tokens["kosh"], table.ids["kosh"] = r.json()["token"], r.json()["participant_id"]
    r = await act(c, table, "ref", "ship.add", {"definition": ship_def(SHADOW), "owner": table.ids["kosh"]})
    assert r.status_code == 200, r.text
    table.ships["shadow"] = r.json()["events"][0]["ship"]
    return table


async def read(c: httpx.AsyncClient, table: Table, who: str) -> dict[str, Any]:
    r = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))
    assert r.status_code == 200, r.text
    return r.json()


async def pain_of(c: httpx.AsyncClient, table: Table, who: str) -> dict[str, Any]:
    return (await read(c, table, who))["state"]["ships"][SHADOW]["parts"]["pain"]


async def events(c: httpx.AsyncClient, table: Table, who: str, since: int = 0) -> list[dict[str, Any]]:
    r = await c.get(f"/api/v1/battles/{table.battle_id}/events?since={since}", headers=table.auth(who))
    assert r.status_code == 200, r.text
    return [e for entry in r.json()["entries"] for e in entry["events"]]


def sentences(evs: list[dict[str, Any]]) -> list[str]:
    return [Roll.model_validate(r).sentence() for e in evs for r in e["rolls"]]


async def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return r.json()


async def test_SH_03_to_SH_06_whole_flow_over_rest_with_entered_dice(client: httpx.AsyncClient) -> None:
    """SH-03…SH-06 through REST: Kirk's damage accumulates; the Shadow's bot, its commander, ends the
    impulse (GEN-02: the Shadow's dice are its commander's); a missing die is a 422 naming the die
    (sides, purpose, index), the entered dice resolve the seed example (pain 0 → 3, reaction ZERO),
    the Shadow's bot and the spectator read the same pain and sentences, a repeat changes nothing."""
    c, table = client, await shadow_table(client)
    assert table.ships["shadow"] == SHADOW
    seq = (await read(c, table, "kirk"))["seq"]
    body = await ok(
        await act(c, table, "kirk", "clock.advance", {"expect_step": "energy_allocation"}, seq=seq)
    )
    seq = body["seq"]
    for hit in SEED_HITS:
        body = await ok(await act(c, table, "kirk", "damage.apply", {"target": SHADOW, "source": FED, **hit}))
    assert (
        body["events"][0]["text"]
        == "Federation Heavy Cruiser hits Shadow Cruiser with Phaser-1 for 35: 35 to Core."
    )
    pain = await pain_of(c, table, "kosh")
    assert (pain["damage_total"], pain["damage_by_source"]) == (217, {FED: 217})
    seq = body["seq"]

    r = await act(c, table, "kosh", "clock.advance", {}, seq=seq)
    assert r.status_code == 422
    assert r.json()["detail"] == {
        "error": "RollNeeded",
        "field": "dice",
        "reason": "roll needed: 1d6 for pain rise chance, band 200–249",
        "needed": {"sides": 6, "purpose": "pain rise chance, band 200–249", "ship": SHADOW, "index": 0},
        # Every die the check may still ask for, at once (GEN-02): a bot can send them in one go.
        "plan": [
            {
                "index": 0,
                "sides": 6,
                "purpose": "pain rise chance, band 200–249",
                "ship": SHADOW,
                "always": True,
            },
            {"index": 1, "sides": 6, "purpose": "rise amount", "ship": SHADOW, "always": False},
            {
                "index": 2,
                "sides": 6,
                "purpose": "reaction chance, band 200–249",
                "ship": SHADOW,
                "always": False,
            },
        ],
    }
    r = await act(c, table, "kosh", "clock.advance", {}, seq=seq, dice=[3, 3])
    assert r.status_code == 422
    assert r.json()["detail"]["needed"] == {
        "sides": 6,
        "purpose": "reaction chance, band 200–249",
        "ship": SHADOW,
        "index": 2,
    }
    assert (await read(c, table, "kirk"))["seq"] == seq  # asking for a die changed nothing
    r = await act(c, table, "kosh", "clock.advance", {}, seq=seq, dice=["three"])
    assert r.status_code == 422 and r.json()["detail"]["field"] == "dice.0"

    key = uuid.uuid4().hex
    body = await ok(await act(c, table, "kosh", "clock.advance", {}, seq=seq, dice=[3, 3, 2], action_id=key))
    assert body["seq"] == seq + 1 and sentences(body["events"]) == SEED_SENTENCES
    again = await ok(await act(c, table, "kosh", "clock.advance", {}, seq=seq, dice=[1, 6, 6], action_id=key))
    assert (again["seq"], again["duplicate"], again["events"]) == (seq + 1, True, body["events"])

    for who in ("kosh", "kirk", "watcher", "ref"):
        view = await read(c, table, who)
        pain = view["state"]["ships"][SHADOW]["parts"]["pain"]
        assert (pain["level"], pain["reaction"], pain["obligations"], pain["damage_total"]) == (
            3,
            "ZERO",
            [],
            0,
        )
        assert (view["state"]["clock"]["step"], view["state"]["clock"]["impulse"], view["seq"]) == (
            "impulse",
            2,
            seq + 1,
        )
        log = await events(c, table, who, since=seq)
        assert sentences(log) == SEED_SENTENCES, who
        assert [e["text"] for e in log if e["kind"].startswith("pain_")] == [
            "Shadow Cruiser took 217 damage to armour and internals in turn 1 impulse 1 "
            "(most from Federation Heavy Cruiser, 217): pain rises 0 → 3.",
            "Shadow Cruiser grins and bears it: pain 3 reads ZERO, which is no reaction (nothing changes, SH-06).",
        ]
    assert (await ok(await c.get(f"/api/v1/battles/{table.battle_id}/audit", headers=table.auth("ref"))))[
        "snapshot_matches_log"
    ] is True


async def test_SH_14_the_shadow_bot_rolls_pain_reduction_over_rest(client: httpx.AsyncClient) -> None:
    """SH-14: at the next Energy Allocation the Shadow's bot is reminded (owner-only), rolls 1d6 with
    its entered die, and everyone reads the roll; a second roll that turn and Kirk's roll are refused."""
    c, table = client, await shadow_table(client)
    await ok(await act(c, table, "kirk", "clock.advance", {}))
    for hit in SEED_HITS:
        await ok(await act(c, table, "kirk", "damage.apply", {"target": SHADOW, "source": FED, **hit}))
    await ok(await act(c, table, "kosh", "clock.advance", {}, dice=[3, 3, 2]))
    r = await act(c, table, "kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[2])
    assert r.status_code == 422 and r.json()["detail"] == {
        "error": "Invalid",
        "field": "ship",
        "reason": "pain reduction is rolled during Energy Allocation (SH-14)",
    }
    for _ in range(32):  # impulses 2…32 and the end of turn: no damage, no dice
        body = await ok(await act(c, table, "ref", "clock.advance", {}))
    assert (await read(c, table, "kosh"))["state"]["clock"] == {
        "turn": 2,
        "step": "energy_allocation",
        "impulse": None,
    }
    reminder = "Shadow Cruiser may roll pain reduction this Energy Allocation (pain 3, reaction ZERO)."
    assert reminder in [e["text"] for e in await events(c, table, "kosh", since=body["seq"] - 1)]
    assert reminder not in [e["text"] for e in await events(c, table, "kirk", since=body["seq"] - 1)]

    r = await act(c, table, "kirk", "shadow.reduce_pain", {"ship": SHADOW}, dice=[2])
    assert r.status_code == 403 and r.json()["detail"]["reason"] == "you do not command that ship"
    r = await act(c, table, "kosh", "shadow.reduce_pain", {"ship": SHADOW})
    assert r.status_code == 422 and r.json()["detail"]["needed"] == {
        "sides": 6,
        "purpose": "pain reduction",
        "ship": SHADOW,
        "index": 0,
    }
    body = await ok(await act(c, table, "kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[2]))
    text = "Shadow Cruiser rolls pain reduction: pain 3 → 1; reaction stays ZERO."
    assert [e["text"] for e in body["events"]] == [text]
    assert sentences(body["events"]) == ["pain reduction: 1d6 = 2 → pain 3 → 1"]
    for who in ("kirk", "watcher"):
        assert sentences(await events(c, table, who, since=body["seq"] - 1)) == [
            "pain reduction: 1d6 = 2 → pain 3 → 1"
        ]
        assert (await pain_of(c, table, who))["level"] == 1
    r = await act(c, table, "kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[1])
    assert r.status_code == 422
    assert (
        r.json()["detail"]["reason"] == "Shadow Cruiser has already rolled pain reduction this turn (SH-14)"
    )


async def test_SH_17_boarding_refused_over_rest(client: httpx.AsyncClient) -> None:
    """SH-17 through REST: boarding or raiding the Shadow is a 422 with the reason and the field;
    declaring with a ship one does not command is a 403; nothing is logged."""
    c, table = client, await shadow_table(client)
    seq = (await read(c, table, "kirk"))["seq"]
    for kind, words in (("boarding", "a boarding action"), ("hit_and_run", "a hit-and-run raid")):
        r = await act(
            c,
            table,
            "kirk",
            "boarding.declare",
            {"kind": kind, "attacker": FED, "target": SHADOW, "outcome": "marines seize the pilot"},
        )
        assert r.status_code == 422
        assert r.json()["detail"] == {
            "error": "Invalid",
            "field": "target",
            "reason": f"Shadow Cruiser is a Shadow living ship: {words} against it is not possible (SH-17)",
        }
    r = await act(
        c,
        table,
        "kosh",
        "boarding.declare",
        {"kind": "boarding", "attacker": FED, "target": SHADOW, "outcome": "x"},
    )
    assert r.status_code == 403 and r.json()["detail"] == {
        "error": "Forbidden",
        "field": "attacker",
        "reason": "you do not command that ship",
    }
    assert (await read(c, table, "ref"))["seq"] == seq


async def test_SH_01_referee_override_and_undo_over_rest(client: httpx.AsyncClient) -> None:
    """SH-01 and ux §6 through REST: the referee sets pain with a reason (everyone reads the ⚠ line)
    and undoes a mistaken hit before the impulse ends (SH-03 accumulators restored); players may not."""
    c, table = client, await shadow_table(client)
    path = f"ships.{SHADOW}.parts.pain.level"
    r = await act(c, table, "kirk", "override.set", {"path": path, "value": 0, "reason": "nice try"})
    assert r.status_code == 403 and r.json()["detail"]["reason"] == "only the referee may override a value"
    body = await ok(
        await act(c, table, "ref", "override.set", {"path": path, "value": 6, "reason": "scenario start"})
    )
    line = "⚠ OVERRIDE (Referee): ships.shadow-cruiser.parts.pain.level 0→6 — “scenario start”"
    assert [e["text"] for e in body["events"]] == [line]
    assert line in [e["text"] for e in await events(c, table, "watcher")]
    assert (await pain_of(c, table, "kosh"))["level"] == 6

    await ok(await act(c, table, "kirk", "clock.advance", {}))
    await ok(
        await act(
            c,
            table,
            "kirk",
            "damage.apply",
            {"target": SHADOW, "source": FED, "amount": 30, "direction": "fore"},
        )
    )
    before = await pain_of(c, table, "kosh")
    await ok(
        await act(
            c,
            table,
            "kirk",
            "damage.apply",
            {"target": SHADOW, "source": FED, "amount": 30, "direction": "fore"},
        )
    )
    assert (await pain_of(c, table, "kosh"))["damage_total"] == 60
    r = await act(c, table, "kirk", "battle.undo", {"reason": "entered twice"})
    assert r.status_code == 403
    body = await ok(await act(c, table, "ref", "battle.undo", {"reason": "entered twice"}))
    assert body["events"][0]["text"].endswith("(damage.apply) is undone — “entered twice”")
    assert await pain_of(c, table, "kosh") == before
    assert before["damage_total"] == 30 and before["damage_by_source"] == {FED: 30}
    body = await ok(await act(c, table, "kosh", "clock.advance", {}, dice=[2]))
    assert sentences(body["events"]) == ["pain rise chance, band 25–49: 1d6 = 2, needs ≤ 1 → no rise"]
    assert (await pain_of(c, table, "kirk"))["level"] == 6


async def test_SH_09_referee_rules_the_target_over_rest_and_the_page(client: httpx.AsyncClient) -> None:
    """SH-09 decision through REST and the no-JS page: the reaction TWO targets the Federation
    cruiser; only the referee's page offers to change it; the form post and the REST read agree."""
    c, table = client, await shadow_table(client)
    path = f"ships.{SHADOW}.parts.pain.level"
    await ok(await act(c, table, "ref", "override.set", {"path": path, "value": 5, "reason": "scenario"}))
    await ok(await act(c, table, "kirk", "clock.advance", {}))
    await ok(await act(c, table, "kirk", "damage.apply", {"target": SHADOW, "source": "hawk", "amount": 20}))
    await ok(await act(c, table, "kirk", "damage.apply", {"target": SHADOW, "source": FED, "amount": 40}))
    body = await ok(await act(c, table, "kosh", "clock.advance", {}, dice=[2, 6, 1]))
    assert [e["text"] for e in body["events"] if e["kind"] == "pain_reaction"] == [
        "Shadow Cruiser is angered — reaction TWO: must target Federation Heavy Cruiser next turn (turn 2)."
    ]
    r = await act(c, table, "kosh", "shadow.set_target", {"ship": SHADOW, "target": "hawk", "reason": "mine"})
    assert (
        r.status_code == 403
        and r.json()["detail"]["reason"] == "only the referee may set a reaction's target"
    )

    kosh_page = await c.get(f"/join/{table.tokens['kosh']}", follow_redirects=True)
    assert "must target Federation Heavy Cruiser next turn (turn 2)" in kosh_page.text
    assert "shadow.set_target" not in kosh_page.text
    c.cookies.clear()  # the referee's own browser
    ref_page = await c.get(f"/join/{table.tokens['ref']}", follow_redirects=True)
    assert 'value="shadow.set_target"' in ref_page.text and "Change target (referee)" in ref_page.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', ref_page.text).group(1)
    r = await c.post(
        f"/battles/{table.battle_id}/actions",
        data={
            "csrf_token": token,
            "action_type": "shadow.set_target",
            "action_id": uuid.uuid4().hex,
            "p.ship": SHADOW,
            "p.target": "hawk",
            "p.reason": "the escort's hit landed first",
        },
        follow_redirects=True,
    )
    line = (
        "⚠ OVERRIDE (Referee): Shadow Cruiser must now target Hawk instead of Federation Heavy Cruiser"
        " — “the escort's hit landed first”"
    )
    assert r.status_code == 200 and "must target Hawk next turn (turn 2)" in r.text
    assert line.replace("'", "&#39;") in r.text
    duty = (await pain_of(c, table, "kosh"))["obligations"][0]
    assert (duty["target"], duty["text"]) == ("hawk", "must target Hawk next turn (turn 2)")
    assert line in [e["text"] for e in await events(c, table, "watcher")]


async def test_SH_16_websocket_door_pushes_pain_to_every_viewer(server: Server) -> None:
    """SH-14/SH-16 over the websocket: the Shadow's commander rolls reduction in an action frame
    (with its entered die) and every connected viewer is pushed the sheet with the new pain."""
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            system="sfb",
            dice_mode="physical",
            players=("kirk", "kosh"),
            ships={"fed": (ship_def(FED), "kirk"), "shadow": (ship_def(SHADOW), "kosh")},
        )
        body = await ok(
            await act(
                c,
                table,
                "ref",
                "override.set",
                {"path": f"ships.{SHADOW}.parts.pain.level", "value": 9, "reason": "scenario"},
            )
        )
    seq = body["seq"]
    cookies = {who: await cookie_for(server.url, table.tokens[who]) for who in ("kosh", "kirk", "watcher")}
    viewers = {who: WsViewer(server.url, table.battle_id, cookie) for who, cookie in cookies.items()}
    for v in viewers.values():
        await v.__aenter__()
        await v.hello(seq)
    try:
        msg = {
            "type": "action",
            "action_type": "shadow.reduce_pain",
            "payload": {"ship": SHADOW},
            "action_id": uuid.uuid4().hex,
            "seen_seq": seq,
        }
        await viewers["kosh"].socket.send(json.dumps(msg))
        error = await viewers["kosh"].next_frame()
        assert (error["type"], error["field"], error["needed"]["purpose"]) == (
            "error",
            "dice",
            "pain reduction",
        )
        await viewers["kosh"].socket.send(json.dumps({**msg, "dice": [5]}))
        for who, v in viewers.items():
            frame = await v.frame_with_seq(seq + 1)
            while "content" not in frame:  # the actor also gets its {"type": "result"} answer
                frame = await v.frame_with_seq(seq + 1)
            content = frame["content"]
            assert f'id="pain-{SHADOW}"' in content and 'data-level="4"' in content, who
            assert "Shadow Cruiser rolls pain reduction: pain 9 → 4; reaction stays ZERO." in content, who
    finally:
        for v in viewers.values():
            await v.__aexit__(None, None, None)
