"""Barrage clauses the mutation run found unpinned: small craft annihilated only when the total is
greater (TR-09), what a flight's barrage records (TR-25), which ships a Fighter Screen covers and
which of its mounts serve as point defence (TR-27), shockwave missiles at a flight (TR-07 rows).
Expected figures are the seed's and tables.md's, worked out in the comments."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from app.rules import Action, apply_action
from app.rules.core import Actor, RuleError
from app.rules.dice import SeededDice
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, capital

LIBRARY = Path(__file__).resolve().parents[3] / "app" / "shipdata" / "library"
BLUE_ACTOR = Actor("p-blue", "player", frozenset({"blue-flight"}))


def on_side(definition: dict[str, Any], side: str) -> dict[str, Any]:
    definition["side"] = side
    return definition


def flight(name: str, side: str) -> dict[str, Any]:
    """The sample Rampart flight: 12 craft of 2 Hull + 2 Structure, one pulse laser each."""
    data = json.loads((LIBRARY / "tr-red-flight.json").read_text())
    data["name"], data["side"] = name, side
    return data


def give(state: BattleState, ship: str, *orders: str | tuple[str, str]) -> BattleState:
    """This round's orders as revealed (giving them is tested in test_orders.py)."""
    part = state.ships[ship].parts["flight" if "flight" in state.ships[ship].parts else "hg_ship"]
    choices = [{"order": o} if isinstance(o, str) else {"order": o[0], "target": o[1]} for o in orders]
    part["round"] = {**copy.deepcopy(part.get("round") or {}), "turn": state.clock.turn}
    part["round"].update({"orders": choices, "committed": True, "revealed": True})
    return state


def gig(hull: int, structure: int) -> dict[str, Any]:
    return {
        "name": "Gig",
        "system": "traveller",
        "parts": {
            "hg_ship": {
                "kind": "small_craft",
                "displacement": 20,
                "sections": [{"name": "Hull", "hull_max": hull, "structure_max": structure}],
            }
        },
    }


TEN_BEAMS_AT_GIG = {"ship": "kestrel", "battery": "beam", "mounts": 10, "target": "gig", "range": "short"}


def test_TR_09_a_total_equal_to_hull_and_structure_left_is_not_annihilation() -> None:
    # 2D 1+1 = 2 + range 0 + FC +2 + Gunner +2 + (1 − armour 0) = 7 → 100% of 10 dice = 10 damage;
    # 4 Hull + 6 Structure = 10 left: 10 is not greater, so 10 × 3 = 30 goes to the core rules.
    state = advance_to(battle(capital("Kestrel"), gig(4, 6), owners=("p-kestrel",), orders=False), "combat")
    done = act(state.state, "traveller.barrage", TEN_BEAMS_AT_GIG, KESTREL_ACTOR, [1, 1])
    assert done.texts == [
        "barrage 10–Beam Laser–Short–1 at Gig: 2D 2 + range 0 + FC +2 + Gunner +2 + (1 − armour 0) = 7"
        " → 100% → 10 damage × 3 = 30 damage to resolve as hits by the core rules (GEN-03)"
    ]
    event = done.events[0]
    assert (event.kind, event.ship, event.data["core_damage"]) == ("barrage", "gig", 30)
    assert [(r.purpose, r.total) for r in event.rolls] == [("barrage attack", 7)]
    assert done.state.ships["gig"].destroyed is False
    assert done.state.ships["gig"].parts["hg_ship"]["sections"][0]["hull"] == 4


def test_TR_09_an_annihilated_craft_loses_every_point_of_every_section() -> None:
    # 2D 1+2 = 3 → 8 → 125% of 10 = 12 damage > 4 + 6 = 10 left: annihilated.
    state = advance_to(battle(capital("Kestrel"), gig(4, 6), owners=("p-kestrel",), orders=False), "combat")
    done = act(state.state, "traveller.barrage", TEN_BEAMS_AT_GIG, KESTREL_ACTOR, [1, 2])
    assert done.texts == [
        "barrage 10–Beam Laser–Short–1 at Gig: 2D 3 + range 0 + FC +2 + Gunner +2 + (1 − armour 0) = 8"
        " → 125% → 12 damage > 10 Hull+Structure left → Gig is annihilated (TR-09)"
    ]
    event = done.events[0]
    assert (event.kind, event.ship, event.data["annihilated"]) == ("barrage", "gig", True)
    [hull] = done.state.ships["gig"].parts["hg_ship"]["sections"]
    assert (hull["hull"], hull["structure"], hull["destroyed"]) == (0, 0, True)
    assert done.state.ships["gig"].destroyed is True


