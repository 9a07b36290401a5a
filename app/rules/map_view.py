"""The tactical map as one viewer may see it (issue 15): counters, ghosts and a selected ship's
overlays, from that viewer's battle view and the log events they may read. Pure: the pages draw it
in SVG on the server, REST returns it as data, so fog holds without client code that could leak.

What it is built from is what the viewer already may read, never the stored state:

* `view` is `battle_view(state, viewer)`: a cloaked ship's position is already None there for
  anyone but its commander and the referee (ST-22).
* `events` are the log's events as `event_for` gives them to this viewer, with the turn of each:
  a hidden move reaches others as its hidden text with no data, so it adds nothing here.

Pixel coordinates are absolute (hex 0101's centre is always at the same point), so a board drawn
again after a move lines up with any overlay drawn before it. Hexes are flat-topped in columns,
even printed columns half a hex lower; facing 1 points up the map (`geometry.py`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.rules.geometry import (
    QUADRANTS,
    Arc,
    Hex,
    bearing,
    distance,
    heading,
    hex_of,
    in_arc,
    map_place,
    neighbour,
    parse_hex,
    printed,
    quadrant,
)

SIZE = 30.0  # a hex's circumradius in SVG units
ROOT3 = math.sqrt(3)
MARGIN = 3  # hexes drawn round what the viewer can see
MIN_COLUMNS, MIN_ROWS = 14, 10  # the smallest board drawn
SHIELD_INNER, SHIELD_OUTER = SIZE * 0.8, SIZE * 1.05  # the ring round a 34-unit counter
WEAPON_RADIUS = SIZE * 3.5
HEX_SYSTEMS = frozenset({"sfb", "b5wars"})  # Traveller plays in range bands, not on hexes
_TURN = re.compile(r"^T(\d+)")
AWAY_KINDS = ("flinch", "het_away")  # SH-08 and SH-11's moves directly away from the damage
QUADRANT_CENTRE = {"fore": 0.0, "starboard": 90.0, "aft": 180.0, "port": 270.0}


def has_map(system: str) -> bool:
    return system in HEX_SYSTEMS


def centre(hex_: Hex) -> tuple[float, float]:
    """The SVG point at a hex's centre; 0101 at (SIZE, SIZE·√3/2)."""
    column = hex_.q
    row = hex_.r + (column - (column & 1)) // 2
    return SIZE + 1.5 * SIZE * column, ROOT3 * SIZE * (0.5 + row + 0.5 * (column & 1))


def point(x: float, y: float, compass: float, radius: float) -> tuple[float, float]:
    """The point `radius` from (x, y) at `compass` degrees clockwise from straight up the map."""
    a = math.radians(compass)
    return x + radius * math.sin(a), y - radius * math.cos(a)


def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def wedge(x: float, y: float, start: float, span: float, radius: float) -> str:
    """An SVG path for the sector of `span` degrees clockwise from `start` (map compass degrees), a
    disc for the whole circle."""
    if span >= 360:
        return (
            f"M {_f(x - radius)} {_f(y)} a {_f(radius)} {_f(radius)} 0 1 0 {_f(2 * radius)} 0 "
            f"a {_f(radius)} {_f(radius)} 0 1 0 {_f(-2 * radius)} 0 Z"
        )
    x0, y0 = point(x, y, start, radius)
    x1, y1 = point(x, y, start + span, radius)
    large = 1 if span > 180 else 0
    return (
        f"M {_f(x)} {_f(y)} L {_f(x0)} {_f(y0)} A {_f(radius)} {_f(radius)} 0 {large} 1 {_f(x1)} {_f(y1)} Z"
    )


