"""The unit sheet's values (display.unit, display.repair_options): what a capital ship's and a
flight's sheet shows of the round (TR-26 orders and drafts, TR-27 Evasive Action and Prepare for
Jump!), of the damage (TR-19 damaged weapons, TR-20 critical marks, TR-22 repairs), of the crew
(TR-24 the frozen watch), of the range board (TR-02) and of the battle (TR-03). Every expected value is
written out here from the seed, tables.md or the ships' data, never read back from the rules."""

from __future__ import annotations

import json
from typing import Any

from app.rules.state import BattleState
from app.rules.traveller.display import repair_options, unit
from app.rules.traveller.ship import load
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, battle, capital, hg, section
from tests.rules.traveller.test_branches_actions import HULK, gig
from tests.rules.traveller.test_templates_and_samples import LIBRARY

NOT_REPAIRED = "Hull, Structure, armour and the bridge are not repaired during a battle (TR-22)"
# tables.md §1b, Range bands, in order, with the names the sheet prints.
BANDS = [
    ("adjacent", "Adjacent"),
    ("close", "Close"),
    ("short", "Short"),
    ("medium", "Medium"),
    ("long", "Long"),
    ("very_long", "Very Long"),
    ("distant", "Distant"),
    ("very_distant", "Very Distant"),
]


def sheet(state: BattleState, ship_id: str, part: str = "hg_ship") -> dict[str, Any]:
    ship = state.ships[ship_id]
    return unit(ship.parts[part], ship, state)


def red_flight(side: str = "Imperial") -> dict[str, Any]:
    """The sample flight: 12 Rampart fighters of Hull 2 and Structure 2, one pulse laser each."""
    flight = json.loads((LIBRARY / "tr-red-flight.json").read_text())
    flight["side"] = side
    return flight


# --- the round: orders, drafts and what they switch on (TR-26, TR-27) -------------------------------


def ordered() -> BattleState:
    """Initiative 1d6 + Crew Skill 2 (TR-03): Kestrel 6 + 2 = 8, Tigress 5 + 2 = 7. Kestrel commits
    Evasive Action* and Prepare for Jump! (4 + 4, tables.md §4); Tigress drafts Focused Fire at
    Kestrel and has not committed it."""
    state = battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"))
    state = act(state, "traveller.initiative", {}, dice=[6, 5]).state
    kestrel = {"ship": "kestrel", "orders": [{"order": "evasive_action"}, {"order": "prepare_jump"}]}
    state = act(state, "traveller.orders", {**kestrel, "commit": True}, KESTREL_ACTOR).state
    tigress = {"ship": "tigress", "orders": [{"order": "focused_fire", "target": "kestrel"}]}
    return act(state, "traveller.orders", tigress, TIGRESS_ACTOR).state


def test_TR_26_the_sheet_names_committed_orders_and_drafts_with_their_targets() -> None:
    state = ordered()
    evasive = {"order": "evasive_action", "target": None, "emergency": False}
    jump = {"order": "prepare_jump", "target": None, "emergency": False}
    kestrel = sheet(state, "kestrel")
    # Committed but not yet revealed: listed, at the initiative before their cost, and not in effect.
    assert kestrel["orders"] == [
        {**evasive, "name": "Evasive Action*", "target_name": None},
        {**jump, "name": "Prepare for Jump!", "target_name": None},
    ]
    assert (kestrel["initiative"], kestrel["evasive"], kestrel["prepare_jump"]) == (8, False, False)
    tigress = sheet(state, "tigress")
    assert tigress["orders"] == []
    assert tigress["drafts"] == [
        {
            "order": "focused_fire",
            "target": "kestrel",
            "emergency": False,
            "name": "Focused Fire",
            "target_name": "Kestrel",
        }
    ]
    assert tigress["initiative"] == 7


def test_TR_27_revealed_orders_switch_on_evasive_action_and_prepare_for_jump() -> None:
    tigress = {"ship": "tigress", "orders": [{"order": "focused_fire", "target": "kestrel"}], "commit": True}
    state = act(ordered(), "traveller.orders", tigress, TIGRESS_ACTOR).state
    kestrel = sheet(state, "kestrel")
    # Revealed (TR-26): in effect, and the round's initiative is 8 − 8 = 0 (TR-26c).
    assert (kestrel["initiative"], kestrel["evasive"], kestrel["prepare_jump"]) == (0, True, True)
    shown = sheet(state, "tigress")  # Focused Fire costs 6: 7 − 6 = 1
    assert (shown["initiative"], shown["evasive"], shown["prepare_jump"]) == (1, False, False)
    assert [(o["name"], o["target_name"]) for o in shown["orders"]] == [("Focused Fire", "Kestrel")]


