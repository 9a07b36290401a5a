"""Rating a league's battles as they end: openskill's Plackett-Luce model (its defaults: mu 25,
sigma 25/3), one rating per player per league — a league plays one game system, so a rating is a
player's standing in that system for the season. Each side's league players are a team; the side
the end names won (rank 1, every other side rank 2), a draw ranks every side 1.

The work hangs on the one after-commit bus: an action whose events hold the battle's end starts it
as a background task. It rates every finished, not yet rated battle of that league in the order
they ended — so a battle whose rating was lost (a process stopped right after the commit) is rated
with the next end in its league. Each change is one append-only `RatingChange` row; the league's
row is locked while its ratings move (and a process-wide lock per league on SQLite), so two ends
at once never both read the same "before"."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import (
    ActionLog,
    Battle,
    League,
    LeagueBattle,
    LeagueMember,
    ProfileSeat,
    RatingChange,
    Snapshot,
)
from app.rules.generic.ending import DRAW, side_of, winner
from app.rules.state import BattleState
from app.services.bus import ActionCommitted
from app.services.platform import Platform

log = logging.getLogger(__name__)

MODEL = PlackettLuce()
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma

Rating = tuple[float, float]  # (mu, sigma)


@dataclass(frozen=True)
class Team:
    """One side of a rated battle: its league players (profile ids, in a fixed order) and rank."""

    side: str
    players: list[str]
    rank: int


def rate(teams: list[list[Rating]], ranks: list[int]) -> list[list[Rating]]:
    """New (mu, sigma) for every player of every team, given the teams' ranks (1 best; equal: tied)."""
    made = [[MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in teams]
    out = MODEL.rate(made, ranks=[float(r) for r in ranks])
    return [[(r.mu, r.sigma) for r in team] for team in out]


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown and ranked by: openskill's conservative estimate, mu − 3·sigma."""
    return MODEL.rating(mu=mu, sigma=sigma).ordinal()


def side_name(key: str, state: BattleState) -> str:
    """A side as people read it: its name, or the commander's ships for a ship without a side."""
    if key.startswith("side:"):
        return key[5:]
    names = [s.name for s in state.ships.values() if side_of(s) == key]
    return ", ".join(names)[:60] or "no side"


def teams_of(state: BattleState, won: str | None, holders: dict[str, list[str]]) -> list[Team] | str:
    """The teams a finished battle rates, or why it rates nobody. `won`: the side the end names, or
    "draw"; `holders`: each seat's league players (profile ids)."""
    if won is None:
        return "its end named no winner"
    players: dict[str, list[str]] = {}
    for ship in state.ships.values():
        team = players.setdefault(side_of(ship), [])
        for profile_id in holders.get(ship.owner or "", []):
            if profile_id not in team:
                team.append(profile_id)
    if len(players) < 2:
        return "it had ships on one side only"
    seen: dict[str, str] = {}
    for key, team in players.items():
        if not team:
            return f"the {side_name(key, state)} side has no league player"
        for profile_id in team:
            if seen.setdefault(profile_id, key) != key:
                return "a league player commanded ships on two sides"
    if won != DRAW and f"side:{won}" not in players:
        return "its end named no winner"
    return [
        Team(side_name(key, state), sorted(team), 1 if won == DRAW or key == f"side:{won}" else 2)
        for key, team in players.items()
    ]


def result_of(team: Team, teams: list[Team]) -> str:
    if all(t.rank == team.rank for t in teams):
        return "draw"
    return "win" if team.rank == min(t.rank for t in teams) else "loss"


_locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)


async def rate_league(platform: Platform, league_id: str) -> int:
    """Rate every finished, unrated battle of the league in the order they ended; answers how many
    were rated (a battle passed over keeps its reason in `note`)."""
    async with _locks[league_id], platform.db.transaction() as session:
        await session.execute(select(League.id).where(League.id == league_id).with_for_update())
        rows = await session.execute(
            select(LeagueBattle, Battle)
            .join(Battle, Battle.id == LeagueBattle.battle_id)
            .where(
                LeagueBattle.league_id == league_id,
                LeagueBattle.rated_at.is_(None),
                LeagueBattle.note == "",
                Battle.status == "finished",
            )
            .order_by(Battle.updated_at, Battle.id)
        )
        done = 0
        for kept, battle in rows.all():
            done += await _rate_one(platform, session, kept, battle)
        return done


