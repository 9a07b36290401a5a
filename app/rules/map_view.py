"""The tactical map as one viewer may see it: counters, ghosts and a selected ship's overlays,
from that viewer's battle view and the log events they may read. Pure: the pages draw it in SVG on
the server, REST returns it as data, so fog holds without client code that could leak.

What each part adds to its counter (a badge, a ring of shield projections, firing arcs, the hexes
an owed move away would reach, a hidden ship's last known place) and which event kinds place, hide
or show a counter are the parts' own declarations (`PartSpec.counter`, `PartSpec.counter_events`,
in the shapes of `app/rules/counters.py`); the map names no ruleset, part or system. Whether a
battle has a hex map at all is its system's `board`.

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
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.rules.counters import Badge, CounterEvent, Role
from app.rules.geometry import (
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
from app.rules.impulses import movement_chart
from app.rules.registry import STANDARD
from app.rules.ruleset import PartSpec

SIZE = 30.0  # a hex's circumradius in SVG units
ROOT3 = math.sqrt(3)
MARGIN = 3  # hexes drawn round what the viewer can see
MIN_COLUMNS, MIN_ROWS = 14, 10  # the smallest board drawn
SHIELD_INNER, SHIELD_OUTER = SIZE * 0.8, SIZE * 1.05  # the ring round a 34-unit counter
WEAPON_RADIUS = SIZE * 3.5
_TURN = re.compile(r"^T(\d+)")
QUADRANT_CENTRE = {"fore": 0.0, "starboard": 90.0, "aft": 180.0, "port": 270.0}
# The ship's own move (its position, set by the referee or its commander) places its counter; the
# parts declare the rest.
SHIP_MOVES = (CounterEvent("move", "place", ("ship.move",)),)


def counter_events(parts: Mapping[str, PartSpec]) -> dict[str, CounterEvent]:
    """Every event kind that places, hides or shows a counter, by kind: the ship's own move, then
    what the parts declare."""
    declared = [*SHIP_MOVES, *(e for spec in parts.values() for e in spec.counter_events)]
    found: dict[str, CounterEvent] = {}
    for event in declared:
        found.setdefault(event.event, event)
    return found


def _parts_of(view: Mapping[str, Any], parts: Mapping[str, PartSpec] | None) -> Mapping[str, PartSpec]:
    """The part declarations to read a view with: the battle's game's, else the standard rules'."""
    if parts is not None:
        return parts
    return STANDARD.game(view["system"]).parts if "system" in view else STANDARD.parts()


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


def trails(
    events: Iterable[tuple[int | None, dict[str, Any]]], parts: Mapping[str, PartSpec] | None = None
) -> dict[str, Trail]:
    """Each ship's trail from the log events this viewer may read (turn, event), oldest first.

    What each event kind does is declared (`counter_events`): a `place` or `show` event with its
    position in the data places the ship; a `hide` starts a path from where it was seen; a `seen`
    (a cloak's detection or reveal) marks the turn it was seen again (its position is the part's
    public last known place). Events stripped to their hidden text carry no data, so nobody gains
    a position they could not read in the log."""
    roles: dict[str, Role] = {k: e.role for k, e in counter_events(_parts_of({}, parts)).items()}
    out: dict[str, Trail] = {}
    for turn, event in events:
        ship = event.get("ship")
        if not ship:
            continue
        role, data = roles.get(event.get("kind") or ""), event.get("data") or {}
        trail = out.setdefault(ship, Trail())
        position = data.get("position") if isinstance(data.get("position"), dict) else None
        if role == "place" and position is not None:
            if trail.cloaked:
                if position.get("hex"):
                    trail.path.append(position["hex"])
            else:
                trail.seen, trail.seen_turn = position, turn
        elif role == "hide":
            trail.cloaked, trail.seen_turn = True, turn
            trail.path = [trail.seen["hex"]] if trail.seen and trail.seen.get("hex") else []
        elif role == "show":
            trail.cloaked, trail.path = False, []
            trail.seen, trail.seen_turn = position, turn
        elif role == "seen" and trail.cloaked:
            trail.seen, trail.seen_turn = None, turn  # where: the part's last known place in the view
    return out


