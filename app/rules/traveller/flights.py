"""Fighter flights (TR-25, TR-25a): many craft acting as one unit.

A flight fights with the average skill and the lowest thrust of its craft, and it is one target
for barrages: −4 to hit, and it loses whole craft whose Hull + Structure add up to the barrage
total, no more than the lower of the mounts firing and the gunners serving them.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from app.rules.core import Actor, Event, NotAllowed, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import Settable, action, mark, part
from app.rules.state import BattleState, Ship
from app.rules.traveller.ship import Battery, Combatant, strip_orders

FLIGHT_BARRAGE_DM = -4


@part(
    "flight",
    public_view=lambda part, ship: strip_orders(part),
    settable=(Settable("lost", "Craft lost", upto="craft"),),
)
class Flight(Combatant):
    """Batteries give mounts per craft; a flight's crew strength stays Full (its losses are craft)."""

    craft_type: str = Field(min_length=1, max_length=60)
    craft: int = Field(ge=1, le=500)
    lost: int = Field(default=0, ge=0)
    craft_tons: float = Field(default=10, ge=1, le=5000)
    craft_hull: int = Field(ge=0, le=1000)
    craft_structure: int = Field(ge=1, le=1000)
    craft_skills: list[int] = Field(default_factory=list, description="each craft's skill; average used")
    craft_thrusts: list[int] = Field(default_factory=list, description="each craft's thrust; lowest used")
    carrier: str | None = Field(default=None, description="ship id it was launched from")
    launched_round: int | None = Field(default=None, description="round it was launched (Blast Them!)")

    @model_validator(mode="after")
    def _flight(self) -> Flight:
        if self.lost > self.craft:
            raise ValueError("a flight cannot lose more craft than it has")
        if self.craft_skills:
            self.crew_skill = min(max(round(sum(self.craft_skills) / len(self.craft_skills)), 0), 4)
        if self.craft_thrusts:
            self.thrust = min(self.craft_thrusts)
        return self

    @property
    def remaining(self) -> int:
        return self.craft - self.lost

    @property
    def craft_points(self) -> int:
        return self.craft_hull + self.craft_structure

    def mounts_of(self, battery: Battery) -> int:
        return battery.mounts * self.remaining


def craft_lost(flight: Flight, total: int, mounts: int, gunners: int | None) -> tuple[int, int, int]:
    """TR-25: (craft lost, cap applied, excess damage). The cap is the lower of the mounts firing
    and the battery's average gunnery crew (mounts when the ship data gives no gunners)."""
    cap = min(mounts, gunners if gunners is not None else mounts)
    by_points = total // flight.craft_points  # at least 1: craft_structure is validated ≥ 1
    lost = min(by_points, cap, flight.remaining)
    excess = total - lost * flight.craft_points
    return lost, cap, max(excess, 0)


def load_flight(ship: Ship) -> Flight:
    return Flight.model_validate(ship.parts["flight"])


class CraftAttack(BaseModel):
    """TR-25a: one craft of a flight attacked on its own, resolved at the table by the core rules."""

    flight: str = Field(description="the flight's ship id")
    source: str | None = Field(default=None, description="the attacking ship, if it is in the battle")
    craft_destroyed: int = Field(ge=0, le=500, description="craft the attacks destroyed")
    outcome: str = Field(default="", max_length=200, description="what happened, in words")


def _may_attack_craft(state: BattleState, p: CraftAttack, actor: Actor) -> None:
    if actor.is_referee or (p.source is not None and actor.commands(p.source)):
        return
    raise NotAllowed("enter attacks made by a ship you command, or as referee", "source")


def craft_attack(state: BattleState, p: CraftAttack, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-25a: single craft inside a flight may be attacked on their own by the normal rules; the −4
    and the craft-loss rule belong to barrages against the flight, so none of them applies here —
    the players enter what the core rules gave (GEN-03) and the flight loses those craft."""
    target = state.ship(p.flight, "flight")
    if "flight" not in target.parts:
        raise RuleError(f"{target.name} is not a flight", "flight")
    flight = load_flight(target)
    if p.craft_destroyed > flight.remaining:
        raise RuleError(f"{target.name} has only {flight.remaining} craft left", "craft_destroyed")
    flight.lost += p.craft_destroyed
    target.parts["flight"] = flight.model_dump(mode="json")
    who = state.ships[p.source].name if p.source in state.ships else "An attacker"
    what = f" ({p.outcome})" if p.outcome else ""
    text = (
        f"{who} attacks single craft of {target.name} by the core rules{what}: "
        f"{p.craft_destroyed} destroyed; {flight.remaining} of {flight.craft} left (TR-25a)."
    )
    events = [Event.about(target, "craft_attack", text, data={"lost": p.craft_destroyed})]
    if flight.remaining == 0 and not target.destroyed:
        target.destroyed = True
        events.append(Event.about(target, "ship_destroyed", f"{target.name} has no craft left."))
    return events


mark(
    craft_attack,
    action(
        "traveller.craft_attack",
        CraftAttack,
        "Enter an attack on single craft of a flight",
        authorise=_may_attack_craft,
    ),
)
