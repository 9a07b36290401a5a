"""The range board: High Guard fights in range bands, not hexes (TR-02, TR-02a, TR-10).

Every pair of units (capital ships, small craft, flights) sits in one band, Adjacent … Very Distant,
the same both ways. Each pair is stored once, on the unit whose ship id sorts first
(`ranges[other id] = {band, progress}`), so the board cannot disagree with itself. A pair with no
entry takes the battle's `range_start` option when it has one (every pair starts there), else it is
off the board and attacks on it name their band as before.

The seed is silent on what a band change costs; the core rules' Range Table (tables.md §1b, [SRD]
*Manoeuvre Phase*) gives it: the Thrust needed to move from a band to the next closer or more distant
one is the band's own number, a ship may spend it over several rounds, Thrust of two ships closing
on each other adds up, and a ship escaping takes the lower from the higher. So in the manoeuvre step
a ship allocates Thrust to a pair, closing or opening (`traveller.manoeuvre` with a target); when
the step ends the pair's allocations and the Thrust carried from earlier rounds are added up
(opening +, closing −) and the pair moves one band for each full cost of the band it is in.
Decisions (docs/traveller.md, "Range board"): what is left over carries to the next round toward
the next change, and a round may move a pair more than one band; nothing carries past Adjacent or
Very Distant; leaving Very Distant costs 50 like Distant (the table gives no number for it); Thrust
spent on a pair changes that pair only (the referee moves any other pair the geometry changes,
`traveller.set_range`, with a reason in the log).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, hook, mark
from app.rules.state import BattleState, Ship
from app.rules.system import MOVEMENT
from app.rules.traveller import tables as T
from app.rules.traveller.ship import RangeEntry
from app.rules.traveller.units import unit_part, units

# Thrust to change band, from the band the pair is in (tables.md §1b, [SRD] Range Table).
THRUST_TO_CHANGE: dict[str, int] = {
    "adjacent": 1,
    "close": 1,
    "short": 2,
    "medium": 5,
    "long": 10,
    "very_long": 25,
    "distant": 50,
    "very_distant": 50,  # Decision: the table gives none; Distant's 50
}
RANGE_START_OPTION = "range_start"
# The chart's column heads (the full name is its title and the cell's text for screen readers).
SHORT_LABELS: dict[str, str] = {
    "adjacent": "Adj",
    "close": "Close",
    "short": "Short",
    "medium": "Med",
    "long": "Long",
    "very_long": "VLong",
    "distant": "Dist",
    "very_distant": "VDist",
}


def label(band: str) -> str:
    return T.RANGE_LABELS[band]


def pair_name(state: BattleState, a: str, b: str) -> str:
    first, second = sorted((a, b))
    return f"{state.ships[first].name}–{state.ships[second].name}"


def _holder(state: BattleState, a: str, b: str) -> tuple[dict[str, Any] | None, str]:
    """The part dict that stores the pair (the first ship's by id) and the key it stores it under."""
    first, second = sorted((a, b))
    ship = state.ships.get(first)
    name = unit_part(ship) if ship is not None else None
    return (ship.parts[name] if ship is not None and name else None), second


def start_band(state: BattleState) -> str | None:
    band = state.options.get(RANGE_START_OPTION)
    return band if band in T.RANGE_BANDS else None


def entry(state: BattleState, a: str, b: str) -> RangeEntry | None:
    """The pair's place on the board: stored, else the battle's starting band, else None."""
    if a == b:
        return None
    part, key = _holder(state, a, b)
    other = state.ships.get(key)  # the second of the pair by id: the holder is the first
    if part is None or other is None or unit_part(other) is None:
        return None
    raw = (part.get("ranges") or {}).get(key)
    if raw is not None:
        return RangeEntry.model_validate(raw)
    start = start_band(state)
    return RangeEntry(band=start) if start else None


def put(state: BattleState, a: str, b: str, placed: RangeEntry | None) -> None:
    """Place the pair (None: take it off the board). The holder's part is written as a new dict,
    never changed in place: a model this action parsed from the old one is then read afresh
    (app/rules/parsed.py)."""
    first, key = sorted((a, b))
    ship = state.ships[first]
    name = unit_part(ship)
    assert name is not None
    part = ship.parts[name]
    if placed is None and key not in (part.get("ranges") or {}):
        return
    ranges = {k: v for k, v in (part.get("ranges") or {}).items() if k != key}
    if placed is not None:
        ranges[key] = placed.model_dump(mode="json")
    ship.parts[name] = {**part, "ranges": ranges}


def attack_band(state: BattleState, shooter: Ship, target: Ship, typed: str | None) -> str:
    """The band an attack fires at: the board's for the pair (TR-02, TR-02a, TR-10 read it). A typed
    range is still taken for a pair off the board, and refused when it disagrees with the board."""
    if typed is not None and typed not in T.RANGE_BANDS:
        raise RuleError(f"range must be one of {', '.join(T.RANGE_BANDS)}", "range")
    placed = entry(state, shooter.id, target.id)
    pair = pair_name(state, shooter.id, target.id)
    if placed is None:
        if typed is None:
            raise RuleError(
                f"{pair} is not on the range board: name the range band (or the referee places the pair)",
                "range",
            )
        return typed
    if typed is not None and typed != placed.band:
        raise RuleError(
            f"the range board has {pair} at {label(placed.band)}, not {label(typed)}: fire at the"
            " board's band (or leave the range out)",
            "range",
        )
    return placed.band


def resolve(placed: RangeEntry, thrust: int) -> tuple[RangeEntry, list[str], bool]:
    """Move a pair by this round's net Thrust (+ opening, − closing) plus what it carried.
    Returns the new entry, the bands passed through (first is where it started) and whether Thrust
    was lost against the board's end."""
    index = T.band_index(placed.band)
    net = placed.progress + thrust
    path = [placed.band]
    last = len(T.RANGE_BANDS) - 1
    while net and abs(net) >= THRUST_TO_CHANGE[T.RANGE_BANDS[index]]:
        step = 1 if net > 0 else -1
        if not 0 <= index + step <= last:
            break
        net -= step * THRUST_TO_CHANGE[T.RANGE_BANDS[index]]
        index += step
        path.append(T.RANGE_BANDS[index])
    stuck = (net < 0 and index == 0) or (net > 0 and index == last)
    if stuck:
        net = 0
    return RangeEntry(band=T.RANGE_BANDS[index], progress=net), path, stuck


def _signed_moves(state: BattleState) -> dict[tuple[str, str], list[tuple[str, int]]]:
    """Each pair's allocations this round: (who, signed Thrust), in ship-id order."""
    found: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for ship, unit in units(state):
        for other, thrust in sorted(unit.round.moves.items()):
            if other in state.ships and thrust:
                first, second = sorted((ship.id, other))
                found.setdefault((first, second), []).append((ship.id, thrust))
    return found


def _moves_text(state: BattleState, moves: list[tuple[str, int]]) -> str:
    return ", ".join(
        f"{state.ships[who].name} {'opens' if thrust > 0 else 'closes'} {abs(thrust)}"
        for who, thrust in moves
    )


def carried_text(placed: RangeEntry) -> str:
    """ "3 of 10 toward Medium carried" for a pair part way to its next change, else ""."""
    if not placed.progress:
        return ""
    index = T.band_index(placed.band) + (1 if placed.progress > 0 else -1)
    toward = label(T.RANGE_BANDS[index])
    return f"{abs(placed.progress)} of {THRUST_TO_CHANGE[placed.band]} toward {toward} carried"


def settle_ranges(state: BattleState, dice: DiceSource) -> list[Event]:
    """The manoeuvre step ends: every pair that had Thrust allocated moves on the board."""
    events: list[Event] = []
    for (a, b), moves in sorted(_signed_moves(state).items()):
        placed = entry(state, a, b)
        if placed is None:
            continue  # the referee took the pair off the board after the Thrust was spent
        total = sum(thrust for _, thrust in moves)
        after, path, stuck = resolve(placed, total)
        put(state, a, b, after)
        pair = pair_name(state, a, b)
        way = "opening" if total > 0 else "closing"
        net = f"net {way} {abs(total)}" if total else "net 0"
        if placed.progress:
            net += f" + {abs(placed.progress)} carried {'opening' if placed.progress > 0 else 'closing'}"
        moved = " → ".join(label(band) for band in path) if len(path) > 1 else f"stays {label(after.band)}"
        notes = [n for n in (carried_text(after), "no band beyond the board's end" if stuck else "") if n]
        tail = f"; {'; '.join(notes)}" if notes else ""
        events.append(
            Event(
                kind="range",
                text=f"Range board: {pair} {moved} ({_moves_text(state, moves)}: {net}{tail}).",
                data={"pair": [a, b], "from": placed.band, "band": after.band, "progress": after.progress},
            )
        )
    return events


mark(settle_ranges, hook("leave", MOVEMENT))


def allocate(state: BattleState, ship: Ship, target_id: str, direction: str) -> str:
    """Check a manoeuvre's pair and say what it does; the caller records the Thrust (+ opening)."""
    target = state.ship(target_id, "target")
    if target.id == ship.id:
        raise RuleError("a ship changes its range to another ship, not to itself", "target")
    if unit_part(target) is None or target.destroyed:
        raise RuleError(f"{target.name} is not a High Guard ship or flight still in the fight", "target")
    placed = entry(state, ship.id, target.id)
    if placed is None:
        raise RuleError(
            f"{pair_name(state, ship.id, target.id)} is not on the range board: the referee places the pair first",
            "target",
        )
    cost = THRUST_TO_CHANGE[placed.band]
    return (
        f"{'closes on' if direction == 'close' else 'opens from'} {target.name}"
        f" (now {label(placed.band)}, {cost} to change band; settled when the manoeuvre step ends)"
    )


def launch_ranges(state: BattleState, flight: Ship, carrier: Ship) -> str:
    """A flight launching starts where its carrier is: Adjacent to it, and at the carrier's band to
    every unit the carrier has a band to (pairs the flight already has keep theirs). A battle that
    does not use the board (its carrier has no band to anyone) leaves it off the board."""
    placed: list[str] = []
    others = [other for other, _ in units(state) if other.id not in (flight.id, carrier.id)]
    if not any(entry(state, carrier.id, other.id) for other in others):
        return ""
    part, key = _holder(state, flight.id, carrier.id)
    if part is not None and key not in (part.get("ranges") or {}):
        put(state, flight.id, carrier.id, RangeEntry(band="adjacent"))
        placed.append(f"Adjacent to {carrier.name}")
    for other in others:
        theirs = entry(state, carrier.id, other.id)
        part, key = _holder(state, flight.id, other.id)
        if theirs is None or part is None or key in (part.get("ranges") or {}):
            continue
        put(state, flight.id, other.id, RangeEntry(band=theirs.band))
        placed.append(f"{label(theirs.band)} to {other.name}")
    return ", ".join(placed)


class SetRange(BaseModel):
    """The referee places a pair on the board (set-up) or corrects it; the reason goes in the log."""

    ship: str
    other: str
    band: str | None = Field(default=None, description="the band; none takes the pair off the board")
    reason: str = Field(min_length=3, max_length=300)


def set_range(state: BattleState, p: SetRange, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee puts a pair of ships at a range band (TR-02), or takes the pair off the range board."""
    ship = state.ship(p.ship)
    other = state.ship(p.other, "other")
    if other.id == ship.id:
        raise RuleError("a range band is between two different ships", "other")
    for who, field in ((ship, "ship"), (other, "other")):
        if unit_part(who) is None:
            raise RuleError(f"{who.name} is not a High Guard ship or flight", field)
    if p.band is not None and p.band not in T.RANGE_BANDS:
        raise RuleError(f"band must be one of {', '.join(T.RANGE_BANDS)}", "band")
    before = entry(state, ship.id, other.id)
    pair = pair_name(state, ship.id, other.id)
    if p.band is None and start_band(state) is not None:
        raise RuleError("this battle starts every pair at a band: give one", "band")
    put(state, ship.id, other.id, RangeEntry(band=p.band) if p.band is not None else None)
    old = label(before.band) if before else "off the board"
    new = label(p.band) if p.band else "off the board"
    return [
        Event(
            kind="override",
            text=f"⚠ OVERRIDE (Referee): range board {pair} {old}→{new} — “{p.reason}”",
            data={
                "path": f"range_board.{'.'.join(sorted((ship.id, other.id)))}",
                "old": before.band if before else None,
                "new": p.band,
                "reason": p.reason,
            },
        )
    ]


mark(set_range, action("traveller.set_range", SetRange, "Set a pair's range band", referee_only=True))


def board_view(state: BattleState) -> dict[str, Any]:
    """The chart's values: the band ladder, and each pair of units still fighting with its band,
    what it carries and this round's allocations. All public: the board is what both captains see
    at the table; Thrust allocations are made openly after the orders are revealed (TR-26)."""
    fighting = units(state)
    moves = _signed_moves(state)
    pairs: list[dict[str, Any]] = []
    for i, (a, _) in enumerate(fighting):
        for b, _ in fighting[i + 1 :]:
            placed = entry(state, a.id, b.id)
            pending = moves.get((a.id, b.id), [])
            pairs.append(
                {
                    "a": {"id": a.id, "name": a.name},
                    "b": {"id": b.id, "name": b.name},
                    "key": f"{a.id}--{b.id}",
                    "band": placed.band if placed else None,
                    "label": label(placed.band) if placed else "off the board",
                    "cost": THRUST_TO_CHANGE[placed.band] if placed else None,
                    "carried": carried_text(placed) if placed else "",
                    "pending": _moves_text(state, pending),
                    "settled": not state.game.in_moment(state, MOVEMENT),
                    "net": sum(t for _, t in pending),
                }
            )
    return {
        "bands": [(band, label(band), THRUST_TO_CHANGE[band], SHORT_LABELS[band]) for band in T.RANGE_BANDS],
        "pairs": pairs,
        "ships": [{"id": s.id, "name": s.name} for s, _ in fighting],
        "placed": any(p["band"] for p in pairs),
        "start": start_band(state),
    }
