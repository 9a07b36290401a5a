"""The map model one viewer is given (app/rules/map_view.py), from their view and the log they may
read: counters where the ships stand, the selected ship's shield ring (ST-05) and weapon arcs, the
hexes a flinch may take (SH-08), a cloaked ship's ghost and hidden path (ST-22, ST-23), the impulse
chart (GEN-01). Pixel figures are worked out here from the hex geometry (a hex's circumradius 30:
hex 0505 is column 4, row 4 → x = 30 + 45·4 = 210, y = 30√3·4.5 ≈ 233.8), never read off the code."""

from __future__ import annotations

from typing import Any

from app.rules.map_view import map_model, ring, trails, wedge
from tests.rules.startrek.helpers import definition


def view(**ships: dict[str, Any]) -> dict[str, Any]:
    return {"system": "b5wars", "clock": {}, "ships": ships}


def ship(slug: str, hex_: str | None = "0505", facing: int | None = 1, **more: Any) -> dict[str, Any]:
    data = definition(slug)
    position = None if hex_ is None else {"hex": hex_, "facing": facing}
    return {
        "name": data["name"],
        "side": data.get("side"),
        "position": position,
        "parts": data["parts"],
    } | more


# --- the SVG shapes -----------------------------------------------------------------------------------


def test_ST_05_a_wedge_and_a_disc():
    assert wedge(100, 100, 0, 90, 10) == "M 100 100 L 100 90 A 10 10 0 0 1 110 100 Z"
    assert wedge(0, 0, 0, 270, 10) == "M 0 0 L 0 -10 A 10 10 0 1 1 -10 0 Z"  # more than half: the large arc
    assert wedge(100, 100, 0, 360, 10) == "M 90 100 a 10 10 0 1 0 20 0 a 10 10 0 1 0 -20 0 Z"


def test_ST_05_a_ring_band_leaves_a_hair_between_projections():
    # 0°–90° between radii 8 and 10, drawn from 2° to 88° (a 2° gap each side).
    assert ring(0, 0, 0, 90, 8, 10) == "M 0.3 -10 A 10 10 0 0 1 10 -0.3 L 8 -0.3 A 8 8 0 0 0 0.3 -8 Z"
    # 4° wide: the gap is a quarter of it (1°), 1° … 3°.
    assert ring(0, 0, 0, 4, 8, 10) == "M 0.2 -10 A 10 10 0 0 1 0.5 -10 L 0.4 -8 A 8 8 0 0 0 0.1 -8 Z"
    # 270° drawn 2°–268°: more than half, the large arcs.
    assert " 0 1 1 " in ring(0, 0, 0, 270, 8, 10) and " 0 1 0 " in ring(0, 0, 0, 270, 8, 10)
    assert ring(0, 0, 0, 360, 8, 10) == (
        "M -10 0 a 10 10 0 1 0 20 0 a 10 10 0 1 0 -20 0 Z M -8 0 a 8 8 0 1 0 16 0 a 8 8 0 1 0 -16 0 Z"
    )


# --- counters and the selected ship -------------------------------------------------------------------


def test_ST_05_the_selected_excelsior_draws_its_four_projections_turned_with_its_facing():
    """Excelsior at 0505 facing 2 (heading 60°): its Fore projection, 315°–45° off the nose, is the
    band from compass 15° to 105°, drawn 17° to 103° (a 2° gap each side) between radii 24 and 31.5
    (outer corners 210 + 31.5·sin 17° = 219.2, 233.8 − 31.5·cos 17° = 203.7, and 240.7, 240.9); its
    label 11 beyond the ring at compass 60°; its shields are full (Fore 40 of 40)."""
    model = map_model(view(excelsior=ship("excelsior", facing=2)), select="excelsior")
    chosen = model["selected"]
    assert (chosen["x"], chosen["y"]) == (210.0, 233.8)
    fore = chosen["shields"][0]
    assert (fore["name"], fore["start"], fore["end"], fore["current"], fore["rating"], fore["collapsed"]) == (
        "Fore",
        315.0,
        45.0,
        40,
        40,
        False,
    )
    assert (fore["label_x"], fore["label_y"]) == (246.8, 212.6)  # 210 + 42.5·sin 60°, 233.8 − 42.5·cos 60°
    assert fore["path"].startswith("M 219.2 203.7 A 31.5 31.5 0 0 1 240.7 240.9 L ")
    assert [s["name"] for s in chosen["shields"]] == ["Fore", "Starboard", "Aft", "Port"]
    # The Fore Phaser Array (270°–90° off the nose) turned by 60°: from compass 330°, a half disc of 105.
    phaser = chosen["weapons"][0]
    assert (phaser["weapons"], phaser["label"]) == (["Fore Phaser Array"], "270°–90°")
    assert phaser["path"].startswith("M 210 233.8 L 157.5 142.9 A 105 105 0 0 1 ")


