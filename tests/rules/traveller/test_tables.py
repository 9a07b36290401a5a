"""Table tests: every row and column of tables.md, typed in again here and compared with tables.py."""

from __future__ import annotations

import pytest

from app.rules.traveller import tables as T

# --- TR-08 Barrage Damage, printed (tables.md §2) ---------------------------------------------------

PRINTED = """
2 0 0 0 0 0 0
3 10 0 1 2 2 5
4 25 2 3 3 6 20
5 50 3 5 6 10 30
6 75 4 8 9 16 40
7 100 5 10 12 20 50
8 125 6 13 15 26 60
9 150 7 15 18 30 70
10 175 8 18 21 36 80
11 200 10 20 24 40 100
12 225 12 23 27 46 120
13 250 13 25 30 50 130
14 275 14 28 33 56 140
15 300 15 30 36 60 150
16 400 20 40 48 80 200
17 500 25 50 60 100 250
"""
PRINTED_ROWS = [[int(x) for x in line.split()] for line in PRINTED.strip().splitlines()]
COLUMNS = (5, 10, 12, 20, 50)


@pytest.mark.parametrize("row", PRINTED_ROWS, ids=lambda r: f"roll{r[0]}")
def test_TR_08_printed_cells_every_row_and_column(row: list[int]) -> None:
    roll, percent, *cells = row
    assert T.barrage_percent(roll) == percent
    for dice, cell in zip(COLUMNS, cells, strict=True):
        assert T.barrage_damage(dice, roll, printed_cells=True) == cell


@pytest.mark.parametrize("row", PRINTED_ROWS, ids=lambda r: f"roll{r[0]}")
def test_TR_08_default_is_floor_of_dice_times_percent(row: list[int]) -> None:
    roll, percent, *_ = row
    for dice in (*COLUMNS, 7, 33, 100):
        assert T.barrage_damage(dice, roll) == (dice * percent) // 100


def test_TR_08_the_28_printed_cells_that_differ_from_floor() -> None:
    differ = {
        (dice, row[0])
        for row in PRINTED_ROWS
        for dice, cell in zip(COLUMNS, row[2:], strict=True)
        if cell != dice * row[1] // 100
    }
    assert len(differ) == 28
    assert (5, 4) in differ and (12, 3) in differ and (50, 10) in differ and (20, 14) in differ
    assert (12, 4) not in differ and (10, 5) not in differ


def test_TR_08_rolls_clamp_to_2_or_less_and_17_or_more() -> None:
    assert T.barrage_damage(20, -3) == 0
    assert T.barrage_damage(20, 2) == 0
    assert T.barrage_damage(20, 25) == 100
    assert T.barrage_damage(12, 30, printed_cells=True) == 60
    assert T.barrage_damage(7, 6, printed_cells=True) == 5  # 7 dice has no printed column: floor(5.25)


# --- TR-02 Weapon ranges -------------------------------------------------------------------------

RANGES = {
    "missile": ("-2", "N/A", "N/A", "-1", "0", "0", "0", "-2", "OoR"),
    "torpedo": ("-2", "-3", "-2", "-1", "0", "0", "0", "-2", "OoR"),
    "short": ("0", "-1", "0", "0", "-4", "OoR", "OoR", "OoR", "OoR"),
    "medium": ("-1", "-2", "-1", "0", "0", "-2", "-4", "OoR", "OoR"),
    "long": ("-1", "-3", "-1", "0", "0", "0", "-2", "-4", "OoR"),
    "very_long": ("-1", "-3", "-1", "0", "0", "0", "0", "-2", "OoR"),
}


@pytest.mark.parametrize("row", list(RANGES))
def test_TR_02_weapon_range_cells(row: str) -> None:
    printed = tuple(str(c) for c in T.WEAPON_RANGE_DM[row])
    assert printed == RANGES[row]
    assert T.range_cell(row, "adjacent", small_craft_shooting=True) == T.WEAPON_RANGE_DM[row][0]


def test_TR_02_missiles_refused_at_close_and_adjacent_even_for_small_craft() -> None:
    assert T.range_dm("missile", "adjacent", small_craft_shooting=True) is None
    assert T.range_dm("missile", "close") is None
    assert T.range_dm("missile", "short") == -1
    assert T.range_dm("missile", "very_distant") is None
    assert T.range_dm("torpedo", "adjacent") == -3
    assert T.range_dm("short", "long") is None


