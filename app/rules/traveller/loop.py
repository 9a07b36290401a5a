"""The combat-action loop (TR-04, TR-26c): who acts next.

Ships act one combat action at a time in descending current initiative (after this round's order
costs), looping until each has passed. Opportunity Fire! ships wait until every other ship has
passed; among them the highest initiative goes first. The loop only binds once initiative has
been rolled, so a referee can run a quick skirmish without it.
"""

from __future__ import annotations

from app.rules.ruleset import when
from app.rules.state import BattleState, Ship
from app.rules.system import FIRE, Step
from app.rules.traveller.ship import Combatant
from app.rules.traveller.units import load_unit, unit_part, units

# Where every combat action belongs (TR-04): the Fire step, one at a time in the loop's order;
# outside it the gate refuses on the acting ship.
IN_THE_LOOP = when(FIRE, in_turn=True, refusal="combat actions happen in the {step:lower} step", field="ship")


def _key(pair: tuple[Ship, Combatant]) -> tuple[int, int, int, str]:
    ship, unit = pair
    return (unit.round.actions, -(unit.current_initiative() or 0), -(unit.initiative_base or 0), ship.name)


def loop_order(state: BattleState) -> list[tuple[Ship, Combatant]]:
    """Units still acting this round, next actor first."""
    active = [(s, u) for s, u in units(state) if u.initiative_base is not None and not u.round.passed]
    waiting = [(s, u) for s, u in active if u.round.has("opportunity_fire")]
    others = [(s, u) for s, u in active if not u.round.has("opportunity_fire")]
    if others:
        return sorted(others, key=_key) + sorted(waiting, key=_key)
    return sorted(waiting, key=_key)


def next_actor(state: BattleState) -> Ship | None:
    order = loop_order(state)
    return order[0][0] if order else None


def out_of_turn(state: BattleState, ship: Ship) -> str | None:
    """Why this ship may not take a combat action now (TR-04), or None: it has passed, or the loop
    (once initiative exists) names another ship."""
    if unit_part(ship) is None:
        return None
    unit = load_unit(state, ship)
    if unit.round.passed:
        return f"{ship.name} has finished its combat actions this round"
    if unit.initiative_base is None or not state.options.get("enforce_loop", True):
        return None
    actor = next_actor(state)
    if actor is not None and actor.id != ship.id:
        return f"it is {actor.name}'s combat action now (TR-04)"
    return None


def acting(state: BattleState, step: Step) -> frozenset[str] | None:
    """Whose turn it is: in a step played in initiative order, the loop's next ship (none when
    every ship has passed); elsewhere no order binds (None)."""
    if step.acts != "initiative" or not state.options.get("enforce_loop", True):
        return None
    order = loop_order(state)
    if not order:
        return None if not any(u.initiative_base is not None for _, u in units(state)) else frozenset()
    return frozenset({order[0][0].id})