# --- the model ------------------------------------------------------------------------------------


@dataclass
class Drawn:
    """What a ship's parts add to its counter, as one viewer sees them."""

    badge: Badge | None = None
    ring: list[dict[str, Any]] = field(default_factory=list)
    arcs: list[dict[str, Any]] = field(default_factory=list)
    away: list[tuple[str, str]] = field(default_factory=list)  # (quadrant the damage came from, why)
    last_known: dict[str, Any] | None = None


def drawn(ship: dict[str, Any], parts: Mapping[str, PartSpec]) -> Drawn:
    """Ask each of the ship's parts what it adds to the counter; of their badges the weightiest shows
    (the first of equal weight)."""
    out = Drawn()
    for name, part in (ship.get("parts") or {}).items():
        spec = parts.get(name)
        if spec is None or spec.counter is None or not isinstance(part, dict):
            continue
        told = spec.counter(part)
        if told.badge is not None and (out.badge is None or told.badge.weight > out.badge.weight):
            out.badge = told.badge
        out.ring += [band.shown() for band in told.ring]
        out.arcs += [arc.shown() for arc in told.arcs]
        out.away += [(a.direction, a.why) for a in told.away]
        out.last_known = out.last_known or told.last_known
    return out


def _short(name: str) -> str:
    words = name.split()
    return name if len(name) <= 9 else (words[-1] if len(words[-1]) <= 9 else name[:8] + "…")


def _code(name: str) -> str:
    """A counter's letters: the initials of a name of several words (Federation Heavy Cruiser →
    FHC, at most three), else its first two letters (Hawk → HA)."""
    words = [w for w in re.split(r"[\s\-]+", name) if w[:1].isalnum()]
    if len(words) > 1:
        return "".join(w[0] for w in words[:3]).upper()
    return (words[0][:2] if words else "?").upper()


def _qualified(name: str) -> str:
    """A label for a name whose short one another ship shares: the other words' initials before the
    last word (Federation Heavy Cruiser → F.H. Cruiser)."""
    words = name.split()
    if len(words) < 2:
        return _short(name)
    return "".join(w[0].upper() + "." for w in words[:-1]) + " " + _short(words[-1])


def _numbered(text: str, gap: str, taken: set[str]) -> str:
    """`text`, or if taken the first of text2, text3… (with `gap` before the number) that is not."""
    n, out = 1, text
    while out in taken:
        n += 1
        out = f"{text}{gap}{n}"
    return out