def test_TR_25_craft_lost_add_to_those_lost_before_and_the_event_records_them() -> None:
    red = flight("Red Flight", "B")
    red["parts"]["flight"]["lost"] = 2
    state = battle(on_side(capital("Kestrel"), "A"), red, owners=("p-kestrel",), orders=False)
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["gunners"] = 3
    state = advance_to(state, "combat").state
    body = {"ship": "kestrel", "battery": "beam", "mounts": 20, "target": "red-flight", "range": "short"}
    # 2D 6+6 = 12 + FC +2 + Gunner +2 − 4 + (1 − 0) = 13 → 250% of 20 = 50; 50 // 4 = 12 craft, capped at
    # 3 gunners: 3 lost (2 + 3 = 5 of 12), 50 − 12 = 38 excess.
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [6, 6])
    assert done.texts[0].endswith(
        "→ Red Flight loses 3 craft (4 Hull+Structure each, at most 3); 7 of 12 left;"
        " 38 excess damage to resolve as normal hits (GEN-03)"
    )
    assert done.state.ships["red-flight"].parts["flight"]["lost"] == 5
    event = done.events[0]
    assert (event.kind, event.ship) == ("barrage", "red-flight")
    assert (event.data["craft_lost"], event.data["excess"]) == (3, 38)
    assert [(r.purpose, r.total) for r in event.rolls] == [("barrage attack", 13)]


def screened_battle(**red_changes: Any) -> BattleState:
    """Kestrel and Blue Flight (side A) against Tigress, Guard and Red Flight (side B)."""
    red = flight("Red Flight", "B")
    red["parts"]["flight"].update(red_changes)
    kestrel = on_side(capital("Kestrel"), "A")
    kestrel["parts"]["hg_ship"]["batteries"] = [
        {"id": "missiles", "weapon": "missile_turret", "mounts": 25, "tons": 25, "sections": ["Main"]}
    ]
    state = battle(
        kestrel,
        on_side(capital("Tigress"), "B"),
        on_side(capital("Guard"), "B"),
        red,
        flight("Blue Flight", "A"),
        owners=("p-kestrel", "p-tigress", "p-guard", "p-red", "p-blue"),
        enforce_loop=False,
    )
    return advance_to(state, "combat").state


def strafe(state: BattleState, target: str, dice: list[int]):  # type: ignore[no-untyped-def]
    body = {
        "ship": "blue-flight",
        "battery": "pulse-lasers",
        "mounts": 12,
        "target": target,
        "range": "close",
    }
    if target != "red-flight":
        body["adjacent"] = "fore"
    return act(state, "traveller.barrage", body, BLUE_ACTOR, dice)


def test_TR_27_a_fighter_screen_covers_the_ship_it_names_not_another_friendly_ship() -> None:
    state = screened_battle()
    state = give(state, "red-flight", ("fighter_screen", "tigress"))
    state = give(state, "blue-flight", "fast_strafing_run")
    # Guard is on Tigress's side but not screened: Blue Flight's strafing run keeps its +2.
    done = strafe(state, "guard", [1, 1, 1])
    assert "+ Fast Strafing Run +2" in done.texts[0]


def test_TR_27_a_flight_without_the_screen_order_does_not_screen_itself() -> None:
    state = screened_battle()
    state = give(state, "blue-flight", "fast_strafing_run")
    done = strafe(state, "red-flight", [1, 1])
    assert "+ Fast Strafing Run +2" in done.texts[0]


MISSILES_AT_TIGRESS = {
    "ship": "kestrel",
    "battery": "missiles",
    "mounts": 20,
    "target": "tigress",
    "range": "medium",
    "adjacent": "fore",
}


