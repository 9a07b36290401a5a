"""Ramming with shields (ST-09): the in-arc projection's current value adds to the ramming factor,
whether the ship rams or is rammed. Ramming happens in the Movement step (GEN-01)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark, when
from app.rules.startrek.common import read_part, segment
from app.rules.startrek.shields import PART, Shields, projection_for, shields_down
from app.rules.state import BattleState, Ship
from app.rules.system import MOVEMENT


def ramming_factor(state: BattleState, ship: Ship, direction: str | None, base: int) -> tuple[int, str]:
    """(factor with shields, how it reads): base + the in-arc projection's current value (ST-09)."""
    shields = read_part(ship, PART, Shields)
    if shields is None:
        return base, f"{ship.name}'s ramming factor is {base} (no shields)"
    down = shields_down(state, ship, shields)
    if down:
        return base, f"{ship.name}'s ramming factor is {base}: its shields add nothing ({down})"
    projection = projection_for(shields, direction)
    total = base + projection.value
    return total, (
        f"{ship.name}'s ramming factor is {base} + {projection.name} shield {projection.value} = {total} (ST-09)"
    )


class Ram(BaseModel):
    ship: str = Field(description="the rammer or the rammed ship")
    factor: int = Field(ge=0, le=100000, description="its ramming factor before shields")
    direction: str | None = Field(default=None, description="arc of the collision, or a spline pick")


def ram(state: BattleState, p: Ram, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-09: the ramming factor with the in-arc projection's current value added; the ram itself is
    resolved by the full rules (GEN-03)."""
    ship = state.ship(p.ship)
    total, text = ramming_factor(state, ship, p.direction, p.factor)
    return [Event.about(ship, "ramming_factor", text + ".", data={"factor": total})]


mark(
    ram,
    action("startrek.ramming_factor", Ram, "Work out a ramming factor with shields", ship="ship"),
    when(MOVEMENT, refusal=segment("Ramming")),
)
