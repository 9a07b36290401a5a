"""Map geometry: printed hex numbers, facings, distance, bearings, and arcs, by
known values and by properties (hypothesis). ST-05: the sample ships' shield projections tile 360°,
so every bearing falls in exactly one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.geometry import (
    Hex,
    arcs_containing,
    bearing,
    distance,
    in_arc,
    neighbour,
    on_boundary,
    parse_hex,
    printed,
    quadrant,
    tiling_problems,
)

LIBRARY = Path(__file__).resolve().parents[2] / "app" / "shipdata" / "library"

hexes = st.builds(Hex, st.integers(-60, 60), st.integers(-60, 60))
map_numbers = st.builds(lambda c, r: f"{c:02d}{r:02d}", st.integers(1, 99), st.integers(1, 99))
facings = st.integers(1, 6)
bearings = st.floats(0, 360, exclude_max=True, allow_nan=False)


def library_projections() -> dict[str, list[tuple[str, tuple[float, float]]]]:
    ships = {}
    for path in sorted(LIBRARY.glob("*.json")):
        shields = json.loads(path.read_text())["parts"].get("shields")
        if shields:
            ships[path.stem] = [(p["name"], tuple(p["degrees"])) for p in shields["projections"]]
    return ships


PROJECTIONS = library_projections()


# --- known values ---------------------------------------------------------------------------------


def test_printed_numbers_are_column_then_row_from_0101_top_left():
    assert parse_hex("0101") == Hex(0, 0)
    assert parse_hex("0104") == Hex(0, 3)
    assert parse_hex("0201") == Hex(1, 0)  # even printed columns sit half a hex lower
    assert parse_hex("0301") == Hex(2, -1)
    assert printed(Hex(2, -1)) == "0301"


def test_known_distances():
    assert distance(parse_hex("0101"), parse_hex("0104")) == 3
    assert distance(parse_hex("0101"), parse_hex("0201")) == 1
    assert distance(parse_hex("0102"), parse_hex("0201")) == 1  # 0201 is down-right of 0101
    assert distance(parse_hex("0405"), parse_hex("0405")) == 0
    assert distance(parse_hex("0101"), parse_hex("0501")) == 4
    assert distance(parse_hex("0101"), parse_hex("1010")) == 14


def test_facing_1_is_up_the_map_then_clockwise():
    centre = parse_hex("0505")  # column 05 sits high: its right neighbours are 0604 (up) and 0605
    assert [printed(neighbour(centre, f)) for f in range(1, 7)] == [
        "0504",
        "0604",
        "0605",
        "0506",
        "0405",
        "0404",
    ]
    assert [bearing(centre, 1, neighbour(centre, f)) for f in range(1, 7)] == [0, 60, 120, 180, 240, 300]


def test_bearings_are_clockwise_from_the_nose():
    ship = parse_hex("0505")
    ahead = parse_hex("0502")
    assert bearing(ship, 1, ahead) == 0
    assert bearing(ship, 4, ahead) == 180  # facing down the map: the hex is astern
    assert bearing(ship, 2, ahead) == 300  # nose to the up-right: the hex is to port of it
    assert bearing(ship, 1, parse_hex("0705")) == 90  # two columns right, same height: abeam to starboard
    assert bearing(ship, 1, parse_hex("0305")) == 270
    with pytest.raises(ValueError, match="same"):
        bearing(ship, 1, ship)


def test_quadrants_and_wrapping_arcs():
    assert [quadrant(b) for b in (0, 44.9, 45, 134, 135, 224, 225, 314, 315, 359.9)] == [
        "fore",
        "fore",
        "starboard",
        "starboard",
        "aft",
        "aft",
        "port",
        "port",
        "fore",
        "fore",
    ]
    assert in_arc(350, (270, 90)) and in_arc(0, (270, 90)) and not in_arc(90, (270, 90))
    assert in_arc(123.4, (0, 360))


def test_splines_and_tiling_problems():
    halves = [("Fore", (270, 90)), ("Aft", (90, 270))]
    assert on_boundary(90, halves) == ["Fore", "Aft"]
    assert on_boundary(45, halves) == []
    assert tiling_problems(halves) == []
    assert tiling_problems([("Shield", (0, 360))]) == []
    assert tiling_problems([("Fore", (270, 100)), ("Aft", (90, 270))]) == [
        (0, "Fore's arc (270°–100°) overlaps Aft's by 10°")
    ]
    assert tiling_problems([("Fore", (270, 80)), ("Aft", (90, 270))]) == [
        (0, "Fore's arc (270°–80°) leaves a gap of 10° before Aft's")
    ]


def test_printed_numbers_refuse_what_is_not_a_hex():
    for bad in ("405", "04050", "ab05", "0005", "0500"):
        with pytest.raises(ValueError):
            parse_hex(bad)


# --- properties -----------------------------------------------------------------------------------


@given(hexes, hexes, hexes)
def test_distance_is_a_metric(a, b, c):
    assert distance(a, b) >= 0
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, b) == distance(b, a)
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@given(hexes, hexes)
def test_bearings_at_facing_1_are_opposite(a, b):
    if a == b:
        return
    there, back = bearing(b, 1, a), bearing(a, 1, b)
    difference = (there - back) % 360
    assert abs(difference - 180) < 1e-6


@given(hexes, facings, hexes)
def test_bearing_is_in_0_to_360_and_turns_with_the_facing(a, facing, b):
    if a == b:
        return
    seen = bearing(a, facing, b)
    assert 0 <= seen < 360
    turned = (bearing(a, 1, b) - seen - (facing - 1) * 60 + 180) % 360 - 180
    assert abs(turned) < 1e-6


@pytest.mark.parametrize("ship", sorted(PROJECTIONS))
def test_ST_05_library_projections_tile_360(ship):
    assert tiling_problems(PROJECTIONS[ship]) == []


@given(st.sampled_from(sorted(PROJECTIONS)), bearings)
def test_ST_05_every_bearing_falls_in_exactly_one_projection(ship, degrees):
    assert len(arcs_containing(degrees, PROJECTIONS[ship])) == 1


@given(st.sampled_from(sorted(PROJECTIONS)), hexes, facings, hexes)
def test_ST_05_every_map_bearing_falls_in_exactly_one_projection(ship, origin, facing, other):
    if origin == other:
        return
    assert len(arcs_containing(bearing(origin, facing, other), PROJECTIONS[ship])) == 1


@given(map_numbers)
def test_printed_numbers_round_trip(number):
    assert printed(parse_hex(number)) == number


@given(hexes)
def test_axial_round_trips_where_the_map_prints_it(hex_):
    try:
        number = printed(hex_)
    except ValueError:
        return
    assert parse_hex(number) == hex_
