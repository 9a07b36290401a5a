"""Spinal mount records the mutation run left unpinned (TR-10 to TR-13a, TR-17, TR-18): the event of
a hit on a small craft, a meson without a penetration rating (column I), the automatic-penetration
line, a meson's radiation through armour 8+, the section a meson or a particle residual destroys,
the purpose of the spinal system rolls, and the gate's words for a unit without High Guard data.
Figures are from tables.md (Meson Gun Penetration, Meson rating from damage, Damage Location for
CL–CQ, Radiation Damage) and the seed's TR-10 to TR-13a."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import act, advance_to, battle, capital, section
from tests.rules.traveller.test_barrage_record import gig
from tests.rules.traveller.test_clauses import red_flight
from tests.rules.traveller.test_spinal import PARTICLE, setup, shoot

SMALL_MESON = {"type": "meson", "damage": 40, "name": "Meson Spinal"}  # under 200: no rating (tables.md)


def rolls_of(event: Any) -> list[tuple]:
    return [(r.purpose, r.ship, r.dice) for r in event.rolls]


def test_TR_10_a_spinal_hit_on_a_small_craft_is_a_spinal_event_of_the_shooter_with_its_roll() -> None:
    # 2D 6+6 = 12 − 6 (Formidable) + FC 5 + Gunner 2 + range (Long) 0 + size (under 100 t) −3 = 10 vs 8+.
    kestrel = capital("Kestrel", fire_control=5, spinal=PARTICLE)
    state = advance_to(battle(kestrel, gig(4, 6), owners=("p-kestrel",), orders=False), "combat").state
    done = shoot(state, [6, 6], target="gig")
    [event] = done.events
    assert (event.kind, event.ship, event.data) == ("spinal", "kestrel", {"hit": True, "core_damage": 250})
    assert rolls_of(event) == [("spinal attack", "kestrel", [6, 6])]


def automatic(**tigress: Any) -> Any:
    """A 40-point meson at a Close Structure Tigress without screens: rating none (read as I), 0
    screen points → AP (tables.md). 2D 5+5 = 10 − 6 + 2 + 2 + 0 + 0 = 8 vs 8+; location 1d6 4: Main."""
    tigress.setdefault("configuration", "close")
    return advance_to(setup(SMALL_MESON, **tigress), "combat").state


def test_TR_11_a_meson_without_a_rating_penetrates_as_rating_I_automatically() -> None:
    # 40 damage: 0 system rolls (TR-18, one per 50); radiation 40 ÷ 6 = 6: band 1, crew 6+ (2D 1+1).
    done = shoot(automatic(), [5, 5, 4, 1, 1])
    assert done.texts[0] == (
        "spinal Meson Spinal at Tigress: 2D 10 + Formidable −6 + FC +2 + Gunner +2 + range 0 + size 0 = 8"
        " vs 8+ → success (Effect 0) → hit → location 1d6 4: Main; penetration I vs 0 screen points:"
        " automatic → 40 damage: Main Structure 375→335"
    )
    assert [(r.purpose, r.dice) for r in done.events[0].rolls] == [
        ("spinal attack", [5, 5]),
        ("location", [4]),
    ]


def test_TR_13a_meson_radiation_is_not_stopped_by_armour_8() -> None:
    # TR-21: armour 8+ stops radiation except from mesons: 6 radiation → band 1, crew 2D 1+1 vs 6+.
    done = shoot(automatic(armour=8), [5, 5, 4, 1, 1])
    assert done.texts[-1] == "Tigress radiation 6: band 1; crew 2D 2 vs 6+: no hit."
    assert [(e.kind, e.ship) for e in done.events] == [("spinal", "kestrel"), ("radiation", "tigress")]


def test_TR_17_a_meson_hit_that_takes_the_last_structure_destroys_the_section() -> None:
    state = automatic()
    section(state, "tigress", "Main")["structure"] = 30
    done = shoot(state, [5, 5, 4, 1, 1])
    assert done.texts[0].endswith("automatic → 40 damage: Main Structure 30→0")
    destroyed = [(e.ship, e.data) for e in done.events if e.kind == "section_destroyed"]
    assert destroyed == [("tigress", {"section": "Main"})]


def test_TR_12_TR_17_a_particle_residual_that_takes_the_last_structure_destroys_the_section() -> None:
    # 250 − armour 5 × 30 = 100 to Main (no Hull): Structure 110→10; residual 10% of 150 = 15: 10→0.
    # The section is gone, so no system roll (TR-18); radiation 115 ÷ 6 = 19: band 3, crew 4+, computer 6+.
    state = advance_to(setup(PARTICLE, armour=5), "combat").state
    main = section(state, "tigress", "Main")
    main["hull"], main["structure"] = 0, 110
    done = shoot(state, [6, 4, 5, 1, 1, 2, 2])
    assert done.texts[0].endswith(
        "armour 5×30 = 100 damage: Main Structure 110→10; residual 15 (10% of 150): Main Structure 10→0"
    )
    assert section(done.state, "tigress", "Main")["destroyed"] is True
    event = done.events[0]
    assert (event.kind, event.ship, event.data) == ("spinal", "kestrel", {"damage": 100, "residual": 15})
    assert rolls_of(event) == [("spinal attack", "kestrel", [6, 4]), ("location", "tigress", [5])]


def test_TR_18_spinal_system_rolls_name_their_purpose() -> None:
    # The TR-12 shot of test_spinal: 100 through at Main (Hull left: External), 100 ÷ 50 = 2 rolls.
    state = advance_to(setup(PARTICLE, armour=5), "combat").state
    done = shoot(state, [6, 4, 5, 6, 1, 3, 2, 1, 1, 2, 2])
    hits = [e for e in done.events if e.kind == "system_hit"]
    assert [rolls_of(e) for e in hits] == [
        [("spinal system damage: Main (External)", "tigress", [6, 1])],
        [("spinal system damage: Main (External)", "tigress", [3, 2])],
    ]


def test_TR_10_only_a_high_guard_ship_carries_a_spinal_mount() -> None:
    state = battle(capital("Kestrel"), red_flight(), owners=("p-kestrel",), orders=False)
    state = advance_to(state, "combat").state
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.spinal", {"ship": "red-flight", "target": "kestrel", "range": "long"})
    assert (str(refused.value), refused.value.field) == (
        "only a High Guard ship carries a spinal mount",
        "ship",
    )
