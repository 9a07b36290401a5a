"""Hidden history holds through every door: the referee's cloak signature
never reaches a detector, and repeated tries cannot narrow it; a ship's owner-only past belongs to
whoever commanded it then — reassigning the ship hands the new commander none of it, and the old
commander keeps it. Checked in REST events, the REST state and the page, on SQLite and PostgreSQL."""

from __future__ import annotations

import re

import httpx

from tests.helpers import act, session_cookie, set_table, ship_def

SECRET_HEX = "0917"


async def events_text(c: httpx.AsyncClient, table, who: str) -> str:  # type: ignore[no-untyped-def]
    """The seat's events as REST answers them, with the times and the random ids blanked: a hex
    looked for ("1012") must not be found in a timestamp's microseconds or a seat's id."""
    r = await c.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth(who))
    assert r.status_code == 200
    text = re.sub(r"\d{4}-\d\d-\d\dT[0-9:.+-]+Z?", "<time>", r.text)
    return re.sub(r"\b[0-9a-f]{16,}\b", "<id>", text)


async def page_text(c: httpx.AsyncClient, table, who: str, page: str = "") -> str:  # type: ignore[no-untyped-def]
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as browser:
        browser.cookies.set("starboard_session", await session_cookie(c, table.tokens[who]))
        r = await browser.get(f"/battles/{table.battle_id}{page}")
        assert r.status_code == 200
        return r.text


def ships_panel(page: str) -> str:
    """The page's ship sheets, up to the action panel (the map before them labels every hex)."""
    return page.split('id="ships"')[1].split('id="action-panel"')[0]


async def ok(r: httpx.Response) -> dict:
    assert r.status_code == 200, r.text
    return r.json()


async def cloaked(client: httpx.AsyncClient):  # type: ignore[no-untyped-def]
    ships = {"bird": (ship_def("klingon-bird-of-prey"), "ann"), "excelsior": (ship_def("excelsior"), "bob")}
    table = await set_table(client, ships=ships, players=("ann", "bob", "cat"))
    for _ in range(3):  # Ship Power → Movement → Combat → Adjust Ship Systems
        await ok(await act(client, table, "ref", "clock.advance", {}))
    await ok(await act(client, table, "ann", "startrek.cloak", {"ship": "kor-vaq"}))
    for _ in range(3):  # → turn 2 Combat
        await ok(await act(client, table, "ref", "clock.advance", {}))
    return table


async def test_ST_23_the_signature_and_the_suggestion_never_reach_the_detector(
    client: httpx.AsyncClient,
) -> None:
    table = await cloaked(client)
    await ok(await act(client, table, "ref", "startrek.set_signature", {"ship": "kor-vaq", "signature": 37}))
    detect = {"detector": "excelsior", "target": "kor-vaq", "ew": 0, "range": 0}
    answer = await ok(await act(client, table, "bob", "startrek.detect_cloak", detect))
    assert [e["text"] for e in answer["events"]] == [
        "Excelsior puts 0 EW on detecting Kor'vaq at range 0. The referee rules (ST-23)."
    ]
    r = await client.put(  # listed in the lobby: the public link and the viewscreen are doors too
        f"/api/v1/battles/{table.battle_id}/listing",
        json={"claims": "closed", "open_seats": [], "spectators": True},
        headers=table.auth("ref"),
    )
    assert r.status_code == 200
    doors = [
        await events_text(client, table, "bob"),
        await page_text(client, table, "bob"),
        await page_text(client, table, "bob", "/replay"),
        *[(await client.get(f"/battles/{table.battle_id}{door}")) for door in ("/watch", "/screen")],
    ]
    assert [d.status_code for d in doors[3:]] == [200, 200]
    doors[3:] = [d.text for d in doors[3:]]
    for door in doors:
        assert (
            not re.search(r"signature\D{0,3}37", door)
            and "suggested" not in door
            and "not detected" not in door
        )
    assert "signature 37 → not detected" in await events_text(client, table, "ref")
    again = await act(client, table, "bob", "startrek.detect_cloak", {**detect, "ew": 40})
    assert again.status_code == 422 and again.json()["detail"]["field"] == "detector"


async def test_ST_22_a_reassigned_ship_keeps_its_hidden_past_with_its_old_commander(
    client: httpx.AsyncClient,
) -> None:
    table = await cloaked(client)
    move = {"ship": "kor-vaq", "position": {"hex": SECRET_HEX, "facing": 2}}
    await ok(await act(client, table, "ann", "ship.move", move))
    assert SECRET_HEX in await events_text(client, table, "ann")
    await ok(await act(client, table, "ref", "ship.assign", {"ship": "kor-vaq", "owner": table.ids["cat"]}))
    # The new commander sees the ship now, but not where it went under Ann's command.
    cat_events = await events_text(client, table, "cat")
    assert SECRET_HEX not in cat_events and "A cloaked ship moves." in cat_events
    # Her sheet shows where her ship is now (ST-22: its movement is known to its owner); Bob, who
    # does not command it, sees its sheet but not that hex while it is cloaked.
    cat_ships = ships_panel(await page_text(client, table, "cat"))
    assert f"Position: hex {SECRET_HEX}, facing 2" in cat_ships.split('id="other-ships"')[0]
    bob_ships = ships_panel(await page_text(client, table, "bob"))
    assert 'id="ship-excelsior"' in bob_ships
    assert 'id="ship-kor-vaq"' in bob_ships and SECRET_HEX not in bob_ships
    # Nor does Ann's sheet: she keeps the past she commanded (below), not the ship's present.
    assert SECRET_HEX not in ships_panel(await page_text(client, table, "ann"))
    log = (await page_text(client, table, "cat")).split('id="log-list"')[-1]
    assert SECRET_HEX not in log
    # nor in the replay's log (the ship's position now is hers to see: she commands it now)
    assert SECRET_HEX not in (await page_text(client, table, "cat", "/replay")).split('id="log-list"')[-1]
    # The old commander keeps reading its own past; the referee reads everything.
    assert SECRET_HEX in await events_text(client, table, "ann")
    assert SECRET_HEX in await events_text(client, table, "ref")
    # A move made under Cat's command is Cat's.
    await ok(
        await act(
            client, table, "cat", "ship.move", {"ship": "kor-vaq", "position": {"hex": "1012", "facing": 1}}
        )
    )
    assert "1012" in await events_text(client, table, "cat") and "1012" not in await events_text(
        client, table, "ann"
    )


