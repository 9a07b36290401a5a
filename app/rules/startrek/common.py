"""Small helpers every Star Trek module shares: reading the ship sheet, wording a refusal outside
the segment, and writing parts back. Kept here so each rule module reads as its rule and nothing else."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from pydantic import BaseModel

from app.rules.core import Event, RuleError
from app.rules.generic.sheet import Section, Sheet, SystemBoxes
from app.rules.parsed import parsed, store
from app.rules.state import BattleState, Ship

M = TypeVar("M", bound=BaseModel)


def ships_in_order(state: BattleState) -> list[Ship]:
    """The ships by id, so the turn hooks log in the same order on every database (PostgreSQL's JSONB
    does not keep the order ships were added in)."""
    return [state.ships[sid] for sid in sorted(state.ships)]


def ships_with(state: BattleState, name: str, model: type[M]) -> Iterator[tuple[Ship, M]]:
    """Each ship holding the part, in order, with the part read: a turn's hooks walk only these."""
    for ship in ships_in_order(state):
        part = read_part(ship, name, model)
        if part is not None:
            yield ship, part


def read_part(ship: Ship, name: str, model: type[M]) -> M | None:
    """The ship's part as its model, or None when the ship does not have it."""
    return parsed(ship, name, model)


def equipped(name: str, what: str) -> Callable[[BattleState, Ship], str | None]:
    """The gate's question (`fits`) for an action that needs a part: the ship carries it, else the
    refusal its handler would give ("Excelsior has no cloaking device")."""

    def fits(state: BattleState, ship: Ship) -> str | None:
        return None if ship.part(name) is not None else f"{ship.name} has no {what}"

    return fits


def need_part(ship: Ship, name: str, model: type[M], what: str, field: str = "ship") -> M:
    """The part, or a RuleError that says which ship lacks which equipment, naming the payload's
    field that chose the ship (the acting ship's `ship`, or the `target` it looks at)."""
    part = read_part(ship, name, model)
    if part is None:
        raise RuleError(f"{ship.name} has no {what}", field)
    return part


def save_part(ship: Ship, name: str, part: BaseModel) -> None:
    store(ship, name, part)


def sheet_of(ship: Ship) -> Sheet | None:
    return parsed(ship, "sheet", Sheet)


def _named_system(ship: Ship, name: str | None) -> tuple[Section, SystemBoxes] | None:
    """The first sheet system with this name (case-insensitive) and the section holding it, or None."""
    sheet = sheet_of(ship)
    if sheet is None or not name:
        return None
    for section in sheet.sections:
        for system in section.systems:
            if system.name.lower() == name.lower():
                return section, system
    return None


def sheet_system(ship: Ship, name: str | None) -> SystemBoxes | None:
    """The sheet system with this name (case-insensitive), or None."""
    found = _named_system(ship, name)
    return None if found is None else found[1]


def system_destroyed(ship: Ship, name: str | None) -> bool:
    """A named system counts as destroyed when its boxes are all gone, or its section is."""
    found = _named_system(ship, name)
    if found is None:
        return False
    section, system = found
    return system.destroyed or section.destroyed


def systems_of_kind(ship: Ship, kind: str) -> list[SystemBoxes]:
    sheet = sheet_of(ship)
    return [] if sheet is None else sheet.systems_of_kind(kind)


def segment(what: str) -> str:
    """The refusal for an action outside its segment, as every Star Trek rule words it."""
    return what + " happens in the {step} segment; it is now {now}"


def gone_to_warp(ship: Ship) -> str | None:
    """A ship gone to warp has left the battle (ST-17): it takes no further actions."""
    warp = ship.part("warp")
    if warp is not None and warp.get("departed"):
        return f"{ship.name} has gone to warp and left the battle"
    return None


def owner_event(ship: Ship, kind: str, text: str, hidden_text: str, **extra: Any) -> Event:
    """An event only the ship's commander (and the referee) reads; others read `hidden_text`:
    the shape of every Star Trek choice made in secret (power, arcs, cloak, warp)."""
    return Event.about(ship, kind, text, visibility="owner", hidden_text=hidden_text, **extra)


def ratio(current: int, rating: int) -> str:
    return f"{current}/{rating}"