def test_TR_02_TR_10_spinal_uses_long_row_minus_1_close_and_adjacent() -> None:
    got = [T.spinal_range_dm(b) for b in T.RANGE_BANDS]
    assert got == [-4, -2, 0, 0, 0, -2, -4, None]


# --- TR-01 Missile to hit ------------------------------------------------------------------------


def test_TR_01_missile_to_hit_every_row() -> None:
    assert [T.missile_to_hit(e) for e in (-9, -6, -5, -2, -1, 0, 1, 5, 6, 9)] == [
        11,
        11,
        10,
        10,
        9,
        8,
        7,
        7,
        6,
        6,
    ]


# --- TR-07 sand and point defence, TR-07a configuration -----------------------------------------------


def test_TR_07_sand_and_point_defence_rows() -> None:
    assert T.SAND_RATIO_DM == {"110_or_more": 2, "within_10": 0, "90_or_less": -2}
    assert T.PD_RATIO_DM == {"110_or_more": 2, "within_10": 0, "90_or_less": -1}
    assert T.SAND_BOMB_PUMPED_DM == -2 and T.PD_BOMB_PUMPED_DM == -2 and T.GUNNER_3_DM == 1


def test_TR_07_ratio_edges_take_the_outer_row() -> None:
    assert T.ratio_row(11, 10) == "110_or_more"
    assert T.ratio_row(9, 10) == "90_or_less"
    assert T.ratio_row(10, 10) == "within_10"
    assert T.ratio_row(105, 100) == "within_10"
    assert T.ratio_row(91, 100) == "within_10"


def test_TR_07a_TR_05_configuration_rows() -> None:
    assert T.CONFIGURATION_BEARING == {
        "needle": 80,
        "cone": 70,
        "standard": 80,
        "close": 70,
        "sphere": 70,
        "dispersed": 60,
        "planetoid": 50,
        "buffered_planetoid": 50,
    }
    assert T.MESON_CONFIGURATION_DM == {
        "dispersed": 4,
        "buffered_planetoid": 4,
        "needle": 2,
        "cone": 2,
        "standard": 2,
        "close": 0,
        "sphere": 0,
        "planetoid": 0,
    }


# --- TR-11 Meson penetration ---------------------------------------------------------------------------

A = None
PENETRATION = {
    "close": [
        (0, (A, A, A, A, A)),
        (4, (6, 4, A, A, A)),
        (6, (7, 5, 3, A, A)),
        (8, (8, 6, 4, A, A)),
        (9, (8, 6, 4, A, A)),
        (10, (9, 6, 4, A, A)),
        (12, (10, 8, 6, 4, A)),
        (15, (11, 9, 7, 5, 3)),
        (18, (12, 10, 8, 6, 5)),
    ],
    "cone": [
        (0, (4, A, A, A, A)),
        (4, (6, 4, A, A, A)),
        (6, (7, 5, 3, A, A)),
        (8, (9, 6, 4, A, A)),
        (10, (9, 7, 5, A, A)),
        (12, (9, 8, 6, 4, A)),
        (15, (11, 9, 7, 5, A)),
        (18, (12, 10, 8, 6, 5)),
    ],
    "dispersed": [
        (0, (8, 6, 5, 4, A)),
        (4, (8, 7, 5, 4, A)),
        (6, (9, 7, 5, 4, A)),
        (8, (10, 8, 6, 4, A)),
        (10, (10, 8, 6, 4, A)),
        (12, (11, 9, 6, 4, A)),
        (15, (11, 9, 7, 5, 3)),
        (18, (12, 11, 8, 6, 5)),
    ],
}
GROUP_CONFIG = {"close": "sphere", "cone": "standard", "dispersed": "buffered_planetoid"}


@pytest.mark.parametrize("group", list(PENETRATION))
def test_TR_11_penetration_every_row_and_rating(group: str) -> None:
    for points, row in PENETRATION[group]:
        got = tuple(T.meson_penetration(GROUP_CONFIG[group], points, r) for r in T.RATINGS)
        assert got == row, (group, points)