def test_TR_27_only_a_screening_flights_working_lasers_serve_as_point_defence() -> None:
    # Red Flight also carries a missile rack per craft: it is no laser and lends nothing. Its 12 pulse
    # lasers against 20 missiles are ≤ 90% → −1 (tables.md point-defence lasers): 1d6 5 − 1 = 4.
    rack = {"id": "rack", "weapon": "missile_turret", "mounts": 1, "tons": 1}
    pulse = {"id": "pulse-lasers", "weapon": "pulse_laser", "mounts": 1, "tons": 1, "gunners": 1}
    state = give(screened_battle(batteries=[pulse, rack]), "red-flight", ("fighter_screen", "tigress"))
    done = act(state, "traveller.barrage", MISSILES_AT_TIGRESS, KESTREL_ACTOR, [5, 6, 6, 1])
    assert "(1 − armour 6 − point defence (with Red Flight) 4) = 7" in done.texts[0]


def test_TR_27_a_screening_flights_disabled_lasers_give_no_point_defence() -> None:
    # Three hits disable the pulse lasers (TR-19): no point-defence die is rolled for Tigress.
    pulse = {"id": "pulse-lasers", "weapon": "pulse_laser", "mounts": 1, "tons": 1, "gunners": 1, "hits": 3}
    state = give(screened_battle(batteries=[pulse]), "red-flight", ("fighter_screen", "tigress"))
    done = act(state, "traveller.barrage", MISSILES_AT_TIGRESS, KESTREL_ACTOR, [1, 1, 1])
    assert "2D 2 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 1 → 0%" in done.texts[0]


def test_TR_07_shockwave_missiles_at_a_flight_find_no_sand_to_clear() -> None:
    kestrel = on_side(capital("Kestrel"), "A")
    kestrel["parts"]["hg_ship"]["batteries"] = [
        {
            "id": "shockwave",
            "weapon": "missile_turret",
            "ammo": "shockwave",
            "mounts": 20,
            "sections": ["Main"],
        }
    ]
    state = battle(kestrel, flight("Red Flight", "B"), owners=("p-kestrel",), orders=False)
    state = advance_to(state, "combat").state
    body = {
        "ship": "kestrel",
        "battery": "shockwave",
        "mounts": 16,
        "target": "red-flight",
        "range": "medium",
    }
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [5, 5])
    # 2D 10 + 4 − 4 (flight) + (1 − 0) = 11 → 200%, yet shockwave missiles do no damage.
    assert done.texts[0].endswith("= 11 → 200% → no sand to clear")
    assert done.events[0].data == {
        "mounts": 16,
        "battery": "shockwave",
        "net": 11,
        "percent": 200,
        "damage": 0,
        "range": "medium",
        "sand_cleared": False,
    }


def test_TR_07_shockwave_under_5_percent_leaves_the_sand_and_says_so_in_its_data() -> None:
    kestrel = on_side(capital("Kestrel"), "A")
    kestrel["parts"]["hg_ship"]["batteries"] = [
        {
            "id": "shockwave",
            "weapon": "missile_turret",
            "ammo": "shockwave",
            "mounts": 20,
            "sections": ["Main"],
        }
    ]
    state = battle(kestrel, on_side(capital("Tigress"), "B"), owners=("p-kestrel",), orders=False)
    state = advance_to(state, "combat").state
    body = {"ship": "kestrel", "battery": "shockwave", "mounts": 16, "target": "tigress", "range": "medium"}
    body["adjacent"] = "fore"
    # No sandcasters: 2D 2 + 4 + (1 − armour 6) = 1 → 0% < 5%.
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [1, 1])
    assert done.texts[0].endswith("= 1 → 0% < 5% → the sand holds")
    assert done.events[0].data["sand_cleared"] is False


def duel() -> BattleState:
    state = battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"), orders=False)
    return advance_to(state, "combat").state


def beams(state: BattleState, dice: list[int], **changes: Any):  # type: ignore[no-untyped-def]
    body = {"ship": "kestrel", "battery": "beam", "mounts": 20, "target": "tigress", "range": "medium"}
    return act(state, "traveller.barrage", {**body, **changes}, KESTREL_ACTOR, dice)


def destroy(state: BattleState, name: str) -> None:
    section = next(s for s in state.ships["tigress"].parts["hg_ship"]["sections"] if s["name"] == name)
    section.update({"hull": 0, "structure": 0, "destroyed": True})


