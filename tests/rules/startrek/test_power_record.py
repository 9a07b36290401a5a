"""What the Ship Power budget records and refuses (ST-07, ST-14): the power left after a purchase,
the refusals a commander can act on (field and words), and a ship with power but no shields.

Every number is the seed's or the library Excelsior's: extra regeneration costs "1 point of power
per point" (ST-07); systems "can be deactivated" in the Ship Power segment to free power (ST-14).
The Excelsior's reactor gives 30; Phaser Arrays 8, Photon Torpedo 2, Sensors 4, and four deflectors
at 2 each draw 22, so 8 is left at the start of a turn.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import act, battle, definition, player, set_value

ME = player("excelsior")
EX = "ships.excelsior.parts.shields"


def refused(state: Any, kind: str, payload: dict[str, Any]) -> RuleError:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, ME)
    return err.value


def test_ST_07_a_purchase_says_what_power_is_left() -> None:
    """ST-07: 5 points bought through the Fore Deflector cost 5 of the 8 power left: 3 remain."""
    state = set_value(battle("excelsior"), f"{EX}.projections.0.current", 10)
    state, events = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 5},
        ME,
    )
    assert events[0].text == (
        "Excelsior buys 5 regeneration through Fore Deflector for 5 power: Fore shield 10/40 → 15/40 "
        "(3 power left; 3 more may be bought from it this turn)."
    )


def test_ST_07_with_no_power_left_the_purchase_is_refused_on_its_points() -> None:
    """ST-07: a reactor of 20 against needs of 22 leaves nothing: 1 point is refused, naming 0 left."""
    state = set_value(battle("excelsior"), f"{EX}.projections.3.current", 10)
    state = set_value(state, "ships.excelsior.parts.power.output", 20)
    err = refused(
        state, "startrek.buy_regeneration", {"ship": "excelsior", "deflector": "Port Deflector", "points": 1}
    )
    assert (err.field, err.message) == (
        "points",
        "Port Deflector regeneration needs 1 power; Excelsior has 0 left this turn",
    )


def test_ST_07_ST_14_a_ship_without_a_power_budget_can_neither_buy_nor_extend() -> None:
    """ST-07/ST-14: both cost power; a ship whose data gives no power budget is refused, on the ship."""
    data = definition("excelsior")
    del data["parts"]["power"]
    state = set_value(battle(data), f"{EX}.projections.0.current", 10)
    err = refused(
        state, "startrek.buy_regeneration", {"ship": "excelsior", "deflector": "Fore Deflector", "points": 1}
    )
    assert (err.field, err.message) == ("ship", "Excelsior has no power budget to buy with")
    err = refused(
        state,
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Port"},
    )
    assert (err.field, err.message) == ("ship", "Excelsior has no power budget for extending Fore Deflector")


def test_ST_14_an_extension_past_the_budget_is_refused_on_the_deflector() -> None:
    """ST-14: extending triples the deflector's need (2 → 6); with a reactor of 25 (3 left) it is refused."""
    state = set_value(battle("excelsior"), "ships.excelsior.parts.power.output", 25)
    err = refused(
        state,
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Port"},
    )
    assert (err.field, err.message) == (
        "deflector",
        "extending Fore Deflector needs 1 more power than Excelsior has this turn",
    )


def test_ST_14_a_ship_without_shields_has_only_its_systems_to_power() -> None:
    """ST-14: switching Sensors (4) off frees their power; with no shields nothing goes to deflectors:
    30 − Phaser Arrays 8 − Photon Torpedo 2 = 20 left."""
    data = definition("excelsior")
    del data["parts"]["shields"]
    state, events = act(
        battle(data), "startrek.switch_system", {"ship": "excelsior", "system": "Sensors"}, ME
    )
    assert events[0].text == "Excelsior switches Sensors off (20 power left)."
