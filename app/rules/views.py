"""What one viewer may see of a battle (per-viewer views). Every door renders through here.

A viewer is an `Actor` (core.py): the referee sees everything; a player sees their own ships in
full and the public view of the others, which each part declares (`PartSpec.public_view`)."""

from __future__ import annotations

from typing import Any, cast

from app.rules.core import Actor, Event, Role
from app.rules.state import BattleState, Ship

Viewer = Actor  # who looks is who acts: one notion of a participant and what they command


def viewer_for(participant_id: str | None, role: str, state: BattleState) -> Actor:
    """The actor a participant is in this state: the ships they command now."""
    ships = frozenset(sid for sid, ship in state.ships.items() if ship.owner == participant_id)
    return Actor(participant_id, cast(Role, role), ships)  # a seat's stored role is one of Role's names


def ship_view(state: BattleState, ship: Ship, viewer: Actor) -> dict[str, Any]:
    game = state.game
    data = ship.model_dump(mode="json") if viewer.sees_all_of(ship.id) else game.public_ship(ship)
    data["commanded"] = viewer.sees_all_of(ship.id)
    data["position_hidden"] = game.position_hidden(ship)
    return data


def battle_view(state: BattleState, viewer: Actor) -> dict[str, Any]:
    return {
        "system": state.system,
        "clock": state.clock.model_dump(),
        "finished": state.finished,
        "options": state.options,
        "ships": {sid: ship_view(state, ship, viewer) for sid, ship in state.ships.items()},
    }


def _commanded_then(event: Event, viewer: Actor) -> bool:
    """Whether the viewer commanded the event's ship when it happened (older log rows, written
    before the commander was recorded, fall back to who commands it now)."""
    if "commander" in event.data:
        return event.data["commander"] is not None and event.data["commander"] == viewer.participant_id
    return event.ship in viewer.ships


def event_for(event: Event, viewer: Actor, finished: bool = False) -> Event | None:
    """The event as this viewer may read it: whole, replaced by its hidden_text, or not at all.

    Hidden events stay hidden after the end too, except to the referee, unless the rule opened them
    (events of kind listed in their data["reveal_at_end"] become public when the battle ends)."""
    if event.visibility == "public" or viewer.is_referee:
        return event
    if finished and event.data.get("reveal_at_end"):
        return event
    if event.visibility == "owner" and event.ship is not None and _commanded_then(event, viewer):
        return event
    if event.hidden_text is None:
        return None
    return Event(kind=event.kind, text=event.hidden_text, ship=event.ship, visibility="public")