def test_TR_17_TR_16_the_half_for_a_destroyed_section_hit_is_lost_and_the_adjacent_half_still_lands() -> None:
    # 2D 3+4 = 7 + FC +2 + Gunner +2 + (1 − armour 6) = 6 → 75% of 20 = 15; location 4 Main takes 8
    # (the odd point), Forward 7.
    state = duel()
    destroy(state, "Main")
    done = beams(state, [3, 4, 4], adjacent="Forward")
    assert done.texts[0].endswith(
        "→ location 1d6 4: Main; 8 lost: Main is destroyed already (TR-17); 7 to Forward Hull 66→59"
    )
    assert (done.events[0].data["lost"], done.events[0].data["struck"]) == (8, ["Forward"])


def test_TR_17_both_halves_lost_add_up() -> None:
    state = duel()
    destroy(state, "Main")
    destroy(state, "Forward")
    done = beams(state, [3, 4, 4], adjacent="Forward")
    assert done.events[0].data["lost"] == 15
    assert done.events[0].data["struck"] == []


def test_TR_16_one_point_of_damage_asks_for_no_adjacent_section() -> None:
    # 10 mounts: 2D 2+2 = 4 + 4 − 5 = 3 → 10% of 10 = 1 point; half of 1 is 0, so no choice is asked
    # and Main takes it all; the split's side is recorded as toward fore (Forward).
    state = duel()
    done = beams(state, [2, 2, 4], mounts=10)
    assert done.texts[0].endswith("= 3 → 10% → 1 damage → location 1d6 4: Main; 1 to Main Hull 66→65")
    assert done.events[0].data["adjacent"] == "Forward"


def test_TR_16_two_points_of_damage_ask_the_attacker_for_the_adjacent_section() -> None:
    # 2D 2+3 = 5 → 4 → 25% of 10 = 2 (rounded down): 1 and 1, and Main has two neighbours.
    state = duel()
    with pytest.raises(RuleError) as asked:
        beams(state, [2, 3, 4], mounts=10)
    assert str(asked.value).startswith(
        "the barrage hit Main: choose the adjacent section for the other half, Engineering or Forward (TR-16)"
    )
    assert asked.value.field == "adjacent"


def test_TR_19_a_turrets_first_hit_takes_1d6_off_each_barrage_without_the_extra_1() -> None:
    # First hit: −1d6 (seed: "a turret hit gives a –1d6DM"), here 1d6 3 → −3 (the second hit's −(1d6+1)
    # is tested in test_barrage.py). 2D 8 + 4 − 3 − 5 = 4 → 25% of 20 = 5.
    state = duel()
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["hits"] = 1
    done = beams(state, [3, 4, 4, 2], adjacent="fore")
    assert done.texts[0].startswith(
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 8 + range 0 + FC +2 + Gunner +2 + turret hits −3"
        " + (1 − armour 6) = 4 → 25% → 5 damage"
    )
    penalty = done.events[0].rolls[0]
    assert (penalty.dice, penalty.outcome) == ([3], "−3")
    assert penalty.purpose.endswith("damage DM")


def test_TR_19_a_second_computer_hit_rolls_its_1d6_as_the_computer_damage_dm() -> None:
    state = duel()
    state.ships["kestrel"].parts["hg_ship"]["systems"]["computer"] = 2
    done = beams(state, [2, 3, 4, 4], adjacent="fore")
    computer = done.events[0].rolls[0]
    assert (computer.purpose, computer.dice, computer.outcome) == ("computer damage DM", [2], "−2")


def strafed_battle(screen_kestrel: bool) -> BattleState:
    """Red Flight (side B) makes a Fast Strafing Run; Kestrel (side A) fires back at Close, screened
    by Blue Flight or not."""
    state = battle(
        on_side(capital("Kestrel"), "A"),
        flight("Red Flight", "B"),
        flight("Blue Flight", "A"),
        owners=("p-kestrel", "p-red", "p-blue"),
        enforce_loop=False,
    )
    state = advance_to(state, "combat").state
    state = give(state, "red-flight", "fast_strafing_run")
    if screen_kestrel:
        state = give(state, "blue-flight", ("fighter_screen", "kestrel"))
    return state


def test_TR_27_a_strafing_runs_minus_2_to_attacks_on_the_flight_is_lost_against_a_screened_shooter() -> None:
    body = {"ship": "kestrel", "battery": "beam", "mounts": 20, "target": "red-flight", "range": "close"}
    open_fire = act(strafed_battle(False), "traveller.barrage", body, KESTREL_ACTOR, [1, 1])
    assert "+ target Fast Strafing Run −2" in open_fire.texts[0]
    screened = act(strafed_battle(True), "traveller.barrage", body, KESTREL_ACTOR, [1, 1])
    assert "Fast Strafing Run" not in screened.texts[0]


