"""What buying extra regeneration refuses and where it lands (ST-07, ST-14): each refusal on the
field the commander corrects, the cap counting every purchase of the turn, and a purchase with no
projection named going where the deflector's free points went.

Every number is the seed's or the library Excelsior's: "extra points of regeneration, up to twice the
current value of the deflector, can be purchased for 1 point of power per point" (ST-07) — the Fore
Deflector's value 4 allows 8 a turn; the Fore projection is rated 40, the Port 30; 8 power is left
at a turn's start.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import BattleState
from app.rules.core import RuleError
from tests.rules.startrek.helpers import act, advance, advance_to, battle, of_kind, player, set_value, values

ME = player("excelsior")
EX = "ships.excelsior.parts.shields"


def do(state: BattleState, kind: str, **payload: Any) -> tuple[BattleState, list[Any]]:
    return act(state, f"startrek.{kind}", {"ship": "excelsior", **payload}, ME)


def buy(state: BattleState, points: int, **more: Any) -> tuple[BattleState, list[Any]]:
    return do(
        state, "buy_regeneration", deflector=more.pop("deflector", "Fore Deflector"), points=points, **more
    )


def refusal(state: BattleState, points: int, **more: Any) -> tuple[str | None, str]:
    with pytest.raises(RuleError) as err:
        buy(state, points, **more)
    return err.value.field, err.value.message


def test_ST_07_a_deflector_switched_off_sells_nothing() -> None:
    state, _ = do(battle("excelsior"), "switch_system", system="Fore Deflector")
    assert refusal(state, 1) == (
        "deflector",
        "Fore Deflector is not working (off, destroyed, or no generator)",
    )


def test_ST_07_only_into_a_projection_in_the_deflectors_arc() -> None:
    assert refusal(battle("excelsior"), 1, projection="Port") == (
        "projection",
        "Port is not in Fore Deflector's arc",
    )


def test_ST_07_no_more_than_fits_under_the_rating() -> None:
    state = set_value(battle("excelsior"), f"{EX}.projections.0.current", 37)
    assert refusal(state, 4) == (
        "points",
        "Fore shield is at 37/40: only 3 more fit under its rating, so no power is spent (ST-07)",
    )


def test_ST_07_the_cap_counts_every_purchase_of_the_turn() -> None:
    """5 then 3 bought through the Fore Deflector use its 8: a third purchase of 1 is refused."""
    state = set_value(battle("excelsior"), f"{EX}.projections.0.current", 10)
    state, _ = buy(state, 5)
    state, _ = buy(state, 3)
    assert refusal(state, 1) == (
        "points",
        "Fore Deflector (value 4) may add at most 8 extra a turn; 0 left (ST-07)",
    )


def test_ST_07_ST_14_unnamed_points_go_where_the_free_points_went() -> None:
    """The Fore Deflector extended to the Port (value 4 − 1 = 3): its free 3 go to the Port it was
    extended to (20 → 23); 2 more bought with no projection named follow them (25), though the Fore,
    set to 10, now has more room."""
    state = set_value(battle("excelsior"), f"{EX}.projections.3.current", 20)
    state = set_value(state, "ships.excelsior.parts.power.output", 40)
    state, _ = do(state, "extend_arc", deflector="Fore Deflector", projection="Port")
    assert values(state, "excelsior")["Port"] == 23
    state = set_value(state, f"{EX}.projections.0.current", 10)
    state, (event,) = buy(state, 2)
    assert (event.data["projection"], event.data["after"]) == ("Port", 25)


def test_ST_07_a_purchase_is_recorded_as_one() -> None:
    state = set_value(battle("excelsior"), f"{EX}.projections.0.current", 10)
    _, (event,) = buy(state, 1)
    assert (event.kind, event.data) == (
        "shield_purchase",
        {"projection": "Fore", "before": 10, "after": 11, "power": 1, "commander": "p-excelsior"},
    )


def test_ST_07_ST_17_a_ship_gone_to_warp_regenerates_nothing_and_the_next_ship_does() -> None:
    """The Enterprise (first in id order) goes to warp in turn 1 and leaves; at turn 2's Ship Power
    only the Excelsior's deflectors regenerate (her Fore, 30, takes the Fore Deflector's 4)."""
    state = set_value(battle("galaxy-class", "excelsior"), f"{EX}.projections.0.current", 30)
    state, _ = act(state, "startrek.declare_warp", {"ship": "enterprise"}, player("enterprise"))
    state, events = advance(advance_to(state, "adjust_systems"))
    assert (state.clock.turn, state.clock.step) == (2, "ship_power")
    assert [e.ship for e in of_kind(events, "shield_regeneration")] == ["excelsior"]
    assert values(state, "excelsior")["Fore"] == 34


def test_ST_11_ST_07_no_regeneration_without_a_generator_is_filed_under_the_ship() -> None:
    state = set_value(battle("excelsior"), f"{EX}.generator_down", True)
    state, events = advance(advance_to(state, "adjust_systems"))
    (event,) = of_kind(events, "shield_regeneration")
    assert (event.ship, event.text) == ("excelsior", "Excelsior has no shield generator: no regeneration.")
