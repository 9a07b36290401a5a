"""The tactical map: the per-viewer map model (counters at their hexes' centres, facings,
badges, ranges; the selected ship's shield and weapon wedges), the map region on the battle,
referee and replay pages, the selection door, and the map in the REST state."""

from __future__ import annotations

import math
import re

import httpx
import pytest
from pydantic import ValidationError

from app.rules import STANDARD
from app.rules.geometry import parse_hex
from app.rules.map_view import SIZE, centre, map_model, trails, wedge
from tests.helpers import Elements, Table, act, session_cookie, set_table, ship_def
from tests.web.test_startrek_rest import ok

B5 = {
    "excelsior": (ship_def("excelsior"), "kirk"),
    "shadow": (ship_def("shadow-cruiser"), "kosh"),
    "warbird": (ship_def("romulan-warbird"), "tomalak"),
}
PLAYERS = ("kirk", "kosh", "tomalak")


async def place(
    c: httpx.AsyncClient, table: Table, who: str, ship: str, hex_: str, facing: int, speed: int = 0
) -> dict:
    position = {"hex": hex_, "facing": facing, "speed": speed}
    return await ok(c, table, who, "ship.move", {"ship": ship, "position": position})


async def placed_table(c: httpx.AsyncClient) -> Table:
    """The three B5 ships, Excelsior at 0505 and Haakona at 0305; the Shadow cruiser not placed."""
    table = await set_table(c, players=PLAYERS, ships=B5)
    await place(c, table, "kirk", "excelsior", "0505", 1, 4)
    await place(c, table, "tomalak", "haakona", "0305", 2, 3)
    return table


async def seated(c: httpx.AsyncClient, table: Table, who: str) -> httpx.AsyncClient:
    browser = httpx.AsyncClient(transport=c._transport, base_url=c.base_url)
    browser.cookies.set("starboard_session", await session_cookie(c, table.tokens[who]))
    return browser


def parsed(html: str) -> Elements:
    found = Elements()
    found.feed(html)
    return found


# --- the model ------------------------------------------------------------------------------------


def test_centres_follow_the_printed_numbers() -> None:
    """0101 top-left; a column to the right is 1.5 sizes across; even printed columns sit half a hex
    lower (odd-q), so 0201 is below 0101 and 0301 level with it; a row down is √3 sizes."""
    x1, y1 = centre(parse_hex("0101"))
    x2, y2 = centre(parse_hex("0201"))
    x3, y3 = centre(parse_hex("0301"))
    x4, y4 = centre(parse_hex("0102"))
    assert (x2 - x1, y2 - y1) == (1.5 * SIZE, math.sqrt(3) * SIZE / 2)
    assert (x3 - x1, y3 - y1) == (3 * SIZE, 0)
    assert (x4 - x1, round(y4 - y1, 9)) == (0, round(math.sqrt(3) * SIZE, 9))


def test_a_wedge_turns_with_the_nose() -> None:
    """A quadrant wedge from compass 225° to 315° (port, for a ship facing 1) runs from lower-left to
    upper-left of the centre; a whole circle is drawn as a disc."""
    path = wedge(100, 100, 225, 90, 10)
    start, end = (
        re.findall(r"L ([-0-9.]+) ([-0-9.]+)", path)[0],
        re.findall(r"A .* ([-0-9.]+) ([-0-9.]+) Z", path)[0],
    )
    assert float(start[0]) < 100 < float(start[1]) and float(end[0]) < 100 and float(end[1]) < 100
    assert wedge(0, 0, 0, 360, 5).count(" a ") == 2


def _view(**ships: dict) -> dict:
    return {"system": "b5wars", "ships": ships}