def test_ST_05_without_a_facing_nothing_is_turned_and_no_bearing_is_given():
    model = map_model(
        view(excelsior=ship("excelsior", facing=None), raider=ship("excelsior", hex_="0705")),
        select="excelsior",
    )
    chosen = model["selected"]
    assert (chosen["shields"], chosen["weapons"]) == ([], [])
    assert chosen["ranges"] == [{"ship": "raider", "name": "Excelsior", "range": 2, "x": 300.0, "y": 233.8}]


def test_ST_05_the_range_to_a_ship_carries_its_bearing_quadrant_and_the_projection_it_faces():
    """The other ship two hexes straight down the map from one facing 1: at 180°, aft, the Aft
    projection (135°–225°); a ship in the same hex has a range 0 and no bearing; a destroyed ship
    has no range at all."""
    model = map_model(
        view(
            excelsior=ship("excelsior"),
            below=ship("shadow-cruiser", hex_="0507"),
            alongside=ship("shadow-cruiser", hex_="0505", name="Alongside"),
            wreck=ship("shadow-cruiser", hex_="0605", name="Wreck", destroyed=True),
        ),
        select="excelsior",
    )
    ranges = model["selected"]["ranges"]
    assert [r["ship"] for r in ranges] == ["below", "alongside"]
    assert {k: ranges[0][k] for k in ("range", "bearing", "quadrant", "shield")} == {
        "range": 2,
        "bearing": 180.0,
        "quadrant": "aft",
        "shield": "Aft",
    }
    assert ranges[1]["range"] == 0 and "bearing" not in ranges[1]
    shadow = next(c for c in model["counters"] if c["id"] == "below")
    assert shadow["ranges"][0]["shield"] is None  # the Shadow has no shield projections


def test_GEN_01_only_the_selected_counter_gets_ranges_when_not_all_are_asked():
    model = map_model(
        view(a=ship("excelsior"), b=ship("excelsior", hex_="0705")), select="a", all_ranges=False
    )
    assert [len(c["ranges"]) for c in model["counters"]] == [1, 0]
    assert map_model(view(a=ship("excelsior")), select="nobody")["selected"] is None


def test_SH_01_pain_shows_on_the_counter_before_the_structure_lost():
    """A Shadow cruiser at pain 3 with 10 of its Core's structure gone: the pain badge (SH-01)
    outweighs the damage badge; the Excelsior with 34 of 146 structure lost shows 23%."""
    shadow = ship("shadow-cruiser")
    shadow["parts"]["pain"] = {"level": 3, "reaction": "ZERO", "obligations": []}
    sections = shadow["parts"]["sheet"]["sections"]
    sections[0]["structure"] = sections[0]["structure_max"] - 10
    excelsior = ship("excelsior", hex_="0909")
    excelsior["parts"]["sheet"]["sections"][2]["structure"] = 6  # Primary 40 → 6: 34 of 146 lost
    model = map_model(view(shadow=shadow, excelsior=excelsior))
    badges = {c["id"]: c["badge"] for c in model["counters"]}
    assert badges == {
        "shadow": {"text": "P3", "title": "pain 3", "kind": "pain"},
        "excelsior": {"text": "23%", "title": "23% of structure lost", "kind": "damage"},
    }


def test_SH_08_a_flinch_with_no_hex_on_the_map_or_no_direction_marks_nothing():
    """A Shadow at 0101 facing 1 owes a flinch away from aft damage: straight up, off the printed
    map; a flinch whose direction is not a quadrant, or a ship without a facing, marks nothing; an
    ended flinch is no longer owed."""
    pain = {
        "level": 6,
        "reaction": "ONE",
        "obligations": [
            {"kind": "flinch", "direction": "aft", "text": "flinch"},
            {"kind": "het_away", "direction": "", "text": "HET"},
            {"kind": "flinch", "direction": "fore", "text": "old", "ended": True},
        ],
    }
    corner = ship("shadow-cruiser", hex_="0101")
    corner["parts"]["pain"] = pain
    unfaced = ship("shadow-cruiser", hex_="0505", facing=None)
    unfaced["parts"]["pain"] = pain
    model = map_model(view(corner=corner, unfaced=unfaced))
    assert [c["away"] for c in model["counters"]] == [[], []]