def test_TR_11_flagged_cone_cells_used_as_printed_and_in_between_totals_round_up() -> None:
    assert T.meson_penetration("cone", 12, "I") == 9
    assert T.meson_penetration("needle", 15, "V") is None
    assert T.meson_penetration("close", 5, "I") == 7  # next row up: 6
    assert T.meson_penetration("close", 7, "II") == 6  # "8 or 9"
    assert T.meson_penetration("dispersed", 7, "I") == 10  # "8 to 10"
    assert T.meson_penetration("close", 13, "V") == 3  # 15 row
    assert T.meson_penetration("close", 24, "I") == 12  # above 18: the 18 row


def test_TR_11_meson_rating_from_damage() -> None:
    assert [T.meson_rating(d) for d in (199, 200, 259, 260, 309, 310, 359, 360, 459, 460, 900)] == [
        None,
        "I",
        "I",
        "II",
        "II",
        "III",
        "III",
        "IV",
        "IV",
        "V",
        "V",
    ]


def test_TR_10_spinal_size_dm() -> None:
    assert [T.spinal_size_dm(t) for t in (50, 99, 100, 999, 1000, 9999, 10000)] == [-3, -3, -2, -2, -1, -1, 0]


# --- TR-15 Damage location and hull codes ---------------------------------------------------------------


def test_TR_15_damage_location_every_cell() -> None:
    expected = {
        2: ["Engineering", "Engineering", "Engineering", "Forward", "Forward", "Forward"],
        3: ["Engineering", "Engineering", "Main", "Main", "Forward", "Forward"],
        4: ["Engineering", "Amidships", "Amidships", "Main", "Main", "Forward"],
        5: ["Engineering", "Aft", "Amidships", "Main", "Main", "Forward"],
        6: ["Engineering", "Aft", "Lower Amidships", "Upper Amidships", "Main", "Forward"],
    }
    for sections, column in expected.items():
        assert [T.location(sections, r) for r in range(1, 7)] == column


def test_TR_17_hull_codes_sections_and_per_section_hull() -> None:
    expected = {
        "CA": (2, 30),
        "CB": (2, 40),
        "CC": (2, 50),
        "CD": (2, 60),
        "CE": (2, 75),
        "CF": (3, 66),
        "CG": (3, 100),
        "CH": (3, 133),
        "CJ": (3, 166),
        "CK": (3, 200),
        "CL": (4, 200),
        "CM": (4, 250),
        "CN": (4, 300),
        "CP": (4, 375),
        "CQ": (4, 500),
        "CR": (5, 800),
        "CS": (5, 1200),
        "CT": (5, 1600),
        "CU": (5, 2000),
        "CV": (5, 2400),
        "CW": (6, 2333),
        "CX": (6, 2666),
        "CY": (6, 3000),
        "CZ": (6, 3333),
    }
    assert list(T.HULL_CODES) == list(expected)
    for code, (sections, hull) in expected.items():
        assert (T.hull_sections(code), T.section_hull(code)) == (sections, hull), code
    assert T.SECTIONS_BY_COUNT[6] == (
        "Engineering",
        "Aft",
        "Lower Amidships",
        "Upper Amidships",
        "Main",
        "Forward",
    )


# --- TR-18 Section Hit Table template ----------------------------------------------------------------


def test_TR_18_section_hit_template_every_row() -> None:
    rows = {
        ("engineering", "external"): "Hull C M-Drive A Hull Armour Hull A M-Drive C Hull",
        (
            "engineering",
            "internal",
        ): "Crew J-Drive P-Plant A Structure Hold Structure A J-Drive P-Plant Critical",
        ("forward", "external"): "Hull C B A Hull Armour Hull A B C Hull",
        ("forward", "internal"): "Crew C B A Structure Hold Structure A B C Critical",
        ("other", "external"): "Hull C B A Hull Armour Hull A B C Hull",
        ("other", "internal"): "Crew C B A Structure Hold Structure A B C Critical",
    }
    for key, text in rows.items():
        assert T.HIT_TEMPLATE[key] == tuple(text.split()), key


def test_TR_18_component_types() -> None:
    by_cell: dict[tuple[str, str], set[str]] = {}
    for kind, cell in T.COMPONENT_TYPES.items():
        by_cell.setdefault(cell, set()).add(kind)
    assert by_cell == {
        ("A", "external"): {"turret", "barbette"},
        ("A", "internal"): {"bay", "fuel", "hold"},
        ("B", "external"): {"sensors", "craft", "launch_tubes", "m_drive"},
        ("B", "internal"): {"spinal", "hangar", "power_plant", "j_drive", "computer"},
        ("C", "external"): {"special_external"},
        ("C", "internal"): {"screen", "special_internal", "command"},
    }


