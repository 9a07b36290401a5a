"""Each turn's Ship Power budget starts from nothing bought (ST-07), for every ship with a budget,
whichever ships without one come before it.

The Excelsior's reactor gives 30 and her systems and deflectors draw 22, so 8 is left at the start
of a turn; extra regeneration costs "1 point of power per point" (ST-07), so 5 bought leaves 3.
"""

from __future__ import annotations

from app.rules import BattleState
from app.rules.startrek.power import Power, available
from tests.rules.startrek.helpers import RAIDER, act, advance_to, battle, player, set_value

ME = player("excelsior")


def power_left(state: BattleState) -> int:
    ship = state.ships["excelsior"]
    return available(ship, Power.model_validate(ship.parts["power"]))


def test_ST_07_purchases_start_again_each_turn_past_a_ship_without_a_budget() -> None:
    """The Aardvark (no power budget) comes first in id order; the Excelsior's 5 bought in turn 1
    (8 → 3) are gone at turn 2's Ship Power: 8 again."""
    state = battle({**RAIDER, "name": "Aardvark"}, "excelsior")
    state = set_value(state, "ships.excelsior.parts.shields.projections.0.current", 10)
    payload = {"ship": "excelsior", "deflector": "Fore Deflector", "points": 5}
    state, _ = act(state, "startrek.buy_regeneration", payload, ME)
    assert power_left(state) == 3
    state = advance_to(state, "ship_power", turn=2)
    assert power_left(state) == 8
