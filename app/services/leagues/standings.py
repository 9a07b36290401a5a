"""The standings table, read from the append-only rating record, and the same table rebuilt from
scratch — every rated battle's results replayed through the model in the league's order from the
default rating — so anyone may check that the record adds up (`audit`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import League, LeagueBattle, LeagueMember, Profile, RatingChange
from app.services.leagues.ratings import DEFAULT_MU, DEFAULT_SIGMA, Rating, ordinal, rate

TOLERANCE = 1e-9  # a rebuilt mu or sigma agrees with the record within this


@dataclass
class Standing:
    profile_id: str
    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    changes: list[RatingChange] = field(default_factory=list)

    @property
    def rating(self) -> float:
        return ordinal(self.mu, self.sigma)

    def count(self, result: str) -> None:
        self.games += 1
        if result == "win":
            self.wins += 1
        elif result == "draw":
            self.draws += 1
        else:
            self.losses += 1


@dataclass(frozen=True)
class Audit:
    agrees: bool
    battles: int
    changes: int
    differences: list[str]


async def members(session: AsyncSession, league_id: str) -> dict[str, str]:
    """The league's players: profile id → display name, in the order they joined."""
    rows = await session.execute(
        select(Profile.id, Profile.name)
        .join(LeagueMember, LeagueMember.profile_id == Profile.id)
        .where(LeagueMember.league_id == league_id)
        .order_by(LeagueMember.joined_at, Profile.id)
    )
    return {pid: name for pid, name in rows.all()}


async def record(session: AsyncSession, league_id: str) -> list[RatingChange]:
    """Every rating change in the league, in its order: battle by battle, side by side."""
    rows = await session.scalars(
        select(RatingChange)
        .where(RatingChange.league_id == league_id)
        .order_by(RatingChange.number, RatingChange.id)
    )
    return list(rows)


def ranked(table: dict[str, Standing]) -> list[Standing]:
    """Highest rating first; then more games; then by name."""
    return sorted(table.values(), key=lambda s: (-s.rating, -s.games, s.name.casefold(), s.profile_id))


def from_record(names: dict[str, str], changes: list[RatingChange]) -> list[Standing]:
    """The standings as the record says: each player's last after, and their results counted."""
    table = {pid: Standing(pid, name) for pid, name in names.items()}
    for change in changes:
        row = table.setdefault(change.profile_id, Standing(change.profile_id, "(left the league)"))
        row.count(change.result)
        row.mu, row.sigma = change.mu_after, change.sigma_after
        row.changes.append(change)
    return ranked(table)


def rebuilt(names: dict[str, str], changes: list[RatingChange]) -> list[Standing]:
    """The standings from scratch: each battle's teams and ranks, replayed through the model in
    order from the default rating; the record's mu and sigma are not read."""
    table = {pid: Standing(pid, name) for pid, name in names.items()}
    for _number, rows in groupby(changes, key=lambda c: c.number):
        sides: dict[str, list[RatingChange]] = {}
        for change in rows:
            sides.setdefault(change.side, []).append(change)
        teams = list(sides.values())
        for team in teams:
            for change in team:
                table.setdefault(change.profile_id, Standing(change.profile_id, "(left the league)"))
        before: list[list[Rating]] = [
            [(table[c.profile_id].mu, table[c.profile_id].sigma) for c in team] for team in teams
        ]
        after = rate(before, [team[0].rank for team in teams])
        for team, news in zip(teams, after, strict=True):
            for change, (mu, sigma) in zip(team, news, strict=True):
                row = table[change.profile_id]
                row.count(change.result)
                row.mu, row.sigma = mu, sigma
                row.changes.append(change)
    return ranked(table)


async def standings(session: AsyncSession, league: League) -> list[Standing]:
    return from_record(await members(session, league.id), await record(session, league.id))


async def audit(session: AsyncSession, league: League) -> Audit:
    """Rebuild the standings from scratch and compare them with the record, player by player."""
    names = await members(session, league.id)
    changes = await record(session, league.id)
    kept = {s.profile_id: s for s in from_record(names, changes)}
    again = {s.profile_id: s for s in rebuilt(names, changes)}
    differences = []
    for pid, s in kept.items():
        r = again.get(pid)
        if r is None or (s.games, s.wins, s.draws, s.losses) != (r.games, r.wins, r.draws, r.losses):
            differences.append(f"{s.name}: the results differ")
        elif abs(s.mu - r.mu) > TOLERANCE or abs(s.sigma - r.sigma) > TOLERANCE:
            differences.append(
                f"{s.name}: recorded mu {s.mu:.6f} sigma {s.sigma:.6f}, rebuilt {r.mu:.6f} {r.sigma:.6f}"
            )
    for before, change in _chain(changes):
        if before is not None and (
            abs(before[0] - change.mu_before) > TOLERANCE or abs(before[1] - change.sigma_before) > TOLERANCE
        ):
            differences.append(f"battle {change.number}: a change's before is not the last after")
    return Audit(not differences, len({c.number for c in changes}), len(changes), differences)


def _chain(changes: list[RatingChange]) -> list[tuple[Rating | None, RatingChange]]:
    """Each change with the player's previous after (None for their first)."""
    last: dict[str, Rating] = {}
    out: list[tuple[Rating | None, RatingChange]] = []
    for change in changes:
        out.append((last.get(change.profile_id, (DEFAULT_MU, DEFAULT_SIGMA)), change))
        last[change.profile_id] = (change.mu_after, change.sigma_after)
    return out


async def battles(session: AsyncSession, league_id: str) -> list[LeagueBattle]:
    """The league's battles: rated ones in order, then those waiting or passed over."""
    rows = await session.scalars(
        select(LeagueBattle).where(LeagueBattle.league_id == league_id).order_by(LeagueBattle.created_at)
    )
    return sorted(rows, key=lambda b: (b.number is None, b.number or 0))
