"""Section hit clauses the mutation run left unpinned (TR-17 to TR-20): each whole-ship system and
each battery mount rolled on a Section Hit Table (not entered), a screen's second hit, fuel and
Power floored at 0, the bridge's halving of this round's initiative, a structural failure at one
point of Hull, an internal explosion on a section that still has Hull, the purpose of the follow-up
rolls, and a Hull result that destroys its section. Slots are the Section Hit Table of tables.md
(§1a) as the design rules lay it out for the tests' CF hull (Engineering, Main, Forward)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.traveller.helpers import KESTREL_ACTOR, act, beam_shot, capital, hg, section
from tests.rules.traveller.test_clauses import FORWARD_ARMOUR, OPENING, duel, entered, main_struck

BEAM = {"id": "beam", "weapon": "beam_laser", "mounts": 25, "tons": 25, "sections": ["Main", "Forward"]}
BARBETTE = {"id": "pb", "weapon": "particle_barbette", "mounts": 2, "tons": 10, "sections": ["Main"]}
BAY = {"id": "pbay", "weapon": "particle_bay_50", "mounts": 1, "tons": 50, "sections": ["Main"]}


def system_hits(done: Any) -> list[tuple]:
    return [
        (e.data["section"], e.data["slot"], [r.purpose for r in e.rolls])
        for e in done.events
        if e.kind == "system_hit"
    ]


# 20 beam lasers at Medium: 2D 6+6 = 12 + FC 2 + Gunner 2 + (1 − armour 6) = 11 → 200% → 40 damage,
# 20 to the section hit and 20 to its neighbour; net 11 ≥ 8 rolls on both (TR-08, TR-16, TR-18).
@pytest.mark.parametrize(
    ("no_hull", "location", "table_roll", "die", "line"),
    [
        # Engineering External 4: M-Drive (TR-19: −1 Thrust, Tigress's 4 → 3).
        (None, 1, [1, 3], [], "Engineering section hit (External, 2D 4): M-Drive — M-Drive hit 1: Thrust 3."),
        # Engineering Internal 3: J-Drive, 1d6 5 for the lasting DM.
        (
            "Engineering",
            1,
            [1, 2],
            [5],
            "Engineering section hit (Internal, 2D 3): J-Drive — J-Drive hit 1: −5 DM to jumps.",
        ),
        # Engineering Internal 4: P-Plant (Power −1: 10 → 9).
        (
            "Engineering",
            1,
            [2, 2],
            [],
            "Engineering section hit (Internal, 2D 4): P-Plant — power plant hit 1: Power −1 → 9.",
        ),
        # Forward External 4: its B slot, the Sensors; 1d6 3 for the lasting DM.
        (
            None,
            5,
            [1, 3],
            [3],
            "Forward section hit (External, 2D 4): Sensors — sensors hit 1: −3 DM to Sensors checks.",
        ),
        # Forward Internal 3: its C slot, the Bridge (command: the Bridge effects, TR-19 Decision).
        (
            "Forward",
            5,
            [1, 2],
            [],
            "Forward section hit (Internal, 2D 3): Bridge — bridge hit 1: no manoeuvre or jump in round 2.",
        ),
        # Main External 9: its second A slot after the beam turrets, the barbette: first hit −1d6.
        (
            None,
            4,
            [4, 5],
            [],
            "Main section hit (External, 2D 9): Barbette: Particle Beam Barbette — Barbette: Particle Beam"
            " Barbette hit 1: −1d6 DM.",
        ),
        # Main Internal 9: its second A slot after the fuel, the bay: first hit −1d6.
        (
            "Main",
            4,
            [4, 5],
            [],
            "Main section hit (Internal, 2D 9): Bay: Particle Beam Bay — Bay: Particle Beam Bay hit 1: −1d6 DM.",
        ),
    ],
)
def test_TR_18_TR_19_each_system_slot_rolled_on_the_table_takes_its_effect(
    no_hull: str | None, location: int, table_roll: list[int], die: list[int], line: str
) -> None:
    state = duel(batteries=[BEAM, BARBETTE, BAY])
    if no_hull:
        section(state, "tigress", no_hull)["hull"] = 0
    # The neighbour keeps its Hull: External 2D 1+1 = 2, Hull.
    neighbour = {1: "Main", 4: "Forward", 5: "Main"}[location]
    done = act(
        state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [6, 6, location, *table_roll, *die, 1, 1]
    )
    assert f"Tigress {line}" in done.texts
    assert [s for s, _, _ in system_hits(done)] == [line.split()[0], neighbour]


def test_TR_19_a_screen_hit_again_loses_another_2_points() -> None:
    # Main Internal 3: its C slot, the meson screen, already hit once.
    screens = [{"id": "ms", "kind": "meson", "count": 3, "sections": ["Main"]}]
    state, _ = main_struck([], screens=screens)
    state.ships["tigress"].parts["hg_ship"]["screens"][0]["hits"] = 1
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, OPENING + [1, 2] + FORWARD_ARMOUR)
    assert (
        "Tigress Main section hit (Internal, 2D 3): Screen: Meson Screen — Screen: Meson Screen −2 protection"
        " (hits 2)." in done.texts
    )
    assert hg(done.state, "tigress")["screens"][0]["hits"] == 2


def test_TR_19_a_fuel_hit_takes_the_fuel_to_0_and_no_lower() -> None:
    # Main Internal 5: Fuel; 1d6 4 × 5% = 20% off the 10% left: 0%.
    state, _ = main_struck([])
    state.ships["tigress"].parts["hg_ship"]["fuel_percent"] = 10
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, OPENING + [2, 3, 4] + FORWARD_ARMOUR)
    assert "Tigress Main section hit (Internal, 2D 5): Fuel — fuel 10% → 0%." in done.texts
    assert hg(done.state, "tigress")["fuel_percent"] == 0


def test_TR_19_a_second_power_plant_hit_takes_power_to_0_and_no_lower() -> None:
    state = duel()
    part = state.ships["tigress"].parts["hg_ship"]
    part["systems"]["power_plant"], part["power"] = 1, 1
    done = entered(state, "power_plant")
    assert done.texts == ["An attacker hits Tigress (Engineering): power plant hit 2: Power −2 → 0."]
    assert hg(done.state, "tigress")["power"] == 0


def test_TR_19_the_bridge_destroyed_halves_this_rounds_initiative() -> None:
    # Decision: halved rounding down: 9 → 4.
    state = duel()
    part = state.ships["tigress"].parts["hg_ship"]
    part["systems"]["bridge"] = 1
    part["round"].update({"turn": state.clock.turn, "initiative": 9})
    after = hg(entered(state, "command", "Forward").state, "tigress")
    assert after["round"]["initiative"] == 4


# 9 meson bays at Long (mesons read the Internal column with Hull left, TR-18): 2D 6+6 = 12 + FC 2 +
# Gunner 2 + (8 − armour 6 − configuration 2) = 16 → 400% → 36; location 1d6 4: Main 18 Structure,
# Forward 18 Structure. Main Internal 2D 12: Critical. Forward Internal 2D 7: Hold. Radiation
# 9 × 1 × 400% = 36 → band 5: crew 2D 1+1 vs 2+ (a hit), computer vs 4+, sensors vs 6+.
MESON = {"id": "meson", "weapon": "meson_bay_100", "mounts": 12, "tons": 1200, "sections": ["Main"]}
FORWARD_HOLD_AND_RADIATION = [3, 4, 1, 1, 1, 1, 1, 1]


def meson_critical(critical: list[int], main_hull: int = 66) -> Any:
    state = duel(capital("Kestrel", batteries=[MESON]))
    section(state, "tigress", "Main")["hull"] = main_hull
    body = beam_shot(battery="meson", mounts=9, range="long")
    return act(
        state,
        "traveller.barrage",
        body,
        KESTREL_ACTOR,
        [6, 6, 4, 6, 6, *critical, *FORWARD_HOLD_AND_RADIATION],
    )


def test_TR_20_structural_failure_at_one_point_of_hull_takes_half_of_it_nothing() -> None:
    # Critical 2: −50% of the section's Hull while it has Hull: ⌊1 / 2⌋ = 0, Structure untouched.
    done = meson_critical([2], main_hull=1)
    assert (
        "Tigress Main section hit (Internal, 2D 12): Critical — critical: Structural Failure —"
        " structural failure: Main unharmed." in done.texts
    )
    main = section(done.state, "tigress", "Main")
    assert (main["hull"], main["structure"]) == (1, 48)


def test_TR_20_an_internal_explosion_strikes_structure_past_the_hull_and_rolls_again() -> None:
    # Critical 4: 6d6 (all 1s: 6) Structure damage, Hull untouched: Main Structure 48 → 42; then one
    # more section hit on Main, 2D 3+4 = 7: Hold.
    done = meson_critical([4, 1, 1, 1, 1, 1, 1, 3, 4])
    assert (
        "Tigress Main section hit (Internal, 2D 12): Critical — critical: Internal Explosion —"
        " internal explosion 6: Main Structure 48→42." in done.texts
    )
    main = section(done.state, "tigress", "Main")
    assert (main["hull"], main["structure"]) == (66, 42)
    assert system_hits(done)[0] == ("Main", "hold", ["internal explosion section hit: Main (Internal)"])


def test_TR_20_a_cascade_failures_two_rolls_name_their_purpose() -> None:
    # Critical 5: two more section hits on Main, 2D 7 and 2D 7: Hold, Hold.
    state, _ = main_struck([])
    done = act(
        state,
        "traveller.barrage",
        beam_shot(),
        KESTREL_ACTOR,
        OPENING + [6, 6, 5, 3, 4, 3, 4] + FORWARD_ARMOUR,
    )
    assert system_hits(done)[:2] == [
        ("Main", "hold", ["cascade failure section hit: Main (Internal)"]),
        ("Main", "hold", ["cascade failure section hit: Main (Internal)"]),
    ]


def test_TR_17_TR_19_a_hull_result_past_the_hull_and_structure_destroys_the_section() -> None:
    # 40 damage: 20 to Main (Hull 25 → 5, External still); Main External 2D 2: Hull, +half the barrage
    # (20): Hull 5 → 0, Structure 10 → 0: destroyed (TR-17). Forward External 2D 7: Armour.
    state = duel()
    main = section(state, "tigress", "Main")
    main["hull"], main["structure"] = 25, 10
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [6, 6, 4, 1, 1, 3, 4])
    assert (
        "Tigress Main section hit (External, 2D 2): Hull — +20 Hull damage: Main Hull 5→0, Structure 10→0."
        in done.texts
    )
    destroyed = [(e.ship, e.data) for e in done.events if e.kind == "section_destroyed"]
    assert destroyed == [("tigress", {"section": "Main"})]
