"""Impulse drives (ST-01 … ST-04).

Free thrust may go through the impulse drive into any manoeuvre, up to the total; more may be bought
and the thrusters over-thrusted, which calls for a critical check as for standard thrusters (ST-01;
that check is a Babylon 5 Wars rule the seed does not give, so it is flagged for entry, GEN-03).
Impulse ships count as having gravitic drives (ST-02). Once every impulse thruster is lost, every
thrust cost doubles and initiative is −10 for the rest of the scenario (ST-03, a sticky flag).
Impulse thrusters cannot be called-shot targets (ST-04): such a damage entry is refused.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.rules.attack import DamageContext
from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import Settable, action, hook, mark, part, when
from app.rules.startrek.cloak import position_secret
from app.rules.startrek.common import (
    equipped,
    read_part,
    save_part,
    segment,
    sheet_of,
    ships_with,
    system_destroyed,
    systems_of_kind,
)
from app.rules.state import BattleState, Ship
from app.rules.system import MOVEMENT

PART = "impulse"
THRUSTER = "impulse_thruster"
LOST_INITIATIVE = -10

Manoeuvre = Literal["accel", "decel", "turn", "pivot", "roll"]


def _public_impulse(part: dict[str, Any], ship: Ship) -> dict[str, Any]:
    """Thrust spent while cloaked is movement, which only the commander and referee know (ST-22):
    others do not see this turn's thrust while the ship is hidden, nor after it decloaks at the end
    of the turn it spent that thrust in."""
    cloak = ship.part("cloak") or {}
    decloaked_now = cloak.get("decloaked_turn") is not None and cloak.get("decloaked_turn") == part.get(
        "thrust_turn"
    )
    if not (position_secret(ship) or decloaked_now):
        return part
    return {**part, "thrust_used": None, "thrust_hidden": True}


@part(
    PART,
    public_view=_public_impulse,
    settable=(
        Settable("free_thrust", "Free thrust"),
        Settable("all_thrusters_lost", "All impulse thrusters lost"),
    ),
)
class Impulse(BaseModel):
    """Thrust costs as the ship's data lists them; `turn_cost` is a multiple of speed (1 → speed 6 costs 6)."""

    free_thrust: int = Field(ge=0, le=100, description="thrust the impulse drive gives each turn")
    accel_decel: int = Field(ge=0, le=50)
    turn_cost: float = Field(default=1.0, ge=0, le=10, description="× speed, rounded up")
    turn_delay: float = Field(default=1.0, ge=0, le=10)
    pivot: int = Field(default=0, ge=0, le=50)
    roll: int = Field(default=0, ge=0, le=50)
    initiative: int = 0
    gravitic: bool = Field(default=True, description="ST-02: impulse ships count as gravitic")
    all_thrusters_lost: bool = False
    lost_turn: int | None = None
    thrust_used: int = 0
    thrust_turn: int | None = None

    @property
    def factor(self) -> int:
        return 2 if self.all_thrusters_lost else 1

    @property
    def effective_initiative(self) -> int:
        return self.initiative + (LOST_INITIATIVE if self.all_thrusters_lost else 0)


def thrust_cost(impulse: Impulse, manoeuvre: Manoeuvre, speed: int = 0) -> int:
    """ST-03: what one manoeuvre costs now, doubled once every impulse thruster is lost."""
    if manoeuvre in ("accel", "decel"):
        base = impulse.accel_decel
    elif manoeuvre == "turn":
        base = math.ceil(speed * impulse.turn_cost)
    elif manoeuvre == "pivot":
        base = impulse.pivot
    else:
        base = impulse.roll
    return base * impulse.factor


def thrusters_lost(ship: Ship) -> bool:
    thrusters = systems_of_kind(ship, THRUSTER)
    return bool(thrusters) and all(system_destroyed(ship, t.name) for t in thrusters)


