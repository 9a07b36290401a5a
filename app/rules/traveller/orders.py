"""Orders (TR-26, TR-26a…c, TR-27): written secretly, revealed together, paid in initiative.

Each captain saves drafts and commits in the orders step. Drafts and committed orders live in the
ship's part; the part's public view strips them (ship.strip_orders), and the commit event is
owner-only with a hidden_text, so no other player can read them before the reveal. The reveal is
one public event, made when the last captain commits or when the referee forces it (or moves the
clock on). Emergency orders (!) come later, as reactions, one per ship per round.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field, field_validator

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, hook, mark, when
from app.rules.state import BattleState, Ship
from app.rules.system import ORDERS
from app.rules.traveller import tables as T
from app.rules.traveller.flights import Flight
from app.rules.traveller.ship import Combatant, HgShip, OrderChoice
from app.rules.traveller.units import load_unit, orders_on, save_unit, units


def order_text(choice: OrderChoice, state: BattleState) -> str:
    name = choice.spec.name
    if choice.target:
        ship = state.ships.get(choice.target)
        name += f" → {ship.name if ship else choice.target}"
    return name


def _cost(choices: list[OrderChoice]) -> int:
    return sum(c.spec.cost for c in choices)


def _check_choice(
    state: BattleState, ship: Ship, unit: Combatant, choice: OrderChoice, field: str = "orders"
) -> None:
    """TR-26b: requirements (Crew Skill N+, spinal fitted, small craft only) and targets, refused on
    the payload's `field` (written orders' `orders`, an emergency order's `order`). The two orders
    for small craft are a flight's (the seed: "only performed by a small craft flight", "if the
    small craft flight is within Close range"): a lone small craft is refused them rather than
    allowed an order that would do nothing."""
    spec = choice.spec
    if unit.crew_skill < spec.crew_skill:
        raise RuleError(f"{spec.name} needs Crew Skill {spec.crew_skill}+", field)
    if spec.needs_spinal and not (isinstance(unit, HgShip) and unit.spinal is not None):
        raise RuleError(f"{spec.name} needs a spinal mount", field)
    if spec.flight_only and not isinstance(unit, Flight):
        raise RuleError(f"{spec.name} is only undertaken by a small craft flight", field)
    if spec.needs_target:
        if not choice.target or choice.target not in state.ships or choice.target == ship.id:
            raise RuleError(f"{spec.name} needs another ship as its target", field)
        friendly = state.ships[choice.target].side == ship.side
        if choice.order in ("escort_defence", "fighter_screen") and not friendly:
            raise RuleError(f"{spec.name} protects a friendly ship", field)
    if choice.order == "one_more_shot":
        _check_one_more_shot(unit, choice, field)


def _check_one_more_shot(unit: Combatant, choice: OrderChoice, field: str) -> None:
    if choice.target == "spinal" and isinstance(unit, HgShip) and unit.spinal and unit.spinal.hits:
        return
    battery = unit.battery(choice.target or "")
    if battery is None or battery.hits == 0:
        raise RuleError("I Only Need One More Shot names a damaged battery id, or 'spinal'", field)


def _check_set(
    state: BattleState,
    ship: Ship,
    unit: Combatant,
    choices: list[OrderChoice],
    budget: int,
    field: str = "orders",
) -> None:
    seen: set[str] = set()
    for choice in choices:
        _check_choice(state, ship, unit, choice, field)
        if choice.order in seen and not choice.spec.repeatable:
            raise RuleError(f"{choice.spec.name} may be given once per round", field)
        seen.add(choice.order)
    cost = _cost(choices)
    if cost > budget:
        raise RuleError(
            f"these orders cost {cost} initiative; {ship.name} has {budget} (never below 0)", field
        )


class GiveOrders(BaseModel):
    catalogue: ClassVar[dict[str, T.Order]] = T.ORDERS  # for the orders form

    ship: str
    orders: list[OrderChoice] = Field(default_factory=list, max_length=30)
    commit: bool = Field(default=False, description="lock the orders; otherwise they are saved as a draft")

    @field_validator("orders", mode="before")
    @classmethod
    def _one_is_a_list(cls, value: Any) -> Any:
        """A form with one order ticked sends one object, not a list."""
        return [value] if isinstance(value, dict) else value


def _initiative_rolled(state: BattleState, actor: Actor) -> str | None:
    """Orders are costed against the engagement's initiative (TR-26c), so none are offered before
    it is rolled (TR-03): a form that can only be refused is a dead end."""
    if all(unit.initiative_base is None for _, unit in units(state)):
        return "initiative for the engagement is not rolled yet; the referee rolls it first (TR-03)"
    return None


def give_orders(state: BattleState, p: GiveOrders, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-26: a ship's secret orders for the round, kept as a draft or committed; what they cost comes
    off this round's initiative."""
    if not orders_on(state):
        raise RuleError("orders are not used in this battle (TR-26a)", "orders")
    ship = state.ship(p.ship)
    unit = load_unit(state, ship)
    if unit.initiative_base is None:
        raise RuleError("roll initiative for the engagement first (TR-03)", "orders")
    if unit.round.committed or unit.round.revealed:
        raise RuleError(f"{ship.name}'s orders are already committed this round", "orders")
    _check_set(state, ship, unit, p.orders, max(unit.initiative_base, 0))
    unit.round.drafts = list(p.orders)
    listed = ", ".join(order_text(c, state) for c in p.orders) or "no orders"
    if not p.commit:
        save_unit(ship, unit)
        return [
            Event.about(ship, "orders_draft", f"{ship.name} saves its draft: {listed}.", visibility="owner")
        ]
    unit.round.orders = list(p.orders)
    unit.round.committed = True
    save_unit(ship, unit)
    events = [
        Event.about(
            ship,
            "orders_committed",
            f"{ship.name} commits its orders: {listed} (cost {_cost(p.orders)}).",
            visibility="owner",
            hidden_text=f"{ship.name} has committed its orders.",
        )
    ]
    if all(u.round.committed for _, u in units(state)):
        events.append(reveal(state, forced=False))
    return events


