"""Fleet points at set-up, and the handicap a league suggests for an uneven match.

No ship definition in the library carries a point value, so a league prices ships itself: its
points table gives a ship's points by its class (`klass`) or, failing that, its name; the referee
may give a ship's points in the battle (by ship id), which comes first. A ship priced nowhere is
listed as unpriced and counts 0.

The handicap rule: the strongest side's points are the yardstick. A side short of them by less
than EVEN_PERCENT of them is even (no handicap); otherwise the weaker side may spend the difference
on extra ships or refits before play."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.models import League, LeagueBattle
from app.rules.generic.ending import side_of
from app.rules.state import BattleState
from app.services.leagues.ratings import side_name

EVEN_PERCENT = 5


@dataclass
class SidePoints:
    side: str
    points: int = 0
    ships: list[tuple[str, int | None]] = field(default_factory=list)  # (ship name, points or None)
    short: int = 0  # points behind the strongest side
    percent: float = 0.0  # `short` as a share of the strongest side's points
    handicap: int = 0  # extra points suggested for this side

    @property
    def unpriced(self) -> list[str]:
        return [name for name, points in self.ships if points is None]


@dataclass(frozen=True)
class FleetPoints:
    sides: list[SidePoints]
    imbalance: int  # strongest minus weakest side
    suggestion: str


def price(ship_id: str, klass: str, name: str, league: League, given: dict[str, int]) -> int | None:
    for table, key in ((given, ship_id), (league.points, klass), (league.points, name)):
        if key and key in table:
            return int(table[key])
    return None


def fleet_points(state: BattleState, league: League, kept: LeagueBattle | None) -> FleetPoints:
    given = dict(kept.points) if kept is not None else {}
    sides: dict[str, SidePoints] = {}
    for ship in state.ships.values():
        key = side_of(ship)
        row = sides.setdefault(key, SidePoints(side_name(key, state)))
        points = price(ship.id, ship.klass, ship.name, league, given)
        row.ships.append((ship.name, points))
        row.points += points or 0
    rows = list(sides.values())
    if len(rows) < 2:
        return FleetPoints(rows, 0, "One side only: nothing to balance.")
    top = max(r.points for r in rows)
    for r in rows:
        r.short = top - r.points
        r.percent = round(100 * r.short / top, 1) if top else 0.0
        r.handicap = r.short if r.percent >= EVEN_PERCENT else 0
    imbalance = top - min(r.points for r in rows)
    owed = [r for r in rows if r.handicap]
    if not owed:
        suggestion = f"Even: every side is within {EVEN_PERCENT}% of the strongest — no handicap."
    else:
        said = "; ".join(
            f"the {r.side} side may add {r.handicap} points ({r.percent:g}% behind)" for r in owed
        )
        suggestion = said[:1].upper() + said[1:] + "."
    return FleetPoints(rows, imbalance, suggestion)
