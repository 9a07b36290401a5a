"""Reading and writing a Traveller unit — a High Guard ship or a flight — with its round fresh.

Round state (orders, reactions, fire this round) belongs to one round only. Rather than trust
that a hook reset it, every load checks the round number and starts a clean round when the clock
has moved on; round 1 (which no "enter turn" hook ever announces) works the same way.
"""

from __future__ import annotations

from app.rules.core import RuleError
from app.rules.parsed import parsed, store
from app.rules.state import BattleState, Ship
from app.rules.traveller.flights import Flight
from app.rules.traveller.ship import OWN_PART, Combatant, HgShip, RoundState

UNIT_PARTS = ("hg_ship", "flight")
FIRE_HISTORY = 5  # rounds of fire kept for crew fire limits (Survivors fire once per 5 rounds)


def unit_part(ship: Ship) -> str | None:
    return next((name for name in UNIT_PARTS if name in ship.parts), None)


def fresh_round(unit: Combatant, turn: int) -> None:
    if unit.round.turn == turn:
        return
    unit.round = RoundState(turn=turn, initiative=unit.initiative_base)
    for battery in unit.batteries:
        battery.fired = {r: n for r, n in battery.fired.items() if int(r) > turn - FIRE_HISTORY}


def other_ship(state: BattleState, ship: Ship, target: str, refusal: str) -> Ship:
    """The ship an attack or a boarding by `ship` names: another ship still in the fight, else
    `refusal` on the target field (a ship never fires on or boards itself, nor a wreck)."""
    target_ship = state.ship(target, "target")
    if target_ship.id == ship.id or target_ship.destroyed:
        raise RuleError(refusal, "target")
    return target_ship


def load_unit(state: BattleState, ship: Ship, field: str = "ship") -> Combatant:
    name = unit_part(ship)
    if name is None:
        raise RuleError(f"{ship.name} is not a High Guard ship or flight", field)
    kind = HgShip if name == "hg_ship" else Flight
    model: Combatant | None = parsed(ship, name, kind, lambda raw: kind.model_validate(raw, context=OWN_PART))
    assert model is not None  # unit_part found the part
    fresh_round(model, state.clock.turn)
    return model


def save_unit(ship: Ship, unit: Combatant) -> None:
    """Write the unit back; within an action the model stays the part's parse (app/rules/parsed.py),
    so a unit read again in the same action is this very object."""
    store(ship, "flight" if isinstance(unit, Flight) else "hg_ship", unit)


def units(state: BattleState) -> list[tuple[Ship, Combatant]]:
    """Every unit still in the fight (not destroyed, not jumped out), fresh for this round, by ship id.

    The order is the ship ids' and never the dict's: a snapshot stored as PostgreSQL JSONB comes
    back with its keys reordered (shortest first), and the reveal, the loop's ties and the hooks'
    dice must read the same on every database and in a rebuild."""
    found: list[tuple[Ship, Combatant]] = []
    for ship in ships_by_id(state):
        if ship.destroyed or unit_part(ship) is None:
            continue
        if (ship.parts.get("hg_ship") or {}).get("jumped") is not None:
            continue  # jumped out of the battle: no orders, no place in the loop
        found.append((ship, load_unit(state, ship)))
    return found


def ships_by_id(state: BattleState) -> list[Ship]:
    return [state.ships[sid] for sid in sorted(state.ships)]


def orders_on(state: BattleState) -> bool:
    """TR-26a: orders are an optional module; on unless the battle turns them off."""
    return bool(state.options.get("orders", True))
