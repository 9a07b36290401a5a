"""Criticals and fire (TR-20), crew and the frozen watch (TR-23, TR-24), repairs (TR-22), TR-14."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import (
    KESTREL_ACTOR,
    TIGRESS_ACTOR,
    act,
    advance_to,
    battle,
    beam_shot,
    capital,
    hg,
    section,
)


def two_ships(**tigress):
    state = battle(
        capital("Kestrel"), capital("Tigress", **tigress), owners=("p-kestrel", "p-tigress"), orders=False
    )
    return advance_to(state, "combat").state


def barrage(state, dice):
    return act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, dice)


FAIL_AND_HOLD = [1, 1, 3, 4]  # Discipline 2D 2 fails; section hit 2D 7 = Hold


def test_TR_20_critical_fire_rises_each_round_and_spreads_at_12() -> None:
    state = two_ships()
    state.ships["tigress"].parts["hg_ship"]["sections"][1]["hull"] = 0
    # 2D 12 → net 11 → 200% → 40; Main (location 4) 20 to Structure, Forward 20 to Hull.
    # Main has no Hull: Internal 2D 12 = Critical, 1d6 6 = Fire. Forward External 2D 7 = Armour.
    done = barrage(state, [6, 6, 4, 6, 6, 6, 3, 4])
    assert done.texts[1:] == [
        "Tigress Main: critical 1d6 6: Fire.",
        "Tigress Main section hit (Internal, 2D 12): Critical — critical: Fire — fire in Main: Discipline 8+ next round.",
        "Tigress Forward section hit (External, 2D 7): Armour — Forward armour 6→5.",
    ]
    assert section(done.state, "tigress", "Main")["fire"] == {"target": 8, "started": 1}
    state = advance_to(done.state, "ship_action").state  # the round it broke out: no check yet
    assert section(state, "tigress", "Main")["fire"]["target"] == 8
    for turn, target in ((2, 8), (3, 9), (4, 10)):
        step = advance_to(state, "ship_action", turn=turn, dice=FAIL_AND_HOLD)
        assert step.texts[-2:] == [
            f"The fire in Tigress's Main rages on: 2D 2 + Crew Skill +2 = 4 vs {target}+ → failure"
            f" (Effect −{target - 4}).",
            "Tigress Main section hit (Internal, 2D 7): Hold — Hold capacity destroyed.",
        ]
        state = step.state
        assert section(state, "tigress", "Main")["fire"]["target"] == target + 1
    # Round 5: 11+ fails, the target reaches 12 and the fire spreads: 1d6 5 → fore, Forward, at 8+.
    step = advance_to(state, "ship_action", turn=5, dice=[*FAIL_AND_HOLD, 5])
    assert step.texts[-1] == (
        "The fire in Tigress's Main reaches Discipline 12+ and spreads to Forward (Discipline 8+ there)."
    )
    assert section(step.state, "tigress", "Forward")["fire"] == {"target": 8, "started": 5}
    # Round 6: both burn. Main 12+ fails (hit: Hold); Forward 8+: 2D 6+2 = 8 + 2 puts it out.
    step = advance_to(step.state, "ship_action", turn=6, dice=[*FAIL_AND_HOLD, 6, 2])
    assert (
        step.texts[-1]
        == "Tigress puts out the fire in Forward: 2D 8 + Crew Skill +2 = 10 vs 8+ → success (Effect +2)."
    )
    assert section(step.state, "tigress", "Forward")["fire"] is None
    assert section(step.state, "tigress", "Main")["fire"]["target"] == 13


def test_TR_20_metal_hydride_fire_starts_at_6_and_other_criticals() -> None:
    state = two_ships()
    tig = state.ships["tigress"].parts["hg_ship"]
    tig["sections"][1]["hull"] = 0
    tig["sections"][1]["metal_hydride"] = True
    done = barrage(state, [6, 6, 4, 6, 6, 6, 3, 4])
    assert section(done.state, "tigress", "Main")["fire"] == {"target": 6, "started": 1}
    # Hull breach (3): crew hit and no repairs in Main this round.
    done = barrage(state, [6, 6, 4, 6, 6, 3, 3, 4])
    assert (
        "critical: Hull Breach — hull breach: no repairs in Main this round; crew Full → Weakened"
        in done.texts[2]
    )
    assert section(done.state, "tigress", "Main")["breach_round"] == 1
    # Structural failure (2) with no Hull: Structure 46 → 23.
    done = barrage(state, [6, 6, 4, 6, 6, 2, 3, 4])
    assert "structural failure: Main Structure 46→23" in done.texts[2]
    # Power failure (1): offline next round.
    done = barrage(state, [6, 6, 4, 6, 6, 1, 3, 4])
    assert "critical: Power Failure — Main offline in round 2" in done.texts[2]


def test_TR_20_internal_explosion_6d6_structure_and_another_hit() -> None:
    state = two_ships()
    state.ships["tigress"].parts["hg_ship"]["sections"][1]["hull"] = 0
    done = barrage(state, [6, 6, 4, 6, 6, 4, 1, 2, 3, 4, 5, 6, 3, 4, 3, 4])
    assert done.texts[2] == "Internal explosion: 6d6 21."
    assert done.texts[3] == "Tigress Main section hit (Internal, 2D 7): Hold — Hold capacity destroyed."
    assert section(done.state, "tigress", "Main")["structure"] == 46 - 21


def test_TR_23_crew_hits_walk_down_and_dead_stays_dead_TR_27_prepare_for_impact() -> None:
    state = two_ships(crew_strength="survivors")
    state.ships["tigress"].parts["hg_ship"]["sections"][1]["hull"] = 0
    done = barrage(state, [6, 6, 4, 1, 1, 3, 4])  # Main Internal 2D 2 = Crew
    assert done.texts[1] == "Tigress Main section hit (Internal, 2D 2): Crew — crew Survivors → Dead."
    assert hg(done.state, "tigress")["crew_strength"] == "dead"
    state.ships["tigress"].parts["hg_ship"]["round"] = {
        "turn": 1,
        "orders": [{"order": "prepare_impact"}],
        "revealed": True,  # orders act from the reveal on (TR-26)
    }
    done = barrage(state, [6, 6, 4, 1, 1, 4, 3, 4])
    assert done.texts[1] == "Tigress braced for impact: 1d6 4 → crew hit ignored."
    assert hg(done.state, "tigress")["crew_strength"] == "survivors"


def test_TR_24_frozen_watch_counts_six_rounds_later() -> None:
    state = two_ships(crew_strength="half", frozen_watch_steps=2)
    done = act(state, "traveller.revive_frozen_watch", {"ship": "tigress"}, TIGRESS_ACTOR)
    assert done.texts == ["Tigress begins reviving its frozen watch: it joins the crew in round 7 (TR-24)."]
    step = advance_to(done.state, "orders", turn=6)
    assert hg(step.state, "tigress")["crew_strength"] == "half"
    step = advance_to(step.state, "orders", turn=7)
    assert "Tigress's frozen watch takes its posts: crew Half → Full (TR-24)." in step.texts
    with pytest.raises(RuleError, match="already thawing or awake"):
        act(step.state, "traveller.revive_frozen_watch", {"ship": "tigress"}, TIGRESS_ACTOR)


def test_TR_22_one_repair_per_section_per_ship_action() -> None:
    state = two_ships()
    tig = state.ships["tigress"].parts["hg_ship"]
    tig["systems"]["m_drive"] = 1
    tig["thrust"] = 3
    tig["thrust_max"] = 4
    tig["batteries"][0]["hits"] = 2
    with pytest.raises(RuleError, match="ship action step"):
        act(
            state,
            "traveller.repair",
            {"ship": "tigress", "section": "Engineering", "system": "m_drive"},
            TIGRESS_ACTOR,
        )
    state = advance_to(state, "ship_action").state
    done = act(
        state,
        "traveller.repair",
        {"ship": "tigress", "section": "Engineering", "system": "m_drive"},
        TIGRESS_ACTOR,
        [4, 2],
    )
    assert done.texts == [
        "Tigress repairs M-Drive in Engineering: 2D 6 + Crew Skill +2 = 8 vs 8+ → success (Effect 0): M-Drive hits 0,"
        " Thrust 4."
    ]
    with pytest.raises(RuleError, match="Engineering has had its repair attempt"):
        act(
            done.state,
            "traveller.repair",
            {"ship": "tigress", "section": "Engineering", "system": "m_drive"},
            TIGRESS_ACTOR,
        )
    # The turrets sit in Main and Forward: one attempt in each.
    s = act(
        done.state,
        "traveller.repair",
        {"ship": "tigress", "section": "Main", "system": "beam"},
        TIGRESS_ACTOR,
        [1, 1],
    )
    assert s.texts[0].endswith("= 4 vs 8+ → failure (Effect −4): no progress.")
    s = act(
        s.state,
        "traveller.repair",
        {"ship": "tigress", "section": "Forward", "system": "beam"},
        TIGRESS_ACTOR,
        [6, 6],
    )
    assert s.texts[0].endswith(": Turret: Beam Laser hits 1.")
    with pytest.raises(RuleError, match="m_drive is not in Main"):
        act(
            done.state,
            "traveller.repair",
            {"ship": "tigress", "section": "Main", "system": "m_drive"},
            TIGRESS_ACTOR,
        )


def test_TR_22_TR_20_hull_breach_blocks_repairs_unless_self_sealing() -> None:
    state = two_ships()
    tig = state.ships["tigress"].parts["hg_ship"]
    tig["systems"]["computer"] = 1
    tig["sections"][1]["breach_round"] = 1
    state = advance_to(state, "ship_action").state
    with pytest.raises(RuleError, match="hull breach stops repairs in Main"):
        act(
            state,
            "traveller.repair",
            {"ship": "tigress", "section": "Main", "system": "computer"},
            TIGRESS_ACTOR,
        )
    state.ships["tigress"].parts["hg_ship"]["self_sealing"] = True
    done = act(
        state,
        "traveller.repair",
        {"ship": "tigress", "section": "Main", "system": "computer"},
        TIGRESS_ACTOR,
        [5, 3],
    )
    assert done.texts == [
        "Tigress repairs computer in Main: 2D 8 + Crew Skill +2 + computer −1 = 9 vs 8+ → success (Effect +1):"
        " computer hits 0."
    ]


def test_TR_14_no_third_hit_on_drives_power_sensors_bridge_from_core_rules() -> None:
    state = two_ships()
    state.ships["tigress"].parts["hg_ship"]["systems"]["power_plant"] = 2
    body = {
        "target": "tigress",
        "section": "Engineering",
        "hull_damage": 5,
        "system": "power_plant",
        "source": "kestrel",
    }
    done = act(state, "traveller.entered_hit", body, KESTREL_ACTOR)
    assert done.texts == [
        "Kestrel hits Tigress (Engineering): Engineering Hull 66→61; no third hit on a capital ship's drive, power"
        " plant, sensors or bridge (TR-14)."
    ]
    done = act(state, "traveller.entered_hit", {**body, "core_rules": False})
    assert done.texts[0].endswith("power plant disabled: the whole ship is disabled.")
    assert hg(done.state, "tigress")["disabled"] is True


def test_TR_17_referee_rules_a_crippled_ship() -> None:
    state = two_ships()
    with pytest.raises(RuleError, match="only the referee"):
        act(state, "traveller.rule_ship", {"ship": "tigress", "outcome": "destroyed"}, KESTREL_ACTOR)
    done = act(state, "traveller.rule_ship", {"ship": "tigress", "outcome": "destroyed"})
    assert done.texts == ["The referee rules Tigress destroyed (TR-17)."]
    assert done.state.ships["tigress"].destroyed is True