def test_SH_11_a_HET_away_owed_marks_the_two_hexes_either_side_of_straight_away():
    """Damage from port on a Shadow facing 1 at 0505: away is compass 90°; the sides at 60° and 120°
    are both less than 60° off it: up and down the next column to the right (0604 and 0605, that
    column printed half a hex lower); no hex side points at 90° itself."""
    shadow = ship("shadow-cruiser")
    shadow["parts"]["pain"] = {
        "level": 12,
        "reaction": "FOUR",
        "obligations": [{"kind": "het_away", "direction": "port", "text": "HET away from port"}],
    }
    model = map_model(view(shadow=shadow), select="shadow")
    assert [(a["hex"], a["why"]) for a in model["selected"]["away"]] == [
        ("0604", "HET away from port"),
        ("0605", "HET away from port"),
    ]
    assert [(a["x"], a["y"]) for a in model["selected"]["away"]] == [(255.0, 207.8), (255.0, 259.8)]


def test_GEN_01_a_hex_that_cannot_be_read_leaves_the_ship_unplaced():
    model = map_model(view(lost=ship("excelsior", hex_="0000"), none=ship("excelsior", hex_=None)))
    assert model["counters"] == []
    assert [u["id"] for u in model["unplaced"]] == ["lost", "none"]


# --- what the viewer's log tells of a cloaked ship (ST-22, ST-23) --------------------------------------


def move(turn: int, hex_: str) -> tuple[int, dict[str, Any]]:
    return turn, {"kind": "move", "ship": "bop", "data": {"position": {"hex": hex_, "facing": 1}}}


def test_ST_22_a_decloak_shows_the_ship_again_and_ends_its_path():
    events = [
        move(1, "0505"),
        (1, {"kind": "cloak", "ship": "bop", "data": {}}),
        move(2, "0606"),
        (3, {"kind": "decloak", "ship": "bop", "data": {"position": {"hex": "0707", "facing": 2}}}),
        (3, {"kind": "note", "data": {}}),  # a log row about no ship
    ]
    trail = trails(events)["bop"]
    assert (trail.seen, trail.seen_turn, trail.path, trail.cloaked) == (
        {"hex": "0707", "facing": 2},
        3,
        [],
        False,
    )


def test_ST_23_a_detection_dates_the_ghost_at_the_cloaks_last_known_place():
    """Others saw the Bird of Prey cloak at 0505 in turn 1; a detection in turn 3 marks it seen
    again, at the place its cloak part makes public (0808: column 7, printed even so half a hex
    lower: x = 30 + 45·7 = 345, y = 30√3·8 ≈ 415.7)."""
    events = [
        move(1, "0505"),
        (1, {"kind": "cloak", "ship": "bop", "data": {}}),
        (3, {"kind": "cloak_detection", "ship": "bop", "data": {}}),
    ]
    bop = ship("klingon-bird-of-prey", hex_=None, position_hidden=True)
    bop["parts"]["cloak"] = {"cloaked": True, "last_known": {"hex": "0808", "facing": 4}}
    model = map_model(view(bop=bop), events)
    assert [(g["hex"], g["turn"], g["x"], g["y"]) for g in model["ghosts"]] == [("0808", 3, 345.0, 415.7)]


def test_ST_22_a_hidden_ship_nobody_saw_leaves_no_ghost_and_is_not_unplaced():
    bop = ship("klingon-bird-of-prey", hex_=None, position_hidden=True)
    model = map_model(view(bop=bop))
    assert (model["counters"], model["ghosts"], model["unplaced"]) == ([], [], [])


def test_ST_22_a_detection_while_not_cloaked_changes_nothing():
    events = [move(1, "0505"), (2, {"kind": "cloak_detection", "ship": "bop", "data": {}})]
    trail = trails(events)["bop"]
    assert (trail.seen, trail.seen_turn) == ({"hex": "0505", "facing": 1}, 1)


def test_ST_22_the_owner_sees_the_path_without_hexes_that_cannot_be_read():
    events = [
        (1, {"kind": "cloak", "ship": "bop", "data": {}}),  # cloaked before it was ever seen: no start
        move(1, "0606"),
        (1, {"kind": "move", "ship": "bop", "data": {"position": {"facing": 2}}}),  # no hex
        move(2, "0000"),
    ]
    bop = ship("klingon-bird-of-prey", hex_="0707", position_hidden=True, commanded=True)
    (counter,) = map_model(view(bop=bop), events)["counters"]
    assert counter["path"] == [{"hex": "0606", "x": 255.0, "y": 311.8}]


