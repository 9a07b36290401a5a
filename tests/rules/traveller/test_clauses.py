"""Rule clauses no other test executed, each driven at its boundary through apply_action.

Expected numbers come from seed 002 and tables.md, written out in the comments and asserted
literally: the defender's Crew Gunner 3+ (TR-07), the flight's craft-loss cap (TR-25), the
officer's +1 to a spinal shot (TR-10) and the fuel hit (TR-19).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, beam_shot, capital, hg

MISSILES = {"id": "missiles", "weapon": "missile_turret", "mounts": 20, "tons": 20, "sections": ["Main"]}


def duel(kestrel: dict[str, Any] | None = None, **tigress: Any):
    state = battle(
        kestrel or capital("Kestrel"),
        capital("Tigress", **tigress),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
    )
    return advance_to(state, "combat").state


def with_missiles() -> dict[str, Any]:
    kestrel = capital("Kestrel")
    kestrel["parts"]["hg_ship"]["batteries"].append(dict(MISSILES))
    return kestrel


def missile_shot() -> dict[str, Any]:
    return beam_shot(battery="missiles", mounts=16)


# --- TR-07 Crew Gunner 3+ ----------------------------------------------------------------------------


@pytest.mark.parametrize(("crew_skill", "sand"), [(3, 5), (2, 4)])
def test_TR_07_sand_gets_plus_1_when_the_defenders_crew_skill_is_3_or_more(
    crew_skill: int, sand: int
) -> None:
    """Sand: 1d6 4 + ratio (20 sandcasters vs 20 lasers: within 10% → +0) + 1 for Crew Gunner 3+.
    Crew Skill 3 → sand 5; Crew Skill 2 → sand 4. Attack 2D 6+6 = 12 + FC 2 + Gunner 2 + (1 − 6 − sand)."""
    state = duel(crew_skill=crew_skill, sandcasters=20)
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [4, 6, 6, 1])
    net = 12 + 2 + 2 + 1 - 6 - sand
    assert f"+ (1 − armour 6 − sand {sand}) = {net} →" in done.texts[0]
    assert done.events[0].rolls[0].outcome == f"sand {sand}"


@pytest.mark.parametrize(("crew_skill", "pd"), [(3, 4), (2, 3)])
def test_TR_07_point_defence_gets_plus_1_when_the_defenders_crew_skill_is_3_or_more(
    crew_skill: int, pd: int
) -> None:
    """Point defence vs 16 missiles at Medium: 1d6 3 + ratio (16 lasers vs 16 missiles: within 10% → +0)
    + 1 for Crew Gunner 3+. Crew Skill 3 → 4; Crew Skill 2 → 3."""
    state = duel(with_missiles(), crew_skill=crew_skill, point_defence=16)
    done = act(state, "traveller.barrage", missile_shot(), KESTREL_ACTOR, [3, 3, 3, 1])
    assert f"+ (1 − armour 6 − point defence {pd}) =" in done.texts[0]
    assert done.events[0].rolls[0].outcome == f"point defence {pd}"


def test_TR_07_the_shooters_crew_skill_gives_the_defender_no_gunner_bonus() -> None:
    """Crew Gunner 3+ is the defender's crew: a skill-3 attacker against a skill-2 defender adds
    nothing to the sand (1d6 4 + 0 = 4), only its own Gunner +3 to the attack."""
    state = duel(capital("Kestrel", crew_skill=3), crew_skill=2, sandcasters=20)
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [4, 3, 3, 1])
    assert "Gunner +3 + (1 − armour 6 − sand 4) =" in done.texts[0]


def test_TR_07_sand_and_point_defence_floor_at_zero_with_the_gunner_bonus() -> None:
    """1d6 1 − 2 (18 sandcasters are 90% of 20 lasers: the outer row) + 1 = 0: no protection."""
    state = duel(crew_skill=3, sandcasters=18)
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [1, 1, 1, 1])
    assert "+ (1 − armour 6 − sand 0) = 1 →" in done.texts[0]


@pytest.mark.parametrize(("guard_skill", "sand"), [(3, 5), (2, 4)])
def test_TR_07_an_escorts_crew_skill_3_counts_for_the_ship_it_guards(guard_skill: int, sand: int) -> None:
    """Escort Defence (TR-27) puts the Guard's defences on Tigress (Crew Skill 2); the project's reading
    is that Crew Gunner 3+ counts if any defending crew has Crew Skill 3+. Sand: 1d6 4 + ratio (20 vs 20
    lasers: +0) + 1 only when the Guard's Crew Skill is 3."""
    kestrel, tigress = capital("Kestrel"), capital("Tigress", sandcasters=20)
    guard = capital("Guard", crew_skill=guard_skill)
    kestrel["side"], tigress["side"], guard["side"] = "A", "B", "B"
    state = battle(kestrel, tigress, guard, owners=("p-kestrel", "p-tigress", "p-guard"), orders=False)
    state = advance_to(state, "combat").state
    guard_round = state.ships["guard"].parts["hg_ship"]["round"]
    guard_round.update(
        {
            "turn": state.clock.turn,
            "orders": [{"order": "escort_defence", "target": "tigress"}],
            "committed": True,
            "revealed": True,
        }
    )
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [4, 3, 3, 1])
    assert f"+ (1 − armour 6 − sand {sand}) =" in done.texts[0]


