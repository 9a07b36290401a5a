"""Fog on the map (ST-21…ST-24): while the Haakona is cloaked, no other seat's map carries
where it is — not the battle page, the map page, a selection asked for by name, the REST state, the
replay at any seq, nor a websocket frame — as its hex or as the pixel point of that hex. Those seats
get a ghost at its last public hex labelled with the turn it was seen, and nothing else; its
commander and the referee get its counter and its hidden path. A detection (ST-23) shows it to all
for that turn; the next turn the ghost stands where it was detected. On SQLite and PostgreSQL."""

from __future__ import annotations

import re

import httpx

from app.rules.geometry import parse_hex
from app.rules.map_view import centre
from tests.conftest import Server
from tests.helpers import Table, act, set_table, ship_def
from tests.web.test_map import seated
from tests.web.test_startrek_rest import advance, ok
from tests.web.wsclient import WsViewer, cookie_for

SHIPS = {
    "excelsior": (ship_def("excelsior"), "kirk"),
    "shadow": (ship_def("shadow-cruiser"), "kosh"),
    "warbird": (ship_def("romulan-warbird"), "tomalak"),
}
PLAYERS = ("kirk", "kosh", "tomalak")
OTHERS = ("kirk", "kosh", "watcher")
SEEN = "0306"  # where it cloaked (public)
SECRET = ("0912", "1013")  # where it went while cloaked


def traces(hex_: str) -> list[str]:
    """The ways a hex can show on a map: its number, or its centre as SVG coordinates."""
    x, y = centre(parse_hex(hex_))
    return [
        rf"(?<![0-9A-Za-z_-]){hex_}(?![0-9A-Za-z_-])",
        rf"(?<![0-9.]){round(x, 1)}[ ,]{round(y, 1)}(?![0-9])",
    ]


def leaked(text: str, hexes: tuple[str, ...] = SECRET) -> list[str]:
    return [m.group(0) for h in hexes for pattern in traces(h) for m in [re.search(pattern, text)] if m]


