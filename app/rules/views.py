"""What one viewer may see of a battle (per-viewer views). Every door renders through here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.rules.core import Actor, Event
from app.rules.registry import PART_PUBLIC_VIEWS, POSITION_HIDERS
from app.rules.state import BattleState, Ship


@dataclass(frozen=True)
class Viewer:
    """Who looks: the referee sees everything; a player sees their own ships in full."""

    participant_id: str | None
    role: str
    ships: frozenset[str]

    @classmethod
    def of(cls, actor: Actor) -> Viewer:
        return cls(actor.participant_id, actor.role, actor.ships)

    @property
    def is_referee(self) -> bool:
        return self.role == "referee"

    def sees_all_of(self, ship_id: str | None) -> bool:
        return self.is_referee or (ship_id is not None and ship_id in self.ships)


def position_hidden(ship: Ship) -> bool:
    return any(hider(ship) for hider in POSITION_HIDERS)


def public_ship(ship: Ship) -> dict[str, Any]:
    """The ship as those who do not command it may see it: its stored shape, hidden things taken out."""
    data = ship.model_dump(mode="json")
    if position_hidden(ship):
        data["position"] = None
    parts: dict[str, Any] = {}
    for name, part in ship.parts.items():
        public = PART_PUBLIC_VIEWS.get(name)
        shown = part if public is None else public(part, ship)
        if shown is not None:
            parts[name] = shown
    data["parts"] = parts
    return data


def ship_view(ship: Ship, viewer: Viewer) -> dict[str, Any]:
    data = ship.model_dump(mode="json") if viewer.sees_all_of(ship.id) else public_ship(ship)
    data["commanded"] = viewer.sees_all_of(ship.id)
    data["position_hidden"] = position_hidden(ship)
    return data


def battle_view(state: BattleState, viewer: Viewer) -> dict[str, Any]:
    return {
        "system": state.system,
        "clock": state.clock.model_dump(),
        "finished": state.finished,
        "options": state.options,
        "ships": {sid: ship_view(ship, viewer) for sid, ship in state.ships.items()},
    }


def event_for(
    event: Event, owner_of_ship: str | None, viewer: Viewer, finished: bool = False
) -> Event | None:
    """The event as this viewer may read it: whole, replaced by its hidden_text, or not at all.

    Hidden events stay hidden after the end too, except to the referee, unless the rule opened them
    (events of kind listed in their data["reveal_at_end"] become public when the battle ends)."""
    if event.visibility == "public" or viewer.is_referee:
        return event
    if finished and event.data.get("reveal_at_end"):
        return event
    if event.visibility == "owner" and event.ship is not None and event.ship in viewer.ships:
        return event
    if event.hidden_text is None:
        return None
    return Event(kind=event.kind, text=event.hidden_text, ship=event.ship, visibility="public")