def torpedo_duel(crew_skill: int = 2, sandcasters: int = 33, armour: int = 16) -> BattleState:
    """Kestrel fires 10 of its 13 torpedo bays (50 t: 3 torpedoes each, 30 in all; 80% may fire) with bomb-pumped torpedoes
    against Tigress's 33 sandcasters, 30 point-defence lasers and armour 16 unless changed."""
    bays = [
        {"id": "torps", "weapon": "torpedo_bay_50", "ammo": "bomb_pumped", "mounts": 13, "sections": ["Main"]}
    ]
    state = battle(
        capital("Kestrel", batteries=bays),
        capital("Tigress", armour=armour, sandcasters=sandcasters, point_defence=30, crew_skill=crew_skill),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
    )
    return advance_to(state, "combat").state


TORPEDOES = {
    "ship": "kestrel",
    "battery": "torps",
    "mounts": 10,
    "target": "tigress",
    "range": "medium",
    "adjacent": "fore",
}


def test_TR_07_bomb_pumped_torpedoes_take_2_off_both_the_sand_and_the_point_defence_roll() -> None:
    # tables.md: sand 1d6 5 + 2 (33 ≥ 110% of 30) − 2 (bomb-pumped) = 5; point defence 1d6 4 + 0
    # (30 within 10% of 30) − 2 (bomb-pumped) = 2. Torpedo at Medium: +0. Bomb-pumped: 6 dice a
    # torpedo, 3 a bay: 18. 2D 2 + 4 + (18 − 16 − 5 − 2) = 1.
    done = act(torpedo_duel(), "traveller.barrage", TORPEDOES, KESTREL_ACTOR, [5, 4, 1, 1, 1])
    assert "(18 − armour 16 − sand 5 − point defence 2) = 1 → 0%" in done.texts[0]
    sand, point_defence = done.events[0].rolls[:2]
    assert (sand.purpose, sand.dice, sand.outcome) == ("sand", [5], "sand 5")
    assert (point_defence.purpose, point_defence.dice, point_defence.outcome) == (
        "point defence",
        [4],
        "point defence 2",
    )


def test_TR_07_a_sand_or_point_defence_roll_below_0_protects_0() -> None:
    # 20 sandcasters are ≤ 90% of 30 torpedoes: sand 1d6 1 − 2 − 2 = −3 → 0; point defence
    # 1d6 1 + 0 − 2 = −1 → 0 (a result of 0 or less: none). 2D 2 + 4 + (18 − 18) = 6.
    state = torpedo_duel(sandcasters=20, armour=18)
    done = act(state, "traveller.barrage", TORPEDOES, KESTREL_ACTOR, [1, 1, 1, 1, 1])
    assert "(18 − armour 18 − sand 0 − point defence 0) = 6 → 75%" in done.texts[0]
    assert [r.outcome for r in done.events[0].rolls[:2]] == ["sand 0", "point defence 0"]


def test_TR_07_crew_gunner_3_adds_1_to_sand_and_point_defence() -> None:
    # Tigress's Crew Skill 3: sand 1d6 1 + 2 − 2 + 1 = 2; point defence 1d6 2 + 0 − 2 + 1 = 1.
    done = act(torpedo_duel(crew_skill=3), "traveller.barrage", TORPEDOES, KESTREL_ACTOR, [1, 2, 1, 1, 1])
    assert "(18 − armour 16 − sand 2 − point defence 1) = 5 → 50%" in done.texts[0]


def _dead_crew(state: BattleState) -> None:
    state.ships["kestrel"].parts["hg_ship"]["crew_strength"] = "dead"


def _disabled(state: BattleState) -> None:
    state.ships["kestrel"].parts["hg_ship"]["disabled"] = True


def _silent(state: BattleState) -> None:
    give(state, "kestrel", "run_silent")


def _third_hit(state: BattleState) -> None:
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["hits"] = 3


def _offline(state: BattleState) -> None:
    for section in state.ships["kestrel"].parts["hg_ship"]["sections"]:
        section["offline_round"] = state.clock.turn


def _computer_out(state: BattleState) -> None:
    state.ships["kestrel"].parts["hg_ship"]["systems"]["computer"] = 3


