"""What a Shadow's pain track keeps between the battles of a campaign (SH-01, SH-02), driven
through the part's own `carry` declaration as a campaign calls it."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import STANDARD


def carry(pain: dict[str, Any], setup: dict[str, Any]) -> dict[str, Any]:
    spec = STANDARD.game("sfb").parts["pain"]
    assert spec.carry is not None
    return spec.carry(pain, setup)


def test_SH_01_the_track_starts_the_next_battle_at_zero() -> None:
    """The track "starts at zero when beginning a scenario" (SH-01): the reaction, its obligations
    and the impulse's damage total belong to the battle they happened in."""
    battle_end = {"level": 9, "reaction": "TWO", "damage_total": 40, "most_damage": "kirk"}
    assert carry(battle_end, {}) == {"level": 0}
    assert carry(battle_end, {"pain_carries": False}) == {"level": 0}


def test_SH_01_a_setup_that_says_so_carries_the_level() -> None:
    """It starts at zero "… unless otherwise stated in the setup rules" (SH-01)."""
    assert carry({"level": 9, "reaction": "TWO", "damage_total": 40}, {"pain_carries": True}) == {"level": 9}
    assert carry({"level": None}, {"pain_carries": True}) == {"level": 0}


@pytest.mark.parametrize("setup", [{}, {"pain_carries": True}])
def test_SH_01_the_ships_speed_is_kept_with_the_track(setup: dict[str, Any]) -> None:
    out = carry({"level": 4, "speed": 12}, setup)
    assert out["speed"] == 12 and out["level"] == (4 if setup else 0)


@pytest.mark.parametrize("setup", [{}, {"pain_carries": True}])
def test_SH_02_a_shadow_dead_of_shock_stays_dead(setup: dict[str, Any]) -> None:
    """Pain 16 kills by shock (SH-02): whatever the set-up, the track stays at the death mark."""
    assert carry({"level": 16, "dead": True, "speed": 8}, setup) == {"level": 16, "dead": True}