mark(
    give_orders,
    action(
        "traveller.orders",
        GiveOrders,
        "Write orders",
        ship="ship",
        draft=lambda p: not p.commit,
        permit=_initiative_rolled,
    ),
    when(
        ORDERS,
        refusal="orders are written in the {step:lower} step; emergency orders come as reactions",
        field="orders",
    ),
)


def reveal(state: BattleState, forced: bool, by_referee: bool = False) -> Event:
    """All orders at once, one public event; uncommitted ships give none. Costs lower this round's
    initiative (TR-26c); I Only Need One More Shot arms its system for the round."""
    lines: list[str] = []
    for ship, unit in units(state):
        chosen = unit.round.orders if unit.round.committed else []
        unit.round.orders = list(chosen)
        unit.round.drafts = []
        unit.round.revealed = True
        base = unit.initiative_base
        # Orders need initiative (give_orders refuses them before it), so a ship without it
        # reveals none and keeps no initiative: it is not 0, it is not rolled yet.
        unit.round.initiative = None if base is None else base - _cost(chosen)
        for choice in chosen:
            _arm(state, unit, choice)
        save_unit(ship, unit)
        listed = ", ".join(order_text(c, state) for c in chosen) or "no orders"
        late = "" if unit.round.committed else " (not committed)"
        change = "initiative not rolled" if base is None else f"initiative {base} → {unit.round.initiative}"
        lines.append(f"{ship.name}{late}: {listed} — {change}")
    if by_referee:
        head = "The referee reveals the orders"
    elif forced:  # the clock moved on, whoever moved it (the log names them)
        head = "The orders step ends; orders revealed"
    else:
        head = "Every captain has committed; orders revealed"
    return Event(kind="orders_revealed", text=f"{head}: " + "; ".join(lines) + ".")


def _arm(state: BattleState, unit: Combatant, choice: OrderChoice) -> None:
    """Orders whose effect outlives the round's RoundState: One More Shot arms its system; Prepare
    to Abandon Ship! is remembered for a destruction the referee rules on later (TR-27)."""
    if choice.order == "abandon_ship" and isinstance(unit, HgShip):
        unit.abandon_round = state.clock.turn
        return
    if choice.order != "one_more_shot":
        return
    if choice.target == "spinal" and isinstance(unit, HgShip) and unit.spinal is not None:
        unit.spinal.one_more_shot = state.clock.turn
        return
    battery = unit.battery(choice.target or "")
    # _check_one_more_shot admitted only 'spinal' on a ship with a damaged spinal mount, or a damaged battery.
    assert battery is not None
    battery.one_more_shot = state.clock.turn


