"""Value types every rule speaks: actors, actions, rolls, events, outcomes, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

Role = Literal["referee", "player", "spectator", "bot"]
Visibility = Literal["public", "owner", "referee"]


class RuleError(Exception):
    """An action the rules do not allow; `field` names the input at fault when there is one."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "reason": self.message}


class NotAllowed(RuleError):
    """The actor may not do this (not their ship, not their role): doors answer 403."""


class NeedRoll(Exception):
    """Raised by entered dice when the rule needs a value the player has not given yet."""

    def __init__(self, sides: int, purpose: str, ship: str | None, index: int) -> None:
        super().__init__(f"roll needed: 1d{sides} for {purpose}")
        self.sides = sides
        self.purpose = purpose
        self.ship = ship
        self.index = index

    def as_dict(self) -> dict[str, Any]:
        return {"sides": self.sides, "purpose": self.purpose, "ship": self.ship, "index": self.index}


@dataclass(frozen=True)
class Actor:
    """Who acts or looks: a participant id, their role, and the ships they command. The same
    object decides what they may do (the engine) and what they may see (the views)."""

    participant_id: str | None
    role: Role
    ships: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_referee(self) -> bool:
        return self.role == "referee"

    def commands(self, ship_id: str) -> bool:
        return self.is_referee or ship_id in self.ships

    def sees_all_of(self, ship_id: str | None) -> bool:
        return self.is_referee or (ship_id is not None and ship_id in self.ships)


REFEREE = Actor("system", "referee")


@dataclass(frozen=True)
class Action:
    type: str
    payload: dict[str, Any]
    actor: Actor


class Roll(BaseModel):
    """One roll as the log shows it: what was rolled, for what, against what, and what it meant."""

    expr: str  # "1d6", "2d6+3", "1d100"
    dice: list[int]
    modifier: int = 0
    total: int
    purpose: str
    ship: str | None = None
    target: str | None = None  # "≤ 5", "8+"
    outcome: str | None = None  # "rises", "fails"

    def sentence(self) -> str:
        text = f"{self.purpose}: {self.expr} = {self.total}"
        if self.target:
            text += f", needs {self.target}"
        if self.outcome:
            text += f" → {self.outcome}"
        return text


class HasId(Protocol):
    """What an event reads of the ship it is about: its id (the state's `Ship` is built on this
    module, so it is not imported here)."""

    id: str


class Event(BaseModel):
    """Something that happened, in a sentence, with who may see it.

    `visibility`: public; owner (the ship's commander and the referee); referee only.
    `hidden_text` is what viewers who may not see the event get instead (None: nothing at all).
    """

    kind: str
    text: str
    ship: str | None = None
    visibility: Visibility = "public"
    hidden_text: str | None = None
    rolls: list[Roll] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def about(cls, ship: HasId, kind: str, text: str, **fields: Any) -> Event:
        """An event about one ship, most of what the rules log: it names the ship, whose commander
        may then see an owner-only event; `fields` are the others (visibility, rolls, data…)."""
        return cls(kind=kind, text=text, ship=ship.id, **fields)


class NoPayload(BaseModel):
    """The payload of an action that needs nothing but who makes it."""


class ShipRef(BaseModel):
    """The payload of every action that names only the ship it concerns."""

    ship: str = Field(description="the ship's id")


@dataclass
class Outcome:
    """What an action made: the new state (a BattleState) and the events that say what happened."""

    state: Any
    events: list[Event]