@pytest.mark.parametrize(
    ("spoil", "field", "words"),
    [
        (_dead_crew, "ship", "Kestrel's crew is dead and cannot act (TR-23)"),
        (_disabled, "ship", "Kestrel is disabled (power plant out)"),
        (_silent, "ship", "Kestrel runs silent this round and may not fire"),
        (_third_hit, "battery", "can no longer fire (third hit)"),
        (_offline, "battery", "sits in offline sections this round (power failure)"),
        (_computer_out, "range", "the computer is disabled: no fire beyond Close"),
    ],
)
def test_TR_19_TR_23_TR_27_a_shooter_that_may_not_fire_is_refused_on_its_field(spoil, field, words) -> None:  # type: ignore[no-untyped-def]
    state = duel()
    spoil(state)
    with pytest.raises(RuleError) as refused:
        beams(state, [], adjacent="fore")
    assert words in str(refused.value)
    assert refused.value.field == field


def test_TR_19_a_disabled_computer_still_fires_at_close() -> None:
    # Computer's third hit: "no fire beyond Close" — Close itself is allowed. Beam lasers at Close: −1
    # (Medium row of tables.md). 2D 2 + (−1) + 2 + 2 + (1 − 6) = 0 → 0%.
    state = duel()
    _computer_out(state)
    done = beams(state, [1, 1, 1], adjacent="fore", range="close")
    assert done.texts[0].startswith("barrage 20–Beam Laser–Close–1 at Tigress: 2D 2 + range −1")


def trio() -> BattleState:
    state = battle(
        capital("Kestrel"),
        capital("Tigress"),
        capital("Guard"),
        owners=("p-kestrel", "p-tigress", "p-guard"),
        orders=False,
    )
    return advance_to(state, "combat").state


def refusal(state: BattleState, mounts: int, target: str = "tigress") -> str:
    with pytest.raises(RuleError) as refused:
        beams(state, [], adjacent="fore", mounts=mounts, target=target)
    assert refused.value.field == "mounts"
    return str(refused.value)


@pytest.mark.parametrize(
    ("orders", "percent", "most"),
    [
        # tables.md orders: Angle for Maximum Effect +10%, Defensive Posture −20%; a standard hull
        # brings 80% of a type to bear (TR-05): 25 turrets × 90% = 22, × 60% = 15, × 70% = 17.
        (("angle_max_effect",), 90, 22),
        (("defensive_posture",), 60, 15),
        (("angle_max_effect", "defensive_posture"), 70, 17),
    ],
)
def test_TR_05_TR_27_orders_change_the_share_of_a_weapon_type_in_one_barrage(orders, percent, most) -> None:  # type: ignore[no-untyped-def]
    state = give(duel(), "kestrel", *orders)
    assert refusal(state, most + 1) == (
        f"only {most} of 25 Turret: Beam Laser mounts may fire at this target (configuration {percent}%)"
    )
    beams(state, [1, 1, 1], adjacent="fore", mounts=most)


def test_TR_27_maximum_speed_counts_the_turrets_already_fired_this_round() -> None:
    # Maximum Speed: half of 25 turrets (round down) = 12 a round; 10 fired at Tigress leave 2.
    state = give(trio(), "kestrel", "maximum_speed")
    state = beams(state, [1, 1, 1], adjacent="fore", mounts=10).state
    assert refusal(state, 3, "guard") == (
        "only 2 of 25 Turret: Beam Laser mounts may fire at this target (Maximum Speed: half the turrets and bays)"
    )


def test_TR_23_a_half_crew_counts_this_rounds_fire_and_last_rounds() -> None:
    # Half crew: each weapon once per 2 rounds (tables.md). 10 of 25 fired in round 1 leave 15 for
    # round 1 and round 2; round 3 is a new window (the configuration's 20 again).
    state = trio()
    state.ships["kestrel"].parts["hg_ship"]["crew_strength"] = "half"
    state = beams(state, [1, 1, 1], adjacent="fore", mounts=10).state
    why = "(crew Half: once per 2 rounds)"
    assert (
        refusal(state, 16, "guard")
        == f"only 15 of 25 Turret: Beam Laser mounts may fire at this target {why}"
    )
    state = advance_to(state, "combat", turn=2).state
    assert refusal(state, 16, "guard").startswith("only 15 of 25")
    state = advance_to(state, "combat", turn=3).state
    assert refusal(state, 21, "guard").endswith("(configuration 80%)")


