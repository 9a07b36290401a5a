"""Ship Power segment choices that change what the deflectors draw: arc extensions (ST-14) and
switching systems off or on.

Each 90° added to a deflector's arc triples its power requirement (p → 3p → 9p, compounding) and
lowers its regeneration by 1; a medium ship's projections are halves, so reaching the other one
takes 180° (two steps). An extension must reach a projection adjacent to what the deflector already
covers; one that would take the value below 0 would shut the deflector down, so it is refused.
Extensions last until retracted. Switching a system off frees its power for this segment.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark, when
from app.rules.startrek import power as budget
from app.rules.startrek.common import owner_event, read_part, save_part, segment
from app.rules.startrek.regeneration import rework_free
from app.rules.startrek.shields import (
    PART,
    SHIELDED,
    Shields,
    adjacent,
    covered,
    current_value,
    power_requirement,
    steps_per_projection,
)
from app.rules.state import BattleState, Ship
from app.rules.system import ALLOCATION


def _shields(ship: Ship) -> Shields:
    shields = read_part(ship, PART, Shields)
    assert shields is not None  # extend and retract are gated on the part (`fits=SHIELDED`)
    return shields


def _switchable(state: BattleState, ship: Ship) -> str | None:
    """A ship switches deflectors or power consumers; one with neither has nothing to switch."""
    if ship.part(PART) is None and ship.part(budget.PART) is None:
        return f"{ship.name} has no shields or power systems to switch"
    return None


class Extend(BaseModel):
    ship: str
    deflector: str
    projection: str = Field(description="the adjacent projection to reach")


def extend(state: BattleState, p: Extend, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-14: power ×3 and regeneration −1 per 90°; medium ships buy 180° (two steps) at once."""
    ship = state.ship(p.ship)
    shields = _shields(ship)
    deflector = shields.deflector(p.deflector)
    target = shields.projection(p.projection)
    reach = covered(shields, deflector)
    if target.name in reach:
        raise RuleError(f"{target.name} is already in {deflector.name}'s arc", "projection")
    if not any(target.name in adjacent(shields, n) for n in reach):
        raise RuleError(
            f"{target.name} is not next to {deflector.name}'s arc ({', '.join(reach)})", "projection"
        )
    if deflector.shut_down:
        raise RuleError(f"{deflector.name} is switched off", "deflector")
    old_value, old_power = current_value(shields, deflector), power_requirement(shields, deflector)
    steps = steps_per_projection(shields)
    deflector.extended_to.append(target.name)
    value = current_value(shields, deflector)
    if value < 0:
        raise RuleError(
            f"{deflector.name} (value {old_value}) would fall to {value} and shut down (ST-14)", "deflector"
        )
    new_power = power_requirement(shields, deflector)
    left = budget.check_need(ship, shields, f"extending {deflector.name}")
    note = rework_free(state, ship, shields, deflector, prefer=target.name)
    save_part(ship, PART, shields)
    return [
        owner_event(
            ship,
            "arc_extension",
            f"{ship.name} extends {deflector.name} by {90 * steps}° to cover {target.name}: power {old_power} → "
            f"{new_power}, regeneration {old_value} → {value} ({left} power left){note} (ST-14).",
            f"{ship.name} extends {deflector.name} to cover its {target.name} shield.",
        )
    ]


mark(
    extend,
    action("startrek.extend_arc", Extend, "Extend a deflector's arc", ship="ship", fits=SHIELDED),
    when(ALLOCATION, refusal=segment("Extending a deflector's arc")),
)


class DeflectorRef(BaseModel):
    ship: str
    deflector: str


def retract(state: BattleState, p: DeflectorRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-14: back to the listed arc, value and power."""
    ship = state.ship(p.ship)
    shields = _shields(ship)
    deflector = shields.deflector(p.deflector)
    if not deflector.extended_to:
        raise RuleError(f"{deflector.name} has no arc extension", "deflector")
    deflector.extended_to = []
    note = rework_free(state, ship, shields, deflector)
    save_part(ship, PART, shields)
    return [
        owner_event(
            ship,
            "arc_extension",
            f"{ship.name} returns {deflector.name} to its own arc: power {power_requirement(shields, deflector)}, "
            f"regeneration {current_value(shields, deflector)}{note}.",
            f"{ship.name} returns {deflector.name} to its own arc.",
        )
    ]


mark(
    retract,
    action(
        "startrek.retract_arc", DeflectorRef, "Drop a deflector's arc extensions", ship="ship", fits=SHIELDED
    ),
    when(ALLOCATION, refusal=segment("Changing a deflector's arc")),
)


class Switch(BaseModel):
    ship: str
    system: str = Field(description="a power consumer or a deflector")
    on: bool = Field(default=False, description="true to switch it back on")


def switch(state: BattleState, p: Switch, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-14: systems may be switched off in the Ship Power segment to free power."""
    ship = state.ship(p.ship)
    verb = "on" if p.on else "off"
    shields = read_part(ship, PART, Shields)
    deflector = None
    if shields is not None:
        deflector = next((d for d in shields.deflectors if d.name.lower() == p.system.lower()), None)
    if shields is not None and deflector is not None:
        if deflector.shut_down == (not p.on):
            raise RuleError(f"{deflector.name} is already {verb}", "system")
        deflector.shut_down = not p.on
        if p.on:
            budget.check_need(ship, shields, f"switching {deflector.name} on")
        power = budget.power_of(ship)
        note = rework_free(state, ship, shields, deflector)
        save_part(ship, PART, shields)
        left = budget.available(ship, power) if power is not None else 0
        name = deflector.name
    else:
        power = budget.power_of(ship)
        consumer = None
        if power is not None:
            consumer = next((c for c in power.consumers if c.name.lower() == p.system.lower()), None)
        if power is None or consumer is None:
            raise RuleError(f"{ship.name} has no switchable system {p.system!r}", "system")
        if consumer.off == (not p.on):
            raise RuleError(f"{consumer.name} is already {verb}", "system")
        consumer.off = not p.on
        save_part(ship, budget.PART, power)
        left = budget.available(ship, power)
        if left < 0:
            raise RuleError(f"switching {consumer.name} on needs {-left} more power than is left", "system")
        name, note = consumer.name, ""
    return [
        owner_event(
            ship,
            "system_switched",
            f"{ship.name} switches {name} {verb} ({left} power left){note}.",
            f"{ship.name} switches {name} {verb}.",
        )
    ]


mark(
    switch,
    action("startrek.switch_system", Switch, "Switch a system off or on", ship="ship", fits=_switchable),
    when(ALLOCATION, refusal=segment("Switching systems")),
)
