"""Star Trek in Babylon 5 Wars through the REST door (httpx against the app, SQLite and PostgreSQL):
a bot plays shields, power and torpedoes; refusals are JSON with field and reason and change nothing;
and THE LEAK TEST — a cloaked warbird's path reaches no other player through REST battle views,
REST events, action responses or the HTML page, until the battle ends (ST-22)."""

from __future__ import annotations

import json
import re

import httpx

from tests.helpers import Table, act, set_table, ship_def

SECRET = "0912"  # the hex the cloaked Haakona moves to
FORM_SECRET = "0811"  # moved to with the page's form
LATER = "1013"  # where it decloaks
PLAYERS = ("kirk", "kosh", "tomalak")


def leaks(text: str, hex_: str = SECRET) -> bool:
    """The hex as a value of its own (not inside an id, token or hash that happens to hold its digits)."""
    return found(text, hex_) is not None


def found(text: str, hex_: str) -> str | None:
    """Where the hex shows in the text (with some context for the failure message), or None."""
    m = re.search(rf"(?<![0-9A-Za-z_-]){hex_}(?![0-9A-Za-z_-])", text)
    return None if m is None else text[max(0, m.start() - 200) : m.end() + 60]


def no_cloaked_hex(who: str, door: str, text: str) -> None:
    for hex_ in (SECRET, FORM_SECRET):
        context = found(text, hex_)
        assert context is None, f"{who} sees cloaked hex {hex_} through {door}: …{context}…"


async def demo_table(c: httpx.AsyncClient) -> Table:
    return await set_table(
        c,
        players=PLAYERS,
        ships={
            "excelsior": (ship_def("excelsior"), "kirk"),
            "shadow": (ship_def("shadow-cruiser"), "kosh"),
            "warbird": (ship_def("romulan-warbird"), "tomalak"),
        },
    )


async def ok(c: httpx.AsyncClient, table: Table, who: str, type_: str, payload: dict | None = None) -> dict:
    r = await act(c, table, who, type_, payload or {})
    assert r.status_code == 200, r.text
    return r.json()


async def advance(c: httpx.AsyncClient, table: Table, times: int = 1) -> dict:
    body: dict = {}
    for _ in range(times):
        body = await ok(c, table, "ref", "clock.advance")
    return body


async def view(c: httpx.AsyncClient, table: Table, who: str) -> dict:
    r = await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))
    assert r.status_code == 200, r.text
    return r.json()


def shield_values(battle: dict, ship: str) -> dict[str, int]:
    return {
        p["name"]: p["current"] for p in battle["state"]["ships"][ship]["parts"]["shields"]["projections"]
    }