# --- TR-25 craft-loss cap -----------------------------------------------------------------------------


def red_flight(craft: int = 30) -> dict[str, Any]:
    return {
        "name": "Red Flight",
        "system": "traveller",
        "parts": {
            "flight": {
                "craft_type": "Fighter",
                "craft": craft,
                "craft_hull": 1,
                "craft_structure": 1,
                "crew_skill": 2,
                "batteries": [{"id": "pulse", "weapon": "pulse_laser", "mounts": 1}],
            }
        },
    }


def at_flight(gunners: int | None, mounts: int, dice: list[int], craft: int = 30):
    kestrel = capital("Kestrel")
    if gunners is not None:
        kestrel["parts"]["hg_ship"]["batteries"][0]["gunners"] = gunners
    state = battle(kestrel, red_flight(craft), owners=("p-kestrel",), orders=False)
    state = advance_to(state, "combat").state
    body = {"ship": "kestrel", "battery": "beam", "mounts": mounts, "target": "red-flight", "range": "short"}
    return act(state, "traveller.barrage", body, KESTREL_ACTOR, dice)


def test_TR_25_without_gunner_data_the_mounts_firing_cap_the_loss() -> None:
    """TR-25: the lower of mounts firing and gunners; no gunner figure, so the 10 mounts cap it.
    2D 6+6 = 12 + FC 2 + Gunner 2 − 4 + (1 − 0) = 13 → 250% of 10 = 25; 25 // 2 = 12 craft, at most 10
    → 10 lost, 25 − 20 = 5 excess."""
    done = at_flight(None, 10, [6, 6])
    assert done.texts[0].endswith(
        "= 13 → 250% → 25 damage → Red Flight loses 10 craft (2 Hull+Structure each, at most 10);"
        " 20 of 30 left; 5 excess damage to resolve as normal hits (GEN-03)"
    )
    assert done.state.ships["red-flight"].parts["flight"]["lost"] == 10


def test_TR_25_more_gunners_than_mounts_firing_leaves_the_mounts_as_the_cap() -> None:
    """Gunners 12, mounts 10: the lower is 10. Same roll: 25 damage, 12 craft by points, 10 lost."""
    done = at_flight(12, 10, [6, 6])
    assert "loses 10 craft (2 Hull+Structure each, at most 10); 20 of 30 left; 5 excess" in done.texts[0]


def test_TR_25_fewer_gunners_than_mounts_cap_the_loss_at_the_gunners() -> None:
    """Gunners 11, mounts 20: the lower is 11. 2D 6+5 = 11 + FC 2 + Gunner 2 − 4 + 1 = 12 → 225% of 20
    = 45; 45 // 2 = 22 craft by points, at most 11 → 11 lost, 45 − 22 = 23 excess."""
    done = at_flight(11, 20, [6, 5])
    assert done.texts[0].endswith(
        "= 12 → 225% → 45 damage → Red Flight loses 11 craft (2 Hull+Structure each, at most 11);"
        " 19 of 30 left; 23 excess damage to resolve as normal hits (GEN-03)"
    )


# --- TR-10 officer +1 --------------------------------------------------------------------------------


def spinal_duel():
    return duel(
        capital("Kestrel", spinal={"type": "particle", "damage": 250, "name": "Particle Spinal"}),
        hull_code="CP",
    )


@pytest.mark.parametrize(
    ("officer", "outcome"), [(True, "success (Effect 0)"), (False, "failure (Effect −1)")]
)
def test_TR_10_an_officer_of_skill_4_adds_1_to_the_spinal_shot(officer: bool, outcome: str) -> None:
    """2D 4+5 = 9 − 6 Formidable + FC 2 + Gunner 2 + range 0 (Long) + size 0 (75,000 t) = 7; the officer's
    +1 makes it 8, a hit on 8+."""
    body = {"ship": "kestrel", "target": "tigress", "range": "long", "officer": officer}
    # A hit goes on: location 1d6 5 Main; 250 − armour 6×30 = 70 → one system roll, 2D 6+1 = 7 Armour;
    # radiation (70 + 18) // 6 = 14 → band 2, crew 2D 1+1 vs 5+.
    dice = [4, 5] + ([5, 6, 1, 1, 1] if officer else [])
    done = act(spinal_duel(), "traveller.spinal", body, KESTREL_ACTOR, dice)
    expected = "Gunner +2 + officer +1 + range 0" if officer else "Gunner +2 + range 0"
    assert expected in done.texts[0]
    assert f"= {8 if officer else 7} vs 8+ → {outcome}" in done.texts[0]


