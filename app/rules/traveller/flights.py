"""Fighter flights (TR-25, TR-25a): many craft acting as one unit.

A flight fights with the average skill and the lowest thrust of its craft, and it is one target
for barrages: −4 to hit, and it loses whole craft whose Hull + Structure add up to the barrage
total, no more than the lower of the mounts firing and the gunners serving them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from app.rules.registry import part_schema
from app.rules.state import Ship
from app.rules.traveller.ship import Battery, Combatant, strip_orders

FLIGHT_BARRAGE_DM = -4


@part_schema("flight", public_view=lambda part, ship: strip_orders(part))
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

    @property
    def is_flight(self) -> bool:
        return True

    @property
    def tons(self) -> float:
        return self.craft_tons

    def mounts_of(self, battery: Battery) -> int:
        return battery.mounts * self.remaining


def craft_lost(flight: Flight, total: int, mounts: int, gunners: int | None) -> tuple[int, int, int]:
    """TR-25: (craft lost, cap applied, excess damage). The cap is the lower of the mounts firing
    and the battery's average gunnery crew (mounts when the ship data gives no gunners)."""
    cap = min(mounts, gunners if gunners is not None else mounts)
    by_points = total // flight.craft_points if flight.craft_points else flight.remaining
    lost = min(by_points, cap, flight.remaining)
    excess = total - lost * flight.craft_points
    return lost, cap, max(excess, 0)


def load_flight(ship: Ship) -> Flight:
    return Flight.model_validate(ship.parts["flight"])


def flight_part(ship: Ship) -> dict[str, Any] | None:
    return ship.parts.get("flight")
