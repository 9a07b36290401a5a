"""What a part adds to its ship's counter on the tactical map, in shapes the map knows how to draw,
so the map reads every part through its declaration and names none.

A part declares `counter=` (a function of the part as one viewer sees it, giving `Counter`) and
`counter_events=` (its event kinds that place, hide or show a counter, with the actions whose log
rows carry them). The map asks every part of every ship and draws what comes back: a badge on the
counter, a ring of bands round it (shield projections), firing arcs, the hexes an owed move away
would reach, and where others last saw a hidden ship. Pure data; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Badge:
    """A short word on the counter ("P3", "40%"); of a ship's parts, the badge of greatest
    `weight` shows (a living ship's pain before its structure lost)."""

    text: str
    title: str
    kind: str
    weight: int = 0

    def shown(self) -> dict[str, str]:
        return {"text": self.text, "title": self.title, "kind": self.kind}


@dataclass(frozen=True)
class RingBand:
    """A band of the ring round the counter (a shield projection): degrees from the nose, its
    strength against its rating, and whether it is down."""

    name: str
    start: float
    end: float
    current: int
    rating: int
    collapsed: bool

    def shown(self) -> dict[str, Any]:
        return asdict(self)  # every field, by its own name: the map's JSON is the band itself


@dataclass(frozen=True)
class FiringArc:
    """Weapons that fire into one arc, degrees from the nose: a weapon's own (`arc` "own", with its
    `label`) or its section's quadrant ("fore", "port"…)."""

    section: str | None
    arc: str
    start: float
    end: float
    weapons: tuple[str, ...]
    label: str | None = None

    def shown(self) -> dict[str, Any]:
        out: dict[str, Any] = {"section": self.section, "arc": self.arc}
        if self.label is not None:
            out["label"] = self.label
        return out | {"start": self.start, "end": self.end, "weapons": list(self.weapons)}


@dataclass(frozen=True)
class Away:
    """A move directly away from damage the ship owes: the quadrant the damage came from, and why."""

    direction: str
    why: str


@dataclass(frozen=True)
class Counter:
    """What one part adds to its ship's counter, as one viewer sees the part."""

    badge: Badge | None = None
    ring: tuple[RingBand, ...] = ()
    arcs: tuple[FiringArc, ...] = ()
    away: tuple[Away, ...] = ()
    last_known: dict[str, Any] | None = None  # where others last saw the ship, while it is hidden


Draw = Callable[[dict[str, Any]], Counter]

# What an event does to the counter of its ship: `place` (the position in its data places it, or
# extends the path of a hidden one), `hide` (hidden from here on), `show` (in the open again at the
# position in its data), `seen` (a hidden ship seen again this turn, at its part's last known place).
Role = Literal["place", "hide", "show", "seen"]


@dataclass(frozen=True)
class CounterEvent:
    """An event kind that places, hides or shows a counter, and the actions whose log rows may
    carry it (the map reads only those rows)."""

    event: str
    role: Role
    actions: tuple[str, ...]
