"""What the generic ship sheet keeps between the battles of a campaign (GEN-03 damage entered,
GEN-04 destruction): every box the battle took, since nothing on the sheet heals by itself."""

from __future__ import annotations

import copy

import pytest

from app.rules import STANDARD


@pytest.mark.parametrize("system", ["b5wars", "sfb"])
def test_GEN_03_the_sheet_carries_armour_structure_and_system_damage(system: str) -> None:
    spec = STANDARD.game(system).parts["sheet"]
    assert spec.carry is not None
    sheet = {
        "sections": [
            {
                "name": "Fore",
                "armour_max": 5,
                "armour": 0,
                "structure_max": 30,
                "structure": 12,
                "systems": [{"name": "Laser", "damage": 2}],
            }
        ],
        "excess": 4,
    }
    kept = copy.deepcopy(sheet)
    assert spec.carry(sheet, {"pain_carries": True}) == kept
    assert spec.carry(sheet, {}) == kept