def test_TR_26_a_draft_naming_a_ship_since_removed_shows_its_id() -> None:
    state = act(ordered(), "ship.remove", {"ship": "kestrel"}).state
    assert [(d["name"], d["target_name"]) for d in sheet(state, "tigress")["drafts"]] == [
        ("Focused Fire", "kestrel")
    ]


# --- damaged weapons: One More Shot, what may fire and how many (TR-19, TR-23, TR-27, TR-05) --------


def damaged_kestrel() -> BattleState:
    """Crew Skill 3 (every order but the small craft's, tables.md §4); a spinal hit once; a pulse laser
    battery with three hits given I Only Need One More Shot this round (round 1); a missile battery
    with three hits; 5 of 25 beam lasers already fired this round."""
    batteries = [
        {"id": "beam", "weapon": "beam_laser", "mounts": 25, "sections": ["Main"], "fired": {"1": 5}},
        {
            "id": "pulse",
            "weapon": "pulse_laser",
            "mounts": 10,
            "sections": ["Main"],
            "hits": 3,
            "one_more_shot": 1,
        },
        {"id": "missiles", "weapon": "missile_turret", "mounts": 10, "sections": ["Main"], "hits": 3},
    ]
    spinal = {"type": "particle", "damage": 100, "name": "Particle Spinal", "hits": 1}
    return battle(capital("Kestrel", crew_skill=3, spinal=spinal, batteries=batteries), capital("Tigress"))


def test_TR_27_damaged_weapons_are_offered_to_one_more_shot() -> None:
    shown = sheet(damaged_kestrel(), "kestrel")
    assert shown["damaged"] == [
        ("pulse", "Turret: Pulse Laser"),
        ("missiles", "Turret: Missile"),
        ("spinal", "Particle Spinal"),
    ]
    # TR-22: the same systems may be repaired, whole-ship systems and the spinal before batteries.
    assert shown["repairable"] == [
        ("spinal", "Particle Spinal"),
        ("pulse", "Turret: Pulse Laser"),
        ("missiles", "Turret: Missile"),
    ]
    forms = {f["key"]: f["ask"] for f in shown["order_forms"]}
    assert forms["one_more_shot"] == "damaged"
    # tables.md §4: the emergency (!) orders, all within Crew Skill 3 with a spinal mount fitted.
    assert [f["key"] for f in shown["emergency_orders"]] == [
        "line_up_spinal",
        "all_hands",
        "blast_them",
        "board_them",
        "damn_torpedoes",
        "opportunity_fire",
        "abandon_ship",
        "prepare_jump",
        "repel_boarders",
        "prepare_impact",
        "roll_ship",
        "screens_full",
    ]


def test_TR_19_TR_27_a_battery_with_three_hits_fires_only_under_one_more_shot() -> None:
    state = damaged_kestrel()
    shown = sheet(state, "kestrel")
    assert [b.id for b in shown["firing"]] == ["beam", "pulse"]
    # TR-05: a standard hull bears 80% (tables.md §1b): 20 of 25, 8 of 10. The beams fired 5 this
    # round, and a Full crew fires every round (TR-23): 25 − 5 = 20 left, the same cap.
    assert shown["caps"] == {
        "beam": {"allowed": 20, "total": 25, "why": "crew Full: once per round; configuration 80%"},
        "pulse": {"allowed": 8, "total": 10, "why": "configuration 80%"},
    }
    # A capital ship fires missiles only in barrages: no individual missile form (TR-01a).
    assert shown["missiles"] == []
    # The next round the shot is spent: the pulse lasers stay silent.
    hg(state, "kestrel")["batteries"][1]["one_more_shot"] = 0
    assert [b.id for b in sheet(state, "kestrel")["firing"]] == ["beam"]


# --- critical marks and the frozen watch (TR-20, TR-24) ---------------------------------------------