def test_counters_ranges_and_the_selected_ships_port_projection() -> None:
    """ST-05: the Haakona two hexes off the Excelsior's port side (facing 1) is at 270°, in the port
    quadrant and the Port projection; the selection draws all four projections and the weapon arcs."""
    excelsior = {
        "name": "Excelsior",
        "position": {"hex": "0505", "facing": 1, "speed": 4},
        "parts": ship_def("excelsior")["parts"],
        "commanded": True,
    }
    haakona = {"name": "Haakona", "position": {"hex": "0305", "facing": 2}, "parts": {}}
    model = map_model(_view(excelsior=excelsior, haakona=haakona), select="excelsior")
    ex = next(c for c in model["counters"] if c["id"] == "excelsior")
    assert (ex["x"], ex["y"]) == tuple(round(v, 1) for v in centre(parse_hex("0505")))
    assert (ex["hex"], ex["facing"], ex["heading"], ex["speed"]) == ("0505", 1, 0, 4)
    assert ex["ranges"] == [
        {
            "ship": "haakona",
            "name": "Haakona",
            "range": 2,
            "x": 120.0,
            "y": ex["y"],
            "bearing": 270.0,
            "quadrant": "port",
            "shield": "Port",
        }
    ]
    chosen = model["selected"]
    assert [s["name"] for s in chosen["shields"]] == ["Fore", "Starboard", "Aft", "Port"]
    assert all(s["path"].startswith("M ") for s in chosen["shields"])
    # Each weapon at its own arc from the sample data (degrees from the nose, wrapping past 360).
    assert [(w["weapons"], w["label"]) for w in chosen["weapons"]] == [
        (["Fore Phaser Array"], "270°–90°"),
        (["Photon Torpedo"], "300°–60°"),
        (["Port Phaser Array"], "180°–360°"),
        (["Starboard Phaser Array"], "0°–180°"),
        (["Aft Phaser Array"], "90°–270°"),
    ]


def test_a_weapon_without_an_arc_of_its_own_fires_in_its_sections_quadrant_and_bad_arcs_are_refused() -> None:
    """Ship data may give a weapon its arc; without one it is its section's quadrant. An arc off
    0–360 or with two equal ends is refused naming the system."""
    plain = ship_def("excelsior")
    for section in plain["parts"]["sheet"]["sections"]:
        for system in section["systems"]:
            system.pop("arc", None)
    excelsior = {"name": "Excelsior", "position": {"hex": "0505", "facing": 1}, "parts": plain["parts"]}
    model = map_model(_view(excelsior=excelsior), select="excelsior")
    assert {w["arc"] for w in model["selected"]["weapons"]} == {"fore", "port", "starboard", "aft"}
    for arc, says in (([0, 400], "arc degrees run from 0 to 360"), ([90, 90], "two different ends")):
        bad = ship_def("excelsior")
        bad["parts"]["sheet"]["sections"][0]["systems"][0]["arc"] = arc
        with pytest.raises(ValidationError, match=says):
            STANDARD.new_battle("b5wars").game.validate_parts(bad["parts"])


def test_ST_22_a_hidden_ship_is_a_ghost_at_its_last_public_hex_with_the_turn() -> None:
    """Others' events: a public move to 0505 in turn 1, the cloak in turn 1, then a hidden move whose
    data never reached them. The ghost is at 0505, seen in turn 1; no counter, no path."""
    events = [
        (1, {"kind": "move", "ship": "haakona", "data": {"position": {"hex": "0505", "facing": 3}}}),
        (1, {"kind": "cloak", "ship": "haakona", "data": {}}),
        (2, {"kind": "move", "ship": "haakona", "data": {}}),  # "A cloaked ship moves." — no data
    ]
    hidden = {
        "name": "Haakona",
        "position": None,
        "position_hidden": True,
        "parts": {"cloak": {"cloaked": True}},
    }
    model = map_model(_view(haakona=hidden), events)
    assert model["counters"] == [] and model["unplaced"] == []
    assert [(g["id"], g["hex"], g["turn"]) for g in model["ghosts"]] == [("haakona", "0505", 1)]


def test_ST_22_its_owner_sees_the_counter_and_the_hidden_path() -> None:
    events = [
        (1, {"kind": "move", "ship": "haakona", "data": {"position": {"hex": "0505", "facing": 3}}}),
        (1, {"kind": "cloak", "ship": "haakona", "data": {}}),
        (2, {"kind": "move", "ship": "haakona", "data": {"position": {"hex": "0706", "facing": 2}}}),
    ]
    mine = {
        "name": "Haakona",
        "position": {"hex": "0907", "facing": 2},
        "position_hidden": True,
        "commanded": True,
        "parts": {},
    }
    model = map_model(_view(haakona=mine), events)
    (counter,) = model["counters"]
    assert counter["cloaked"] and [p["hex"] for p in counter["path"]] == ["0505", "0706"]
    assert model["ghosts"] == []
    assert trails(events)["haakona"].seen == {"hex": "0505", "facing": 3}