# --- TR-19 fuel hit -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metal_hydride", "die", "after", "tail"),
    [(False, 4, 80, "fuel 100% → 80%"), (True, 5, 87.5, "fuel 100% → 87.5% (halved: metal hydride)")],
)
def test_TR_19_fuel_hit_loses_1d6_times_5_percent_halved_with_metal_hydride(
    metal_hydride: bool, die: int, after: float, tail: str
) -> None:
    """TR-19 fuel: 1d6 × 5% of the reserves, halved for metal hydride in the section. Main has no Hull
    left, so it reads its Internal column, where 2D 5 is the first A slot: Fuel."""
    state = duel()
    main = state.ships["tigress"].parts["hg_ship"]["sections"][1]
    main["hull"], main["metal_hydride"] = 0, metal_hydride
    # 2D 5+4 = 9 + FC 2 + Gunner 2 + (1 − 6) = 8 → 125% → 25; location 4 Main: 13 Structure, 12 Forward.
    # System rolls: Main Internal 2D 2+3 = 5 Fuel, 1d6 `die`; Forward External 2D 1+1 = 2 Hull (+12).
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [5, 4, 4, 2, 3, die, 1, 1])
    assert done.texts[1] == f"Fuel hit: 1d6 {die}"
    assert done.texts[2] == f"Tigress Main section hit (Internal, 2D 5): Fuel — {tail}."
    assert hg(done.state, "tigress")["fuel_percent"] == after


# --- TR-10, TR-19 spinal refusals and DMs ------------------------------------------------------------

SPINAL_BODY = {"ship": "kestrel", "target": "tigress", "range": "long"}


def kestrel_part(state) -> dict[str, Any]:
    return state.ships["kestrel"].parts["hg_ship"]


def spinal(state, dice: list[int], **payload: Any):
    return act(state, "traveller.spinal", {**SPINAL_BODY, **payload}, KESTREL_ACTOR, dice)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"spinal": None}, "Kestrel has no spinal mount"),
        ({"spinal.hits": 2}, "the spinal mount is disabled"),
        ({"crew_strength": "dead"}, "Kestrel's crew is dead and cannot act"),
        ({"disabled": True}, r"Kestrel is disabled \(power plant out\)"),
        ({"systems.computer": 3}, "the computer is disabled: no fire beyond Close"),
    ],
)
def test_TR_19_TR_23_spinal_refusals(change: dict[str, Any], message: str) -> None:
    """TR-19: a spinal mount's second hit disables it; a disabled power plant disables the ship; a
    disabled computer allows no fire beyond Close. TR-23: a dead crew cannot act."""
    from app.rules.core import RuleError

    state = spinal_duel()
    part = kestrel_part(state)
    for path, value in change.items():
        *head, last = path.split(".")
        holder = part
        for key in head:
            holder = holder[key]
        holder[last] = value
    with pytest.raises(RuleError, match=message):
        spinal(state, [])


def test_TR_27_a_ship_running_silent_fires_no_spinal_mount() -> None:
    from app.rules.core import RuleError

    state = spinal_duel()
    kestrel_part(state)["round"].update(
        {"turn": state.clock.turn, "orders": [{"order": "run_silent"}], "committed": True, "revealed": True}
    )
    with pytest.raises(RuleError, match="runs silent this round"):
        spinal(state, [])


def test_TR_19_computer_disabled_still_fires_the_spinal_at_close() -> None:
    """Third computer hit: no fire beyond Close — at Close it fires. Range: the Long row at Close is
    −1, and spinals take a further −1 at Close (TR-02): −2. 2D 6+6 = 12 − 6 + 2 + 2 − 2 = 8 → hit."""
    state = spinal_duel()
    kestrel_part(state)["systems"]["computer"] = 3
    done = spinal(state, [6, 6, 5, 6, 1, 1, 1], range="close")
    assert (
        "2D 12 + Formidable −6 + FC +2 + Gunner +2 + range −2 + size 0 = 8 vs 8+ → success" in done.texts[0]
    )


@pytest.mark.parametrize(
    ("target", "message"), [("kestrel", "choose another ship"), ("gone", "choose another ship")]
)
def test_spinal_refuses_itself_and_a_destroyed_target(target: str, message: str) -> None:
    """GEN-04: a destroyed ship is out of the fight; a ship cannot aim its spinal at itself."""
    from app.rules.core import RuleError

    state = battle(
        capital("Kestrel", spinal={"type": "particle", "damage": 250}),
        capital("Gone"),
        owners=("p-kestrel",),
        orders=False,
    )
    state.ships["gone"].destroyed = True
    state = advance_to(state, "combat").state
    with pytest.raises(RuleError, match=message):
        spinal(state, [], target=target)


def test_TR_10_first_spinal_hit_minus_2_and_computer_hit_minus_1() -> None:
    """TR-19: first spinal hit −2 DM to spinal attacks; first computer hit −1 DM to all rolls.
    2D 6+6 = 12 − 6 + 2 + 2 + 0 + 0 − 2 − 1 = 7 vs 8+: a miss."""
    state = spinal_duel()
    part = kestrel_part(state)
    part["spinal"]["hits"], part["systems"]["computer"] = 1, 1
    done = spinal(state, [6, 6])
    assert done.texts == [
        "spinal Particle Spinal at Tigress: 2D 12 + Formidable −6 + FC +2 + Gunner +2 + range 0 + size 0"
        " + spinal hit −2 + computer −1 = 7 vs 8+ → failure (Effect −1) → miss"
    ]