def _destroyed_target(state: BattleState) -> None:
    state.ships["tigress"].destroyed = True


def _jumped_target(state: BattleState) -> None:
    state.ships["tigress"].parts["hg_ship"]["jumped"] = 1


def _nothing(state: BattleState) -> None:
    pass


@pytest.mark.parametrize(
    ("spoil", "changes", "field", "words"),
    [
        (_nothing, {"target": "kestrel"}, "target", "a ship cannot fire on itself"),
        (_nothing, {"target": "nobody"}, "target", "nobody"),
        (_destroyed_target, {}, "target", "Tigress is already destroyed"),
        (_jumped_target, {}, "target", "Tigress has jumped out of the battle"),
        (_nothing, {"battery": "spinal"}, "battery", "Kestrel has no battery 'spinal'"),
        (_nothing, {"target_section": "Bridge"}, "target_section", "Tigress has no section 'Bridge'"),
        (
            _nothing,
            {"target_section": "Main"},
            "target_section",
            "aiming at one section needs a Target That Section order this round",
        ),
    ],
)
def test_TR_05_TR_27_barrage_refusals_name_their_field(spoil, changes, field, words) -> None:  # type: ignore[no-untyped-def]
    state = duel()
    spoil(state)
    with pytest.raises(RuleError) as refused:
        beams(state, [], adjacent="fore", **changes)
    assert words in str(refused.value)
    assert refused.value.field == field


def test_TR_02_a_weapon_out_of_range_is_refused_on_range() -> None:
    # tables.md weapon ranges: a Medium-optimum weapon (beam laser) is OoR at Distant.
    with pytest.raises(RuleError) as refused:
        beams(duel(), [], adjacent="fore", range="distant")
    assert str(refused.value) == "Beam Laser cannot engage at Distant range (TR-02)"
    assert refused.value.field == "range"


def test_TR_05_a_type_fires_once_at_a_target_a_round_refused_on_target() -> None:
    state = beams(duel(), [1, 1, 1], adjacent="fore", mounts=10).state
    with pytest.raises(RuleError) as refused:
        beams(state, [], adjacent="fore", mounts=10)
    assert refused.value.field == "target"


def test_TR_04_TR_05_two_barrages_of_a_type_in_a_round_are_both_recorded() -> None:
    # 10 beam lasers at Tigress, 10 at Guard: 20 fired in round 1, two targets, two actions (each
    # barrage an action: no All Hands to the Guns! order).
    state = beams(trio(), [1, 1, 1], adjacent="fore", mounts=10).state
    state = beams(state, [1, 1, 1], adjacent="fore", mounts=10, target="guard").state
    kestrel = state.ships["kestrel"].parts["hg_ship"]
    assert kestrel["batteries"][0]["fired"] == {"1": 20}
    assert kestrel["round"]["targets"] == ["tigress", "guard"]
    assert kestrel["round"]["barrages"] == {"beam": ["tigress", "guard"]}
    assert kestrel["round"]["actions"] == 2


def test_TR_25_a_flight_that_loses_its_last_craft_is_wiped_out() -> None:
    red = flight("Red Flight", "B")
    red["parts"]["flight"]["lost"] = 10
    state = battle(on_side(capital("Kestrel"), "A"), red, owners=("p-kestrel",), orders=False)
    state = advance_to(state, "combat").state
    body = {"ship": "kestrel", "battery": "beam", "mounts": 20, "target": "red-flight", "range": "short"}
    # 2D 6+6 = 12 + 4 − 4 + 1 = 13 → 250% of 20 = 50; 12 craft by points, capped at 20 mounts, 2 left.
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [6, 6])
    wiped = done.events[-1]
    assert (wiped.kind, wiped.ship, wiped.text) == (
        "ship_destroyed",
        "red-flight",
        "Flight Red Flight is wiped out.",
    )
    assert done.state.ships["red-flight"].destroyed is True


def sandcasters(mounts: int) -> BattleState:
    batteries = [{"id": "sand", "weapon": "sandcaster", "mounts": mounts, "sections": ["Main"]}]
    state = battle(
        capital("Kestrel", batteries=batteries),
        capital("Tigress"),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
    )
    return advance_to(state, "combat").state


