"""Hex geometry clause by clause (GEN-03 directions from the map, ST-05 arcs and splines): the
printed numbers' limits and refusals, a stored facing that is no hex side, bearings exact to 1e-9°
(a ship dead ahead is at 0°, never 360°), splines only where two arcs meet, and tiling problems in
the arcs' clockwise order. Expected bearings are worked out with trigonometry in the test."""

from __future__ import annotations

import math

import pytest

from app.rules.geometry import Hex, bearing, map_place, on_boundary, parse_hex, printed, tiling_problems


def test_GEN_03_printed_numbers_run_from_0101_to_9999():
    assert printed(parse_hex("9999")) == "9999"
    assert printed(Hex(98, 0)) == "9950"  # column 99: axial r 0 is printed row 0 + 98 // 2 + 1
    for off in (Hex(99, 0), Hex(0, 99), Hex(-1, 0), Hex(0, -1)):
        with pytest.raises(ValueError, match=r"is off the printed map \(columns and rows 01–99\)"):
            printed(off)


def test_GEN_03_a_printed_number_is_refused_in_words():
    with pytest.raises(ValueError) as err:
        parse_hex("45")
    assert str(err.value) == "a hex is four digits, column then row (e.g. 0405), not '45'"
    with pytest.raises(ValueError) as err:
        parse_hex("0700")
    assert str(err.value) == "hex '0700': columns and rows are numbered from 01"


def test_GEN_03_a_stored_facing_that_is_no_hex_side_is_no_facing():
    assert map_place({"hex": "0505", "facing": 7}) == (parse_hex("0505"), None)
    assert map_place({"hex": "0505", "facing": "2"}) == (parse_hex("0505"), None)
    assert map_place({"hex": "0505", "facing": 6}) == (parse_hex("0505"), 6)


def test_GEN_03_a_ship_dead_ahead_is_at_0_degrees_not_360():
    """Facing 3 (heading 120°), the next hex that way: the trigonometry lands a hair under 360°."""
    assert bearing(Hex(0, 0), 3, Hex(1, 0)) == 0.0
    assert bearing(Hex(0, 0), 2, Hex(3, -3)) == 0.0


def test_GEN_03_a_bearing_is_exact_to_a_billionth_of_a_degree():
    """Hex (2, −3) from the origin: 3 across and 2√3 up in hex units, atan(3 / 2√3) ≈ 40.893394649°."""
    expected = round(math.degrees(math.atan(3 / (2 * math.sqrt(3)))), 9)
    assert expected == 40.893394649
    assert bearing(Hex(0, 0), 1, Hex(2, -3)) == expected
    with pytest.raises(ValueError, match="^the two hexes are the same: there is no bearing$"):
        bearing(Hex(1, 1), 1, Hex(1, 1))


def test_ST_10_a_spline_is_where_two_arcs_meet():
    quadrants = [("Port", (180, 360)), ("Starboard", (0, 180))]
    assert on_boundary(0, quadrants) == ["Port", "Starboard"]  # 360 is 0
    assert on_boundary(0, [("Aft", (90, 360)), ("Fore", (360, 90))]) == ["Aft", "Fore"]
    assert on_boundary(300, [("Fore", (300, 60))]) == []  # one arc's edge alone is no spline
    assert on_boundary(0, [("All", (0, 360)), ("Fore", (0, 90))]) == []  # all round has no edge


def test_ST_05_tiling_problems_come_in_clockwise_order_whatever_the_listing():
    """Arcs listed out of order tile as they stand round the ship; an arc given from 360 starts at 0."""
    listed = [("Aft", (135, 225)), ("Fore", (315, 45)), ("Starboard", (45, 135)), ("Port", (225, 315))]
    assert tiling_problems(listed) == []
    gaps = [("A", (360, 80)), ("B", (90, 190)), ("C", (200, 360))]
    assert tiling_problems(gaps) == [
        (0, "A's arc (360°–80°) leaves a gap of 10° before B's"),
        (1, "B's arc (90°–190°) leaves a gap of 10° before C's"),
    ]
    assert tiling_problems([("A", (0, 180)), ("B", (360, 180))]) == [
        (1, "B's arc starts where A's does (0°): they overlap"),
        (0, "A's arc starts where B's does (360°): they overlap"),
    ]


def test_ST_05_arcs_are_ordered_by_where_they_start_not_where_they_end():
    """Port 0°–180° and a narrow Fore 90°–120° inside it: Port comes first (it starts first) and
    overlaps Fore by 90°; Fore then leaves 240° before Port starts again."""
    assert tiling_problems([("Port", (0, 180)), ("Fore", (90, 120))]) == [
        (0, "Port's arc (0°–180°) overlaps Fore's by 90°"),
        (1, "Fore's arc (90°–120°) leaves a gap of 240° before Port's"),
    ]