# --- TR-21 / TR-13a Radiation -------------------------------------------------------------------------


def test_TR_21_radiation_table_every_row() -> None:
    rows = [
        (1, 10, 1, 6, None, None),
        (11, 15, 2, 5, None, None),
        (16, 20, 3, 4, 6, None),
        (21, 30, 4, 3, 5, None),
        (31, 40, 5, 2, 4, 6),
        (41, 50, 6, "Auto", 3, 5),
        (51, 60, 7, "Auto", 2, 4),
        (61, 80, 8, "Auto", "Auto", 3),
        (81, 100, 9, "Auto", "Auto", 2),
        (101, None, 10, "Auto", "Auto", "Auto"),
    ]
    for (low, high, band, crew, computer, sensors), row in zip(rows, T.RADIATION, strict=True):
        assert (row.low, row.high, row.band, row.crew, row.computer, row.sensors) == (
            low,
            high,
            band,
            crew,
            computer,
            sensors,
        )
        assert T.radiation_band(low) == band
        assert T.radiation_band(high or 500) == band
    assert T.radiation_band(0) == 0 and T.radiation_row(0) is None and T.radiation_row(12).band == 10


# --- TR-23 crew, GEN-05 skill, TR-26 reactions, TR-03 task chain -------------------------------------------


def test_TR_23_crew_strength_steps() -> None:
    got = [(s.name, s.percent, s.dm, s.fire_every) for s in T.CREW_STEPS]
    assert got == [
        ("Dead", "0%", None, None),
        ("Survivors", "1–10%", -4, 5),
        ("Skeleton", "11–25%", -2, 3),
        ("Half", "26–50%", -1, 2),
        ("Weakened", "51–75%", 0, 1),
        ("Full", "76–90%", 0, 1),
        ("Battle", "91–120%", 0, 1),
        ("Overstrength", "121–150%", 0, 1),
        ("Massively Overstrength", "151%+", 0, 1),
    ]


def test_GEN_05_crew_skill_levels() -> None:
    assert list(zip(T.CREW_SKILL_NAMES, T.CREW_SKILL_DM, strict=True)) == [
        ("Green", 0),
        ("Average", 1),
        ("Experienced", 2),
        ("Elite", 3),
        ("Legendary", 4),
    ]


def test_TR_26_reactions_from_initiative() -> None:
    assert [T.reactions(i) for i in (-3, 0, 4, 5, 8, 9, 12, 13, 30)] == [1, 1, 1, 2, 2, 3, 3, 4, 4]


def test_TR_03_task_chain_dm() -> None:
    assert [T.task_chain_dm(e) for e in (-8, -6, -5, -2, -1, 0, 1, 5, 6, 9)] == [
        -3,
        -3,
        -2,
        -2,
        -1,
        0,
        1,
        1,
        2,
        2,
    ]


# --- TR-20 criticals, barrage weapons, orders ----------------------------------------------------------------


def test_TR_20_critical_table() -> None:
    assert T.CRITICALS == {
        1: "Power Failure",
        2: "Structural Failure",
        3: "Hull Breach",
        4: "Internal Explosion",
        5: "Cascade Failure",
        6: "Fire",
    }


def test_TR_06_barrage_weapon_rows() -> None:
    rows = {
        "pulse_laser": ("Pulse Laser", "short", 2, 0, -2),
        "beam_laser": ("Beam Laser", "medium", 1, 0, 0),
        "particle_beam": ("Particle Beam", "long", 3, 1, 0),
        "particle_barbette": ("Particle Beam Barbette", "long", 4, 1, 0),
        "railgun": ("Railgun", "short", 3, 0, 0),
        "particle_bay_50": ("Particle Beam Bay", "long", 6, 1, 0),
        "particle_bay_100": ("Particle Beam Bay", "long", 9, 1, 0),
        "fusion_bay_50": ("Fusion Gun Bay", "medium", 5, 1, 0),
        "fusion_bay_100": ("Fusion Gun Bay", "medium", 8, 1, 0),
        "meson_bay_50": ("Meson Gun Bay", "long", 5, 1, 0),
        "meson_bay_100": ("Meson Gun Bay", "long", 8, 1, 0),
        "meson_flicker_50": ("Meson Flicker Bay", "long", 1, 2, 0),
        "meson_flicker_100": ("Meson Flicker Bay", "long", 2, 1, 0),
        "railgun_bay_50": ("Railgun Bay", "short", 3 * 4, 0, 0),
        "railgun_bay_100": ("Railgun Bay", "short", 18, 0, 0),
    }
    for key, (name, row, dice, rad, dm) in rows.items():
        f = T.firing(key)
        assert (f.name, f.range_row, f.dice, f.radiation, f.attack_dm) == (name, row, dice, rad, dm), key