def test_TR_19_second_computer_hit_rolls_1d6_against_the_spinal_shot() -> None:
    """Second computer hit: −1d6 DM, rolled for this shot: 1d6 3, then 2D 6+5 = 11 − 6 + 4 − 3 = 6: miss."""
    state = spinal_duel()
    kestrel_part(state)["systems"]["computer"] = 2
    done = spinal(state, [3, 6, 5])
    assert done.texts[0].endswith("range 0 + size 0 + computer −3 = 6 vs 8+ → failure (Effect −2) → miss")
    assert [r.purpose for r in done.events[0].rolls] == ["computer damage DM", "spinal attack"]


def test_TR_10_dodge_minus_2_when_the_pilot_check_succeeded() -> None:
    """TR-10: −2 if the target's Pilot check succeeds (entered, GEN-03). 2D 6+4 = 10 − 6 + 4 − 2 = 6: miss."""
    done = spinal(spinal_duel(), [6, 4], dodge_dm=-2)
    assert done.texts[0].endswith("range 0 + dodge −2 + size 0 = 6 vs 8+ → failure (Effect −2) → miss")


def test_TR_11_no_screens_means_automatic_penetration() -> None:
    """Standard configuration, 0 screen points, rating II (280 damage: 260–309) → automatic penetration
    (penetration table). 280 to Main Structure 375 → 95; 5 Internal rolls; radiation 280 // 6 = 46."""
    state = duel(capital("Kestrel", spinal={"type": "meson", "damage": 280, "name": "Meson"}), hull_code="CP")
    dice = [5, 5, 4] + [3, 4] * 5 + [1, 1, 1, 1]  # 5 Hold results; radiation band 6: crew Auto
    done = spinal(state, dice)
    assert "penetration II vs 0 screen points: automatic → 280 damage: Main Structure 375→95" in done.texts[0]


def test_TR_12_without_armour_a_particle_beam_leaves_no_residual() -> None:
    """TR-12: residual is 10% of what armour absorbed; armour 0 absorbs nothing, so no residual part.
    250 − 0×30 = 250 to Main Hull 375 → 125; 5 External rolls (2D 2+5 = 7 Armour, 0→0)."""
    state = duel(
        capital("Kestrel", spinal={"type": "particle", "damage": 250, "name": "Particle"}),
        hull_code="CP",
        armour=0,
    )
    dice = [5, 5, 4] + [2, 5] * 5 + [1, 1, 1, 1]  # radiation 250 // 6 = 41 → band 6
    done = spinal(state, dice)
    assert done.texts[0].endswith("250 − armour 0×30 = 250 damage: Main Hull 375→125")
    assert done.events[0].data == {"damage": 250, "residual": 0}


def test_TR_13_radiation_shielding_halves_spinal_radiation() -> None:
    """TR-13: 250 dealt // 6 = 41, halved by radiation shielding = 20 → band 3 (16–20)."""
    state = duel(
        capital("Kestrel", spinal={"type": "particle", "damage": 250, "name": "Particle"}),
        hull_code="CP",
        armour=0,
        radiation_shielding=True,
    )
    dice = [5, 5, 4] + [2, 5] * 5 + [1, 1, 1, 1]
    done = spinal(state, dice)
    assert done.texts[-1].startswith("Tigress radiation 20: band 3;")


def test_TR_18_no_spinal_system_rolls_on_a_section_the_shot_destroyed() -> None:
    """250 damage on a Main section with no Hull and 10 Structure destroys it (TR-17); its table is
    not rolled on, though 250 would give five rolls (project reading: a destroyed section has no
    systems left to hit)."""
    state = duel(
        capital("Kestrel", spinal={"type": "particle", "damage": 250, "name": "Particle"}),
        hull_code="CP",
        armour=0,
    )
    main = state.ships["tigress"].parts["hg_ship"]["sections"][2]
    assert main["name"] == "Main"
    main["hull"], main["structure"] = 0, 10
    done = spinal(state, [5, 5, 4, 1, 1, 1, 1])
    assert not [e for e in done.events if e.kind == "system_hit"]
    assert done.texts[1].startswith("Tigress's Main section is destroyed")


# --- TR-19 system hits, TR-20 criticals -------------------------------------------------------------

# 2D 6+6 = 12 + FC 2 + Gunner 2 + (1 − 6) = 11 → 200% → 40 damage; location 1d6 4: Main (no Hull left,
# so its Internal column) takes 20 Structure, Forward 20 Hull; then Main's roll, then Forward's.
OPENING = [6, 6, 4]
FORWARD_ARMOUR = [3, 4]  # Forward External 2D 7: Armour


def main_struck(main_dice: list[int], **tigress: Any):
    state = duel(**tigress)
    main = state.ships["tigress"].parts["hg_ship"]["sections"][1]
    main["hull"] = 0
    return state, main


def fire_at_main(state, main_dice: list[int]):
    return act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, OPENING + main_dice + FORWARD_ARMOUR)


def main_hit_text(done) -> str:
    return next(t for t in done.texts if t.startswith("Tigress Main section hit (Internal, 2D"))


