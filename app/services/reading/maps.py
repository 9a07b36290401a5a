"""The map's reading of the log: the rows that place, hide or reveal ships, read once per battle and
seq, then filtered per viewer by the same `event_for` the log uses — so a ghost or a path is only
ever made of events that viewer may read.

Which event kinds those are, and which actions' rows carry them, is what the parts declare
(`PartSpec.counter_events`, with the ship's own move): other rows never move a counter, and most
damage rows are kept out, so drawing the map costs the moves, not the battle's length. Whether a
battle has a map is its system's `board`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle
from app.rules import STANDARD, Rules
from app.rules.core import Event
from app.rules.counters import CounterEvent
from app.rules.game import Game
from app.rules.map_view import counter_events, map_model, turn_of
from app.rules.ruleset import PartSpec
from app.rules.views import Viewer, event_for

Parts = Mapping[str, PartSpec]


def has_map(rules: Rules, system: str) -> bool:
    """Whether battles of this system are drawn on a hex map (its declared board)."""
    return rules.game(system).system.board == "hex"


def _declared(parts: Parts | None) -> dict[str, CounterEvent]:
    return counter_events(parts if parts is not None else STANDARD.parts())


def map_actions(parts: Parts | None = None) -> list[str]:
    """The actions whose rows may carry an event the map reads."""
    return sorted({a for e in _declared(parts).values() for a in e.actions})


def places_ships(row: ActionLog, parts: Parts | None = None) -> bool:
    """Whether a log row carries an event the map reads."""
    declared = _declared(parts)
    actions = {a for e in declared.values() for a in e.actions}
    return row.action_type in actions and any(e.get("kind") in declared for e in row.events)


@dataclass(frozen=True, slots=True)
class MapRow:
    """What the map reads of a log row: when it was made and its map events. The live path keeps
    these per battle for as long as the battle is watched, so they hold nothing else (a `ship.add`
    row's payload is the ship's whole definition)."""

    seq: int
    clock: str
    events: tuple[dict[str, Any], ...]

    @classmethod
    def of(cls, row: ActionLog, parts: Parts | None = None) -> MapRow:
        kinds = _declared(parts)
        return cls(row.seq, row.clock, tuple(e for e in row.events if e.get("kind") in kinds))


async def map_rows(
    session: AsyncSession, battle_id: str, until: int, parts: Parts | None = None
) -> list[MapRow]:
    """The rows up to `until` whose events place, hide or reveal a ship, oldest first."""
    rows = await session.scalars(
        select(ActionLog)
        .where(
            ActionLog.battle_id == battle_id,
            ActionLog.seq <= until,
            ActionLog.action_type.in_(map_actions(parts)),
        )
        .order_by(ActionLog.seq)
    )
    return [MapRow.of(row, parts) for row in rows if places_ships(row, parts)]


def map_events(
    rows: Sequence[MapRow], viewer: Viewer, finished: bool, parts: Parts | None = None
) -> list[tuple[int | None, dict[str, Any]]]:
    """(turn, event) for each map event of these rows as this viewer may read it."""
    kinds = _declared(parts)
    out = []
    for row in rows:
        mine = [e for e in row.events if e.get("kind") in kinds]
        if mine:
            turn = turn_of(row.clock)
            for raw in mine:
                shown = event_for(Event.model_validate(raw), viewer, finished)
                if shown is not None:
                    out.append((turn, shown.model_dump(mode="json")))
    return out


def map_for(
    view: dict[str, Any],
    rows: Sequence[MapRow],
    viewer: Viewer,
    finished: bool,
    select: str | None = None,
    all_ranges: bool = False,
    game: Game | None = None,
) -> dict[str, Any] | None:
    """The viewer's map (None for a system played without hexes); every pair's range with
    `all_ranges` (REST), else only the selection's (what a page draws). `game`: the battle's (by
    default the standard rules' for the view's system). Where the system repeats a step (SFB's 32
    impulses), the map carries the impulse chart over that many impulses."""
    game = game if game is not None else STANDARD.game(view.get("system", ""))
    if game.system.board != "hex":
        return None
    impulses = next((step.repeats for step in game.system.steps if step.repeats), None)
    events = map_events(rows, viewer, finished, game.parts)
    return map_model(view, events, select, all_ranges, game.parts, impulses)


async def read_map(
    session: AsyncSession,
    battle: Battle,
    view: dict[str, Any],
    seq: int,
    viewer: Viewer,
    select: str | None = None,
    all_ranges: bool = False,
    rules: Rules = STANDARD,
) -> dict[str, Any] | None:
    """The viewer's map as of `seq`, read on its own (REST and the map page)."""
    if not has_map(rules, view.get("system", "")):
        return None
    rows = await map_rows(session, battle.id, seq, rules.game(view["system"]).parts)
    return map_for(
        view, rows, viewer, battle.status == "finished", select, all_ranges, rules.game(view["system"])
    )


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