def ring(x: float, y: float, start: float, span: float, inner: float, outer: float) -> str:
    """An SVG path for a band of a ring (a shield projection round the counter, ST-05): `span`
    degrees clockwise from `start`, between two radii; the whole ring for 360°."""
    if span >= 360:
        return wedge(x, y, 0, 360, outer) + " " + wedge(x, y, 0, 360, inner)  # drawn evenodd
    gap = min(2.0, span / 4)  # a hair between neighbouring projections
    a, b = start + gap, start + span - gap
    large = 1 if b - a > 180 else 0
    (ox0, oy0), (ox1, oy1) = point(x, y, a, outer), point(x, y, b, outer)
    (ix1, iy1), (ix0, iy0) = point(x, y, b, inner), point(x, y, a, inner)
    return (
        f"M {_f(ox0)} {_f(oy0)} A {_f(outer)} {_f(outer)} 0 {large} 1 {_f(ox1)} {_f(oy1)} "
        f"L {_f(ix1)} {_f(iy1)} A {_f(inner)} {_f(inner)} 0 {large} 0 {_f(ix0)} {_f(iy0)} Z"
    )


def hex_outline(x: float, y: float, size: float = SIZE) -> str:
    """One hex's outline as path commands (flat-topped: corners at 0°, 60°… from the x axis)."""
    corners = [
        (x + size * math.cos(math.radians(60 * i)), y + size * math.sin(math.radians(60 * i)))
        for i in range(6)
    ]
    return "M " + " L ".join(f"{_f(cx)} {_f(cy)}" for cx, cy in corners) + " Z"


# The grid is one pattern tile, two columns wide and a row high (the tiling's period): every hex
# outline that crosses it, clipped to it. One rect drawn with it is the whole printed map.
TILE_WIDTH, TILE_HEIGHT = 3 * SIZE, ROOT3 * SIZE
TILE = " ".join(
    hex_outline(SIZE + 1.5 * SIZE * i, ROOT3 * SIZE * (0.5 + j + 0.5 * (i & 1)))
    for i in range(-1, 3)
    for j in range(-1, 2)
)


def turn_of(clock: str) -> int | None:
    """The turn of a log row's time stamp ("T4 I17" → 4)."""
    found = _TURN.match(clock or "")
    return int(found.group(1)) if found else None


# --- what the log tells this viewer ----------------------------------------------------------------


@dataclass
class Trail:
    """What the viewer's log says of one ship's places: the last position they saw in the open
    (and its turn), and the path it took since it last cloaked, where they could read it."""

    seen: dict[str, Any] | None = None
    seen_turn: int | None = None
    path: list[str] = field(default_factory=list)
    cloaked: bool = False


def trails(events: Iterable[tuple[int | None, dict[str, Any]]]) -> dict[str, Trail]:
    """Each ship's trail from the log events this viewer may read (turn, event), oldest first.

    A move or a decloak with its position in the data places the ship; a cloak starts a path from
    where it was seen; a detection or reveal (ST-23, ST-24) marks the turn it was seen again (its
    position is the cloak's public `last_known`). Events stripped to their hidden text carry no
    data, so nobody gains a position they could not read in the log."""
    out: dict[str, Trail] = {}
    for turn, event in events:
        ship = event.get("ship")
        if not ship:
            continue
        kind, data = event.get("kind"), event.get("data") or {}
        trail = out.setdefault(ship, Trail())
        position = data.get("position") if isinstance(data.get("position"), dict) else None
        if kind == "move" and position is not None:
            if trail.cloaked:
                if position.get("hex"):
                    trail.path.append(position["hex"])
            else:
                trail.seen, trail.seen_turn = position, turn
        elif kind == "cloak":
            trail.cloaked, trail.seen_turn = True, turn
            trail.path = [trail.seen["hex"]] if trail.seen and trail.seen.get("hex") else []
        elif kind == "decloak":
            trail.cloaked, trail.path = False, []
            trail.seen, trail.seen_turn = position, turn
        elif kind in ("cloak_detection", "cloak_revealed") and trail.cloaked:
            trail.seen, trail.seen_turn = None, turn  # where: the cloak's last_known in the view
    return out


# --- the model ------------------------------------------------------------------------------------