def test_TR_20_a_section_is_marked_while_burning_offline_or_breached_this_round() -> None:
    # A CL hull has four sections (tables.md §1b): Engineering, Amidships, Main, Forward.
    state = battle(capital("Kestrel", hull_code="CL"))
    section(state, "kestrel", "Engineering")["fire"] = {"target": 9, "started": 1}
    section(state, "kestrel", "Amidships")["offline_round"] = 1
    section(state, "kestrel", "Main")["breach_round"] = 1
    forward = section(state, "kestrel", "Forward")
    forward["offline_round"] = forward["breach_round"] = 0  # last round's: over now
    assert state.clock.turn == 1
    assert sheet(state, "kestrel")["crit"] == {
        "engineering": True,
        "amidships": True,
        "main": True,
        "forward": False,
    }


def test_TR_24_the_frozen_watch_can_be_thawed_while_the_crew_lives() -> None:
    state = battle(capital("Kestrel", frozen_watch_steps=2), capital("Tigress"))
    assert (sheet(state, "kestrel")["thaw"], sheet(state, "tigress")["thaw"]) == (True, False)
    hg(state, "kestrel")["crew_strength"] = "dead"
    assert sheet(state, "kestrel")["thaw"] is False
    hg(state, "kestrel").update(crew_strength="full", frozen_watch_ready=7)  # revived: thawing
    assert sheet(state, "kestrel")["thaw"] is False


# --- the range board and who may be named (TR-01, TR-02, TR-10, TR-25) ------------------------------


def fleet() -> BattleState:
    """Kestrel and Tigress (capital), a 400-ton Gig (spacecraft) with missiles, Red Flight and a
    hulk with no High Guard data; every pair starts at Long."""
    missiles = {"id": "missiles", "weapon": "missile_turret", "mounts": 2, "sections": ["Hull"]}
    kestrel, tigress = capital("Kestrel"), capital("Tigress")
    kestrel["side"] = "Imperial"
    return battle(kestrel, tigress, gig(missiles), red_flight(), HULK, range_start="long")


def test_TR_02_the_fire_forms_offer_the_bands_each_weapon_can_name() -> None:
    shown = sheet(fleet(), "kestrel")
    assert shown["bands"] == BANDS
    # Missiles: N/A at Adjacent and Close, out of range at Very Distant (tables.md §2, Weapon ranges).
    assert shown["missile_bands"] == BANDS[2:7]
    # Spinal mounts use the Long row (TR-02): out of range only at Very Distant.
    assert shown["spinal_bands"] == BANDS[:7]
    assert shown["board"] == {"gig": "long", "red-flight": "long", "tigress": "long"}
    assert shown["board_labels"] == {"gig": "Long", "red-flight": "Long", "tigress": "Long"}


def test_TR_10_TR_25_the_forms_name_the_ships_each_may_take() -> None:
    state = fleet()
    shown = sheet(state, "kestrel")
    gig_, flight, hulk, tigress = (
        {"id": "gig", "name": "Gig"},
        {"id": "red-flight", "name": "Red Flight"},
        {"id": "hulk", "name": "Hulk"},
        {"id": "tigress", "name": "Tigress"},
    )
    assert shown["targets"] == [gig_, hulk, flight, tigress]
    assert shown["spinal_targets"] == [gig_, tigress]  # High Guard ships, not the flight or the hulk
    assert shown["capitals"] == [tigress]
    # The Gig is a spacecraft: it fires its missiles one by one (TR-01).
    assert [b.id for b in sheet(state, "gig")["missiles"]] == ["missiles"]
    # A flight may land on a carrier of its own side (Kestrel, Imperial).
    assert sheet(state, "red-flight", "flight")["carriers"] == [{"id": "kestrel", "name": "Kestrel"}]


# What the templates read: the values both sheets share, and those of each kind of unit.
SHARED_KEYS = {
    "catalogue",
    "orders_on",
    "skill_name",
    "crew",
    "initiative",
    "orders",
    "drafts",
    "order_forms",
    "emergency_orders",
    "damaged",
    "evasive",
    "prepare_jump",
    "scoring",
    "targets",
    "board",
    "board_labels",
    "bands",
    "missile_bands",
    "firing",
    "caps",
}
FLIGHT_KEYS = SHARED_KEYS | {"left", "craft_points", "carriers"}
CAPITAL_KEYS = SHARED_KEYS | {
    "columns",
    "crit",
    "systems",
    "repairable",
    "repairs",
    "bridge_grounded",
    "thaw",
    "spinal_targets",
    "spinal_bands",
    "missiles",
    "capitals",
    "hit_systems",
    "referee_sheet",
    "unrolled",
    "sides",
}