# --- the impulse chart (GEN-01) -----------------------------------------------------------------------


def test_GEN_01_the_chart_says_who_moves_in_the_current_impulse():
    """Speed 16 of 32 impulses moves on every even impulse: in impulse 2 one hex, in impulse 3 none."""
    fast = ship("excelsior") | {"position": {"hex": "0505", "facing": 1, "speed": 16}}
    slow = ship("excelsior", hex_="0909") | {"position": {"hex": "0909", "facing": 1, "speed": 0}}
    model = map_model({**view(fast=fast, slow=slow), "clock": {"impulse": 2}}, impulses=32)
    assert model["impulses"]["now"] == 2
    assert model["impulses"]["due"] == [{"id": "fast", "name": "Excelsior", "hexes": 1}]
    assert [c["due"] for c in model["counters"]] == [1, 0]
    model = map_model({**view(fast=fast), "clock": {"impulse": 3}}, impulses=32)
    assert (model["impulses"]["due"], model["counters"][0]["due"]) == ([], 0)


def test_ST_05_a_projection_without_degrees_is_no_band_of_the_ring():
    """Shield data that gives a projection only its quadrant (no degrees) leaves it off the ring."""
    excelsior = ship("excelsior")
    del excelsior["parts"]["shields"]["projections"][0]["degrees"]
    (counter,) = map_model(view(excelsior=excelsior))["counters"]
    assert [band["name"] for band in counter["shields"]] == ["Starboard", "Aft", "Port"]


def test_GEN_03_a_weapon_without_its_own_arc_fires_in_its_sections_quadrant():
    """The Excelsior's data with no weapon arcs: each section's working weapons fire in its quadrant
    (fore 315°–45°, …), a destroyed one not at all; a section with no quadrant draws none."""
    excelsior = ship("excelsior")
    for section in excelsior["parts"]["sheet"]["sections"]:
        for system in section["systems"]:
            system.pop("arc", None)
    excelsior["parts"]["sheet"]["sections"][0]["systems"][1]["damage"] = (
        5  # the Photon Torpedo's 5 boxes gone
    )
    (counter,) = map_model(view(excelsior=excelsior))["counters"]
    assert counter["weapons"][0] == {
        "section": "Fore",
        "arc": "fore",
        "start": 315.0,
        "end": 45.0,
        "weapons": ["Fore Phaser Array"],
    }
    assert [w["arc"] for w in counter["weapons"]] == ["fore", "port", "starboard", "aft"]


# --- the board drawn and one counter in full ------------------------------------------------------


def test_GEN_01_the_board_is_what_the_viewer_sees_with_a_margin_of_three_hexes():
    """One ship at 0505: columns 02–15 and rows 02–11 (a margin of 3, at least 14 × 10 hexes). The
    view box runs from x = 30 + 45·1 − 30 = 45 and y = 30√3·1 ≈ 52 (less 4 of padding) to column
    15's right edge (30 + 45·14 + 30 = 690) and row 11's bottom (30√3·11.5 ≈ 597.6)."""
    bounds = map_model(view(excelsior=ship("excelsior")))["bounds"]
    assert (bounds["columns"], bounds["rows"]) == ((2, 15), (2, 11))
    assert bounds["viewbox"] == "41 48 653 553.6"
    assert (bounds["width"], bounds["height"], bounds["tile_width"], bounds["tile_height"]) == (
        "4470",
        "5170.2",
        "90",
        "52",
    )
    assert [c[0] for c in bounds["column_labels"]] == [f"{c:02d}" for c in range(2, 16)]
    assert [r[0] for r in bounds["row_labels"]] == [f"{r:02d}" for r in range(2, 12)]
    label, x, y = bounds["column_labels"][0]
    assert (label, round(x, 1), round(y, 1)) == ("02", 75.0, 61.0)  # column 02's centre, 9 below the top
    label, x, y = bounds["row_labels"][0]
    assert (label, round(x, 1), round(y, 1)) == ("02", 54.0, 103.9)  # column 02 is half a hex lower


def test_GEN_01_an_empty_board_starts_at_0101_and_a_far_ship_stops_at_99():
    assert map_model(view())["bounds"]["columns"] == (1, 14)
    assert map_model(view())["bounds"]["rows"] == (1, 10)
    far = map_model(view(far=ship("excelsior", hex_="9898")))["bounds"]
    assert (far["columns"], far["rows"]) == ((95, 99), (95, 99))


