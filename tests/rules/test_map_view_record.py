"""The map model's edges (app/rules/map_view.py) with parts declared here, so every figure comes from
the hex geometry worked out in the test (circumradius 30: hex CCRR is column q = CC − 1, at
x = 30 + 45·q, y = 30√3·(RR − ½ + ½·(q odd)); facing 1 points up the map, sides clockwise 60° apart):
the hexes a move away from damage reaches (SH-08, SH-11), a hidden ship's ghost and path (ST-22),
badges, rings and arcs of several parts, the board's bounds and its labels (GEN-01)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from app.rules.counters import Away, Badge, Counter, CounterEvent, RingBand
from app.rules.map_view import labels, map_model, ring, trails, wedge
from app.rules.ruleset import PartSpec

ROW = 30 * math.sqrt(3)  # a hex's height: rows are this far apart


def told(part: dict[str, Any]) -> Counter:
    """A part that says on the counter what its data holds."""
    badge = part.get("badge")
    return Counter(
        badge=Badge(badge[0], "title", "kind", badge[1]) if badge else None,
        ring=tuple(RingBand(name, start, end, 1, 2, False) for name, start, end in part.get("ring", [])),
        away=tuple(Away(direction, "flinch") for direction in part.get("away", [])),
        last_known=part.get("last_known"),
    )


PARTS = {
    "mark": PartSpec("mark", dict, counter=told, counter_events=(CounterEvent("vanish", "hide", ()),)),
    "other": PartSpec("other", dict, counter=told, counter_events=(CounterEvent("reappear", "show", ()),)),
}


def model(ships: dict[str, dict[str, Any]], events: list[Any] = (), **options: Any) -> dict[str, Any]:  # type: ignore[assignment]
    return map_model({"system": "b5wars", "clock": {}, "ships": ships}, events, parts=PARTS, **options)


def at(hex_: str, facing: int | None = 1, **more: Any) -> dict[str, Any]:
    return {"position": {"hex": hex_, "facing": facing}} | more


def flinch(hex_: str, facing: int, *directions: str) -> list[str]:
    counter = model({"s": at(hex_, facing, parts={"mark": {"away": list(directions)}})})["counters"][0]
    return [a["hex"] for a in counter["away"]]


# --- a move away from damage (SH-08, SH-11) ----------------------------------------------------------


def test_SH_08_damage_from_fore_or_aft_leaves_one_hex_straight_away():
    """Straight away from the fore quadrant is the hex behind (side 4, 180°): the sides either side
    lie exactly 60° off and are not "less than 60°"."""
    assert flinch("0505", 1, "fore") == ["0506"]
    assert flinch("0505", 1, "aft") == ["0504"]  # side 1, straight up the map
    # facing 6 (300°), damage from aft: away is 300°, side 6; 0505's upper-left neighbour is 0404
    assert flinch("0505", 6, "aft") == ["0404"]


def test_SH_08_an_unknown_quadrant_is_passed_over_and_the_next_one_read():
    assert flinch("0505", 1, "below", "Fore") == ["0506"]


def test_SH_08_a_hex_off_the_map_is_left_out_and_the_next_side_kept():
    """At 0101 facing 1, damage from port: away is 90°, sides 2 (60°) and 3 (120°) lie 30° off; the
    first is above row 01, off the printed map; the second is 0201."""
    assert flinch("0101", 1, "port") == ["0201"]


# --- names, counters and ghosts ----------------------------------------------------------------------


def test_GEN_04_a_short_name_of_several_words_is_kept_whole():
    assert labels({"a": "Red Fox", "b": "Big Tiger", "c": "Big Tigers"}) == {
        "a": ("RF", "Red Fox"),
        "b": ("BT", "Big Tiger"),  # nine letters: kept
        "c": ("BT2", "Tigers"),
    }


def test_ST_22_counters_ghosts_and_unplaced_ships_without_names_use_their_ids():
    """A ship with no name is named by its id wherever it shows (an unplaced one by its name where
    it has one); a hidden ship's ghost stands where
    the viewer's log last saw it (0303: x = 30 + 45·2 = 120, y = 30√3·2.5 ≈ 129.9), dated by the
    turn it hid, even where no part keeps a last known place; ships after it are still listed."""
    events = [
        (2, {"kind": "move", "ship": "hulk", "data": {"position": {"hex": "0303", "facing": 1}}}),
        (3, {"kind": "vanish", "ship": "hulk", "data": {}}),
    ]
    ships = {
        "kite": at("0505"),
        "hulk": {"position": None, "position_hidden": True, "parts": {"mark": {}}},
        "drifter": {"name": "Drifter", "position": None, "commanded": True},
        "stray": {"position": None},
    }
    out = model(ships, events)
    counter = out["counters"][0]
    assert (counter["name"], counter["side"], counter["x"], counter["y"], counter["path"]) == (
        "kite",
        "",
        210.0,
        233.8,
        [],
    )
    assert out["ghosts"] == [
        {
            "id": "hulk",
            "name": "hulk",
            "code": "HU",
            "label": "hulk",
            "hex": "0303",
            "turn": 3,
            "x": 120.0,
            "y": 129.9,
        }
    ]
    assert out["unplaced"] == [
        {"id": "drifter", "name": "Drifter", "commanded": True},
        {"id": "stray", "name": "stray", "commanded": False},
    ]


def test_ST_22_a_hidden_ships_path_starts_where_it_was_last_seen():
    """The commander of a cloaked ship sees its path since it hid: from the hex it was seen in (0505),
    past a hex that cannot be read, to 0506 (y = 30√3·5.5 ≈ 285.8); a ship in the open draws none,
    whatever the log says."""
    events = [
        (1, {"kind": "move", "data": {"position": {"hex": "0909"}}}),  # no ship: nothing to place
        (1, {"kind": "move", "ship": "k", "data": {"position": {"hex": "0505", "facing": 1}}}),
        (2, {"kind": "vanish", "ship": "k", "data": {}}),
        (2, {"kind": "move", "ship": "k", "data": {"position": {"hex": "ZZ"}}}),
        (2, {"kind": "move", "ship": "k", "data": {"position": {"hex": "0506"}}}),
    ]
    hidden = model({"k": at("0506", position_hidden=True)}, events)["counters"][0]
    assert hidden["path"] == [
        {"hex": "0505", "x": 210.0, "y": 233.8},
        {"hex": "0506", "x": 210.0, "y": 285.8},
    ]
    assert model({"k": at("0506")}, events)["counters"][0]["path"] == []
    assert trails(events, PARTS)["k"].path == ["0505", "ZZ", "0506"]


def test_ST_22_a_position_that_is_not_a_place_places_nothing():
    events = [(1, {"kind": "move", "ship": "k", "data": {"position": "0505"}})]
    trail = trails(events, PARTS)["k"]
    assert (trail.seen, trail.seen_turn, trail.path) == (None, None, [])


def test_GEN_01_badges_of_equal_weight_show_the_first_and_every_parts_ring_and_flinch_show():
    ship = at(
        "0505",
        parts={
            "mark": {"badge": ["P3", 1], "ring": [["Fore", 315, 45]], "away": ["fore"]},
            "other": {"badge": ["40%", 1], "ring": [["Aft", 135, 225]], "away": ["aft"]},
        },
    )
    counter = model({"s": ship})["counters"][0]
    assert counter["badge"] == {"text": "P3", "title": "title", "kind": "kind"}
    assert [band["name"] for band in counter["shields"]] == ["Fore", "Aft"]
    assert counter["away"] == [{"hex": "0506", "why": "flinch"}, {"hex": "0504", "why": "flinch"}]


# --- the SVG shapes ---------------------------------------------------------------------------------


def test_ST_05_an_arc_over_half_the_circle_is_drawn_the_long_way():
    assert "A 10 10 0 0 1 " in wedge(0, 0, 0, 180, 10)
    assert "A 10 10 0 1 1 " in wedge(0, 0, 0, 181, 10)
    # a ring band keeps a 2° hair each side: 184° is drawn over 180°, 185° over 181°
    assert "A 10 10 0 0 1 " in ring(0, 0, 0, 184, 8, 10) and "A 8 8 0 0 0 " in ring(0, 0, 0, 184, 8, 10)
    assert "A 10 10 0 1 1 " in ring(0, 0, 0, 185, 8, 10) and "A 8 8 0 1 0 " in ring(0, 0, 0, 185, 8, 10)


# --- the board --------------------------------------------------------------------------------------


def test_GEN_01_ships_far_apart_widen_the_board_past_the_smallest_one():
    """0505 and 2030: columns 5–20 and rows 5–30, three hexes more each side (2–23, 2–33), wider
    and taller than the smallest board (14 × 10)."""
    bounds = model({"a": at("0505"), "b": at("2030")})["bounds"]
    assert (bounds["columns"], bounds["rows"]) == ((2, 23), (2, 33))


def test_GEN_01_the_boards_pattern_tile_is_the_hex_grids_period():
    """Two columns wide (90) and a row high (30√3 ≈ 52); its first outline is the hex left of and
    above 0101, centred at (−15, 0), corners every 60° from (15, 0)."""
    bounds = model({})["bounds"]
    assert (bounds["tile_width"], bounds["tile_height"]) == ("90", "52")
    assert bounds["tile"].startswith("M 15 0 L 0 26 L -30 26 L -45 0 L -30 -26 L 0 -26 Z M ")


@pytest.mark.parametrize(("ship", "first_column"), [("0808", 5), ("0606", 3), ("0707", 4)])
def test_GEN_01_row_labels_stand_level_with_the_first_columns_hexes(ship: str, first_column: int):
    """Row RR's label stands beside the first column's hex of that row, 9 in from the board's left
    edge (45·(column − 1)): at y = 30√3·(RR − ½) in an odd printed column, half a row lower in an
    even one."""
    bounds = model({"s": at(ship)})["bounds"]
    first_row = bounds["rows"][0]
    lower = 0.5 if first_column % 2 == 0 else 0.0
    assert bounds["columns"][0] == first_column
    for number, x, y in bounds["row_labels"]:
        assert x == pytest.approx(45 * (first_column - 1) + 9)
        assert y == pytest.approx(ROW * (int(number) - 0.5 + lower))
    assert bounds["row_labels"][0][0] == f"{first_row:02d}"