def test_TR_05_four_sandcasters_make_one_die_and_fewer_make_none() -> None:
    # Sand: 1 die per 4 mounts (tables.md). 5 sandcasters, 80% = 4 may fire: one die.
    shot = {"ship": "kestrel", "battery": "sand", "target": "tigress", "range": "close", "adjacent": "fore"}
    done = act(sandcasters(5), "traveller.barrage", {**shot, "mounts": 4}, KESTREL_ACTOR, [1, 1, 1])
    assert done.texts[0].startswith("barrage 1–Sandcaster–Close–1 (4 mounts, 1 die per 4) at Tigress")
    # 3 sandcasters, 80% = 2 may fire (all of them the minimum): no whole die.
    with pytest.raises(RuleError) as refused:
        act(sandcasters(3), "traveller.barrage", {**shot, "mounts": 2}, KESTREL_ACTOR)
    assert (str(refused.value), refused.value.field) == (
        "Sandcaster: 4 mounts make one die of a barrage",
        "mounts",
    )


def test_TR_27_focused_fire_with_no_named_ship_holds_to_the_first_ship_fired_on() -> None:
    state = give(trio(), "kestrel", "focused_fire")
    state = beams(state, [1, 1, 1], adjacent="fore", mounts=10).state
    with pytest.raises(RuleError) as refused:
        beams(state, [], adjacent="fore", mounts=10, target="guard")
    assert (str(refused.value), refused.value.field) == (
        "Focused Fire: Kestrel may fire only at Tigress this round",
        "target",
    )


def test_TR_27_each_target_that_section_order_aims_one_barrage() -> None:
    # Two orders aim two barrages (10 turrets each at Tigress and Guard); the third, the last 5 of 25
    # turrets at Warden, is refused.
    state = battle(
        capital("Kestrel"),
        capital("Tigress"),
        capital("Guard"),
        capital("Warden"),
        owners=("p-kestrel", "p-tigress", "p-guard", "p-warden"),
        orders=False,
    )
    state = give(advance_to(state, "combat").state, "kestrel", "target_section", "target_section")
    for target in ("tigress", "guard"):
        state = beams(
            state, [1, 1], adjacent="Forward", mounts=10, target=target, target_section="Main"
        ).state
    with pytest.raises(RuleError) as refused:
        beams(state, [], adjacent="Forward", mounts=5, target="warden", target_section="Main")
    assert (str(refused.value), refused.value.field) == (
        "aiming at one section needs a Target That Section order this round",
        "target_section",
    )


def test_GEN_03_a_target_that_dodged_refuses_an_entered_dodge_dm() -> None:
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["round"] = {"turn": 1, "dodge": -2}
    with pytest.raises(RuleError) as refused:
        beams(state, [], adjacent="fore", dodge_dm=-2)
    assert (str(refused.value), refused.value.field) == (
        "Tigress has dodged: its own Pilot check sets the dodge DM",
        "dodge_dm",
    )


def test_TR_05_a_barrage_of_fewer_than_ten_mounts_is_refused_on_mounts() -> None:
    with pytest.raises(RuleError) as refused:
        beams(duel(), [], adjacent="fore", mounts=9)
    assert (str(refused.value), refused.value.field) == (
        "a barrage needs at least 10 mounts: ten, or all of the type if fewer (TR-05)",
        "mounts",
    )


def test_TR_16_with_server_dice_a_barrage_must_carry_its_split_preference() -> None:
    body = {"ship": "kestrel", "battery": "beam", "mounts": 20, "target": "tigress", "range": "medium"}
    with pytest.raises(RuleError) as refused:
        apply_action(duel(), Action("traveller.barrage", body, KESTREL_ACTOR), SeededDice(b"seed", "b1", 1))
    assert (str(refused.value), refused.value.field) == (
        "with server dice the location is rolled as the barrage fires, so give the split with it: "
        'adjacent "toward fore" or "toward aft", the way the other half goes from the section hit (TR-16)',
        "adjacent",
    )


def test_TR_16_an_aimed_barrages_split_is_checked_before_any_die_naming_the_target() -> None:
    state = give(duel(), "kestrel", "target_section")
    with pytest.raises(RuleError) as refused:
        beams(state, [], adjacent="Bridge", target_section="Main")
    assert (str(refused.value), refused.value.field) == (
        "Tigress has no section 'Bridge' (TR-16)",
        "adjacent",
    )
