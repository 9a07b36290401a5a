"""The ship's power budget for the Ship Power segment (ST-07, ST-14).

Power is a budget with no deficit spending: reactor output, less what switched-on systems and
deflectors need (arc extensions multiply a deflector's need, ST-14; a destroyed deflector needs
nothing), less what was bought this turn (extra shield regeneration, 1 power per point, ST-07). Systems may be switched off in the Ship
Power segment to free power (the action and arc extensions are in `arcs.py`). The part is secret:
only the commander and the referee see it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.rules.core import Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import Settable, hook, mark, part
from app.rules.startrek.common import read_part, save_part, ships_with, system_destroyed
from app.rules.startrek.shields import PART as SHIELDS
from app.rules.startrek.shields import Shields, power_requirement
from app.rules.state import BattleState, Ship
from app.rules.system import ALLOCATION

PART = "power"


class Consumer(BaseModel):
    """A system that draws power every turn while it is on."""

    name: str = Field(min_length=1, max_length=60)
    power: int = Field(ge=0, le=200)
    off: bool = False


class Spend(BaseModel):
    what: str
    power: int


def _secret(part: dict[str, Any], ship: Ship) -> dict[str, Any] | None:
    """Power allocation is secret (ux §0): others see nothing of it."""
    return None


@part(PART, public_view=_secret, settable=(Settable("output", "Reactor output"),))
class Power(BaseModel):
    output: int = Field(ge=0, le=1000, description="reactor output per turn")
    consumers: list[Consumer] = Field(default_factory=list)
    spent: list[Spend] = Field(default_factory=list, description="bought this turn")
    turn: int | None = None


def power_of(ship: Ship) -> Power | None:
    return read_part(ship, PART, Power)


def deflector_need(ship: Ship, shields: Shields | None = None) -> int:
    """What the deflectors draw: a destroyed deflector draws nothing (its power is free again)."""
    shields = shields or read_part(ship, SHIELDS, Shields)
    if shields is None:
        return 0
    return sum(
        power_requirement(shields, d)
        for d in shields.deflectors
        if not system_destroyed(ship, d.system or d.name)
    )


def available(ship: Ship, power: Power, shields: Shields | None = None) -> int:
    """Output − systems on − deflector needs − bought this turn."""
    need = deflector_need(ship, shields)
    on = sum(c.power for c in power.consumers if not c.off)
    return power.output - on - need - sum(s.power for s in power.spent)


def spend(ship: Ship, what: str, amount: int, shields: Shields | None = None) -> int:
    """Charge `amount` to this turn's budget, or refuse; returns the power left."""
    power = power_of(ship)
    if power is None:
        raise RuleError(f"{ship.name} has no power budget to buy with", "ship")
    left = available(ship, power, shields)
    if amount > left:
        raise RuleError(
            f"{what} needs {amount} power; {ship.name} has {max(left, 0)} left this turn", "points"
        )
    power.spent.append(Spend(what=what, power=amount))
    save_part(ship, PART, power)
    return left - amount


def check_need(ship: Ship, shields: Shields, what: str) -> int:
    """Refuse a change that raises the deflectors' power need past the budget; returns power left."""
    power = power_of(ship)
    if power is None:
        raise RuleError(f"{ship.name} has no power budget for {what}", "ship")
    left = available(ship, power, shields)
    if left < 0:
        raise RuleError(f"{what} needs {-left} more power than {ship.name} has this turn", "deflector")
    return left


def new_budget(state: BattleState, dice: DiceSource) -> list[Event]:
    """Each turn's purchases start from nothing."""
    for ship, power in ships_with(state, PART, Power):
        if power.turn == state.clock.turn and not power.spent:
            continue
        power.spent = []
        power.turn = state.clock.turn
        save_part(ship, PART, power)
    return []


mark(new_budget, hook("enter", ALLOCATION))
