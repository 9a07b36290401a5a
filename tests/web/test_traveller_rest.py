"""Traveller High Guard through the REST door (/api/v1, bearer tokens) and the HTML page door, on
SQLite and PostgreSQL: a bot captain plays a round with physical dice; secret orders cannot be read
by another captain or a spectator through any door before the reveal; refused barrages answer JSON
with the field and the reason."""

from __future__ import annotations

from typing import Any

import httpx

from tests.helpers import Table, act, set_table, ship_def

ANN_ORDER_WORDS = ("Screens to Full", "screens_full", "Maximum Speed", "maximum_speed")


async def fleet(c: httpx.AsyncClient) -> Table:
    """Referee; Ann's bot commands Arbellatra, Bob Dauntless, Cid Vigilant; a spectator; physical dice."""
    table = await set_table(
        c,
        system="traveller",
        dice_mode="physical",
        players=("bob", "cid"),
        ships={
            "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
            "vigilant": (ship_def("tr-vigilant-escort"), "cid"),
        },
    )
    r = await c.post(
        f"/api/v1/battles/{table.battle_id}/participants",
        json={"name": "Ann bot", "role": "bot"},
        headers=table.auth("ref"),
    )
    assert r.status_code == 201, r.text
    table.tokens["ann"], table.ids["ann"] = r.json()["token"], r.json()["participant_id"]
    r = await act(
        c,
        table,
        "ref",
        "ship.add",
        {"definition": ship_def("tr-arbellatra-cruiser"), "owner": table.ids["ann"]},
    )
    assert r.status_code == 200, r.text
    table.ships["arbellatra"] = r.json()["events"][0]["ship"]
    assert table.ships == {"dauntless": "dauntless", "vigilant": "vigilant", "arbellatra": "arbellatra"}
    return table


async def ok(
    c: httpx.AsyncClient, table: Table, who: str, kind: str, payload: dict[str, Any], **kw: Any
) -> list[str]:
    r = await act(c, table, who, kind, payload, **kw)
    assert r.status_code == 200, r.text
    return [e["text"] for e in r.json()["events"]]


async def read(c: httpx.AsyncClient, table: Table, who: str) -> httpx.Response:
    r = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))
    assert r.status_code == 200, r.text
    return r


async def events(c: httpx.AsyncClient, table: Table, who: str) -> httpx.Response:
    r = await c.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth(who))
    assert r.status_code == 200, r.text
    return r


async def page(c: httpx.AsyncClient, table: Table, who: str) -> str:
    """The battle page as this participant (in a browser of their own): take the seat with the join
    link, then GET the page."""
    c.cookies.clear()
    r = await c.get(f"/join/{table.tokens[who]}", follow_redirects=False)
    assert r.status_code == 303
    r = await c.get(f"/battles/{table.battle_id}")
    assert r.status_code == 200, r.text
    return r.text


async def roll_initiative(c: httpx.AsyncClient, table: Table) -> None:
    # TR-03, by ship id: Arbellatra 1d6 6 + 2 = 8; Dauntless 1 + 3 = 4; Vigilant 1 + 2 = 3.
    texts = await ok(c, table, "ref", "traveller.initiative", {}, dice=[6, 1, 1])
    assert texts == [
        "Arbellatra initiative: 1D 6 + Crew Skill +2 = 8 → reactions 2.",
        "Dauntless initiative: 1D 1 + Crew Skill +3 = 4 → reactions 1.",
        "Vigilant initiative: 1D 1 + Crew Skill +2 = 3 → reactions 1.",
    ]