async def cloaked_and_moved(c: httpx.AsyncClient) -> Table:
    """Turn 1: the three ships placed; the Haakona cloaks at 0306. Turn 2 Movement: it goes to 0912,
    then 1013, unseen."""
    table = await set_table(c, players=PLAYERS, ships=SHIPS)
    await advance(c, table)  # → Movement
    await ok(c, table, "kirk", "ship.move", {"ship": "excelsior", "position": {"hex": "0505", "facing": 1}})
    await ok(
        c, table, "kosh", "ship.move", {"ship": "shadow-cruiser", "position": {"hex": "0503", "facing": 4}}
    )
    await ok(c, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": SEEN, "facing": 2}})
    await advance(c, table, 2)  # → Adjust Ship Systems
    await ok(c, table, "tomalak", "startrek.cloak", {"ship": "haakona"})
    await advance(c, table, 2)  # → turn 2 Movement
    for hex_ in SECRET:
        await ok(
            c, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": hex_, "facing": 3}}
        )
    return table


async def doors(c: httpx.AsyncClient, table: Table, who: str) -> dict[str, str]:
    """Every way this seat reads the map: pages, the map door, a selection by name, REST, replays."""
    browser = await seated(c, table, who)
    bid = table.battle_id
    try:
        seq = (await c.get(f"/api/v1/battles/{bid}", headers=table.auth(who))).json()["seq"]
        out = {
            "battle page": (await browser.get(f"/battles/{bid}")).text,
            "map page": (await browser.get(f"/battles/{bid}/map")).text,
            "selection": (
                await browser.get(f"/battles/{bid}/map", params={"select": "haakona", "part": "selection"})
            ).text,
            "map page selecting it": (
                await browser.get(f"/battles/{bid}/map", params={"select": "haakona"})
            ).text,
            "REST state": (await c.get(f"/api/v1/battles/{bid}", headers=table.auth(who))).text,
        }
        for at in range(seq - 3, seq + 1):
            out[f"replay #{at}"] = (await browser.get(f"/battles/{bid}/replay", params={"seq": at})).text
            out[f"replay map #{at}"] = (await browser.get(f"/battles/{bid}/map", params={"seq": at})).text
        return out
    finally:
        await browser.aclose()


async def list_publicly(c: httpx.AsyncClient, table: Table, **listing: object) -> None:
    """The referee lists the battle in the lobby: open to spectators by the public link."""
    body = {"claims": "closed", "open_seats": [], "spectators": True, **listing}
    r = await c.put(f"/api/v1/battles/{table.battle_id}/listing", json=body, headers=table.auth("ref"))
    assert r.status_code == 200, r.text


async def public_doors(c: httpx.AsyncClient, table: Table) -> dict[str, str]:
    """Every way the public reads a listed battle: the lobby and its REST twin, the watch page, its
    report and replays, and the audience's viewscreen."""
    bid = table.battle_id
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as anyone:
        seq = (await c.get(f"/api/v1/battles/{bid}", headers=table.auth("ref"))).json()["seq"]
        out = {
            "lobby": (await anyone.get("/lobby")).text,
            "REST lobby": (await anyone.get("/api/v1/lobby")).text,
            "watch page": (await anyone.get(f"/battles/{bid}/watch")).text,
            "public report": (await anyone.get(f"/battles/{bid}/watch/report")).text,
            "viewscreen": (await anyone.get(f"/battles/{bid}/screen")).text,
            "map page selecting it": (
                await anyone.get(f"/battles/{bid}/map", params={"select": "haakona"})
            ).text,
            "selection": (
                await anyone.get(f"/battles/{bid}/map", params={"select": "haakona", "part": "selection"})
            ).text,
        }
        for at in range(seq - 3, seq + 1):
            out[f"public replay #{at}"] = (
                await anyone.get(f"/battles/{bid}/watch/replay", params={"seq": at})
            ).text
        return out


async def test_LEAK_ST_22_the_lobby_the_public_link_and_the_viewscreen_never_carry_it(
    client: httpx.AsyncClient,
) -> None:
    table = await cloaked_and_moved(client)
    await list_publicly(client, table)
    seen = await public_doors(client, table)
    assert "Haakona" in seen["REST lobby"] and 'id="screen-ship-haakona"' in seen["viewscreen"]
    assert "not a ship you can see on the map" in seen["selection"]  # as for any seat that may not see it
    for delay in ({}, {"delay_actions": 1}, {"delay_turn": True}):
        await list_publicly(client, table, **delay)
        if delay:
            seen = {"viewscreen": (await public_doors(client, table))["viewscreen"]}
        for door, text in seen.items():
            assert not leaked(text), f"the public finds {leaked(text)} in the {door} ({delay})"
            assert 'id="counter-haakona"' not in text and "hidden-path" not in text, door
    lobby = (await client.get("/api/v1/lobby")).json()
    (entry,) = [e for e in lobby["live"] if e["battle_id"] == table.battle_id]
    assert set(entry["ships"][0]) == {"name", "klass", "destroyed"}  # no position, no part


async def test_LEAK_ST_22_no_other_seats_map_carries_the_cloaked_ship(client: httpx.AsyncClient) -> None:
    table = await cloaked_and_moved(client)
    for who in OTHERS:
        seen = await doors(client, table, who)
        for door, text in seen.items():
            assert not leaked(text), f"{who} finds {leaked(text)} in the {door}"
            assert 'id="counter-haakona"' not in text and "hidden-path" not in text, f"{who}: {door}"
        page = seen["battle page"]
        ghost = re.search(
            r'<g id="ghost-haakona" class="ghost" transform="translate\(([0-9.]+) ([0-9.]+)\)"[^>]*>', page
        )
        assert ghost and (float(ghost[1]), float(ghost[2])) == tuple(
            round(v, 1) for v in centre(parse_hex(SEEN))
        )
        assert "last known position 0306, seen in turn 1" in ghost[0] and "seen T1" in page
        # A selection by name is refused exactly as one of a ship that does not exist.
        assert "not a ship you can see on the map" in seen["selection"]
        model = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))).json()[
            "map"
        ]
        assert "haakona" not in {c["id"] for c in model["counters"]} | {u["id"] for u in model["unplaced"]}
        assert [(g["id"], g["hex"], g["turn"]) for g in model["ghosts"]] == [("haakona", SEEN, 1)]
        assert all(r["ship"] != "haakona" for c in model["counters"] for r in c["ranges"])
    for who in ("tomalak", "ref"):
        seen = await doors(client, table, who)
        page = seen["battle page"]
        assert re.search(r'id="counter-haakona" class="counter[^"]* cloaked', page), who
        assert 'data-hex="1013"' in page and "hidden-path" in page and 'id="ghost-haakona"' not in page, who
        x, y = centre(parse_hex("0912"))
        assert leaked(page) and f"{round(x, 1)},{round(y, 1)}" in page, who  # the detector finds the path
        assert seen["selection"].count('class="shield-arc') >= 4, who  # its own overlays
        model = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))).json()[
            "map"
        ]
        (mine,) = [c for c in model["counters"] if c["id"] == "haakona"]
        assert (mine["hex"], mine["cloaked"], [p["hex"] for p in mine["path"]]) == (
            "1013",
            True,
            [SEEN, *SECRET],
        )