@pytest.mark.parametrize(("hits_before", "effect"), [(0, "spinal −2 DM"), (1, "spinal mount disabled")])
def test_TR_19_spinal_weapon_hit_minus_2_then_disabled(hits_before: int, effect: str) -> None:
    """TR-19 Spinal Weapon: first hit −2 DM to spinal attacks, second disables it. Main Internal 2D 4
    (1+3) is its B slot."""
    state, _ = main_struck([], spinal={"type": "particle", "damage": 250, "tons": 2000})
    state.ships["tigress"].parts["hg_ship"]["spinal"]["hits"] = hits_before
    done = fire_at_main(state, [1, 3])
    assert main_hit_text(done) == f"Tigress Main section hit (Internal, 2D 4): Spinal Mount — {effect}."
    assert hg(done.state, "tigress")["spinal"]["hits"] == hits_before + 1


def test_TR_20_structural_failure_halves_structure_when_no_hull_is_left() -> None:
    """Critical 2: −50% of the section's Hull, or of its Structure if no Hull remains: 46 → 23."""
    state, _ = main_struck([])
    done = fire_at_main(state, [6, 6, 2])
    assert main_hit_text(done).endswith(
        "Critical — critical: Structural Failure — structural failure: Main Structure 46→23."
    )


def test_TR_20_self_sealing_hull_seals_the_breach_at_once_but_the_crew_hit_stands() -> None:
    """Critical 3: hull breach (no repairs for a round) plus a crew hit; a self-sealing hull is fixed
    at once, so repairs are not barred — the crew hit still lands."""
    state, _ = main_struck([], self_sealing=True)
    done = fire_at_main(state, [6, 6, 3])
    assert main_hit_text(done).endswith(
        "hull breach sealed at once (self-sealing hull); crew Full → Weakened."
    )
    main = hg(done.state, "tigress")["sections"][1]
    assert main["breach_round"] is None
    assert hg(done.state, "tigress")["crew_strength"] == "weakened"


def test_TR_20_internal_explosion_that_destroys_the_section_rolls_no_further_hit() -> None:
    """Critical 4: 6d6 Structure and another section hit. Main has 25 − 20 = 5 Structure; 6d6 of 1s = 6
    destroys it, and a destroyed section has nothing left to hit (project reading)."""
    state, main = main_struck([])
    main["structure"] = 25
    done = fire_at_main(state, [6, 6, 4, 1, 1, 1, 1, 1, 1])
    assert main_hit_text(done).endswith(
        "critical: Internal Explosion — internal explosion 6: Main Structure 5→0."
    )
    assert not any("internal explosion section hit" in r.purpose for e in done.events for r in e.rolls)


def test_TR_20_cascade_failure_rolls_twice_more_on_the_section() -> None:
    """Critical 5: roll again twice on the Section Hit table — two more Main Internal rolls (2D 7: Hold)."""
    state, _ = main_struck([])
    done = fire_at_main(state, [6, 6, 5, 3, 4, 3, 4])
    hold = "Tigress Main section hit (Internal, 2D 7): Hold — Hold capacity destroyed."
    assert done.texts.count(hold) == 2
    assert main_hit_text(done) == hold
    assert "Critical — critical: Cascade Failure — cascade failure: two more section hits." in done.texts[4]


def test_TR_20_a_second_fire_in_a_burning_section_changes_nothing() -> None:
    """Critical 6 where a fire already burns: it keeps its own Discipline target."""
    state, main = main_struck([])
    main["fire"] = {"target": 9, "started": 0}
    done = fire_at_main(state, [6, 6, 6])
    assert main_hit_text(done).endswith("fire in Main already burns (Discipline 9+).")
    assert hg(done.state, "tigress")["sections"][1]["fire"] == {"target": 9, "started": 0}


def test_TR_27_prepare_for_impact_roll_under_4_lets_the_crew_hit_stand() -> None:
    """Prepare for Impact!: 1d6 per crew hit, 4+ ignores it; 3 does not. Main Internal 2D 2: Crew."""
    state, _ = main_struck([])
    state.ships["tigress"].parts["hg_ship"]["round"].update(
        {
            "turn": state.clock.turn,
            "orders": [{"order": "prepare_impact"}],
            "committed": True,
            "revealed": True,
        }
    )
    done = fire_at_main(state, [1, 1, 3])
    assert "Tigress braced for impact: 1d6 3 → crew hit stands." in done.texts
    assert main_hit_text(done) == "Tigress Main section hit (Internal, 2D 2): Crew — crew Full → Weakened."


# --- TR-19 whole-ship systems, entered (GEN-03) -----------------------------------------------------


def entered(state, system: str, section: str = "Engineering"):
    body = {"target": "tigress", "section": section, "system": system, "core_rules": False}
    return act(state, "traveller.entered_hit", body)


def test_TR_19_each_manoeuvre_drive_hit_costs_1_thrust() -> None:
    state = duel()
    done = entered(state, "m_drive")
    assert done.texts[0] == "An attacker hits Tigress (Engineering): M-Drive hit 1: Thrust 3."
    done = entered(done.state, "m_drive")
    assert done.texts[0] == "An attacker hits Tigress (Engineering): M-Drive hit 2: Thrust 2."
    assert hg(done.state, "tigress")["systems"]["m_drive"] == 2


