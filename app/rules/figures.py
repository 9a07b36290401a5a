"""What a part tells the battle report, in shapes the report knows how to chart, so the report
reads every part through its declaration and names none.

A part declares `report=` (a function of the part as one viewer sees it, giving `Figures`) and
`turning=` (its event kinds that are turning points of the battle). The report asks every part of
every ship at each turn's end and charts what comes back: a level on a banded track, gauges against
their ratings, sections' Hull and Structure, any other named value, and what damage can still take
off the ship (its fall is the damage taken). Pure data; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Band:
    """A stretch of a track with its own name (a reaction chart's pain boxes)."""

    name: str
    low: int
    high: int


@dataclass(frozen=True)
class Track:
    """A level on a track read against bands (a living ship's pain): charted from 0 to `top`, the
    bands drawn behind it, with the reaction it reads and whether it has ended the ship."""

    level: int
    reaction: str
    dead: bool
    top: int
    bands: tuple[Band, ...] = ()


@dataclass(frozen=True)
class Gauge:
    """A strength against its rating that can go down (a shield projection)."""

    name: str
    strength: int
    rating: int
    collapsed: bool


@dataclass(frozen=True)
class Section:
    """What one section has left of its Hull and Structure."""

    name: str
    hull: int
    hull_max: int
    structure: int
    structure_max: int
    destroyed: bool


@dataclass(frozen=True)
class Value:
    """Any other figure a part reports: a named value, with the most it can be (None: no ceiling)."""

    name: str
    value: float
    most: float | None = None


@dataclass(frozen=True)
class Figures:
    """One part's figures for one ship, as one viewer sees the part."""

    points: int | None = None  # what damage can still take off the ship through this part
    track: Track | None = None
    gauges: tuple[Gauge, ...] = ()
    sections: tuple[Section, ...] = ()
    values: tuple[Value, ...] = ()


Report = Callable[[dict[str, Any]], Figures]


@dataclass(frozen=True)
class Turning:
    """An event kind that is a turning point of the battle: the report lists each such event the
    viewer may read, under `kind` ("shield", "pain"…), headed `label`. `holds` says whether one
    event of the kind is one (a pain reaction that reads ZERO is none)."""

    event: str
    kind: str
    label: str
    holds: Callable[[dict[str, Any]], bool] | None = None

    def of(self, event: dict[str, Any]) -> bool:
        return self.holds is None or self.holds(event)
