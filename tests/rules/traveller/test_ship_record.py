"""The `hg_ship` part's own rules: the Section Hit Table laid out from the ship's components (TR-18,
tables.md §1a), screens, armour, power and Thrust figures (TR-07, TR-19, TR-27), this round's orders
in effect (TR-26) and what other players see of them. Figures from tables.md: a CF hull is 10,000 t
in 3 sections (Engineering, Main, Forward) of 10,000 / 50 / 3 = 66 Hull and Structure; the "Other"
template reads, for 2D 2 … 12, External Hull C B A Hull Armour Hull A B C Hull and Internal Crew C B
A Structure Hold Structure A B C Critical; Engineering's External Hull C M-Drive A Hull Armour Hull
A M-Drive C Hull and Internal Crew J-Drive P-Plant A Structure Hold Structure A J-Drive P-Plant
Critical."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.traveller.ship import HgShip, RoundState, _crew_lost, load, save, strip_orders
from tests.rules.traveller.helpers import battle, capital


def design(**changes: Any) -> HgShip:
    part = {"hull_code": "CF", "thrust": 4, "power": 10, "armour": 6, **changes}
    return HgShip.model_validate(part)


def labels(ship: HgShip, section: str, column: str) -> list[str]:
    table = ship.section(section).hit_table  # type: ignore[union-attr]
    return [slot["label"] for slot in getattr(table, column)]


def turret(ident: str, tons: float, section: str = "Main") -> dict[str, Any]:
    return {"id": ident, "weapon": "beam_laser", "mounts": 1, "tons": tons, "sections": [section]}


def test_TR_18_A_components_fill_A_slots_largest_first_and_overflow_into_B_after_the_B_components() -> None:
    ship = design(
        batteries=[turret("small", 10), turret("big", 30), turret("mid", 20)],
        components=[{"kind": "sensors", "name": "Sensors", "tons": 5, "sections": ["Main"]}],
    )
    external = ship.section("Main").hit_table.external  # type: ignore[union-attr]
    # 2D 5 and 9 are A: the 30 t then the 20 t turret; 4 and 10 are B: Sensors, then the 10 t turret.
    assert [(s["label"], s.get("ref")) for s in external] == [
        ("Hull", None),
        ("Hull", None),
        ("Sensors", None),
        ("Turret: Beam Laser", "big"),
        ("Hull", None),
        ("Armour", None),
        ("Hull", None),
        ("Turret: Beam Laser", "mid"),
        ("Turret: Beam Laser", "small"),
        ("Hull", None),
        ("Hull", None),
    ]
    assert [s["kind"] for s in external][:4] == ["hull", "hull", "sensors", "turret"]
    assert external[5]["kind"] == "armour"
    assert ship.section("Main").hit_table.slot("external", 5)["ref"] == "big"  # type: ignore[union-attr]
    assert ship.section("Main").hit_table.slot("internal", 12)["label"] == "Critical"  # type: ignore[union-attr]
    assert ship.battery("mid").id == "mid"  # type: ignore[union-attr]


def test_TR_18_overflow_reaches_the_C_slots_and_what_does_not_fit_is_refused() -> None:
    """Five turrets: A takes two, B two, C the last (2D 3, then 11 is left Hull)."""
    five = [turret(f"t{n}", 50 - n) for n in range(5)]
    ship = design(batteries=five)
    refs = [s.get("ref") for s in ship.section("Main").hit_table.external]  # type: ignore[union-attr]
    assert refs == [None, "t4", "t2", "t0", None, None, None, "t1", "t3", None, None]
    with pytest.raises(ValueError, match="no Section Hit slot left for t6, t7: move it to another section"):
        design(batteries=[turret(f"t{n}", 50 - n) for n in range(8)])


def test_TR_18_empty_internal_slots_read_structure_and_engineering_has_its_drives() -> None:
    ship = design()
    assert labels(ship, "Main", "internal") == [
        "Crew",
        "Structure",
        "Structure",
        "Structure",
        "Structure",
        "Hold",
        "Structure",
        "Structure",
        "Structure",
        "Structure",
        "Critical",
    ]
    assert labels(ship, "Engineering", "internal") == [
        "Crew",
        "J-Drive",
        "P-Plant",
        "Structure",
        "Structure",
        "Hold",
        "Structure",
        "Structure",
        "J-Drive",
        "P-Plant",
        "Critical",
    ]
    assert ship.section("Main").hit_table.internal[1]["kind"] == "structure"  # type: ignore[union-attr]
    kinds = [s["kind"] for s in ship.section("Engineering").hit_table.internal]  # type: ignore[union-attr]
    assert kinds[:3] == ["crew", "j_drive", "power_plant"] and kinds[10] == "critical"
    assert labels(ship, "Forward", "external") == [
        "Hull",
        "Hull",
        "Hull",
        "Hull",
        "Hull",
        "Armour",
        "Hull",
        "Hull",
        "Hull",
        "Hull",
        "Hull",
    ]


def test_TR_18_only_combat_components_must_find_a_slot() -> None:
    """Seven 10 t holds in Main: A, B and C take six; the seventh, not combat-relevant, is left out."""
    holds = [
        {"kind": "hold", "name": f"Hold {n}", "tons": 10, "combat": False, "sections": ["Main"]}
        for n in range(7)
    ]
    assert labels(design(components=holds), "Main", "internal")[1] == "Hold 4"


def test_TR_18_the_spinal_weapon_is_placed_by_its_tonnage_among_the_B_components() -> None:
    ship = design(
        spinal={"name": "Meson Gun", "type": "meson", "damage": 300, "tons": 1000},
        components=[{"kind": "computer", "name": "Computer", "tons": 3, "sections": ["Main"]}],
    )
    assert (labels(ship, "Main", "internal")[2], labels(ship, "Main", "internal")[8]) == (
        "Meson Gun",
        "Computer",
    )


def test_TR_18_a_spinal_weapon_takes_internal_B_outside_engineering_and_forward_external_B() -> None:
    ship = design(spinal={"name": "Meson Gun", "type": "meson", "damage": 300})
    assert labels(ship, "Main", "internal")[2] == "Meson Gun"  # 2D 4
    assert labels(ship, "Forward", "internal")[2] == "Meson Gun"
    assert labels(ship, "Forward", "external")[2] == "Meson Gun"
    assert "Meson Gun" not in labels(ship, "Engineering", "internal")
    assert "Meson Gun" not in labels(ship, "Main", "external")


def test_TR_18_drives_take_one_extra_section_per_10_percent_beyond_the_first() -> None:
    """A 10,000 t hull: a 2,500 t M-Drive (25%) takes Engineering and one more section forward (Main);
    a 1,000 t one (10%) Engineering only; a drive placed by hand is put where it says."""
    big = design(components=[{"kind": "m_drive", "name": "M-Drive", "tons": 2500}])
    assert labels(big, "Main", "external")[2] == "M-Drive"
    assert labels(big, "Forward", "external")[2] == "Hull"
    small = design(components=[{"kind": "m_drive", "name": "M-Drive", "tons": 1000}])
    assert labels(small, "Main", "external")[2] == "Hull"
    huge = design(components=[{"kind": "m_drive", "name": "M-Drive", "tons": 3500}])
    assert labels(huge, "Forward", "external")[2] == "M-Drive"
    placed = design(
        components=[
            {"kind": "m_drive", "name": "M-Drive", "tons": 100, "sections": ["Engineering", "Forward"]}
        ]
    )
    assert labels(placed, "Forward", "external")[2] == "M-Drive"
    assert labels(placed, "Main", "external")[2] == "Hull"
    assert labels(placed, "Engineering", "external")[1] == "Hull"  # its own M-Drive rows, no C slot taken
    exact = design(components=[{"kind": "m_drive", "name": "M-Drive", "tons": 2000}])
    assert labels(exact, "Main", "external")[2] == "M-Drive"  # 20%: one full 10% beyond the first
    short = design(components=[{"kind": "m_drive", "name": "M-Drive", "tons": 1990}])
    assert labels(short, "Main", "external")[2] == "Hull"  # 19.9%: not a full 10% beyond


def test_TR_18_other_components_stay_where_the_design_puts_them_even_in_engineering() -> None:
    ship = design(batteries=[turret("aft", 10, "Engineering")])
    assert labels(ship, "Engineering", "external")[3] == "Turret: Beam Laser"  # 2D 5, an A slot
    with pytest.raises(ValueError, match="Turret: Beam Laser: no section 'Bridge' on this hull"):
        design(batteries=[turret("lost", 10, "Bridge")])


def test_TR_18_screens_fill_C_slots_largest_first_under_their_own_id() -> None:
    ship = design(
        screens=[
            {"id": "small", "kind": "meson", "count": 1, "tons": 5, "sections": ["Main"]},
            {"id": "large", "kind": "meson", "count": 1, "tons": 20, "sections": ["Main"]},
        ]
    )
    internal = ship.section("Main").hit_table.internal  # type: ignore[union-attr]
    assert [(internal[1]["label"], internal[1]["ref"]), internal[9]["ref"]] == [
        ("Screen: Meson Screen", "large"),
        "small",
    ]


def test_TR_18_a_table_given_by_hand_is_kept_and_its_slots_get_a_ref() -> None:
    row = {"label": "Hull", "kind": "hull"}
    given = {"external": [row] * 11, "internal": [{"label": "Structure", "kind": "structure"}] * 11}
    ship = design(
        sections=[
            {"name": n, "hull_max": 66, "structure_max": 66, "hit_table": given}
            for n in ("Engineering", "Main", "Forward")
        ]
    )
    assert ship.section("Main").hit_table.external[0] == {"label": "Hull", "kind": "hull", "ref": None}  # type: ignore[union-attr]


def test_TR_17_sections_are_found_by_name_or_slug() -> None:
    ship = HgShip.model_validate({"hull_code": "CW"})
    assert ship.section("upper amidships").name == "Upper Amidships"  # type: ignore[union-attr]
    assert ship.section("upper-amidships").name == "Upper Amidships"  # type: ignore[union-attr]
    assert ship.section("Bridge") is None
    assert design().tons == 10000
    gig = HgShip.model_validate(
        {
            "kind": "small_craft",
            "displacement": 30,
            "sections": [{"name": "Hull", "hull_max": 2, "structure_max": 2}],
        }
    )
    assert gig.tons == 30


def test_TR_07_TR_19_screens_give_2_a_screen_3_under_screens_to_full_less_2_a_hit() -> None:
    ship = design(
        screens=[
            {"id": "m1", "kind": "meson", "count": 2, "hits": 1, "sections": ["Main"]},
            {"id": "m2", "kind": "meson", "count": 1, "hits": 2, "sections": ["Main"]},
            {"id": "d1", "kind": "nuclear_damper", "count": 1, "sections": ["Forward"]},
        ]
    )
    assert ship.screen_points("meson") == 2  # 2 × 2 − 2 = 2, and 1 × 2 − 4 counts 0, not −2
    assert ship.screen_points("nuclear_damper") == 2
    ship.round = RoundState(orders=[{"order": "screens_full"}], revealed=True)
    assert ship.screen_points("meson") == 4  # 2 × 3 − 2 = 4, and 1 × 3 − 4 counts 0


def test_TR_07_the_barrage_meets_the_weakest_armour_of_the_intact_sections() -> None:
    ship = design()
    ship.sections[0].armour, ship.sections[1].armour = 2, 4
    assert ship.defence_armour() == 2
    ship.sections[0].destroyed = True
    assert ship.defence_armour() == 4
    ship.sections[2].armour = 0
    assert ship.defence_armour() == 0
    ship.sections[2].armour = 6
    for section in ship.sections:
        section.destroyed = True
    assert ship.defence_armour() == 0


def test_TR_17_hull_and_structure_add_up_over_the_sections() -> None:
    ship = design()
    ship.sections[1].hull, ship.sections[2].structure = 0, 10
    assert ship.hull_and_structure() == 66 * 6 - 66 - 56
    ship.sections[0].structure = 0
    assert ship.hull_and_structure() == 66 * 6 - 66 - 56 - 66


def test_TR_19_power_hits_cut_thrust_and_jump_to_the_power_share_rounded_down() -> None:
    """Thrust 4, Jump 3 at Power 7/10: 4 × 7 // 10 = 2, 3 × 7 // 10 = 2. An M-Drive hit (Thrust 3)
    under full power keeps 3; at Power 5/10 the share of 4 is 2."""
    ship = design(jump=3)
    assert (ship.thrust_now(), ship.jump_now(), ship.power_share(9)) == (4, 3, 9)
    ship.power = 7
    assert (ship.thrust_now(), ship.jump_now()) == (2, 2)
    ship.power, ship.thrust = 10, 3
    assert ship.thrust_now() == 3
    ship.power = 5
    assert ship.thrust_now() == 2
    unpowered = design(power=0)
    assert unpowered.power_share(4) == 4  # a ship with no Power figure has nothing to share out


def test_TR_27_maximum_speed_adds_1_thrust_once_revealed() -> None:
    ship = design()
    ship.round = RoundState(orders=[{"order": "maximum_speed"}])
    assert ship.thrust_now() == 4  # committed, not yet revealed: changes nothing
    ship.round.revealed = True
    assert (ship.thrust_now(), ship.thrust_left) == (5, 5)


def test_TR_26_orders_act_from_the_reveal_and_emergency_orders_at_once() -> None:
    rnd = RoundState(
        orders=[
            {"order": "focused_fire", "target": "tigress"},
            {"order": "evasive_action"},
            {"order": "evasive_action"},
            {"order": "prepare_impact", "emergency": True},
        ]
    )
    assert [c.order for c in rnd.in_effect()] == ["prepare_impact"]
    assert (rnd.has("evasive_action"), rnd.count("evasive_action"), rnd.target_of("focused_fire")) == (
        False,
        0,
        None,
    )
    rnd.revealed = True
    assert (rnd.has("evasive_action"), rnd.count("evasive_action"), rnd.target_of("focused_fire")) == (
        True,
        2,
        "tigress",
    )
    assert rnd.target_of("maximum_speed") is None


def test_TR_26c_this_rounds_initiative_counts_even_at_0() -> None:
    ship = design(initiative_base=6)
    assert (ship.current_initiative(), ship.reactions_allowed) == (6, 2)
    ship.round.initiative = 0
    assert (ship.current_initiative(), ship.reactions_allowed) == (0, 1)
    assert ship.battery("none") is None


def test_TR_26_others_see_no_drafts_and_only_emergency_orders_before_the_reveal() -> None:
    part = {
        "crew_skill": 2,
        "round": {
            "drafts": [{"order": "maximum_speed"}],
            "orders": [{"order": "focused_fire"}, {"order": "prepare_impact", "emergency": True}],
            "revealed": False,
        },
    }
    shown = strip_orders(part)
    assert shown["round"] == {
        "drafts": [],
        "orders": [{"order": "prepare_impact", "emergency": True}],
        "revealed": False,
    }
    assert shown["crew_skill"] == 2
    assert part["round"]["drafts"] == [{"order": "maximum_speed"}]  # the stored part is left alone
    part["round"]["revealed"] = True
    assert strip_orders(part)["round"]["orders"] == part["round"]["orders"]
    assert strip_orders({"crew_skill": 1})["round"] == {"drafts": [], "orders": []}


def test_TR_23_a_crew_hit_counts_as_a_loss_unless_braced_away() -> None:
    assert _crew_lost({"data": {"slot": "crew"}, "text": "Tigress Main section hit: Crew — crew Half."})
    assert not _crew_lost({"data": {"slot": "crew"}, "text": "Tigress braced: crew hit ignored."})
    assert not _crew_lost({"data": {"slot": "hull"}, "text": ""})
    assert not _crew_lost({"data": None, "text": ""})


def test_TR_18_a_saved_part_reads_back_the_same() -> None:
    state = battle(capital("Kestrel"))
    ship = state.ships["kestrel"]
    model = load(ship)
    model.power = 7
    save(ship, model)
    assert ship.parts["hg_ship"]["power"] == 7 and load(ship).power == 7
    save(ship, model, "copy")
    assert ship.parts["copy"]["power"] == 7