async def test_TR_26_leak_test_secret_orders_unreadable_through_every_door_before_the_reveal(
    client: httpx.AsyncClient,
) -> None:
    c = client
    table = await fleet(c)
    await roll_initiative(c, table)
    # Bob commits first (so his own orders form, which lists every order, is gone from his page).
    assert await ok(
        c,
        table,
        "bob",
        "traveller.orders",
        {"ship": "dauntless", "orders": [{"order": "line_up_spinal"}], "commit": True},
    ) == ["Dauntless commits its orders: Line up Spinal Mount! (cost 2)."]
    # Ann's bot commits Screens to Full! and Maximum Speed. Cid has not committed: no reveal yet.
    committed = await ok(
        c,
        table,
        "ann",
        "traveller.orders",
        {
            "ship": "arbellatra",
            "orders": [{"order": "screens_full"}, {"order": "maximum_speed"}],
            "commit": True,
        },
    )
    assert committed == ["Arbellatra commits its orders: Screens to Full!, Maximum Speed (cost 8)."]

    for who in ("bob", "watcher"):
        doors = {
            "GET /api/v1/battles/{id}": (await read(c, table, who)).text,
            "GET /api/v1/battles/{id}/events": (await events(c, table, who)).text,
            "GET /battles/{id} (page)": await page(c, table, who),
        }
        for door, text in doors.items():
            for word in ANN_ORDER_WORDS:
                assert word not in text, f"{who} reads {word!r} through {door} before the reveal"
        # What others may know: that Ann has committed.
        assert "Arbellatra has committed its orders." in doors["GET /api/v1/battles/{id}/events"]
        assert "Arbellatra has committed its orders." in doors["GET /battles/{id} (page)"]
        state = (await read(c, table, who)).json()["state"]
        seen = state["ships"]["arbellatra"]["parts"]["hg_ship"]
        assert seen["round"]["committed"] is True and seen["round"]["orders"] == []
        # Nor can it be read off what the orders change: Thrust (Maximum Speed +1), initiative.
        assert (seen["thrust_left"], seen["round"]["initiative"], seen["reactions_allowed"]) == (4, 8, 2)
    # The owner and the referee read them through every door.
    for who in ("ann", "ref"):
        assert "screens_full" in (await read(c, table, who)).text
        assert (
            "Arbellatra commits its orders: Screens to Full!, Maximum Speed (cost 8)."
            in (await events(c, table, who)).text
        )
    assert "Screens to Full!" in await page(c, table, "ref")
    # (Ann's seat is a bot's token; the page door needs a browser session, which it gets the same way.)
    assert "Screens to Full!" in await page(c, table, "ann")

    # Cid commits: one public reveal, and now everyone reads everything.
    texts = await ok(c, table, "cid", "traveller.orders", {"ship": "vigilant", "orders": [], "commit": True})
    assert (
        "Every captain has committed; orders revealed: Arbellatra: Screens to Full!, Maximum Speed — initiative"
        " 8 → 0; Dauntless: Line up Spinal Mount! — initiative 4 → 2; Vigilant: no orders — initiative 3 → 3."
    ) in texts
    # The orders step waited on nobody more: it ended by itself.
    assert texts[-1] == "Turn 1 · Orders ends; Turn 1 · Manoeuvre begins."
    for who in ("bob", "watcher"):
        assert "screens_full" in (await read(c, table, who)).text
        assert (
            "Arbellatra: Screens to Full!, Maximum Speed — initiative 8 → 0"
            in (await events(c, table, who)).text
        )
        assert "Screens to Full!" in await page(c, table, who)
        shown = (await read(c, table, who)).json()["state"]["ships"]["arbellatra"]["parts"]["hg_ship"]
        assert (shown["thrust_left"], shown["round"]["initiative"]) == (5, 0)


async def test_TR_04_TR_05_TR_06_TR_08_TR_16_TR_18_bot_captain_round_over_rest(
    client: httpx.AsyncClient,
) -> None:
    c = client
    table = await fleet(c)
    catalogue = (await c.get("/api/v1/actions")).json()["actions"]
    schema = catalogue["traveller.barrage"]["payload_schema"]
    assert {"ship", "battery", "mounts", "target", "range"} <= set(schema["properties"])
    assert catalogue["traveller.initiative"]["referee_only"] is True
    assert catalogue["traveller.orders"]["ship_field"] == "ship"
    await roll_initiative(c, table)
    for who, ship in (("ann", "arbellatra"), ("bob", "dauntless"), ("cid", "vigilant")):
        await ok(c, table, who, "traveller.orders", {"ship": ship, "orders": [], "commit": True})
    state = (await read(c, table, "ann")).json()
    assert state["turn_bar"]["clock"] == "Turn 1 · Manoeuvre"  # the last commit ended Orders
    await ok(c, table, "ref", "clock.advance", {})
    state = (await read(c, table, "ann")).json()
    assert state["turn_bar"]["clock"] == "Turn 1 · Combat"

    # TR-04: Arbellatra (8) leads; Vigilant may not jump the queue.
    r = await act(c, table, "cid", "traveller.pass", {"ship": "vigilant"})
    assert r.status_code == 200  # passing is allowed at any time
    shot = {
        "ship": "arbellatra",
        "battery": "particle-barbettes",
        "mounts": 16,
        "target": "dauntless",
        "range": "long",
        "adjacent": "fore",
    }
    # Physical dice: without them the rule asks for the first die it needs.
    r = await act(c, table, "ann", "traveller.barrage", shot)
    assert r.status_code == 422
    assert r.json()["detail"]["field"] == "dice"
    assert r.json()["detail"]["needed"]["sides"] == 6 and r.json()["detail"]["needed"]["index"] == 0
    # 2D 4+3 + range 0 + FC +3 + Gunner +2 + (4 − armour 8) = 8 → 125% → floor(16 × 1.25) = 20;
    # location 1d6 4 (CL–CQ: Main), 10 / 10 with Forward; net 8 → Main External 2D 4+5 = 9 (Hull),
    # Forward External 2D 3+3 = 6 (Hull): +10 each; radiation 16 × 125% = 20 stopped by armour 8.
    r = await act(c, table, "ann", "traveller.barrage", shot, dice=[4, 3, 4, 4, 5, 3, 3])
    assert r.status_code == 200, r.text
    assert [e["text"] for e in r.json()["events"]] == [
        "barrage 16–Particle Beam Barbette–Long–4 at Dauntless: 2D 7 + range 0 + FC +3 + Gunner +2"
        " + (4 − armour 8) = 8 → 125% → 20 damage → location 1d6 4: Main; 10 to Main Hull 250→240;"
        " 10 to Forward Hull 250→240",
        "Dauntless Main section hit (External, 2D 9): Hull — +10 Hull damage: Main Hull 240→230.",
        "Dauntless Forward section hit (External, 2D 6): Hull — +10 Hull damage: Forward Hull 240→230.",
        "Dauntless shrugs off 20 radiation: armour 8 (TR-21).",
    ]
    seq = r.json()["seq"]
    barrage_event = r.json()["events"][0]
    assert [roll["dice"] for roll in barrage_event["rolls"]] == [[4, 3], [4]]
    assert barrage_event["data"]["damage"] == 20 and barrage_event["data"]["percent"] == 125
    # Bob's bot reads its ship: every door reads the same numbers.
    bob_view = (await read(c, table, "bob")).json()
    sections = {s["name"]: s for s in bob_view["state"]["ships"]["dauntless"]["parts"]["hg_ship"]["sections"]}
    assert {n: (s["hull"], s["structure"]) for n, s in sections.items()} == {
        "Engineering": (250, 250),
        "Amidships": (250, 250),
        "Main": (230, 250),
        "Forward": (230, 250),
    }
    html = await page(c, table, "bob")
    assert 'id="tr-dauntless-main" data-hull="230" data-structure="250"' in html
    log = (
        await c.get(
            f"/api/v1/battles/{table.battle_id}/events", params={"since": seq - 1}, headers=table.auth("bob")
        )
    ).json()
    assert [e["seq"] for e in log["entries"]] == [seq]
    assert "payload" not in log["entries"][0]  # the raw payload is the referee's

    # Arbellatra has had its action; Dauntless (4) is next, then back round the loop.
    r = await act(
        c,
        table,
        "ann",
        "traveller.barrage",
        {**shot, "battery": "beam-lasers", "mounts": 10, "range": "medium"},
    )
    assert r.status_code == 422
    assert r.json()["detail"] == {
        "error": "Invalid",
        "field": "ship",
        "reason": "it is Dauntless's combat action now (TR-04)",
    }
    assert await ok(c, table, "bob", "traveller.pass", {"ship": "dauntless"}) == [
        "Dauntless has finished its combat actions this round. Next: Arbellatra."
    ]