@pytest.mark.parametrize(
    ("system", "field", "hits", "text"),
    [
        ("power_plant", "power_plant", 3, "power plant already disabled"),
        ("computer", "computer", 3, "computer already disabled"),
        ("command", "bridge", 2, "bridge already destroyed"),
        ("j_drive", "j_drive", 2, "J-Drive already disabled"),
        ("sensors", "sensors", 2, "sensors already disabled"),
    ],
)
def test_TR_19_a_system_past_its_last_hit_takes_no_more(
    system: str, field: str, hits: int, text: str
) -> None:
    """TR-19: power plant and computer are out at the third hit, bridge, J-drive and sensors at the
    second; a further hit finds nothing more to break and the count stays."""
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["systems"][field] = hits
    done = entered(state, system)
    assert done.texts[0] == f"An attacker hits Tigress (Engineering): {text}."
    assert hg(done.state, "tigress")["systems"][field] == hits


def test_TR_19_bridge_destroyed_halves_initiative_rounding_down() -> None:
    """Second bridge hit: command transfers and initiative is halved (Decision: rounds down): the
    engagement's 7 → 3, this round's 5 → 2."""
    state = duel()
    part = state.ships["tigress"].parts["hg_ship"]
    part["systems"]["bridge"] = 1
    part["initiative_base"] = 7
    part["round"].update({"turn": state.clock.turn, "initiative": 5})
    done = entered(state, "command", "Forward")
    assert (
        done.texts[0]
        == "An attacker hits Tigress (Forward): bridge destroyed: command transfers, initiative halved."
    )
    after = hg(done.state, "tigress")
    assert (after["initiative_base"], after["round"]["initiative"], after["systems"]["bridge"]) == (3, 2, 2)


def test_TR_19_bridge_destroyed_before_initiative_is_rolled_leaves_it_unrolled() -> None:
    state = duel()
    part = state.ships["tigress"].parts["hg_ship"]
    part["systems"]["bridge"] = 1
    part["initiative_base"] = None
    part["round"].update({"turn": state.clock.turn, "initiative": None})
    after = hg(entered(state, "command", "Forward").state, "tigress")
    assert (after["initiative_base"], after["round"]["initiative"]) == (None, None)


def test_TR_20_structural_failure_halves_hull_while_the_section_has_hull() -> None:
    """Mesons read the Internal column even with Hull left (TR-18), so a critical can meet Hull:
    structural failure takes 50% of the remaining Hull. 9 meson bays at Long: 2D 6+6 = 12 + 4 +
    (8 − armour 6 − configuration 2) = 16 → 400% → 36; location 4 Main 18 Structure, Forward 18.
    Main Internal 2D 12: Critical, 1d6 2 → Main Hull 66 → 33. Forward Internal 2D 7: Hold.
    Radiation 9 × 400% = 36 → band 5: crew 2D 1+1 vs 2+ hits, computer 2D 1+1 vs 4+, sensors 1+1 vs 6+."""
    meson = {"id": "meson", "weapon": "meson_bay_100", "mounts": 12, "tons": 1200, "sections": ["Main"]}
    state = duel(capital("Kestrel", batteries=[meson]))
    body = beam_shot(battery="meson", mounts=9, range="long")
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [6, 6, 4, 6, 6, 2, 3, 4, 1, 1, 1, 1, 1, 1])
    assert main_hit_text(done) == (
        "Tigress Main section hit (Internal, 2D 12): Critical — critical: Structural Failure —"
        " structural failure: Main Hull 66→33."
    )


def test_TR_20_cascade_stops_when_its_first_hit_destroys_the_section() -> None:
    """Critical 5, first extra roll 2D 6: Structure, +half the barrage (20) on Main's 5 Structure left:
    destroyed; the second extra roll has no section left to hit."""
    state, main = main_struck([])
    main["structure"] = 25
    done = fire_at_main(state, [6, 6, 5, 3, 3])
    assert (
        "Tigress Main section hit (Internal, 2D 6): Structure — +20 Structure damage: Main Structure 5→0."
        in (done.texts)
    )
    assert sum(1 for t in done.texts if t.startswith("Tigress Main section hit")) == 2


def test_TR_19_a_fourth_turret_hit_finds_the_turrets_already_out() -> None:
    """Turrets: third hit, no more fire; a fourth changes nothing. 2D 5+4 = 9 + 4 − 5 = 8 → 125% → 25;
    location 5 Forward 13, Main 12; Forward External 2D 5: the beam turrets; Main External 2D 7: Armour."""
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["batteries"][0]["hits"] = 3
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [5, 4, 5, 2, 3, 3, 4])
    assert done.texts[1] == (
        "Tigress Forward section hit (External, 2D 5): Turret: Beam Laser — Turret: Beam Laser already out of action."
    )
    assert hg(done.state, "tigress")["batteries"][0]["hits"] == 3


def test_TR_17_the_half_sent_to_a_destroyed_section_is_lost() -> None:
    """TR-17: damage beyond 0 Structure is lost — the adjacent half aimed at a destroyed Forward
    section does nothing. 2D 3+4 = 7 + 4 − 5 = 6 → 75% → 15; location 4 Main 8, Forward 7."""
    state = duel()
    forward = state.ships["tigress"].parts["hg_ship"]["sections"][2]
    forward.update({"hull": 0, "structure": 0, "destroyed": True})
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [3, 4, 4])
    assert done.texts[0].endswith("8 to Main Hull 66→58; 7 lost: Forward is destroyed already (TR-17)")


