"""Both deaths (SH-02, SH-13), boarding refused (SH-17), referee overrides and the sample ships."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.rules.core import RuleError
from app.rules.generic.actions import ShipDefinition
from app.rules.registry import STANDARD

from .support import (
    EXCALIBUR,
    FED_PLAYER,
    KER,
    PLAYER,
    act,
    at_impulse,
    battle,
    end_impulse,
    hit,
    of_kind,
    pain,
    sentences,
)

LIBRARY = Path(__file__).resolve().parents[3] / "app" / "shipdata" / "library"


def library(name: str) -> dict:
    return json.loads((LIBRARY / f"{name}.json").read_text())


def test_SH_02_SH_13_pain_sixteen_kills_by_shock() -> None:
    state = at_impulse(level=14, speed=30)
    state, _ = hit(state, 250)
    state, events = end_impulse(state, [6, 1])  # no reaction roll: death is certain
    track = pain(state)
    assert (track.level, track.reaction, track.dead, track.speed) == (16, "DEATH", True, 1)
    assert state.ships[KER].destroyed is True
    assert sentences(events) == [
        "pain rise chance, band 250+: 1d6 = 6, needs ≤ 6 → rises",
        "rise amount: 1d6 + 1 = 2 → pain 16 (the maximum)",
    ]
    assert of_kind(events, "pain_death")[0].text.startswith("Ker dies of shock at pain 16 and is destroyed")


def test_SH_02_pain_is_capped_at_sixteen() -> None:
    state = at_impulse(level=13)
    state, _ = hit(state, 300)
    state, _ = end_impulse(state, [1, 6])
    assert pain(state).level == 16


def test_SH_02_death_is_final() -> None:
    state = at_impulse(level=14)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 6])
    with pytest.raises(RuleError, match="already destroyed"):
        hit(state, 30)
    with pytest.raises(RuleError, match="destroyed and takes no further actions"):
        act(state, "shadow.plot_speed", {"ship": KER, "speed": 5}, actor=PLAYER)
    with pytest.raises(RuleError, match="that value is not allowed"):
        act(state, "override.set", {"path": "ships.ker.parts.pain.level", "value": 3, "reason": "revive it"})
    for _ in range(40):
        state, _ = act(state, "clock.advance", {})
    assert (pain(state).dead, state.ships[KER].destroyed, pain(state).level) == (True, True, 16)


def test_SH_02_excess_damage_plus_one_destroys_the_sample_cruiser() -> None:
    state = battle(shadow=library("shadow-cruiser"))
    ship_id = "shadow-cruiser"
    state, _ = act(state, "clock.advance", {})
    # Fore: 24 armour + 30 structure, then Core 40 (2+12+4 systems untouched), then 20 Excess Damage, +1.
    state, events = hit(state, 24 + 30 + 40 + 20, target=ship_id)
    assert state.ships[ship_id].destroyed is False
    state, events = hit(state, 1, target=ship_id)
    assert state.ships[ship_id].destroyed is True
    assert of_kind(events, "ship_destroyed")[0].text == (
        "Shadow Cruiser is destroyed (the last Excess Damage box is gone and one more point landed)."
    )
    state, events = end_impulse(state, [])  # a destroyed ship makes no pain check
    assert (pain(state, ship_id).level, pain(state, ship_id).damage_total) == (0, 0)


def test_SH_17_boarding_a_living_ship_is_refused() -> None:
    state = battle()
    for kind, words in (("boarding", "a boarding action"), ("hit_and_run", "a hit-and-run raid")):
        with pytest.raises(RuleError) as refused:
            act(
                state,
                "boarding.declare",
                {"kind": kind, "attacker": EXCALIBUR, "target": KER, "outcome": "two boxes"},
                actor=FED_PLAYER,
            )
        assert (
            refused.value.message
            == f"Ker is a Shadow living ship: {words} against it is not possible (SH-17)"
        )
        assert refused.value.field == "target"


@pytest.mark.parametrize("system", ["sfb", "b5wars", "traveller"])
def test_SH_17_refused_in_mixed_battles_and_others_allowed(system: str) -> None:
    state = battle(system)
    with pytest.raises(RuleError, match="SH-17"):
        act(
            state,
            "boarding.declare",
            {"kind": "boarding", "attacker": EXCALIBUR, "target": KER, "outcome": "x"},
        )
    state, events = act(
        state,
        "boarding.declare",
        {
            "kind": "hit_and_run",
            "attacker": EXCALIBUR,
            "target": "yorktown",
            "outcome": "the phaser is destroyed",
        },
    )
    assert events[0].text == "Excalibur makes a hit-and-run raid against Yorktown: the phaser is destroyed"


def test_GEN_03_boarding_needs_the_attacker_commander() -> None:
    state = battle()
    with pytest.raises(RuleError, match="you do not command that ship"):
        act(
            state,
            "boarding.declare",
            {"kind": "boarding", "attacker": EXCALIBUR, "target": "yorktown", "outcome": "x"},
            actor=PLAYER,
        )


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("ships.ker.parts.pain.level", 17),
        ("ships.ker.parts.pain.level", -1),
        ("ships.ker.parts.pain.reaction", "SIX"),
    ],
)
def test_SH_01_referee_override_is_validated(path: str, value: object) -> None:
    with pytest.raises(RuleError, match="that value is not allowed"):
        act(battle(), "override.set", {"path": path, "value": value, "reason": "table ruling"})


def test_SH_01_referee_override_sets_pain_with_a_reason() -> None:
    state, events = act(
        battle(level=9),
        "override.set",
        {"path": "ships.ker.parts.pain.level", "value": 7, "reason": "misapplied"},
    )
    assert pain(state).level == 7
    assert events[0].text == "⚠ OVERRIDE (Referee): ships.ker.parts.pain.level 9→7 — “misapplied”"


def test_samples_validate_and_are_marked() -> None:
    for name in ("shadow-cruiser", "federation-heavy-cruiser"):
        definition = ShipDefinition.model_validate(library(name))
        assert definition.sample is True
        assert definition.klass.endswith("(sample data)")
        assert definition.system == "sfb"
        STANDARD.game("sfb").validate_parts(definition.parts)
    assert library("shadow-cruiser")["parts"]["sheet"]["excess_damage_max"] == 20
    assert sorted(library("shadow-cruiser")["parts"]) == ["first_one", "pain", "sheet"]
    assert "pain" not in library("federation-heavy-cruiser")["parts"]