async def test_LEAK_ST_23_detected_it_shows_for_the_turn_then_a_ghost_where_it_was_found(
    client: httpx.AsyncClient,
) -> None:
    table = await cloaked_and_moved(client)
    await advance(client, table)  # → turn 2 Combat
    detect = {"detector": "excelsior", "target": "haakona", "ew": 9, "range": 6}
    await ok(client, table, "kirk", "startrek.detect_cloak", detect)
    await ok(
        client, table, "ref", "startrek.rule_detection", {"target": "haakona", "attempt": 0, "detected": True}
    )
    kirk = await doors(client, table, "kirk")
    assert 'id="counter-haakona"' in kirk["battle page"] and 'data-hex="1013"' in kirk["battle page"]
    assert not leaked(kirk["battle page"], ("0912",))  # the path stays hidden (ST-22 decision)
    await advance(client, table, 3)  # → turn 3 Ship Power: lost from sight again
    for who in OTHERS:
        seen = await doors(client, table, who)
        assert 'id="counter-haakona"' not in seen["battle page"], who
        model = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))).json()[
            "map"
        ]
        assert [(g["hex"], g["turn"]) for g in model["ghosts"]] == [("1013", 2)], who
        assert not leaked(seen["battle page"], ("0912",)), who


async def test_LEAK_ST_22_the_map_in_the_frames_of_others_never_carries_it(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, players=PLAYERS, ships=SHIPS)
        await advance(c, table)
        await ok(
            c, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": SEEN, "facing": 2}}
        )
        await advance(c, table, 2)
        seq = (await ok(c, table, "tomalak", "startrek.cloak", {"ship": "haakona"}))["seq"]
        await list_publicly(c, table)
    viewers = {
        who: WsViewer(server.url, table.battle_id, await cookie_for(server.url, table.tokens[who]))
        for who in (*OTHERS, "tomalak")
    }
    viewers["public"] = WsViewer(server.url, table.battle_id, "")  # the lobby's public link: no seat
    for v in viewers.values():
        await v.__aenter__()
        await v.hello(seq)
    try:
        async with httpx.AsyncClient(base_url=server.url) as c:
            await advance(c, table, 2)
            for hex_ in SECRET:
                moved = await act(
                    c, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": hex_}}
                )
                assert moved.status_code == 200, moved.text
        for v in viewers.values():
            await v.frame_with_seq(moved.json()["seq"])
        frames = {who: "".join(v.raw) for who, v in viewers.items()}
        for who in (*OTHERS, "public"):
            assert not leaked(frames[who]), f"{who}'s frames carry {leaked(frames[who])}"
            assert 'id=\\"ghost-haakona\\"' in frames[who] and "seen T1" in frames[who], who
            assert 'id=\\"counter-haakona\\"' not in frames[who], who
        # the commander's page, rebuilt from its frames' hunks as the page does, shows the path
        shown = "".join(frame.get("content", "") for frame in viewers["tomalak"].frames)
        assert 'data-hex="1013"' in shown and "hidden-path" in shown
    finally:
        for v in viewers.values():
            await v.__aexit__(None, None, None)