# --- TR-05/TR-06 barrage refusals and DMs ------------------------------------------------------------


def set_path(part: dict[str, Any], path: str, value: Any) -> None:
    *head, last = path.split(".")
    for key in head:
        part = part[int(key)] if isinstance(part, list) else part[key]
    part[last] = value


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"crew_strength": "dead"}, "Kestrel's crew is dead and cannot act"),
        ({"disabled": True}, r"Kestrel is disabled \(power plant out\)"),
        ({"systems.computer": 3}, "the computer is disabled: no fire beyond Close"),
        (
            {"sections.1.offline_round": 1, "sections.2.offline_round": 1},
            r"sits in offline sections this round \(power failure\)",
        ),
    ],
)
def test_TR_19_TR_20_TR_23_barrage_refusals(changes: dict[str, Any], message: str) -> None:
    """TR-23 dead crew; TR-19 power plant out disables the ship, computer out bars fire beyond Close;
    TR-20 power failure: weapons in the offline section cannot be used (the beams sit in Main and
    Forward, both offline)."""
    from app.rules.core import RuleError

    state = duel()
    for path, value in changes.items():
        set_path(state.ships["kestrel"].parts["hg_ship"], path, value)
    with pytest.raises(RuleError, match=message):
        act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [])


def test_TR_20_a_battery_with_one_section_online_still_fires() -> None:
    state = duel()
    state.ships["kestrel"].parts["hg_ship"]["sections"][1]["offline_round"] = 1
    assert (
        act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [1, 1, 1])
        .texts[0]
        .startswith("barrage 20")
    )


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"target": "kestrel"}, "a ship cannot fire on itself"),
        ({"battery": "nothing"}, "Kestrel has no battery 'nothing'"),
        ({"target_section": "Bridge"}, "Tigress has no section 'Bridge'"),
        ({"target_section": "Main"}, "aiming at one section needs a Target That Section order this round"),
    ],
)
def test_barrage_refusals_on_the_order_itself(payload: dict[str, Any], message: str) -> None:
    from app.rules.core import RuleError

    with pytest.raises(RuleError, match=message):
        act(duel(), "traveller.barrage", beam_shot(**payload), KESTREL_ACTOR, [])


def test_GEN_04_no_barrage_at_a_destroyed_ship() -> None:
    from app.rules.core import RuleError

    state = duel()
    state.ships["tigress"].destroyed = True
    with pytest.raises(RuleError, match="Tigress is already destroyed"):
        act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [])


def test_TR_05_three_sandcasters_make_no_die() -> None:
    """Sandcasters deal 1 per 4 fired (barrage characteristics). Of 3, a standard hull bears 80% = 2,
    the most (and so the least, TR-05) that may fire: 2 sandcasters make no die."""
    from app.rules.core import RuleError

    sand = {"id": "sand", "weapon": "sandcaster", "mounts": 3, "sections": ["Main"]}
    state = duel(capital("Kestrel", batteries=[sand]))
    with pytest.raises(RuleError, match="Sandcaster: 4 mounts make one die of a barrage"):
        act(state, "traveller.barrage", beam_shot(battery="sand", mounts=2, range="close"), KESTREL_ACTOR, [])


def test_TR_27_target_that_section_names_the_location_and_meets_its_armour() -> None:
    """Target That Section*: the attack goes to the named section (no location die) and meets that
    section's armour (Forward 2, not the weakest intact 6). 2D 3+3 = 6 + 4 + (1 − 2) = 9 → 150% → 30:
    15 Forward, 15 Main (aft, Forward being the fore end); net 9 ≥ 8: Forward External 2D 7 Armour 2→1,
    Main External 2D 7 Armour 6→5."""
    state = duel()
    state.ships["tigress"].parts["hg_ship"]["sections"][2]["armour"] = 2
    state.ships["kestrel"].parts["hg_ship"]["round"].update(
        {"turn": 1, "orders": [{"order": "target_section"}], "committed": True, "revealed": True}
    )
    done = act(
        state, "traveller.barrage", beam_shot(target_section="Forward"), KESTREL_ACTOR, [3, 3, 3, 4, 3, 4]
    )
    assert done.texts[0] == (
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 6 + range 0 + FC +2 + Gunner +2 + (1 − armour 2) = 9"
        " → 150% → 30 damage → location Forward (Target That Section); 15 to Forward Hull 66→51;"
        " 15 to Main Hull 66→51"
    )


def test_TR_19_computer_hits_on_a_barrage_minus_1_then_minus_1d6() -> None:
    """First computer hit −1; second −1d6 rolled for this barrage (1d6 2)."""
    state = duel()
    state.ships["kestrel"].parts["hg_ship"]["systems"]["computer"] = 1
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [3, 4, 4])
    assert "Gunner +2 + computer −1 + (1 − armour 6) = 5 →" in done.texts[0]
    state.ships["kestrel"].parts["hg_ship"]["systems"]["computer"] = 2
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [2, 3, 4, 4])
    assert "Gunner +2 + computer −2 + (1 − armour 6) = 4 →" in done.texts[0]


