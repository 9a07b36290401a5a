"""Spinal mounts (TR-10 … TR-13a) through apply_action with scripted dice."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, capital, hg, section

MESON = {"type": "meson", "damage": 280, "name": "Meson Spinal"}
PARTICLE = {"type": "particle", "damage": 250, "name": "Particle Spinal"}


def setup(spinal: dict, orders: bool = False, **tigress: object):
    tigress.setdefault("hull_code", "CP")
    state = battle(
        capital("Kestrel", spinal=spinal),
        capital("Tigress", **tigress),
        owners=("p-kestrel", "p-tigress"),
        orders=orders,
    )
    return state


def shoot(state, dice, **payload):
    body = {"ship": "kestrel", "target": "tigress", "range": "long"}
    body.update(payload)
    return act(state, "traveller.spinal", body, KESTREL_ACTOR, dice)


def test_TR_10_TR_11_TR_18_TR_13_meson_hit_penetrates_to_structure_and_system_hits() -> None:
    state = setup(MESON, screens=[{"id": "ms", "kind": "meson", "count": 3, "sections": ["Main"]}])
    state = advance_to(state, "combat").state
    dice = [5, 5, 4, 3, 3, 1, 1, 3, 4, 1, 2, 2, 2, 6, 5, 1, 1, 3, 2, 4]
    done = shoot(state, dice)
    assert done.texts == [
        "spinal Meson Spinal at Tigress: 2D 10 + Formidable −6 + FC +2 + Gunner +2 + range 0 + size 0 = 8 vs 8+"
        " → success (Effect 0) → hit → location 1d6 4: Main; penetration II vs 6 screen points: 2D 6 vs 5+"
        " → 280 damage: Main Structure 375→95",
        "Tigress Main section hit (Internal, 2D 2): Crew — crew Full → Weakened.",
        "Tigress Main section hit (Internal, 2D 7): Hold — Hold capacity destroyed.",
        "Tigress Main section hit (Internal, 2D 3): Screen: Meson Screen — Screen: Meson Screen −2 protection (hits 1).",
        "Tigress Main section hit (Internal, 2D 4): Computer — computer hit 1: −1 DM to all rolls.",
        "Tigress's Main section is destroyed: Tigress is crippled until the referee rules whether it is destroyed"
        " (TR-17).",
        "Tigress Main section hit (Internal, 2D 11): Structure — +140 Structure damage: Main Structure 95→0.",
        "Sensor DM: 1d6 4",
        "Tigress radiation 46: band 6; crew Auto: crew Weakened → Half; computer 2D 2 vs 3+: no hit;"
        " sensors 2D 5 vs 5+: sensors hit 1: −4 DM to Sensors checks.",
    ]
    tigress = hg(done.state, "tigress")
    main = section(done.state, "tigress", "Main")
    assert (main["hull"], main["structure"], main["destroyed"]) == (375, 0, True)
    assert tigress["crew_strength"] == "half"
    assert tigress["systems"]["computer"] == 1 and tigress["systems"]["sensors_dm"] == -4
    assert tigress["screens"][0]["hits"] == 1


def test_TR_11_meson_decays_outside_when_penetration_fails() -> None:
    state = setup(MESON, screens=[{"id": "ms", "kind": "meson", "count": 3, "sections": ["Main"]}])
    state = advance_to(state, "combat").state
    done = shoot(state, [6, 6, 4, 2, 2])
    assert done.texts[0].endswith("penetration II vs 6 screen points: 2D 4 vs 5+ → decays outside the hull")
    assert section(done.state, "tigress", "Main")["structure"] == 375


def test_TR_12_particle_beam_armour_reduction_and_ten_percent_residual() -> None:
    """TR-12: 30 off per armour point; 10% of what armour absorbed hits as a residual barrage."""
    state = setup(PARTICLE, armour=5)
    state = advance_to(state, "combat").state
    # 250 − 5×30 = 100 through; residual 15; 2 system rolls (100 // 50) on External (Hull left);
    # radiation (100 + 15) // 6 = 19 → band 3: crew 4+, computer 6+.
    done = shoot(state, [6, 4, 5, 6, 1, 3, 2, 1, 1, 2, 2])
    assert done.texts[0] == (
        "spinal Particle Spinal at Tigress: 2D 10 + Formidable −6 + FC +2 + Gunner +2 + range 0 + size 0 = 8"
        " vs 8+ → success (Effect 0) → hit → location 1d6 5: Main → 250 − armour 5×30 = 100 damage:"
        " Main Hull 375→275; residual 15 (10% of 150): Main Hull 275→260"
    )
    assert done.texts[1] == "Tigress Main section hit (External, 2D 7): Armour — Main armour 5→4."
    assert (
        done.texts[2]
        == "Tigress Main section hit (External, 2D 5): Turret: Beam Laser — Turret: Beam Laser hit 1: −1d6 DM."
    )
    assert (
        done.texts[3] == "Tigress radiation 19: band 3; crew 2D 2 vs 4+: no hit; computer 2D 4 vs 6+: no hit."
    )


def test_TR_12_particle_fully_absorbed_still_deals_residual_without_system_rolls() -> None:
    """TR-12: fully absorbed, the residual still lands, and causes no system hits."""
    state = setup(PARTICLE, armour=10)
    state = advance_to(state, "combat").state
    done = shoot(state, [6, 6, 1])
    assert done.texts == [
        "spinal Particle Spinal at Tigress: 2D 12 + Formidable −6 + FC +2 + Gunner +2 + range 0 + size 0 = 10"
        " vs 8+ → success (Effect +2) → hit → location 1d6 1: Engineering → 250 − armour 10×30 = 0 damage;"
        " residual 25 (10% of 250): Engineering Hull 375→350",
        "Tigress shrugs off 4 radiation: armour 10 (TR-21).",
    ]


def test_TR_10_size_dm_range_and_miss() -> None:
    small = setup(PARTICLE, hull_code="CA", batteries=[], components=[])  # 3,000 t: size −1
    small = advance_to(small, "combat").state
    done = shoot(small, [4, 4], range="close")
    assert done.texts == [
        "spinal Particle Spinal at Tigress: 2D 8 + Formidable −6 + FC +2 + Gunner +2 + range −2 + size −1 = 3"
        " vs 8+ → failure (Effect −5) → miss"
    ]
    with pytest.raises(RuleError, match="out of spinal range"):
        shoot(small, [], range="very_distant")


def test_TR_26_TR_26a_spinal_needs_line_up_only_when_orders_are_on() -> None:
    state = setup(PARTICLE, orders=True)
    state = advance_to(state, "combat").state
    with pytest.raises(RuleError, match="Line up Spinal Mount!"):
        shoot(state, [])