def check_thrusters(state: BattleState, ship: Ship) -> list[Event]:
    """ST-03: flag the ship the first time it has no impulse thruster left; the flag never clears."""
    impulse = read_part(ship, PART, Impulse)
    if impulse is None or impulse.all_thrusters_lost or not thrusters_lost(ship):
        return []
    impulse.all_thrusters_lost = True
    impulse.lost_turn = state.clock.turn
    save_part(ship, PART, impulse)
    return [
        Event.about(
            ship,
            "impulse_lost",
            f"{ship.name} has lost every impulse thruster: all thrust costs double and initiative is "
            f"−{-LOST_INITIATIVE} for the rest of the scenario (ST-03).",
        )
    ]


def refuse_called_shot(ctx: DamageContext) -> None:
    """ST-04: impulse thrusters (and any system marked called_shot: false) are not called-shot targets."""
    if "called_shot" not in {e.lower() for e in ctx.entry.effects} or not ctx.entry.system:
        return
    sheet = sheet_of(ctx.target)
    if sheet is None:
        return
    for section in sheet.sections:
        for system in section.systems:
            if system.name.lower() == ctx.entry.system.lower() and (
                system.kind == THRUSTER or not system.called_shot
            ):
                raise RuleError(f"{system.name} cannot be the target of a called shot (ST-04)", "system")


def thruster_listener(ctx: DamageContext) -> None:
    ctx.events.extend(check_thrusters(ctx.state, ctx.target))


def new_turn(state: BattleState, dice: DiceSource) -> list[Event]:
    """Thrust used resets each turn; thruster losses from referee overrides are caught here too."""
    events: list[Event] = []
    for ship, impulse in ships_with(state, PART, Impulse):
        impulse.thrust_used = 0
        impulse.thrust_turn = state.clock.turn
        save_part(ship, PART, impulse)
        events.extend(check_thrusters(state, ship))
    return events


mark(new_turn, hook("enter", "turn"))


class Thrust(BaseModel):
    ship: str
    manoeuvre: Manoeuvre
    speed: int = Field(default=0, ge=0, le=50, description="current speed (turn cost depends on it)")
    times: int = Field(default=1, ge=1, le=20)


def thrust(state: BattleState, p: Thrust, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-01/ST-03: charge a manoeuvre to this turn's thrust; beyond the free thrust is over-thrust."""
    ship = state.ship(p.ship)
    impulse = read_part(ship, PART, Impulse)
    assert impulse is not None  # the gate (`equipped(PART, "impulse drive")`) refuses a ship without one
    events = check_thrusters(state, ship)
    impulse = read_part(ship, PART, Impulse)
    assert impulse is not None
    if impulse.thrust_turn != state.clock.turn:
        impulse.thrust_used, impulse.thrust_turn = 0, state.clock.turn
    each = thrust_cost(impulse, p.manoeuvre, p.speed)
    cost = each * p.times
    before = impulse.thrust_used
    impulse.thrust_used += cost
    save_part(ship, PART, impulse)
    doubled = " (doubled: no impulse thrusters, ST-03)" if impulse.all_thrusters_lost else ""
    what = f"{p.manoeuvre} ×{p.times}" if p.times > 1 else p.manoeuvre
    speed = f" at speed {p.speed}" if p.manoeuvre == "turn" else ""
    text = (
        f"{ship.name} spends {cost} thrust to {what}{speed}{doubled}: "
        f"{impulse.thrust_used} of {impulse.free_thrust} free thrust used."
    )
    over = impulse.thrust_used - max(impulse.free_thrust, before)
    if over > 0:
        text += (
            f" {over} is bought over-thrust: a critical check is due as for standard thrusters (B5 Wars; "
            "the referee enters it, ST-01)."
        )
    hidden = position_secret(ship)
    events.append(
        Event.about(
            ship,
            "thrust",
            text,
            visibility="owner" if hidden else "public",
            hidden_text="A cloaked ship manoeuvres." if hidden else None,
            data={"cost": cost, "each": each, "used": impulse.thrust_used, "over": max(over, 0)},
        )
    )
    return events


mark(
    thrust,
    action(
        "startrek.thrust", Thrust, "Spend impulse thrust", ship="ship", fits=equipped(PART, "impulse drive")
    ),
    when(MOVEMENT, refusal=segment("Thrusting")),
)