def test_ST_22_a_counter_in_full_and_a_ghost_in_full():
    bop = ship("klingon-bird-of-prey", hex_="0707", facing=2, commanded=True, side="Klingon Empire")
    bop["position"]["speed"] = 6
    ghost = ship(
        "klingon-bird-of-prey", hex_=None, position_hidden=True, name="Hidden Bird"
    )  # over 9 letters: "Bird"
    ghost["parts"]["cloak"] = {"cloaked": True, "last_known": {"hex": "0303"}}
    model = map_model(view(bop=bop, ghost=ghost), select="bop")
    (counter,) = model["counters"]
    expected = {
        "id": "bop",
        "name": "Kor'vaq",
        "code": "KO",
        "label": "Kor'vaq",
        "side": "Klingon Empire",
        "hex": "0707",
        "facing": 2,
        "heading": 60,
        "speed": 6,
        "x": 300.0,
        "y": 337.7,
        "commanded": True,
        "destroyed": False,
        "cloaked": False,
        "badge": None,
        "path": [],
        "due": 0,
    }
    assert {k: counter[k] for k in expected} == expected
    assert model["ghosts"] == [
        {
            "id": "ghost",
            "name": "Hidden Bird",
            "code": "HB",
            "label": "Bird",
            "hex": "0303",
            "turn": None,
            "x": 120.0,
            "y": 129.9,
        }
    ]
    assert model["unplaced"] == []
    assert model["size"] == 30.0
    chosen = model["selected"]
    assert (chosen["id"], chosen["name"], chosen["x"], chosen["y"]) == ("bop", "Kor'vaq", 300.0, 337.7)


# --- counter labels, the log's turn, the impulse chart at its ends ------------------------------------


def test_GEN_04_counter_labels_keep_nine_letters_and_codes_three_initials():
    from app.rules.map_view import labels, turn_of

    named = labels(
        {
            "a": "Excalibur",  # 9 letters: kept
            "b": "Enterprise",  # one word of 10: cut to 8 and "…"
            "c": "USS Excelsior",  # the last word, 9 letters
            "d": "Big Battlecruiser",  # a last word of 13: the name cut
            "e": "Federation Heavy Strike Cruiser",  # three initials at most
            "f": "K'Tinga Cruiser",
            "g": "***",  # no word to take letters from
        }
    )
    assert named == {
        "a": ("EX", "Excalibur"),
        "b": ("EN", "Enterpri…"),
        "c": ("UE", "Excelsior"),
        "d": ("BB", "Big Batt…"),
        "e": ("FHS", "F.H.S. Cruiser"),  # both end in "Cruiser": the other words' initials tell them apart
        "f": ("KC", "K. Cruiser"),
        "g": ("?", "***"),
    }
    assert (turn_of("T4 I17"), turn_of("T12 Power"), turn_of(""), turn_of("Turn 3")) == (4, 12, None, None)


def counter(cid: str, speed: object, destroyed: bool = False) -> dict[str, object]:
    return {"id": cid, "name": cid.title(), "code": cid[:2].upper(), "speed": speed, "destroyed": destroyed}


def test_GEN_01_the_impulse_chart_at_the_turns_first_and_last_impulse():
    """Speed 32 moves every impulse, speed 1 only in impulse 32; a wreck or a ship with no speed set
    has no row (the one with none is listed as unset), whatever comes after it."""
    from app.rules.map_view import impulse_chart

    ships = [counter("wreck", 10, True), counter("drift", None), counter("fast", 32), counter("slow", 1)]
    first = impulse_chart(ships, {"impulse": 1}, 32)
    assert (first["now"], first["of"], first["unset"]) == (1, 32, ["Drift"])
    assert [(r["id"], r["code"], r["speed"]) for r in first["rows"]] == [
        ("fast", "FA", 32),
        ("slow", "SL", 1),
    ]
    assert first["due"] == [{"id": "fast", "name": "Fast", "hexes": 1}]
    assert [s.get("due") for s in ships] == [None, None, 1, 0]
    last = impulse_chart(ships, {"impulse": 32}, 32)
    assert last["due"] == [
        {"id": "fast", "name": "Fast", "hexes": 1},
        {"id": "slow", "name": "Slow", "hexes": 1},
    ]
    assert [s["due"] for s in ships[2:]] == [1, 1]
    for outside in (0, 33, None):
        chart = impulse_chart(ships, {"impulse": outside}, 32)
        assert (chart["now"], chart["due"], [s["due"] for s in ships[2:]]) == (None, [], [0, 0])
    assert impulse_chart(ships, {"impulse": 2}, 4)["rows"][1]["chart"] == [0, 0, 0, 1]