def test_SH_08_a_flinch_owed_marks_the_hex_directly_away() -> None:
    """Damage from the fore on a Shadow facing 1 at 0505: away is straight down the map, 0506."""
    pain = {
        "level": 2,
        "obligations": [
            {
                "kind": "flinch",
                "direction": "fore",
                "text": "must move 1 hex away from the damage (damage from fore), keeping facing",
            }
        ],
    }
    shadow = {"name": "Shadow Cruiser", "position": {"hex": "0505", "facing": 1}, "parts": {"pain": pain}}
    model = map_model(_view(shadow=shadow), select="shadow")
    assert [a["hex"] for a in model["selected"]["away"]] == ["0506"]
    assert model["counters"][0]["badge"] == {"text": "P2", "title": "pain 2", "kind": "pain"}


def test_no_map_for_traveller_range_bands() -> None:
    from app.services.reading.maps import map_for

    assert map_for({"system": "traveller", "ships": {}}, [], None, False) is None  # type: ignore[arg-type]


# --- pages and REST -------------------------------------------------------------------------------


async def test_a_live_frame_draws_the_board_the_page_draws(client: httpx.AsyncClient) -> None:
    """The board a live frame pushes is the page's board to the byte: the counters the viewer may
    move are marked in both (a frame once drew them unmarked, so a live update took the marks off
    until the next reload)."""
    from app.web.drawing.render import live_html, read_live

    table = await placed_table(client)
    kirk = await seated(client, table, "kirk")
    page = (await kirk.get(f"/battles/{table.battle_id}")).text
    board = page[
        page.index('<svg id="map-board"') : page.index("</svg>", page.index('<svg id="map-board"')) + 6
    ]
    read = await read_live(client.app.state.platform.db, table.battle_id, 0)  # type: ignore[attr-defined]
    frame = live_html(read, read.by_id[table.ids["kirk"]], 0, "csrf")
    pushed = frame.split('<hx-partial hx-target="#map-board" hx-swap="outerMorph">', 1)[1].split(
        "</hx-partial>"
    )[0]
    assert "movable" in parsed(pushed).by_id["counter-excelsior"]["class"]
    assert "movable" not in parsed(pushed).by_id["counter-haakona"]["class"]
    assert pushed.strip() == board.strip()


async def test_the_battle_page_draws_counters_and_the_selection_door_draws_overlays(
    client: httpx.AsyncClient,
) -> None:
    table = await placed_table(client)
    kirk = await seated(client, table, "kirk")
    page = await kirk.get(f"/battles/{table.battle_id}")
    found = parsed(page.text)
    counter = found.by_id["counter-excelsior"]
    x, y = centre(parse_hex("0505"))
    assert counter["transform"] == f"translate({round(x, 1)} {round(y, 1)})"
    assert counter["data-hex"] == "0505" and counter["data-facing"] == "1" and "movable" in counter["class"]
    assert "movable" not in found.by_id["counter-haakona"]["class"]
    assert "Shadow Cruiser" in page.text.split('id="map"')[1].split("</section>")[0]  # not placed yet: listed
    assert found.by_id["map-move-form"]["tag"] == "form"
    chosen = await kirk.get(
        f"/battles/{table.battle_id}/map", params={"select": "excelsior", "part": "selection"}
    )
    assert chosen.status_code == 200
    assert chosen.text.count('class="shield-arc"') == 4 and "30/30" in chosen.text
    assert re.search(
        r"<th scope=\"row\">Haakona</th><td>2 hexes</td><td>270°</td><td>port · Port shield</td>", chosen.text
    )
    wrong = await kirk.get(
        f"/battles/{table.battle_id}/map", params={"select": "nobody", "part": "selection"}
    )
    assert wrong.status_code == 422 and "select: “nobody” is not a ship you can see on the map" in wrong.text
    whole = await kirk.get(f"/battles/{table.battle_id}/map", params={"select": "haakona"})
    assert whole.status_code == 200 and 'aria-current="true">Haakona' in whole.text
    mine = parsed((await kirk.get(f"/battles/{table.battle_id}/map", params={"select": "excelsior"})).text)
    assert (mine.by_id["map-move-hex"]["value"], mine.by_id["map-move-facing"]["value"]) == ("0505", "1")
    assert mine.by_id["map-move-speed"]["value"] == "4"  # without JavaScript the form starts where it is
    for who in ("ref", "watcher"):
        other = await seated(client, table, who)
        text = (await other.get(f"/battles/{table.battle_id}")).text
        assert 'id="counter-excelsior"' in text, who
        assert ('id="map-move-form"' in text) == (who == "ref"), who
        await other.aclose()
    replay = await kirk.get(f"/battles/{table.battle_id}/replay", params={"seq": 1})
    assert 'id="counter-excelsior"' not in replay.text and 'id="map-board"' in replay.text  # before the move
    await kirk.aclose()