def test_TR_25_the_flight_sheet_counts_its_craft() -> None:
    state = fleet()
    shown = sheet(state, "red-flight", "flight")
    assert (shown["left"], shown["craft_points"]) == (12, 4)  # 12 craft of Hull 2 + Structure 2


def test_TR_26_each_sheet_carries_every_value_its_template_reads() -> None:
    state = fleet()
    assert set(sheet(state, "red-flight", "flight")) == FLIGHT_KEYS
    assert set(sheet(state, "kestrel")) == CAPITAL_KEYS
    assert set(sheet(state, "gig")) == CAPITAL_KEYS  # a spacecraft's sheet is a capital ship's


# --- the referee's battle-wide values on the sheet (TR-03) ------------------------------------------


def test_TR_03_the_first_sheet_carries_the_referees_initiative_and_sides() -> None:
    kestrel, tigress = capital("Kestrel"), capital("Tigress")
    kestrel["side"] = "Imperial"
    hulk = {**HULK, "side": "Pirates"}  # a side, but no unit: not one of the battle's sides
    state = battle(hulk, kestrel, tigress, red_flight("Vargr"))
    shown = sheet(state, "kestrel")
    assert (shown["referee_sheet"], sheet(state, "tigress")["referee_sheet"]) == (True, False)
    assert shown["sides"] == ["Imperial", "Vargr"]  # Tigress has no side
    assert shown["hit_systems"] == [
        ("m_drive", "M-Drive"),
        ("j_drive", "J-Drive"),
        ("power_plant", "Power plant"),
        ("sensors", "Sensors"),
        ("computer", "Computer"),
        ("command", "Bridge"),
    ]
    assert shown["unrolled"] is True
    # TR-03: 1d6 + Crew Skill 2 for each capital ship; the flight rolls 2D (TR-03a).
    state = act(state, "traveller.initiative", {}, dice=[3, 4, 2, 5]).state
    assert sheet(state, "kestrel")["unrolled"] is False
    hg(state, "tigress")["initiative_base"] = None  # a capital ship still to roll
    assert sheet(state, "kestrel")["unrolled"] is True
    hg(state, "tigress")["initiative_base"] = 5
    state.ships["red-flight"].parts["flight"]["initiative_base"] = None  # the flight still to roll
    assert sheet(state, "kestrel")["unrolled"] is True


# --- repairs (TR-22) ---------------------------------------------------------------------------------


def options(state: BattleState) -> dict[str, Any]:
    return repair_options(state, load(state.ships["kestrel"]))


def test_TR_22_an_undamaged_ship_has_nothing_to_repair() -> None:
    assert options(battle(capital("Kestrel"))) == {"attempts": [], "blocked": []}


def test_TR_22_worn_hull_structure_or_armour_is_not_repaired_in_battle() -> None:
    for field, value in (("hull", 60), ("structure", 60), ("armour", 5)):
        state = battle(capital("Kestrel"))
        section(state, "kestrel", "Main")[field] = value  # Hull = Structure 66, armour 6
        assert options(state) == {"attempts": [], "blocked": [NOT_REPAIRED]}, field


def test_TR_22_a_battery_in_two_sections_may_be_tried_in_each() -> None:
    state = battle(capital("Kestrel"))  # beam lasers in Main and Forward
    hg(state, "kestrel")["batteries"][0]["hits"] = 1
    assert options(state) == {
        "attempts": [
            {"section": "Main", "system": "beam", "label": "Turret: Beam Laser in Main"},
            {"section": "Forward", "system": "beam", "label": "Turret: Beam Laser in Forward"},
        ],
        "blocked": [],
    }
    # Both sections have had their attempt this round: the sheet says why, each section in turn.
    hg(state, "kestrel")["round"]["repairs"] = {"Main": 1, "Forward": 1}
    assert options(state)["blocked"] == [
        "Turret: Beam Laser: Main has had its repair attempt this round (TR-22); "
        "Forward has had its repair attempt this round (TR-22)"
    ]


def test_TR_22_a_system_in_no_working_section_cannot_be_tried() -> None:
    state = battle(capital("Kestrel"))
    hg(state, "kestrel")["batteries"][0]["hits"] = 1
    for name in ("Main", "Forward"):
        section(state, "kestrel", name).update(hull=0, structure=0, destroyed=True)
    assert options(state) == {
        "attempts": [],
        "blocked": ["Turret: Beam Laser: it sits in no working section", NOT_REPAIRED],
    }
