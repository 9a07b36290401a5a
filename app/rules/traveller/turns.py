"""Who a High Guard round waits on, and what "done" means in its ordered steps: in the orders step
the captains whose orders are not committed (done = commit the draft as saved, TR-26); in the
combat step the ship the loop names (done = pass, TR-04)."""

from __future__ import annotations

from app.rules.core import Actor, Event, ShipRef
from app.rules.dice import DiceSource
from app.rules.state import BattleState
from app.rules.system import ORDERS, Step
from app.rules.traveller import loop
from app.rules.traveller.initiative import pass_turn
from app.rules.traveller.orders import GiveOrders, give_orders
from app.rules.traveller.ship import OrderChoice
from app.rules.traveller.units import orders_on, units


def _writing_orders(state: BattleState, step: Step) -> bool:
    rolled = any(u.initiative_base is not None for _, u in units(state))
    return ORDERS in step.marks and orders_on(state) and rolled


def acting(state: BattleState, step: Step) -> frozenset[str] | None:
    """The ships the step waits on, where this ruleset orders it; None elsewhere."""
    if _writing_orders(state, step):
        return frozenset(
            s.id
            for s, u in units(state)
            if u.initiative_base is not None and not (u.round.committed or u.round.revealed)
        )
    return loop.acting(state, step)


def turn_order(state: BattleState, step: Step) -> list[str] | None:
    """The combat loop's order (TR-04), next actor first, where it binds."""
    if loop.acting(state, step) is None:
        return None
    return [ship.id for ship, _ in loop.loop_order(state)]


def on_ready(state: BattleState, actor: Actor, step: Step, dice: DiceSource) -> list[Event] | None:
    """Done with the step: commit each of the actor's drafts as saved, or pass the acting ship."""
    waiting = acting(state, step)
    if waiting is None:
        return None
    mine = [sid for sid in sorted(waiting) if actor.commands(sid)]
    events: list[Event] = []
    for sid in mine:
        if _writing_orders(state, step):
            drafts = [c.model_dump(mode="json") for c in _drafts(state, sid)]
            payload = GiveOrders.model_validate({"ship": sid, "orders": drafts, "commit": True})
            events.extend(give_orders(state, payload, actor, dice))
        else:
            events.extend(pass_turn(state, ShipRef(ship=sid), actor, dice))
    return events


def _drafts(state: BattleState, ship_id: str) -> list[OrderChoice]:
    for ship, unit in units(state):
        if ship.id == ship_id:
            return list(unit.round.drafts)
    return []