async def test_bot_flow_ST_06_ST_16_shields_and_ST_25_torpedoes_over_rest(client: httpx.AsyncClient) -> None:
    catalogue = (await client.get("/api/v1/actions")).json()["actions"]
    buy = catalogue["startrek.buy_regeneration"]
    assert buy["systems"] == ["b5wars"] and buy["ship_field"] == "ship"
    assert set(buy["payload_schema"]["required"]) == {"ship", "deflector", "points"}
    assert {
        "startrek.cloak",
        "startrek.decloak",
        "startrek.declare_warp",
        "startrek.transfer_shields",
        "startrek.fire_torpedoes",
        "startrek.detect_cloak",
    } <= set(catalogue)
    table = await demo_table(client)
    assert table.ships == {"excelsior": "excelsior", "shadow": "shadow-cruiser", "warbird": "haakona"}
    battle = await view(client, table, "kosh")
    assert battle["turn_bar"]["clock"] == "Turn 1 · Ship Power"  # GEN-01
    assert shield_values(battle, "excelsior") == {"Fore": 40, "Starboard": 30, "Aft": 30, "Port": 30}
    assert "power" not in battle["state"]["ships"]["excelsior"]["parts"]  # the commander's secret
    assert "power" in (await view(client, table, "kirk"))["state"]["ships"]["excelsior"]["parts"]
    # A bot playing the Shadow advances to combat and fires: First One fire counts double (ST-16).
    for _ in range(2):
        await ok(client, table, "kosh", "clock.advance")
    body = await ok(
        client,
        table,
        "kosh",
        "damage.apply",
        {"target": "excelsior", "source": "shadow-cruiser", "amount": 30, "direction": "fore"},
    )
    assert [e["text"] for e in body["events"]] == [
        "Shadow Cruiser hits Excelsior for 30 (fore): 20 absorbed by shields, 4 to armour, 6 to Fore.",
        "Excelsior: First One fire counts double on shields — 20 fill Fore "
        "shield (40/40 → 0/40), 10 reach the ship.",
    ]
    # ST-06: the warbird's fire from aft fills only the Aft projection.
    body = await ok(
        client,
        table,
        "tomalak",
        "damage.apply",
        {"target": "excelsior", "source": "haakona", "amount": 7, "direction": "aft"},
    )
    assert body["events"][1]["text"] == (
        "Excelsior: Aft shield absorbs all 7 (30/30 → 23/30); nothing reaches the ship."
    )
    seen = await view(client, table, "kosh")
    assert shield_values(seen, "excelsior") == {"Fore": 0, "Starboard": 30, "Aft": 23, "Port": 30}
    sections = {s["name"]: s for s in seen["state"]["ships"]["excelsior"]["parts"]["sheet"]["sections"]}
    assert (sections["Fore"]["armour"], sections["Fore"]["structure"]) == (0, 24)
    r = await client.get(
        f"/api/v1/battles/{table.battle_id}/events",
        params={"since": seen["seq"] - 2},
        headers=table.auth("kirk"),
    )
    assert [e["action_type"] for e in r.json()["entries"]] == ["damage.apply", "damage.apply"]
    assert r.json()["entries"][0]["events"][1]["data"]["multiplier"] == 2


async def test_ST_07_purchase_errors_are_json_with_field_and_change_nothing(
    client: httpx.AsyncClient,
) -> None:
    table = await demo_table(client)
    await advance(client, table, 2)
    await ok(
        client,
        table,
        "tomalak",
        "damage.apply",
        {"target": "excelsior", "source": "haakona", "amount": 20, "direction": "fore"},
    )
    await advance(client, table, 2)  # → turn 2 Ship Power: free regeneration +4 → 24/40
    assert shield_values(await view(client, table, "kirk"), "excelsior")["Fore"] == 24
    before = await view(client, table, "ref")
    refusals = [
        ("kirk", {"deflector": "Fore Deflector", "points": 9}, 422, "points",
         "Fore Deflector (value 4) may add at most 8 extra a turn; 8 left (ST-07)"),
        ("kirk", {"deflector": "Port Deflector", "points": 1}, 422, "points",
         "Port shield is at 30/30: only 0 more fit under its rating, so no power is spent (ST-07)"),
        ("kirk", {"deflector": "Aft Deflector", "points": 1, "projection": "Fore"}, 422, "projection",
         "Fore is not in Aft Deflector's arc"),
        ("kirk", {"deflector": "Tractor Beam", "points": 1}, 422, "deflector",
         "no deflector 'Tractor Beam' (deflectors: Fore Deflector, Starboard Deflector, Aft Deflector, Port Deflector)"),
        ("kirk", {"deflector": "Fore Deflector", "points": 0}, 422, "points", "points: must be at least 1 (you sent 0)"),
        ("kosh", {"deflector": "Fore Deflector", "points": 1}, 403, "ship", "you do not command that ship"),
    ]  # fmt: skip
    for who, payload, status, field, reason in refusals:
        r = await act(client, table, who, "startrek.buy_regeneration", {"ship": "excelsior", **payload})
        assert r.status_code == status, r.text
        detail = r.json()["detail"]
        assert (detail["field"], detail["reason"]) == (field, reason)
    after = await view(client, table, "ref")
    assert after["seq"] == before["seq"] and after["state"] == before["state"]
    r = await act(
        client,
        table,
        "kirk",
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 8},
    )
    assert r.json()["events"][0]["text"].startswith(
        "Excelsior buys 8 regeneration through Fore Deflector for 8 power"
    )
    # The Shadow's bot reads the reinforcement, not the power spent.
    r = await client.get(
        f"/api/v1/battles/{table.battle_id}/events",
        params={"since": r.json()["seq"] - 1},
        headers=table.auth("kosh"),
    )
    assert (
        r.json()["entries"][0]["events"][0]["text"]
        == "Excelsior reinforces its shields: Fore shield 24/40 → 32/40."
    )
    r = await act(
        client,
        table,
        "kirk",
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Port Deflector", "points": 1, "projection": "Port"},
    )
    assert r.status_code == 422 and r.json()["detail"]["reason"].startswith("Port shield is at 30/30")