def _badge(ship: dict[str, Any]) -> dict[str, str] | None:
    """Pain for a living ship (SH-01), else the share of structure lost; None while unhurt."""
    parts = ship.get("parts") or {}
    pain = parts.get("pain")
    if isinstance(pain, dict) and isinstance(pain.get("level"), int) and pain["level"] > 0:
        return {"text": f"P{pain['level']}", "title": f"pain {pain['level']}", "kind": "pain"}
    sections = (parts.get("sheet") or {}).get("sections") or []
    total = sum(s.get("structure_max") or 0 for s in sections)
    left = sum(
        s.get("structure") if s.get("structure") is not None else s.get("structure_max") or 0
        for s in sections
    )
    if total and left < total:
        lost = round(100 * (total - left) / total)
        return {"text": f"{lost}%", "title": f"{lost}% of structure lost", "kind": "damage"}
    return None


def _short(name: str) -> str:
    words = name.split()
    return name if len(name) <= 9 else (words[-1] if len(words[-1]) <= 9 else name[:8] + "…")


def _shield_arcs(ship: dict[str, Any]) -> list[dict[str, Any]]:
    """ST-05: each shield projection with degrees, relative to the nose."""
    shields = (ship.get("parts") or {}).get("shields")
    if not isinstance(shields, dict):
        return []
    out = []
    for p in shields.get("projections") or []:
        degrees = p.get("degrees")
        if not degrees:
            continue
        rating = p.get("rating") or 0
        current = p.get("current") if p.get("current") is not None else rating
        out.append(
            {
                "name": p.get("name"),
                "start": float(degrees[0]),
                "end": float(degrees[1]),
                "current": current,
                "rating": rating,
                "collapsed": bool(p.get("collapsed")),
            }
        )
    return out


def _weapon_arcs(ship: dict[str, Any]) -> list[dict[str, Any]]:
    """Each working weapon's arc: its own (`arc` in the ship data, degrees from the nose), else the
    quadrant of the section it sits in (fore, port…)."""
    sections = ((ship.get("parts") or {}).get("sheet") or {}).get("sections") or []
    bounds = {name: (start, end) for name, start, end in QUADRANTS}
    out = []
    for s in sections:
        arc = (s.get("arc") or "").lower()
        working = [
            w
            for w in s.get("systems") or []
            if w.get("kind") in ("weapon", "photon_launcher") and w.get("damage", 0) < w.get("boxes", 1)
        ]
        for w in working:
            if w.get("arc"):
                start, end = (float(d) for d in w["arc"])
                out.append(
                    {
                        "section": s.get("name"),
                        "arc": "own",
                        "label": f"{start:g}°–{end:g}°",
                        "start": start,
                        "end": end,
                        "weapons": [w["name"]],
                    }
                )
        weapons = [w["name"] for w in working if not w.get("arc")]
        if arc in bounds and weapons:
            start, end = bounds[arc]
            out.append(
                {
                    "section": s.get("name"),
                    "arc": arc,
                    "start": float(start),
                    "end": float(end),
                    "weapons": weapons,
                }
            )
    return out


def _away_hexes(ship: dict[str, Any], here: Hex, facing: int | None) -> list[dict[str, str]]:
    """SH-08/SH-11: where an open flinch (or HET away) could take the ship: the hexes whose side
    lies less than 60° from straight away from the damage's quadrant, facing kept."""
    pain = (ship.get("parts") or {}).get("pain")
    if not isinstance(pain, dict) or facing is None:
        return []
    out: list[dict[str, str]] = []
    for duty in pain.get("obligations") or []:
        if duty.get("kind") not in AWAY_KINDS or duty.get("ended") or duty.get("expired"):
            continue
        source = QUADRANT_CENTRE.get((duty.get("direction") or "").lower())
        if source is None:
            continue
        away = (heading(facing) + source + 180) % 360
        for side in range(1, 7):
            gap = abs((heading(side) - away + 180) % 360 - 180)
            if gap < 60:
                try:
                    out.append(
                        {"hex": printed(neighbour(here, side)), "why": duty.get("text") or duty["kind"]}
                    )
                except ValueError:
                    continue
    return out