async def _rate_one(platform: Platform, session: AsyncSession, kept: LeagueBattle, battle: Battle) -> int:
    snap = await session.get(Snapshot, battle.id)
    end = await session.scalar(
        select(ActionLog).where(ActionLog.battle_id == battle.id, ActionLog.seq == battle.seq)
    )
    event = next((e for e in (end.events if end else []) if e.get("kind") == "battle_end"), None)
    if snap is None or event is None:
        kept.note = "its end is not in the log"
        return 0
    state = platform.rules.load(snap.state)
    won = winner(event, {s.id: {"side": s.side} for s in state.ships.values()})
    members = select(LeagueMember.profile_id).where(LeagueMember.league_id == kept.league_id)
    held = await session.execute(
        select(ProfileSeat.participant_id, ProfileSeat.profile_id)
        .where(ProfileSeat.battle_id == battle.id, ProfileSeat.profile_id.in_(members))
        .order_by(ProfileSeat.profile_id)
    )
    holders: dict[str, list[str]] = {}
    for participant_id, profile_id in held.all():
        holders.setdefault(participant_id, []).append(profile_id)
    teams = teams_of(state, won, holders)
    if isinstance(teams, str):
        kept.note = f"not rated: {teams}"[:200]
        return 0
    before = [[await current(session, kept.league_id, p) for p in t.players] for t in teams]
    after = rate(before, [t.rank for t in teams])
    number = (
        await session.scalar(
            select(func.max(LeagueBattle.number)).where(LeagueBattle.league_id == kept.league_id)
        )
        or 0
    ) + 1
    now = datetime.now(UTC)
    for team, olds, news in zip(teams, before, after, strict=True):
        for profile_id, old, new in zip(team.players, olds, news, strict=True):
            session.add(
                RatingChange(
                    league_id=kept.league_id,
                    battle_id=battle.id,
                    battle_name=battle.name,
                    number=number,
                    profile_id=profile_id,
                    side=team.side[:60],
                    rank=team.rank,
                    result=result_of(team, teams),
                    mu_before=old[0],
                    sigma_before=old[1],
                    mu_after=new[0],
                    sigma_after=new[1],
                    created_at=now,
                )
            )
    kept.number = number
    kept.rated_at = now
    await session.flush()
    return 1


async def current(session: AsyncSession, league_id: str, profile_id: str) -> Rating:
    """A player's rating in the league now: the last change's after, or the model's default."""
    last = await session.scalar(
        select(RatingChange)
        .where(RatingChange.league_id == league_id, RatingChange.profile_id == profile_id)
        .order_by(RatingChange.number.desc())
        .limit(1)
    )
    return (last.mu_after, last.sigma_after) if last is not None else (DEFAULT_MU, DEFAULT_SIGMA)


def ended(events: list[Any]) -> bool:
    return any(isinstance(e, dict) and e.get("kind") == "battle_end" for e in events)


def wire(platform: Platform) -> None:
    """Rate a league battle when an action ends it: after the commit, in the background."""

    async def rate_if_league(battle_id: str) -> None:
        try:
            async with platform.db.reader() as session:
                league_id = await session.scalar(
                    select(LeagueBattle.league_id).where(LeagueBattle.battle_id == battle_id)
                )
            if league_id is not None:
                await rate_league(platform, league_id)
        except (SQLAlchemyError, OSError, TimeoutError) as exc:  # the database is away for a moment
            log.warning(
                "battle %s: its league rating waits for the next end in the league (%s)", battle_id, exc
            )

    def on_committed(event: ActionCommitted) -> Any:
        if not event.commit.state.finished or not ended(event.commit.row.events):
            return None
        return rate_if_league(event.commit.battle_id)

    platform.bus.on(ActionCommitted, on_committed)
