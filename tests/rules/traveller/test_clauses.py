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
    assert "2D 12 + Formidable −6 + FC +2 + Gunner +2 + range −2 + size 0 = 8 vs 8+ → success" in done.texts[0]


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
