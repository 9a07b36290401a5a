"""Hex geometry for SFB and Babylon 5 Wars maps: printed hex numbers, facings, distance, bearings,
and arcs. Pure arithmetic; the rules use it only where ships carry hex positions.

Conventions (as the maps print them; `docs/decisions.md`, "Map geometry"):

* **Hexes are flat-topped, in vertical columns.** A printed number "CCRR" is column then row, both
  from 01, with "0101" the top-left hex. Even-numbered printed columns (02, 04…) sit half a hex lower
  than their neighbours: "odd-q" offset counting columns from 0, as SFB maps are drawn.
* **Facing 1 is straight up the map** (towards row 01; SFB's direction A), then clockwise: 2 up-right,
  3 down-right, 4 down, 5 down-left, 6 up-left. Facings are 1–6 as printed, never 0–5.
* **Bearings** are degrees clockwise from a ship's nose, in [0, 360): 0 dead ahead, 90 to
  starboard, 180 astern, 270 to port; rounded to 1e-9° so a hex exactly on a line reads exactly.
* **Arcs** are (start, end) in those degrees, clockwise from start, half-open [start, end), and may
  wrap past 360° ((315, 45) is the fore quadrant); (0, 360) is the whole circle.

Internally a hex is an axial (q, r) pair; cube coordinates (q, r, -q-r) give distance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

HEX_PATTERN = re.compile(r"^[0-9]{4}$")
FACINGS = range(1, 7)
DEGREES_PER_FACING = 60
QUADRANTS = (("fore", 315, 45), ("starboard", 45, 135), ("aft", 135, 225), ("port", 225, 315))


class Hex(NamedTuple):
    """Axial coordinates: q the column (0 for printed column 01), r the axial row."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r


class Arc(NamedTuple):
    start: float
    end: float

    @property
    def span(self) -> float:
        """Degrees covered, clockwise from start: 360 for (0, 360), 0 for (a, a)."""
        if self.start == self.end:
            return 0.0
        width = (self.end - self.start) % 360
        return 360.0 if width == 0 else float(width)


# --- printed numbers ------------------------------------------------------------------------------