async def test_LEAK_a_cloaked_path_reaches_no_other_player_through_rest_or_page(
    client: httpx.AsyncClient,
) -> None:
    """ST-22: REST battle view, REST events, action responses and the HTML page of every other seat."""
    table = await demo_table(client)
    await ok(client, table, "ref", "ship.move", {"ship": "haakona", "position": {"hex": "0505", "facing": 3}})
    await advance(client, table, 3)  # → Adjust Ship Systems, the end of turn 1
    await ok(client, table, "tomalak", "startrek.cloak", {"ship": "haakona"})
    await advance(client, table, 2)  # → turn 2 Movement
    moved = await ok(
        client,
        table,
        "tomalak",
        "ship.move",
        {"ship": "haakona", "position": {"hex": SECRET, "facing": 2, "speed": 6}},
    )
    assert moved["events"][0]["text"] == "Haakona (cloaked) moves: hex 0912, facing 2, speed 6."
    await ok(
        client, table, "tomalak", "startrek.thrust", {"ship": "haakona", "manoeuvre": "turn", "speed": 6}
    )
    # The page door: Tomalak records a further move with his ship's Movement form (no JavaScript).
    client.cookies.clear()
    page = await client.get(f"/join/{table.tokens['tomalak']}", follow_redirects=True)
    assert (
        'id="move-haakona"' in page.text and "cloaked: only you and the referee see it (ST-22)" in page.text
    )
    form = {
        "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1),
        "action_type": "ship.move",
        "action_id": "page-move",
        "p.ship": "haakona",
        "p.position:json": json.dumps({"hex": FORM_SECRET, "facing": 1, "speed": 6}),
    }
    r = await client.post(f"/battles/{table.battle_id}/actions", data=form, follow_redirects=True)
    assert "Haakona (cloaked) moves: hex 0811, facing 1, speed 6." in r.text
    others = ("kirk", "kosh", "watcher")
    # An action answer to another player carries no trace either.
    answer = await act(client, table, "kirk", "ship.move", {"ship": "excelsior", "position": {"hex": "0303"}})
    assert answer.status_code == 200 and not leaks(answer.text)

    async def doors(who: str) -> dict[str, str]:
        battle = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))
        events = await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth(who))
        client.cookies.clear()
        page = await client.get(f"/join/{table.tokens[who]}", follow_redirects=True)
        assert battle.status_code == events.status_code == page.status_code == 200
        assert str(page.url).endswith(f"/battles/{table.battle_id}")
        return {"battle": battle.text, "events": events.text, "page": page.text}

    for who in others:
        seen = await doors(who)
        for door, text in seen.items():
            no_cloaked_hex(who, door, text)
        assert 'id="move-haakona"' not in seen["page"]
    kirk = await doors("kirk")
    assert "A cloaked ship moves." in kirk["events"] and "A cloaked ship moves." in kirk["page"]
    assert "CLOAKED" in kirk["page"]
    haakona = (await view(client, table, "kirk"))["state"]["ships"]["haakona"]
    assert haakona["position"] is None and haakona["position_hidden"] is True
    assert haakona["parts"]["impulse"]["thrust_used"] is None  # its manoeuvres are movement too
    for who in ("tomalak", "ref"):
        seen = await doors(who)
        assert leaks(seen["events"]) and leaks(seen["page"]), who  # the path, in the log
        for door, text in seen.items():
            assert leaks(text, FORM_SECRET), f"{who} should see the current hex through {door}"
    # Decloak at the end of turn 2 from another hex: only the current position becomes public.
    await advance(client, table, 2)  # → Adjust Ship Systems
    await ok(
        client,
        table,
        "tomalak",
        "ship.move",
        {"ship": "haakona", "position": {"hex": LATER, "facing": 2, "speed": 6}},
    )
    await ok(client, table, "tomalak", "startrek.decloak", {"ship": "haakona"})
    kirk = await doors("kirk")
    assert leaks(kirk["battle"], LATER) and leaks(kirk["events"], LATER) and leaks(kirk["page"], LATER)
    assert "Haakona decloaks at hex 1013, facing 2, speed 6" in kirk["events"]
    for who in others:
        for door, text in (await doors(who)).items():
            no_cloaked_hex(who, f"{door} after decloak", text)
    # Moves after decloak are public.
    await advance(client, table, 2)  # → turn 3 Movement
    await ok(client, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": "1114"}})
    assert "Haakona moves: hex 1114." in (await doors("kosh"))["events"]
    # When the battle ends the path opens (reveal_at_end), in REST events and on the page.
    await ok(client, table, "ref", "battle.end", {"reason": "the Romulans withdraw"})
    for who in others:
        seen = await doors(who)
        assert "Haakona (cloaked) moves: hex 0912, facing 2, speed 6." in seen["events"], who
        assert "Haakona (cloaked) moves: hex 0912, facing 2, speed 6." in seen["page"], who
        assert "Haakona (cloaked) moves: hex 0811, facing 1, speed 6." in seen["events"], who


async def test_LEAK_a_referee_correction_of_a_cloaked_position_stays_hidden(
    client: httpx.AsyncClient,
) -> None:
    table = await demo_table(client)
    await advance(client, table, 3)
    await ok(client, table, "tomalak", "startrek.cloak", {"ship": "haakona"})
    await advance(client, table, 2)
    await ok(client, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": SECRET}})
    await ok(
        client,
        table,
        "ref",
        "override.set",
        {"path": "ships.haakona.position.hex", "value": FORM_SECRET, "reason": "marked the wrong hex"},
    )

    def texts(r: httpx.Response) -> list[str]:
        assert r.status_code == 200, r.text
        return [e["text"] for entry in r.json()["entries"] for e in entry["events"]]

    corrected = '⚠ OVERRIDE (Referee): ships.haakona.position.hex "0912"→"0811" — “marked the wrong hex”'
    for who in ("kirk", "kosh", "watcher"):
        r = await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth(who))
        no_cloaked_hex(who, "events after a referee override", r.text)
        # They are told a hidden value was corrected, not which.
        assert texts(r)[-1] == "⚠ OVERRIDE (Referee): a value hidden from you was corrected.", who
    # The ship's commander and the referee read the correction whole.
    for who in ("tomalak", "ref"):
        r = await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth(who))
        assert texts(r)[-2:] == ["Haakona (cloaked) moves: hex 0912.", corrected], who
        assert (await view(client, table, who))["state"]["ships"]["haakona"]["position"]["hex"] == FORM_SECRET
    for who in ("kirk", "kosh", "watcher"):
        no_cloaked_hex(
            who, "the battle view after a referee override", json.dumps(await view(client, table, who))
        )