def test_TR_27_damn_the_torpedoes_both_ways_and_defensive_posture() -> None:
    """Damn the Torpedoes!: +1 to the ship's attacks and +1 to attacks on it; Defensive Posture:
    −2 to attacks on the ship. Both ships carry Damn the Torpedoes!, Tigress also Defensive Posture:
    2D 7 + 4 + 1 + 1 − 2 − 5 = 6."""
    state = duel()
    for ship, orders in (
        ("kestrel", ["damn_torpedoes"]),
        ("tigress", ["damn_torpedoes", "defensive_posture"]),
    ):
        state.ships[ship].parts["hg_ship"]["round"].update(
            {"turn": 1, "orders": [{"order": o} for o in orders], "committed": True, "revealed": True}
        )
    done = act(state, "traveller.barrage", beam_shot(mounts=16), KESTREL_ACTOR, [3, 4, 4])
    assert (
        "Gunner +2 + Damn the Torpedoes +1 + target Damn the Torpedoes +1 + Defensive Posture −2"
        " + (1 − armour 6) = 6 →" in done.texts[0]
    )


def test_TR_25_a_flight_that_loses_its_last_craft_is_wiped_out() -> None:
    """3 craft of 2 Hull+Structure: 2D 3+3 = 6 + FC 2 + Gunner 2 − 4 + 1 = 7 → 100% of 10 = 10; 5 craft
    by points, only 3 left → 3 lost, 10 − 6 = 4 excess, and the flight is wiped out."""
    done = at_flight(None, 10, [3, 3], craft=3)
    assert done.texts == [
        "barrage 10–Beam Laser–Short–1 at Red Flight: 2D 6 + range 0 + FC +2 + Gunner +2 + flight −4"
        " + (1 − armour 0) = 7 → 100% → 10 damage → Red Flight loses 3 craft (2 Hull+Structure each, at most 10);"
        " 0 of 3 left; 4 excess damage to resolve as normal hits (GEN-03)",
        "Flight Red Flight is wiped out.",
    ]
    assert done.state.ships["red-flight"].destroyed is True


def test_TR_25_no_excess_when_the_total_is_spent_on_whole_craft() -> None:
    """2D 1+1 = 2 + 1 = 3 → 10% of 20 = 2: exactly one craft of 2 points, no excess to resolve."""
    done = at_flight(None, 20, [1, 1])
    assert done.texts[0].endswith(
        "→ 2 damage → Red Flight loses 1 craft (2 Hull+Structure each, at most 20); 29 of 30 left"
    )


# --- TR-10 / GEN-03 a spinal hit on a small craft --------------------------------------------------


def test_TR_10_GEN_03_a_spinal_hit_on_a_small_craft_is_resolved_by_the_core_rules() -> None:
    """TR-10's size DM (−3 under 100 t) lets a spinal mount fire at small craft, but the capital-ship
    damage rules (location, sections) do not apply to them: core damage to non-capital ships is
    entered at the table (GEN-03). 2D 6+6 = 12 − 6 + FC 5 + Gunner 2 + 0 − 3 = 10 vs 8+ → hit."""
    boat = {
        "name": "Gig",
        "system": "traveller",
        "parts": {
            "hg_ship": {
                "kind": "small_craft",
                "displacement": 20,
                "sections": [{"name": "Hull", "hull_max": 4, "structure_max": 4}],
            }
        },
    }
    kestrel = capital(
        "Kestrel", fire_control=5, spinal={"type": "particle", "damage": 250, "name": "Particle"}
    )
    state = battle(kestrel, boat, owners=("p-kestrel",), orders=False)
    state = advance_to(state, "combat").state
    done = act(state, "traveller.spinal", {**SPINAL_BODY, "target": "gig"}, KESTREL_ACTOR, [6, 6])
    assert done.texts == [
        "spinal Particle at Gig: 2D 12 + Formidable −6 + FC +5 + Gunner +2 + range 0 + size −3 = 10 vs 8+"
        " → success (Effect +2) → hit: 250 damage to resolve as hits by the core rules (GEN-03)"
    ]
    assert done.events[0].data == {"hit": True, "core_damage": 250}
    assert done.state.ships["gig"].parts["hg_ship"]["sections"][0]["hull"] == 4


def test_TR_10_spinal_refusals_for_flights_and_jumped_ships() -> None:
    """A flight carries no spinal mount and is no spinal target (barrages serve, TR-25); a ship that
    has jumped is out of the battle."""
    from app.rules.core import RuleError

    kestrel = capital("Kestrel", spinal={"type": "particle", "damage": 250})
    state = battle(kestrel, capital("Tigress"), red_flight(), owners=("p-kestrel",), orders=False)
    state = advance_to(state, "combat").state
    with pytest.raises(RuleError, match="spinal mounts fire at ships, not at flights"):
        act(state, "traveller.spinal", {**SPINAL_BODY, "target": "red-flight"})
    with pytest.raises(RuleError, match="only a High Guard ship carries a spinal mount"):
        act(state, "traveller.spinal", {**SPINAL_BODY, "ship": "red-flight"})
    state.ships["tigress"].parts["hg_ship"]["jumped"] = 1
    with pytest.raises(RuleError, match="Tigress has jumped out of the battle"):
        act(state, "traveller.spinal", SPINAL_BODY)