async def test_TR_02a_TR_05_illegal_barrages_answer_json_with_field_and_reason(
    client: httpx.AsyncClient,
) -> None:
    c = client
    table = await fleet(c)
    # Initiative is not rolled: the loop does not bind yet (a quick skirmish, TR-04 in loop.py).
    for _ in range(2):
        await ok(c, table, "ref", "clock.advance", {})  # orders are revealed as the clock leaves them
    missiles = {"ship": "vigilant", "battery": "missiles", "target": "arbellatra", "mounts": 16}
    r = await act(c, table, "cid", "traveller.barrage", {**missiles, "range": "very_distant"})
    assert r.status_code == 422
    assert r.json()["detail"] == {
        "error": "Invalid",
        "field": "range",
        "reason": "Turret: Missile reaches no further than Distant (TR-02a)",
    }
    r = await act(c, table, "cid", "traveller.barrage", {**missiles, "range": "close"})
    assert r.json()["detail"] == {
        "error": "Invalid",
        "field": "range",
        "reason": "Missile cannot engage at Close range (TR-02)",
    }
    beams = {"ship": "vigilant", "battery": "beam-lasers", "target": "arbellatra", "range": "medium"}
    r = await act(c, table, "cid", "traveller.barrage", {**beams, "mounts": 9})
    assert r.status_code == 422
    assert r.json()["detail"] == {
        "error": "Invalid",
        "field": "mounts",
        "reason": "a barrage needs at least 10 mounts: ten, or all of the type if fewer (TR-05)",
    }
    r = await act(c, table, "cid", "traveller.barrage", {**beams, "mounts": 25})
    assert r.json()["detail"] == {
        "error": "Invalid",
        "field": "mounts",
        "reason": "only 24 of 30 Turret: Beam Laser mounts may fire at this target (configuration 80%)",
    }
    r = await act(c, table, "cid", "traveller.barrage", {**beams, "mounts": "many"})
    assert r.status_code == 422 and r.json()["detail"]["field"] == "mounts"
    r = await act(
        c,
        table,
        "cid",
        "traveller.barrage",
        {**beams, "ship": "arbellatra", "battery": "beam-lasers", "mounts": 10},
    )
    assert r.status_code == 403 and r.json()["detail"]["field"] == "ship"
    # Nothing changed: the log holds only the set-up and the clock (seq 3 ships, 2 advances).
    r = await events(c, table, "ref")
    assert r.json()["seq"] == 5
    assert [e["action_type"] for e in r.json()["entries"]][-3:] == [
        "ship.add",
        "clock.advance",
        "clock.advance",
    ]
