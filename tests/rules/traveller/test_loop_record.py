"""The combat-action loop (TR-04, TR-26c, TR-27): who acts next, and whom the combat step waits on.
Ships act in descending current initiative (after this round's order costs), ties going to the
higher engagement initiative; Opportunity Fire! ships wait until every other ship has passed, the
highest of them first."""

from __future__ import annotations

from typing import Any

from app.rules.state import BattleState
from app.rules.systems.traveller import TRAVELLER
from app.rules.traveller.loop import acting, loop_order, next_actor
from tests.rules.traveller.helpers import battle, capital

COMBAT, SHIP_ACTION = TRAVELLER.steps[2], TRAVELLER.steps[3]


def three(**options: Any) -> BattleState:
    return battle(capital("Kestrel"), capital("Tigress"), capital("Vixen"), **options)


def rolled(
    state: BattleState,
    ship: str,
    base: int,
    now: int | None = None,
    *,
    opportunity: bool = False,
    passed: bool = False,
) -> None:
    """The ship's engagement initiative `base` (TR-03) and this round's `now` after order costs."""
    orders = [{"order": "opportunity_fire"}] if opportunity else []
    part = state.ships[ship].parts["hg_ship"]
    round_ = {"turn": state.clock.turn, "initiative": base if now is None else now, "passed": passed}
    round_ |= {"orders": orders, "committed": True, "revealed": True}
    state.ships[ship].parts = {"hg_ship": {**part, "initiative_base": base, "round": round_}}


def order(state: BattleState) -> list[str]:
    return [ship.id for ship, _ in loop_order(state)]


def test_TR_26c_equal_initiative_after_orders_goes_to_the_higher_engagement_roll() -> None:
    # Tigress rolled 8 and paid 2 for orders; Kestrel rolled 6 and paid nothing: both stand at 6.
    state = three()
    rolled(state, "kestrel", 6)
    rolled(state, "tigress", 8, 6)
    assert order(state) == ["tigress", "kestrel"]


def test_TR_26c_initiative_0_after_orders_acts_after_initiative_1() -> None:
    # Orders may take initiative to 0, never below (TR-26): Kestrel 3 − 3 = 0 acts after Tigress's 1.
    state = three()
    rolled(state, "kestrel", 3, 0)
    rolled(state, "tigress", 1)
    assert order(state) == ["tigress", "kestrel"]


def test_TR_04_a_tie_at_engagement_initiative_0_goes_to_the_higher_roll() -> None:
    # Kestrel rolled 0 (a poor crew and a failed fleet Tactics check), Tigress 1 less her order: both 0.
    state = three()
    rolled(state, "kestrel", 0)
    rolled(state, "tigress", 1, 0)
    assert order(state) == ["tigress", "kestrel"]


def test_TR_27_opportunity_fire_ships_wait_for_the_others_highest_first() -> None:
    state = three()
    rolled(state, "kestrel", 5, opportunity=True)
    rolled(state, "tigress", 3)
    rolled(state, "vixen", 9, opportunity=True)
    assert order(state) == ["tigress", "vixen", "kestrel"]
    assert next_actor(state).id == "tigress"
    assert acting(state, COMBAT) == frozenset({"tigress"})


def test_TR_27_once_the_others_passed_the_opportunity_fire_ships_go_highest_first() -> None:
    state = three()
    rolled(state, "kestrel", 5, opportunity=True)
    rolled(state, "tigress", 12, passed=True)
    rolled(state, "vixen", 9, opportunity=True)
    assert order(state) == ["vixen", "kestrel"]


def test_TR_04_when_every_ship_has_passed_no_one_acts_and_the_step_waits_on_no_one() -> None:
    state = three()
    for ship in ("kestrel", "tigress", "vixen"):
        rolled(state, ship, 4, passed=True)
    assert next_actor(state) is None
    assert acting(state, COMBAT) == frozenset()


def test_TR_04_before_initiative_is_rolled_no_order_binds() -> None:
    assert acting(three(), COMBAT) is None


def test_TR_04_the_loop_binds_only_the_combat_step_and_only_while_enforced() -> None:
    state = three()
    rolled(state, "kestrel", 5)
    assert acting(state, SHIP_ACTION) is None
    free = three(enforce_loop=False)
    rolled(free, "kestrel", 5)
    assert acting(free, COMBAT) is None
    bound = three(enforce_loop=True)
    rolled(bound, "kestrel", 5)
    assert acting(bound, COMBAT) == frozenset({"kestrel"})