def _counter(
    sid: str, ship: dict[str, Any], where: tuple[Hex, int | None], trail: Trail | None
) -> dict[str, Any]:
    hex_, facing = where
    x, y = centre(hex_)
    hidden = bool(ship.get("position_hidden"))
    counter = {
        "id": sid,
        "name": ship.get("name", sid),
        "label": _short(ship.get("name", sid)),
        "side": ship.get("side") or "",
        "hex": printed(hex_),
        "facing": facing,
        "heading": heading(facing) if facing else None,
        "speed": (ship.get("position") or {}).get("speed"),
        "x": round(x, 1),
        "y": round(y, 1),
        "commanded": bool(ship.get("commanded")),
        "destroyed": bool(ship.get("destroyed")),
        "cloaked": hidden,  # only its commander and the referee get a counter for it
        "badge": _badge(ship),
        "shields": _shield_arcs(ship),
        "weapons": _weapon_arcs(ship),
        "away": _away_hexes(ship, hex_, facing),
        "path": [],
    }
    if hidden and trail is not None:
        points = []
        for h in [*trail.path]:
            try:
                px, py = centre(parse_hex(h))
            except ValueError:
                continue
            points.append({"hex": h, "x": round(px, 1), "y": round(py, 1)})
        counter["path"] = points
    return counter