def labels(names: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """Each ship's (code, label) for its counter: short, and unique among these ships (the battle's,
    as the viewer's view lists them, so two "… Cruiser"s are told apart). Where shortening makes two
    the same, the label keeps the other words' initials; where even that is shared (or the codes are),
    the second and later take a number, in the order given."""
    short = {sid: _short(name) for sid, name in names.items()}
    shared = {v for v, n in Counter(short.values()).items() if n > 1}
    label = {sid: _qualified(names[sid]) if v in shared else v for sid, v in short.items()}
    out: dict[str, tuple[str, str]] = {}
    for sid, name in names.items():
        code = _numbered(_code(name), "", {c for c, _ in out.values()})
        out[sid] = (code, _numbered(label[sid], " ", {t for _, t in out.values()}))
    return out


def _away_hexes(away: list[tuple[str, str]], here: Hex, facing: int | None) -> list[dict[str, str]]:
    """Where an owed move away from damage (a Shadow's flinch, SH-08) could take the ship: the hexes
    whose side lies less than 60° from straight away from the damage's quadrant, facing kept."""
    if facing is None:
        return []
    out: list[dict[str, str]] = []
    for direction, why in away:
        source = QUADRANT_CENTRE.get(direction.lower())
        if source is None:
            continue
        away_from = (heading(facing) + source + 180) % 360
        for side in range(1, 7):
            gap = abs((heading(side) - away_from + 180) % 360 - 180)
            if gap < 60:
                try:
                    out.append({"hex": printed(neighbour(here, side)), "why": why})
                except ValueError:
                    continue
    return out


def _counter(
    sid: str,
    ship: dict[str, Any],
    where: tuple[Hex, int | None],
    trail: Trail | None,
    parts: Drawn,
    named: tuple[str, str],
) -> dict[str, Any]:
    hex_, facing = where
    x, y = centre(hex_)
    hidden = bool(ship.get("position_hidden"))
    counter = {
        "id": sid,
        "name": ship.get("name", sid),
        "code": named[0],
        "label": named[1],
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
        "badge": parts.badge.shown() if parts.badge else None,
        "shields": parts.ring,
        "weapons": parts.arcs,
        "away": _away_hexes(parts.away, hex_, facing),
        "path": [],
        "due": 0,  # hexes it moves in this impulse, by the impulse chart
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
    parts: Mapping[str, PartSpec] | None = None,
    impulses: int | None = None,
) -> dict[str, Any]:
    """The map for one viewer: board bounds, counters (with ranges to each other), ghosts of ships
    hidden from this viewer at their last known hex, the unplaced ships, and the selected ship's
    overlays (shield and weapon wedges as SVG paths, range lines). Without `all_ranges` only the
    selected counter gets its ranges: the board a frame pushes draws none, and every pair is the
    model's dearest part (n² bearings). `parts`: the battle's part declarations (by default the
    standard rules' for the view's system). `impulses`: how many impulses a turn's movement is
    spread over where the system moves ships impulse by impulse (SFB's 32), for the impulse chart;
    None where it does not."""
    specs = _parts_of(view, parts)
    ships: dict[str, dict[str, Any]] = view.get("ships") or {}
    known = trails(events, specs)
    named = labels({sid: str(ship.get("name") or sid) for sid, ship in ships.items()})
    counters, ghosts, unplaced = [], [], []
    for sid, ship in ships.items():
        place = map_place(ship.get("position"))
        if place is not None:
            counters.append(_counter(sid, ship, place, known.get(sid), drawn(ship, specs), named[sid]))
            continue
        if ship.get("position_hidden"):
            ghost = _ghost(sid, ship, known.get(sid), drawn(ship, specs), named[sid])
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
        "impulses": impulse_chart(counters, view.get("clock") or {}, impulses),
        "selected": None,
    }
    chosen = next((c for c in counters if c["id"] == select), None)
    if chosen is not None:
        model["selected"] = _overlay(chosen)
    return model


def impulse_chart(
    counters: list[dict[str, Any]], clock: Mapping[str, Any], impulses: int | None
) -> dict[str, Any] | None:
    """Which ships move in which impulse at their declared speed (the proportional rule,
    `app/rules/impulses.py`), for the ships on this viewer's board that have a speed and are not
    destroyed; `now`, the clock's impulse (None outside the impulses). Each such counter gets `due`,
    the hexes it moves this impulse. None where the system has no impulses."""
    if not impulses:
        return None
    impulse = clock.get("impulse")
    now = impulse if isinstance(impulse, int) and 1 <= impulse <= impulses else None
    rows, unset = [], []
    for c in counters:
        if c["destroyed"]:
            continue
        if not isinstance(c["speed"], int):
            unset.append(c["name"])
            continue
        chart = movement_chart(c["speed"], impulses)
        c["due"] = chart[now - 1] if now else 0
        rows.append(
            {"id": c["id"], "name": c["name"], "code": c["code"], "speed": c["speed"], "chart": chart}
        )
    due = [
        {"id": r["id"], "name": r["name"], "hexes": r["chart"][now - 1]}
        for r in rows
        if now and r["chart"][now - 1]
    ]
    return {"now": now, "of": impulses, "rows": rows, "due": due, "unset": unset}


def _ghost(
    sid: str, ship: dict[str, Any], trail: Trail | None, parts: Drawn, named: tuple[str, str]
) -> dict[str, Any] | None:
    """A hidden ship (ST-22): the last position others saw, labelled with its turn; nothing else."""
    seen = (trail.seen if trail else None) or parts.last_known
    hex_ = hex_of(seen)
    if hex_ is None:
        return None
    x, y = centre(hex_)
    turn = trail.seen_turn if trail else None
    return {
        "id": sid,
        "name": ship.get("name", sid),
        "code": named[0],
        "label": named[1],
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