def parse_hex(printed: str) -> Hex:
    """ "CCRR" (column, row, from 0101 top-left) to axial; odd-q offset (even printed columns lower)."""
    if not HEX_PATTERN.fullmatch(printed or ""):
        raise ValueError(f"a hex is four digits, column then row (e.g. 0405), not {printed!r}")
    column, row = int(printed[:2]) - 1, int(printed[2:]) - 1
    if column < 0 or row < 0:
        raise ValueError(f"hex {printed!r}: columns and rows are numbered from 01")
    return Hex(column, row - (column - (column & 1)) // 2)


def printed(hex_: Hex) -> str:
    """Axial to "CCRR"; only hexes on a printed map (columns and rows 01–99) have a number."""
    column = hex_.q
    row = hex_.r + (column - (column & 1)) // 2
    if not (0 <= column <= 98 and 0 <= row <= 98):
        raise ValueError(f"hex {hex_} is off the printed map (columns and rows 01–99)")
    return f"{column + 1:02d}{row + 1:02d}"


def map_place(position: dict[str, Any] | None) -> tuple[Hex, int | None] | None:
    """A stored ship position's hex and facing (None when it has no hex: a position off the map)."""
    if not position or not isinstance(position.get("hex"), str):
        return None
    try:
        hex_ = parse_hex(position["hex"])
    except ValueError:
        return None
    facing = position.get("facing")
    return hex_, facing if isinstance(facing, int) and facing in FACINGS else None


def check_facing(facing: int) -> int:
    if facing not in FACINGS:
        raise ValueError(f"a facing is a hex side 1–6, not {facing!r}")
    return facing


# --- distance, neighbours, lines ------------------------------------------------------------------

# Axial steps for facings 1–6 (up, then clockwise) on flat-topped hexes.
STEPS = {1: Hex(0, -1), 2: Hex(1, -1), 3: Hex(1, 0), 4: Hex(0, 1), 5: Hex(-1, 1), 6: Hex(-1, 0)}


def distance(a: Hex, b: Hex) -> int:
    """Hexes moved to get from a to b."""
    return (abs(a.q - b.q) + abs(a.r - b.r) + abs(a.s - b.s)) // 2


def neighbour(hex_: Hex, facing: int) -> Hex:
    """The adjacent hex in the direction of a facing."""
    step = STEPS[check_facing(facing)]
    return Hex(hex_.q + step.q, hex_.r + step.r)


# --- bearings and arcs ----------------------------------------------------------------------------


def _centre(hex_: Hex) -> tuple[float, float]:
    """Centre of a flat-topped hex of unit size; y grows down the map."""
    return 1.5 * hex_.q, math.sqrt(3) * (hex_.r + hex_.q / 2)


def heading(facing: int) -> int:
    """The facing as a map direction: degrees clockwise from straight up."""
    return (check_facing(facing) - 1) * DEGREES_PER_FACING


def bearing(origin: Hex, facing: int, other: Hex) -> float:
    """Where `other` lies seen from a ship in `origin` facing `facing`: degrees clockwise from its
    nose, in [0, 360)."""
    if origin == other:
        raise ValueError("the two hexes are the same: there is no bearing")
    (x0, y0), (x1, y1) = _centre(origin), _centre(other)
    compass = math.degrees(math.atan2(x1 - x0, y0 - y1))
    relative = round((compass - heading(facing)) % 360, 9)
    return 0.0 if relative >= 360 else relative + 0.0


def in_arc(degrees: float, arc: Arc | tuple[float, float]) -> bool:
    start, end = arc
    return (degrees - start) % 360 < Arc(start, end).span


def arcs_containing(degrees: float, arcs: Sequence[tuple[str, Arc | tuple[float, float]]]) -> list[str]:
    """The names of the arcs a bearing falls in."""
    return [name for name, arc in arcs if in_arc(degrees, arc)]


def on_boundary(degrees: float, arcs: Sequence[tuple[str, Arc | tuple[float, float]]]) -> list[str]:
    """The arcs whose edge this bearing lies exactly on (a spline), both sides; [] if none."""
    touching = [
        name
        for name, (start, end) in arcs
        if Arc(start, end).span < 360 and degrees % 360 in (start % 360, end % 360)
    ]
    return touching if len(touching) > 1 else []


def quadrant(degrees: float) -> str:
    """fore / starboard / aft / port: the 90° quadrant a bearing falls in (fore is 315°–45°)."""
    return next(name for name, start, end in QUADRANTS if in_arc(degrees, (start, end)))


def tiling_problems(arcs: Sequence[tuple[str, Arc | tuple[float, float]]]) -> list[tuple[int, str]]:
    """Where arcs fail to cover 360° once each: (index of the arc at fault, why), in arc order."""
    if not arcs:
        return []
    problems: list[tuple[int, str]] = []
    for i, (name, (start, end)) in enumerate(arcs):
        if Arc(start, end).span == 0:
            problems.append((i, f"{name}'s arc ({start:g}°–{end:g}°) covers nothing"))
    if problems:
        return problems
    order = sorted(range(len(arcs)), key=lambda i: arcs[i][1][0] % 360)
    for k, i in enumerate(order):
        name, (start, end) = arcs[i]
        j = order[(k + 1) % len(order)]
        other, (next_start, _) = arcs[j]
        room = (next_start - start) % 360 or 360.0
        width = Arc(start, end).span
        if j != i and next_start % 360 == start % 360:
            problems.append((j, f"{other}'s arc starts where {name}'s does ({start:g}°): they overlap"))
        elif width > room:
            problems.append(
                (i, f"{name}'s arc ({start:g}°–{end:g}°) overlaps {other}'s by {width - room:g}°")
            )
        elif width < room:
            problems.append(
                (i, f"{name}'s arc ({start:g}°–{end:g}°) leaves a gap of {room - width:g}° before {other}'s")
            )
    return problems


def hex_of(position: dict[str, Any] | None) -> Hex | None:
    """A stored position's hex, or None when it has none."""
    place = map_place(position)
    return place[0] if place else None