async def test_the_REST_state_carries_positions_arcs_and_ranges(client: httpx.AsyncClient) -> None:
    table = await set_table(client, players=PLAYERS, ships=B5)
    await place(client, table, "kirk", "excelsior", "0505", 1, 4)
    await place(client, table, "kosh", "shadow-cruiser", "0508", 4, 5)
    r = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("kosh"))
    assert r.status_code == 200
    model = r.json()["map"]
    by_id = {c["id"]: c for c in model["counters"]}
    assert (by_id["excelsior"]["hex"], by_id["excelsior"]["facing"], by_id["excelsior"]["speed"]) == (
        "0505",
        1,
        4,
    )
    assert [s["name"] for s in by_id["excelsior"]["shields"]] == ["Fore", "Starboard", "Aft", "Port"]
    assert by_id["excelsior"]["ranges"][0] | {"x": 0, "y": 0} == {
        "ship": "shadow-cruiser",
        "name": "Shadow Cruiser",
        "range": 3,
        "bearing": 180.0,
        "quadrant": "aft",
        "shield": "Aft",
        "x": 0,
        "y": 0,
    }
    assert by_id["shadow-cruiser"]["ranges"][0]["quadrant"] == "aft"  # facing 4 points down, away from 0505
    assert [u["id"] for u in model["unplaced"]] == ["haakona"]
    assert "tile" not in model["bounds"]


async def test_a_referee_correction_with_a_reason_moves_the_counter(client: httpx.AsyncClient) -> None:
    """ux §6: the referee corrects a position through the override, reason required; the map follows."""
    table = await set_table(client, players=PLAYERS, ships=B5)
    await place(client, table, "kirk", "excelsior", "0505", 1, 4)
    fix = {"path": "ships.excelsior.position", "value": {"hex": "0606", "facing": 2, "speed": 4}}
    refused = await act(client, table, "ref", "override.set", fix | {"reason": ""})
    assert refused.status_code == 422 and refused.json()["detail"]["field"] == "reason"
    await ok(client, table, "ref", "override.set", fix | {"reason": "misread the map"})
    r = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("kosh"))
    (counter,) = [c for c in r.json()["map"]["counters"] if c["id"] == "excelsior"]
    assert (counter["hex"], counter["facing"]) == ("0606", 2)


async def test_a_bad_weapon_arc_is_refused_over_rest_naming_the_system(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    bad = ship_def("excelsior")
    bad["parts"]["sheet"]["sections"][0]["systems"][0]["arc"] = [10, 400]
    r = await act(client, table, "ref", "ship.add", {"definition": bad})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert (
        detail["field"].endswith("sections.0.systems.0")
        and "arc degrees run from 0 to 360" in detail["reason"]
    )


async def test_each_page_draws_the_board_its_system_declares(client: httpx.AsyncClient) -> None:
    """B5 Wars plays on hexes: its page draws the map and no range board. Traveller plays in range
    bands: its page, live frames included, draws High Guard's range board (TR-02) and no map."""
    b5 = await placed_table(client)
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
    }
    traveller = await set_table(client, system="traveller", ships=ships)
    pages = {}
    for name, table in (("b5", b5), ("traveller", traveller)):
        client.cookies.set("starboard_session", await session_cookie(client, table.tokens["ref"]))
        pages[name] = (await client.get(f"/battles/{table.battle_id}")).text
    assert 'id="map-board"' in pages["b5"] and 'id="range-board"' not in pages["b5"]
    assert 'id="range-board"' in pages["traveller"] and 'id="map-board"' not in pages["traveller"]
