"""What an attack is, for every ruleset: the damage a player enters (GEN-03) and the context it
passes through the ruleset's damage stages. Kept apart from the generic sheet so a ruleset's
stages depend on this and not on another ruleset. Where both ships stand on the map, `map_bearing`
gives the bearing the fire arrives from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event
from app.rules.dice import DiceSource
from app.rules.geometry import bearing, map_place
from app.rules.state import BattleState, Ship


class DamageEntry(BaseModel):
    """Damage a player enters from the table (amount, who fired, from where, where it landed)."""

    target: str = Field(description="id of the ship hit")
    amount: int = Field(ge=1, le=10000, description="damage points of this hit")
    source: str | None = Field(default=None, description="id of the firing ship, if it is in the battle")
    direction: str | None = Field(
        default=None, max_length=20, description="arc the fire came from: fore, aft…"
    )
    section: str | None = Field(
        default=None, max_length=40, description="section hit (default: by direction)"
    )
    system: str | None = Field(default=None, max_length=60, description="system hit inside the section")
    weapon: str = Field(default="", max_length=60)
    effects: list[str] = Field(default_factory=list, description="weapon traits, e.g. energy_drain, flash")


@dataclass
class DamageContext:
    state: BattleState
    target: Ship
    entry: DamageEntry
    dice: DiceSource
    remaining: int
    actor: Actor | None = None  # who entered the hit (the referee may enter what players may not)
    events: list[Event] = field(default_factory=list)
    absorbed: int = 0
    to_armour: int = 0
    to_internal: int = 0
    lost: int = 0
    sections_hit: list[str] = field(default_factory=list)
    from_map: bool = False  # the entry's direction was filled from the ships' hex positions

    def tell(self, kind: str, text: str, **extra: Any) -> None:
        """Log what the hit did: every damage stage's event is about the ship hit."""
        self.events.append(Event(kind=kind, ship=self.target.id, text=text, **extra))


def map_bearing(state: BattleState, entry: DamageEntry) -> float | None:
    """Where the firing ship lies from the target, in degrees clockwise from the target's nose, when
    the map says: the target has a hex and a facing, the firing ship a hex, neither position is
    hidden (a cloaked ship's counter is off the board) and they are not in the same hex."""
    source = state.ships.get(entry.source) if entry.source else None
    target = state.ships.get(entry.target)
    if source is None or target is None:
        return None
    if state.game.position_hidden(source) or state.game.position_hidden(target):
        return None
    there, here = map_place(source.position), map_place(target.position)
    if there is None or here is None or here[1] is None or there[0] == here[0]:
        return None
    return bearing(here[0], here[1], there[0])