def _ranges(counter: dict[str, Any], others: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Range (hexes), the bearing off this ship's nose and its quadrant, to every other counter."""
    here = parse_hex(counter["hex"])
    out = []
    for other in others:
        if other["id"] == counter["id"] or other["destroyed"]:
            continue
        there = parse_hex(other["hex"])
        entry: dict[str, Any] = {
            "ship": other["id"],
            "name": other["name"],
            "range": distance(here, there),
            "x": other["x"],
            "y": other["y"],
        }
        if counter["facing"] and there != here:
            b = bearing(here, counter["facing"], there)
            entry["bearing"] = b
            entry["quadrant"] = quadrant(b)
            entry["shield"] = next(
                (s["name"] for s in counter["shields"] if in_arc(b, (s["start"], s["end"]))), None
            )
        out.append(entry)
    return out


def map_model(
    view: dict[str, Any],
    events: Iterable[tuple[int | None, dict[str, Any]]] = (),
    select: str | None = None,
    all_ranges: bool = True,
) -> dict[str, Any]:
    """The map for one viewer: board bounds, counters (with ranges to each other), ghosts of ships
    hidden from this viewer at their last known hex, the unplaced ships, and the selected ship's
    overlays (shield and weapon wedges as SVG paths, range lines). Without `all_ranges` only the
    selected counter gets its ranges: the board a frame pushes draws none, and every pair is the
    model's dearest part (n² bearings)."""
    ships: dict[str, dict[str, Any]] = view.get("ships") or {}
    known = trails(events)
    counters, ghosts, unplaced = [], [], []
    for sid, ship in ships.items():
        place = map_place(ship.get("position"))
        if place is not None:
            counters.append(_counter(sid, ship, place, known.get(sid)))
            continue
        if ship.get("position_hidden"):
            ghost = _ghost(sid, ship, known.get(sid))
            if ghost:
                ghosts.append(ghost)
            continue  # never "unplaced": that would say it has no secret hex either
        unplaced.append({"id": sid, "name": ship.get("name", sid), "commanded": bool(ship.get("commanded"))})
    for c in counters:
        c["ranges"] = _ranges(c, counters) if all_ranges or c["id"] == select else []
    model = {
        "size": SIZE,
        "counters": counters,
        "ghosts": ghosts,
        "unplaced": unplaced,
        "bounds": _bounds([*counters, *ghosts]),
        "selected": None,
    }
    chosen = next((c for c in counters if c["id"] == select), None)
    if chosen is not None:
        model["selected"] = _overlay(chosen)
    return model


def _ghost(sid: str, ship: dict[str, Any], trail: Trail | None) -> dict[str, Any] | None:
    """ST-22: the last position others saw, labelled with its turn; nothing else of the ship."""
    cloak = (ship.get("parts") or {}).get("cloak") or {}
    seen = (trail.seen if trail else None) or cloak.get("last_known")
    hex_ = hex_of(seen)
    if hex_ is None:
        return None
    x, y = centre(hex_)
    turn = trail.seen_turn if trail else None
    return {
        "id": sid,
        "name": ship.get("name", sid),
        "label": _short(ship.get("name", sid)),
        "hex": printed(hex_),
        "turn": turn,
        "x": round(x, 1),
        "y": round(y, 1),
    }


def _bounds(marks: list[dict[str, Any]]) -> dict[str, Any]:
    """The printed columns and rows drawn: what the viewer can see, with a margin (so the board's
    size says nothing of a ship they cannot see), never less than a small board from 0101."""
    cols = [int(m["hex"][:2]) for m in marks] or [1]
    rows = [int(m["hex"][2:]) for m in marks] or [1]
    first_col, first_row = max(1, min(cols) - MARGIN), max(1, min(rows) - MARGIN)
    last_col = min(99, max(max(cols) + MARGIN, first_col + MIN_COLUMNS - 1))
    last_row = min(99, max(max(rows) + MARGIN, first_row + MIN_ROWS - 1))
    x0 = SIZE + 1.5 * SIZE * (first_col - 1) - SIZE
    y0 = ROOT3 * SIZE * (first_row - 1)
    x1 = SIZE + 1.5 * SIZE * (last_col - 1) + SIZE
    y1 = ROOT3 * SIZE * (last_row + 0.5)
    top = [(f"{c:02d}", centre(_hex(c, first_row))[0], y0 + 9) for c in range(first_col, last_col + 1)]
    side = [(f"{r:02d}", x0 + 9, centre(_hex(first_col, r))[1]) for r in range(first_row, last_row + 1)]
    return {
        "columns": (first_col, last_col),
        "rows": (first_row, last_row),
        "viewbox": f"{_f(x0 - 4)} {_f(y0 - 4)} {_f(x1 - x0 + 8)} {_f(y1 - y0 + 8)}",
        "tile": TILE,
        "tile_width": _f(TILE_WIDTH),
        "tile_height": _f(TILE_HEIGHT),
        "width": _f(SIZE + 1.5 * SIZE * 98 + SIZE),
        "height": _f(ROOT3 * SIZE * 99.5),
        # Column numbers along the top, row numbers down the side (a hex reads column then row):
        # never a four-digit number on the board that is not a counter's own hex.
        "column_labels": top,
        "row_labels": side,
    }


def _hex(column: int, row: int) -> Hex:
    """Printed column and row (from 1) to axial."""
    return Hex(column - 1, (row - 1) - ((column - 1) - ((column - 1) & 1)) // 2)


def _overlay(c: dict[str, Any]) -> dict[str, Any]:
    """The selected ship's shield projections and weapon arcs as wedges turned with its facing, its
    range lines to the other counters, and the hexes an owed move away would reach (SH-08)."""
    x, y = c["x"], c["y"]
    shields, weapons = [], []
    if c["facing"]:
        turn = c["heading"]
        for s in c["shields"]:
            span = Arc(s["start"], s["end"]).span
            lx, ly = point(x, y, turn + s["start"] + span / 2, SHIELD_OUTER + 11)
            path = ring(x, y, turn + s["start"], span, SHIELD_INNER, SHIELD_OUTER)
            shields.append({**s, "path": path, "label_x": round(lx, 1), "label_y": round(ly, 1)})
        for w in c["weapons"]:
            span = Arc(w["start"], w["end"]).span
            weapons.append({**w, "path": wedge(x, y, turn + w["start"], span, WEAPON_RADIUS)})
    away = []
    for a in c["away"]:
        ax, ay = centre(parse_hex(a["hex"]))
        away.append({**a, "x": round(ax, 1), "y": round(ay, 1)})
    return {
        "id": c["id"],
        "name": c["name"],
        "x": x,
        "y": y,
        "shields": shields,
        "weapons": weapons,
        "ranges": c["ranges"],
        "away": away,
    }