def test_TR_06_launchers_and_ammunition() -> None:
    cases = {
        ("missile_turret", "standard"): ("Missile", 1, 0, 0),
        ("missile_turret", "nuclear"): ("Nuclear Missile", 2, 1, 0),
        ("missile_turret", "long_range"): ("Long Range Missile", 1, 0, -1),
        ("missile_bay_50", "multi_warhead"): (
            "Multi-Warhead Missile",
            12,
            0,
            0,
        ),  # the seed's 10–Missile–Long–12
        ("missile_bay_50", "standard"): ("Missile", 12, 0, 0),
        ("missile_bay_100", "nuclear"): ("Nuclear Missile", 48, 24, 0),
        ("torpedo_bay_50", "standard"): ("Torpedo", 12, 0, 0),
        ("torpedo_bay_100", "nuclear"): ("Nuclear Torpedo", 36, 6, 0),
        ("torpedo_bay_50", "bomb_pumped"): ("Bomb-Pumped Torpedo", 18, 0, 0),
        ("torpedo_bay_50", "ortillery"): ("Ortillery Torpedo", 24, 0, -2),
    }
    for (weapon, ammo), (name, dice, rad, dm) in cases.items():
        f = T.firing(weapon, ammo)
        assert (f.name, f.dice, f.radiation, f.attack_dm) == (name, dice, rad, dm), (weapon, ammo)
    assert T.firing("torpedo_bay_50", "ortillery").pd_dm == 1
    assert T.firing("missile_bay_100").launches == 24 and T.firing("torpedo_bay_100").launches == 6


def test_TR_27_the_25_orders() -> None:
    expected = [
        ("Line up Spinal Mount!", 2, "Combat", 0, True, False),
        ("All Hands...Fire At Will!", 8, "Combat", 0, True, False),
        ("Angle for Maximum Effect", 2, "Combat", 2, False, False),
        ("Blast Them As They Launch!", 2, "Combat", 1, True, False),
        ("Board Them!", 4, "Special", 0, True, False),
        ("Command Discipline", 8, "Ship", 0, False, False),
        ("Damn the Torpedoes!", 4, "Special", 2, True, False),
        ("Defensive Posture", 4, "Combat", 0, False, False),
        ("Escort Defence", 4, "Combat", 0, False, False),
        ("Evasive Action*", 4, "Special", 0, False, True),
        ("Fast Strafing Run", 4, "Special", 0, False, False),
        ("Fighter Screen", 4, "Special", 0, False, False),
        ("Focused Fire", 6, "Combat", 0, False, False),
        ("Get Those Engines Back On-Line*", 6, "Ship", 3, False, True),
        ("I Only Need One More Shot*", 2, "Special", 3, False, True),
        ("Maximum Speed", 4, "Combat", 0, False, False),
        ("Opportunity Fire!", 6, "Combat", 0, True, False),
        ("Prepare to Abandon Ship!", 4, "Special", 0, True, False),
        ("Prepare for Jump!", 4, "Special", 0, True, False),
        ("Prepare to Repel Boarders!", 4, "Special", 0, True, False),
        ("Prepare for Impact!", 4, "Special", 0, True, False),
        ("Roll The Ship!", 4, "Combat", 1, True, False),
        ("Run Silent, Run Dark", 4, "Special", 0, False, False),
        ("Screens to Full!", 4, "Special", 0, True, False),
        ("Target That Section*", 4, "Special", 1, False, True),
    ]
    orders = sorted(T.ORDERS.values(), key=lambda o: o.number)
    assert [o.number for o in orders] == list(range(1, 26))
    got = [(o.name, o.cost, o.type, o.crew_skill, o.emergency, o.repeatable) for o in orders]
    assert got == expected
    assert T.ORDERS["line_up_spinal"].needs_spinal
    assert {k for k, o in T.ORDERS.items() if o.flight_only} == {"fast_strafing_run", "fighter_screen"}