async def test_ST_22_ST_23_websocket_frames_carry_neither_the_old_path_nor_the_signature(server) -> None:  # type: ignore[no-untyped-def]
    """The same two secrets through the live door: frames to the new commander after a reassignment
    carry none of the ship's past path, and a detector's frames carry no signature or suggestion."""
    from app.web.drawing.render import regions_of
    from tests.web.wsclient import WsViewer, cookie_for

    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await cloaked(c)
        await ok(await act(c, table, "ref", "startrek.set_signature", {"ship": "kor-vaq", "signature": 37}))
        await ok(
            await act(
                c,
                table,
                "ann",
                "ship.move",
                {"ship": "kor-vaq", "position": {"hex": SECRET_HEX, "facing": 2}},
            )
        )
        seq = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()["seq"]
        viewers = {
            who: WsViewer(server.url, table.battle_id, await cookie_for(server.url, table.tokens[who]))
            for who in ("bob", "cat")
        }
        for v in viewers.values():
            await v.__aenter__()
            await v.hello(0)  # the whole log, as each may read it
        try:
            await ok(
                await act(c, table, "ref", "ship.assign", {"ship": "kor-vaq", "owner": table.ids["cat"]})
            )
            detect = {"detector": "excelsior", "target": "kor-vaq", "ew": 0, "range": 0}
            last = (await ok(await act(c, table, "bob", "startrek.detect_cloak", detect)))["seq"]
            for who, v in viewers.items():
                text, log = "", ""
                while True:
                    frame = await v.next_frame()  # its regions whole, as the page rebuilds them
                    text += v.raw[-1]
                    log += "".join(
                        html for target, html in regions_of(frame["content"]) if "log-list" in target
                    )
                    if frame.get("seq", -1) >= last:
                        break
                assert SECRET_HEX not in log, who
                assert not re.search(r"signature\D{0,3}37", text) and "suggested" not in text, who
        finally:
            for v in viewers.values():
                await v.__aexit__(None, None, None)
        assert seq >= 1


async def test_ST_23_a_ship_saved_as_it_is_now_keeps_the_signature_out_of_the_library(
    client: httpx.AsyncClient,
) -> None:
    """A cloaked warbird saved "as it is now" is what the saving referee's table shows the public
    after the end: once its battle ends, the anonymous GET /api/v1/ships/{slug} has no `signature`
    and no detection attempts with their suggestions (it had `"signature": 67` and the attempts)."""
    table = await cloaked(client)
    await ok(await act(client, table, "ref", "startrek.set_signature", {"ship": "kor-vaq", "signature": 67}))
    detect = {"detector": "excelsior", "target": "kor-vaq", "ew": 3, "range": 2}
    await ok(await act(client, table, "bob", "startrek.detect_cloak", detect))
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/ships/kor-vaq/save",
        json={"state": "now", "name": "Kor'vaq after the battle"},
        headers=table.auth("ref"),
    )
    assert r.status_code == 201, r.text
    slug = r.json()["slug"]
    await ok(await act(client, table, "ref", "battle.end", {}))
    r = await client.get(f"/api/v1/ships/{slug}")  # anonymous: the hold ended with the battle
    assert r.status_code == 200, r.text
    cloak = r.json()["parts"]["cloak"]
    assert cloak.get("signature") is None and not cloak.get("attempts"), cloak  # back to the defaults
    assert not re.search(r"signature\D{0,3}67", r.text) and "suggested" not in r.text
    assert cloak["cloaked"] is True  # what the public saw of it stays


async def test_ST_23_a_ship_saved_as_built_keeps_a_signature_set_in_its_definition_out(
    client: httpx.AsyncClient,
) -> None:
    """A definition may set what only the referee reads (a cloak's signature): saved as built, it
    goes through the same public redaction, so the library never publishes it."""
    bird = ship_def("klingon-bird-of-prey")
    bird["parts"]["cloak"] = {**bird["parts"]["cloak"], "signature": 55}
    table = await set_table(
        client, ships={"bird": (bird, "ann"), "excelsior": (ship_def("excelsior"), "bob")}
    )
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/ships/kor-vaq/save",
        json={"state": "built", "name": "Kor'vaq as built"},
        headers=table.auth("ref"),
    )
    assert r.status_code == 201, r.text
    await ok(await act(client, table, "ref", "battle.end", {}))
    r = await client.get(f"/api/v1/ships/{r.json()['slug']}")
    assert r.status_code == 200 and r.json()["parts"]["cloak"].get("signature") is None, r.text