class Reveal(BaseModel):
    """The referee forces the reveal: captains who have not committed give no orders this round."""


def force_reveal(state: BattleState, p: Reveal, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-26: the referee reveals every ship's orders now, without waiting for the last commit."""
    if not orders_on(state):
        raise RuleError("orders are not used in this battle (TR-26a)")
    if all(u.round.revealed for _, u in units(state)):
        raise RuleError("the orders are already revealed")
    return [reveal(state, forced=True, by_referee=True)]


mark(
    force_reveal,
    action("traveller.reveal_orders", Reveal, "Reveal the orders", referee_only=True),
    when(ORDERS, refusal="orders are revealed in the {step:lower} step"),
)


def reveal_on_leaving(state: BattleState, dice: DiceSource) -> list[Event]:
    """Moving the clock on forces the reveal, so no round is fought with orders still hidden."""
    if not orders_on(state) or all(u.round.revealed for _, u in units(state)):
        return []
    return [reveal(state, forced=True)]


mark(reveal_on_leaving, hook("leave", ORDERS))


class EmergencyOrder(BaseModel):
    ship: str
    order: OrderChoice


def emergency_order(state: BattleState, p: EmergencyOrder, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-26: a (!) order as a reaction to an attack, one per ship per round; it costs initiative
    (never below 0) and a reaction from those the current initiative allows."""
    if not orders_on(state):
        raise RuleError("orders are not used in this battle (TR-26a)", "order")
    ship = state.ship(p.ship)
    unit = load_unit(state, ship)
    choice = p.order.model_copy(update={"emergency": True})
    spec = choice.spec
    if not spec.emergency:
        raise RuleError(f"{spec.name} is not an emergency order (!)", "order")
    if unit.round.emergency_used:
        raise RuleError(f"{ship.name} has already given its emergency order this round", "order")
    if unit.round.has(choice.order) and not spec.repeatable:
        raise RuleError(f"{spec.name} was already given this round", "order")
    current = unit.current_initiative() or 0
    allowed = T.reactions(current)
    if unit.round.reactions_used >= allowed:
        raise RuleError(f"{ship.name} has no reaction left ({allowed} this round)", "order")
    _check_set(state, ship, unit, [choice], max(current, 0), "order")
    unit.round.orders.append(choice)
    unit.round.initiative = current - spec.cost
    unit.round.reactions_used += 1
    unit.round.emergency_used = True
    _arm(state, unit, choice)
    save_unit(ship, unit)
    return [
        Event.about(
            ship,
            "emergency_order",
            f"{ship.name} gives an emergency order: {order_text(choice, state)} — initiative {current} →"
            f" {unit.round.initiative}, reaction {unit.round.reactions_used} of {allowed}.",
        )
    ]


mark(
    emergency_order,
    action("traveller.emergency_order", EmergencyOrder, "Give an emergency order", ship="ship"),
    when(
        not_in={ORDERS}, refusal="in the {orders:lower} step, write it with the other orders", field="order"
    ),
)


def one_more_shot_ends(state: BattleState, dice: DiceSource) -> list[Event]:
    """I Only Need One More Shot: the system fired at full strength; at the round's end it fails."""
    events: list[Event] = []
    turn = state.clock.turn
    for ship, unit in units(state):
        changed = False
        for battery in unit.batteries:
            if battery.one_more_shot == turn:
                battery.hits, battery.one_more_shot, changed = 3, None, True
                events.append(Event.about(ship, "system", f"{ship.name}'s {battery.label} gives out."))
        if isinstance(unit, HgShip) and unit.spinal is not None and unit.spinal.one_more_shot == turn:
            unit.spinal.hits, unit.spinal.one_more_shot, changed = 2, None, True
            events.append(Event.about(ship, "system", f"{ship.name}'s spinal mount gives out."))
        if changed:
            save_unit(ship, unit)
    return events


mark(one_more_shot_ends, hook("leave", "turn"))


def fresh_rounds(state: BattleState, dice: DiceSource) -> list[Event]:
    """Every unit starts the round clean in the stored state too, so that what the sheets show
    (initiative, reactions, Thrust left, the orders chip) is this round's from its first moment."""
    for ship, unit in units(state):
        save_unit(ship, unit)
    return []


mark(fresh_rounds, hook("enter", "turn"))
