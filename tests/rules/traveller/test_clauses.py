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
