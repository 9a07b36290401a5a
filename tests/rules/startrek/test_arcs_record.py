"""Arc extensions need shields to extend (ST-14): a ship with none is refused, on the ship."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import RAIDER, act, battle, definition


def test_ST_14_a_ship_without_shields_has_no_deflector_arc_to_extend_or_retract() -> None:
    """ST-14: arc extension is a deflector's; the plain B5 Raider has no shields, so both are refused."""
    state = battle(RAIDER)
    for kind, payload in (
        ("startrek.extend_arc", {"ship": "raider", "deflector": "Fore Deflector", "projection": "Port"}),
        ("startrek.retract_arc", {"ship": "raider", "deflector": "Fore Deflector"}),
    ):
        with pytest.raises(RuleError) as err:
            act(state, kind, payload)
        assert (err.value.field, err.value.message) == ("ship", "Raider has no shields")


def test_ST_14_a_ship_with_shields_but_no_power_budget_switches_only_its_deflectors() -> None:
    """An Excelsior whose data leaves out its power budget: its Sensors are no switchable system."""
    data = definition("excelsior")
    del data["parts"]["power"]
    with pytest.raises(RuleError) as err:
        act(battle(data), "startrek.switch_system", {"ship": "excelsior", "system": "Sensors"})
    assert (err.value.field, err.value.message) == ("system", "Excelsior has no switchable system 'Sensors'")
