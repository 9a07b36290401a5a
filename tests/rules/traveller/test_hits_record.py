"""What the log keeps of a section hit's consequences (TR-17 to TR-20, TR-27): each event's kind,
ship and data, and each roll's purpose, owner, dice, outcome and target number — the record a
rebuild, the referee's log and a player's entered dice all read. Dice and figures are the seed's
(1d6 × 5% fuel, 6d6 internal explosion, Prepare for Impact! on 4+)."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, beam_shot, hg
from tests.rules.traveller.test_clauses import duel, fire_at_main, main_struck


def record(done: Any, kinds: tuple[str, ...] = ("critical", "roll", "section_destroyed")) -> list[tuple]:
    return [
        (e.kind, e.ship, e.data, [(r.purpose, r.ship, r.dice, r.outcome, r.target) for r in e.rolls])
        for e in done.events
        if e.kind in kinds
    ]


def test_TR_20_an_internal_explosion_is_logged_with_its_critical_and_6d6() -> None:
    # Main Internal 2D 12: Critical; 1d6 4: Internal Explosion; 6d6 of 1s = 6 Structure; then another
    # section hit on Main, 2D 7: Hold.
    state, _ = main_struck([])
    done = fire_at_main(state, [6, 6, 4, 1, 1, 1, 1, 1, 1, 3, 4])
    assert record(done) == [
        (
            "critical",
            "tigress",
            {"section": "Main", "critical": "Internal Explosion"},
            [("critical: Main", "tigress", [4], "Internal Explosion", None)],
        ),
        ("roll", "tigress", {}, [("internal explosion", "tigress", [1] * 6, "6 Structure damage", None)]),
    ]
    assert "Internal explosion: 6d6 6." in done.texts


def test_TR_19_a_fuel_hit_logs_its_1d6_as_the_share_lost() -> None:
    # Main Internal 2D 5: Fuel; 1d6 4 × 5% = 20% lost.
    state, _ = main_struck([])
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [5, 4, 4, 2, 3, 4, 1, 1])
    assert record(done, ("roll", "system_hit")) == [
        ("roll", "tigress", {}, [("fuel lost ×5%", "tigress", [4], "20% lost", None)]),
        (
            "system_hit",
            "tigress",
            {"section": "Main", "slot": "fuel"},
            [("system damage: Main (Internal)", "tigress", [2, 3], "Fuel", None)],
        ),
        (
            "system_hit",
            "tigress",
            {"section": "Forward", "slot": "hull"},
            [("system damage: Forward (External)", "tigress", [1, 1], "Hull", None)],
        ),
    ]


def test_TR_27_a_braced_crew_logs_its_4_plus_roll_and_ignores_the_hit() -> None:
    state, _ = main_struck([])
    state.ships["tigress"].parts["hg_ship"]["round"].update(
        {
            "turn": state.clock.turn,
            "orders": [{"order": "prepare_impact"}],
            "committed": True,
            "revealed": True,
        }
    )
    done = fire_at_main(state, [1, 1, 4])
    assert record(done) == [
        ("roll", "tigress", {}, [("Prepare for Impact!", "tigress", [4], "crew hit ignored", "4+")])
    ]
    assert (
        "Tigress Main section hit (Internal, 2D 2): Crew — crew hit ignored (Prepare for Impact!)."
        in done.texts
    )
    assert hg(done.state, "tigress")["crew_strength"] == "full"


def test_TR_20_a_power_failure_takes_the_section_offline_next_round() -> None:
    # Main Internal 2D 12: Critical; 1d6 1: Power Failure — offline in round 2 (the barrage is in round 1).
    state, _ = main_struck([])
    done = fire_at_main(state, [6, 6, 1])
    assert hg(done.state, "tigress")["sections"][1]["offline_round"] == 2


@pytest.mark.parametrize(
    ("hits_before", "effect"), [(1, "hit 2: −(1d6+1) DM"), (2, "hit 3: can no longer fire")]
)
def test_TR_19_a_turrets_second_and_third_hits(hits_before: int, effect: str) -> None:
    # Seed: first hit −1d6 DM, second −(1d6+1), third: the turrets can no longer fire. 2D 9 → net 8
    # → 25 damage; Forward External 2D 5: Turret.
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["batteries"][0]["hits"] = hits_before
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [5, 4, 5, 2, 3, 6, 6])
    assert done.texts[1] == (
        f"Tigress Forward section hit (External, 2D 5): Turret: Beam Laser — Turret: Beam Laser {effect}."
    )
    assert hg(done.state, "tigress")["batteries"][0]["hits"] == hits_before + 1


def test_TR_17_a_destroyed_section_is_logged_against_the_ship_and_section() -> None:
    state = duel()
    main = state.ships["tigress"].parts["hg_ship"]["sections"][1]
    main["hull"], main["structure"] = 3, 4
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [3, 4, 3])
    [destroyed] = [e for e in done.events if e.kind == "section_destroyed"]
    assert (destroyed.ship, destroyed.data) == ("tigress", {"section": "Main"})


def entered(state: Any, system: str, dice: list[int] = ()) -> Any:
    body = {"target": "tigress", "section": "Engineering", "system": system, "core_rules": False}
    return act(state, "traveller.entered_hit", body, dice=dice)


@pytest.mark.parametrize(
    ("system", "before", "text", "after"),
    [
        # TR-19 computer: −1 DM; then −1d6 rerolled each time; then disabled (no jump, no fire beyond Close).
        (
            "computer",
            {"computer": 1},
            "computer hit 2: −1d6 DM to all rolls, rerolled each time",
            {"computer": 2},
        ),
        ("computer", {"computer": 2}, "computer disabled: no jump, no fire beyond Close", {"computer": 3}),
        # TR-19 power plant: Power −1, then −2 more (Tigress's Power 10).
        ("power_plant", {}, "power plant hit 1: Power −1 → 9", {"power_plant": 1}),
        ("power_plant", {"power_plant": 1}, "power plant hit 2: Power −2 → 8", {"power_plant": 2}),
    ],
)
def test_TR_19_computer_and_power_plant_hits_step_by_step(
    system: str, before: dict[str, int], text: str, after: dict[str, int]
) -> None:
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["systems"].update(before)
    done = entered(state, system)
    assert done.texts == [f"An attacker hits Tigress (Engineering): {text}."]
    systems = hg(done.state, "tigress")["systems"]
    assert {k: systems[k] for k in after} == after


@pytest.mark.parametrize(
    ("system", "die", "text", "roll", "field"),
    [
        # TR-19: J-Drive −1d6 DM to jumps; sensors −1d6 DM rolled once. 1d6 3 and 2.
        ("j_drive", 3, "J-Drive hit 1: −3 DM to jumps", ("J-Drive hit DM", "jump DM −3"), "jump_dm"),
        (
            "sensors",
            2,
            "sensors hit 1: −2 DM to Sensors checks",
            ("sensor hit DM", "sensors DM −2"),
            "sensors_dm",
        ),
    ],
)
def test_TR_19_a_drive_or_sensor_hit_rolls_its_1d6_dm_and_keeps_it(
    system: str, die: int, text: str, roll: tuple[str, str], field: str
) -> None:
    done = entered(duel(), system, [die])
    assert done.texts[0] == f"An attacker hits Tigress (Engineering): {text}."
    assert record(done) == [("roll", "tigress", {}, [(roll[0], "tigress", [die], roll[1], None)])]
    assert hg(done.state, "tigress")["systems"][field] == -die


def test_TR_19_an_m_drive_hit_at_thrust_0_leaves_thrust_0() -> None:
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["thrust"] = 0
    done = entered(state, "m_drive")
    assert done.texts == ["An attacker hits Tigress (Engineering): M-Drive hit 1: Thrust 0."]
    assert hg(done.state, "tigress")["thrust"] == 0


def test_TR_19_an_armour_hit_on_a_section_with_none_left_takes_nothing() -> None:
    # TR-19 armour: −1 armour in that section, never below 0. Forward External 2D 7: Armour.
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["sections"][2]["armour"] = 0
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [5, 4, 5, 3, 4, 6, 6])
    assert done.texts[1] == "Tigress Forward section hit (External, 2D 7): Armour — Forward armour 0→0."
    assert hg(done.state, "tigress")["sections"][2]["armour"] == 0


def test_TR_19_a_disabled_spinal_mount_hit_again_stays_at_two_hits() -> None:
    # TR-19 spinal: −2 DM, then disabled. Main Internal 2D 4 (1+3) is its B slot.
    state, _ = main_struck([], spinal={"type": "particle", "damage": 250, "tons": 2000})
    state.ships["tigress"].parts["hg_ship"]["spinal"]["hits"] = 2
    done = fire_at_main(state, [1, 3])
    assert hg(done.state, "tigress")["spinal"]["hits"] == 2


@pytest.mark.parametrize(
    ("hull", "text"),
    [
        # TR-17: Hull first, then Structure. 15 damage at Main (location 4): 8 to Main, 7 to Forward.
        (1, "8 to Main Hull 1→0, Structure 66→59"),  # one point of Hull left takes one
        (7, "8 to Main Hull 7→0, Structure 66→65"),  # one point left over reaches Structure
    ],
)
def test_TR_17_damage_takes_what_hull_is_left_then_structure(hull: int, text: str) -> None:
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["sections"][1]["hull"] = hull
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [3, 4, 4])
    assert f"→ location 1d6 4: Main; {text}; 7 to Forward Hull 66→59" in done.texts[0]


def test_TR_16_a_section_not_adjacent_to_the_one_hit_is_refused_naming_the_neighbour() -> None:
    # Location 5: Forward, whose only neighbour is Main.
    with pytest.raises(RuleError) as refused:
        act(duel(), "traveller.barrage", beam_shot(adjacent="Engineering"), KESTREL_ACTOR, [3, 4, 5])
    assert (str(refused.value), refused.value.field) == (
        "Engineering is not adjacent to Forward, the section hit: the other half goes to Main (TR-16)",
        "adjacent",
    )
