"""The map's reading of the log (issue 15): the rows that place, hide or reveal ships, read once per
battle and seq, then filtered per viewer by the same `event_for` the log uses — so a ghost or a path
is only ever made of events that viewer may read."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle
from app.rules.core import Event
from app.rules.map_view import has_map, map_model, turn_of
from app.rules.views import Viewer, event_for

# The actions whose events the map reads: moves, cloak and decloak, a detection's ruling, and damage
# (flash or shredder collateral reveals a cloaked ship, ST-24). Other rows never move a counter.
MAP_ACTIONS = (
    "ship.move",
    "startrek.cloak",
    "startrek.decloak",
    "startrek.rule_detection",
    "damage.apply",
)
MAP_KINDS = frozenset({"move", "cloak", "decloak", "cloak_detection", "cloak_revealed"})


def places_ships(row: ActionLog) -> bool:
    """Whether a log row carries an event the map reads (most damage rows do not: they are kept
    out of the map's rows, so drawing the map costs the moves, not the battle's length)."""
    return row.action_type in MAP_ACTIONS and any(e.get("kind") in MAP_KINDS for e in row.events)


async def map_rows(session: AsyncSession, battle_id: str, until: int) -> list[ActionLog]:
    """The rows up to `until` whose events place, hide or reveal a ship, oldest first."""
    rows = await session.scalars(
        select(ActionLog)
        .where(
            ActionLog.battle_id == battle_id,
            ActionLog.seq <= until,
            ActionLog.action_type.in_(MAP_ACTIONS),
        )
        .order_by(ActionLog.seq)
    )
    return [row for row in rows if places_ships(row)]


def map_events(
    rows: list[ActionLog], viewer: Viewer, finished: bool
) -> list[tuple[int | None, dict[str, Any]]]:
    """(turn, event) for each map event of these rows as this viewer may read it."""
    out = []
    for row in rows:
        mine = [e for e in row.events if e.get("kind") in MAP_KINDS]
        if mine:
            turn = turn_of(row.clock)
            for raw in mine:
                shown = event_for(Event.model_validate(raw), viewer, finished)
                if shown is not None:
                    out.append((turn, shown.model_dump(mode="json")))
    return out


def map_for(
    view: dict[str, Any],
    rows: list[ActionLog],
    viewer: Viewer,
    finished: bool,
    select: str | None = None,
    all_ranges: bool = False,
) -> dict[str, Any] | None:
    """The viewer's map (None for a system played without hexes); every pair's range with
    `all_ranges` (REST), else only the selection's (what a page draws)."""
    if not has_map(view.get("system", "")):
        return None
    return map_model(view, map_events(rows, viewer, finished), select, all_ranges)


async def read_map(
    session: AsyncSession,
    battle: Battle,
    view: dict[str, Any],
    seq: int,
    viewer: Viewer,
    select: str | None = None,
    all_ranges: bool = False,
) -> dict[str, Any] | None:
    """The viewer's map as of `seq`, read on its own (REST and the map page)."""
    if not has_map(view.get("system", "")):
        return None
    rows = await map_rows(session, battle.id, seq)
    return map_for(view, rows, viewer, battle.status == "finished", select, all_ranges)


DRAWING_ONLY = (
    "tile",
    "tile_width",
    "tile_height",
    "width",
    "height",
    "column_labels",
    "row_labels",
    "viewbox",
)


def as_data(model: dict[str, Any] | None) -> dict[str, Any] | None:
    """The map for REST: counters, ghosts, arcs and ranges, without the SVG drawing."""
    if model is None:
        return None
    bounds = {k: v for k, v in model["bounds"].items() if k not in DRAWING_ONLY}
    return {**{k: v for k, v in model.items() if k not in ("size", "selected")}, "bounds": bounds}
