"""Leagues over REST, for bots and tools (tag *leagues*): make one, join one, read its standings
and the rating record behind them (each change linked to its battle, report and dice check), audit
the record by rebuilding it, and — with a referee's bearer token — mark a battle rated before play
and read its fleet points. A profile acts through its cookie (`starboard_profile`, as `/api/v1/me`);
a private league is "no such league" (404) to everyone outside it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import League, LeagueBattle, RatingChange, Snapshot
from app.services.leagues import leagues, points, standings
from app.services.leagues.ratings import ordinal
from app.services.platform import Platform
from app.services.store.battles import get_battle
from app.services.store.seats import aware
from app.web.deps import Creds, PlatformDep, errors, participant_by_bearer
from app.web.profile_session import required, same_site, signed_in

router = APIRouter(prefix="/api/v1", tags=["leagues"])


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Its fields are `leagues.create`'s keywords, passed on as they came.
class LeagueIn(Strict):
    name: str = Field(max_length=200, description="1-80 characters")
    system: str = Field(max_length=40, description="the game system its battles play: sfb, b5wars, traveller")
    public: bool = Field(default=True, description="false: the standings are seen by members only")
    points: dict[str, int] = Field(
        default_factory=dict, description="a ship's points by its class or name, for fleet points at set-up"
    )


class JoinIn(Strict):
    invite: str | None = Field(default=None, max_length=64, description="a private league's invite code")


class InviteIn(Strict):
    invite: str = Field(max_length=64, description="the invite code the league's organiser shared")


class RatedIn(Strict):
    league: str | None = Field(max_length=32, description="the league the battle counts for; null: not rated")
    points: dict[str, int] = Field(
        default_factory=dict, description="points of ships the league's table does not price, by ship id"
    )


class LeagueOut(BaseModel):
    id: str
    name: str
    system: str
    public: bool
    organiser: str = Field(description="the organiser's profile id")
    member: bool = Field(description="whether you are a member")
    invite: str | None = Field(description="the invite code: shown to the organiser only")
    points: dict[str, int]


class StandingOut(BaseModel):
    place: int
    profile_id: str
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    rating: float = Field(description="the ordinal: mu − 3·sigma")
    mu: float
    sigma: float = Field(description="the rating's uncertainty")


class ChangeOut(BaseModel):
    number: int = Field(description="the battle's place in the league's order")
    battle_id: str
    battle_name: str
    profile_id: str
    side: str
    result: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    rating_before: float
    rating_after: float
    battle_url: str
    report_url: str
    dice_url: str
    at: datetime


class BattleOut(BaseModel):
    battle_id: str
    number: int | None
    rated: bool
    note: str


class StandingsOut(BaseModel):
    league: LeagueOut
    standings: list[StandingOut]
    battles: list[BattleOut]


class AuditOut(BaseModel):
    agrees: bool = Field(description="whether the record rebuilt from scratch gives the same standings")
    battles: int
    changes: int
    differences: list[str]


class SidePointsOut(BaseModel):
    side: str
    points: int
    short: int
    percent: float
    handicap: int
    unpriced: list[str]


class BattleLeagueOut(BaseModel):
    battle_id: str
    league: str | None
    league_name: str | None
    begun: bool = Field(description="play has begun: the choice can no longer change")
    sides: list[SidePointsOut]
    imbalance: int
    suggestion: str


Out = TypeVar("Out", bound=BaseModel)


def _read_off(model: type[Out], source: object, **given: Any) -> Out:
    """`model` as the API shows `source`: each field not `given` is the attribute of its name."""
    return model(
        **{name: getattr(source, name) for name in model.model_fields.keys() - given.keys()}, **given
    )


def league_out(league: League, profile_id: str | None, member: bool) -> LeagueOut:
    return _read_off(
        LeagueOut,
        league,
        organiser=league.organiser_id,
        member=member,
        invite=league.invite if profile_id == league.organiser_id else None,
        points=dict(league.points),
    )


def change_out(c: RatingChange) -> ChangeOut:
    return _read_off(
        ChangeOut,
        c,
        rating_before=ordinal(c.mu_before, c.sigma_before),
        rating_after=ordinal(c.mu_after, c.sigma_after),
        battle_url=f"/battles/{c.battle_id}",
        report_url=f"/battles/{c.battle_id}/report",
        dice_url=f"/battles/{c.battle_id}/dice",
        at=aware(c.created_at) or c.created_at,
    )


async def _viewer(request: Request, platform: PlatformDep) -> str | None:
    profile = await signed_in(request, platform)
    return profile.id if profile is not None else None


@asynccontextmanager
async def _visible(
    request: Request, platform: Platform, league_id: str
) -> AsyncIterator[tuple[AsyncSession, League, str | None]]:
    """A read of the league as the viewer (the signed-in profile, if any) may see it — a private
    one by its members only — with the read's session and the viewer."""
    viewer = await _viewer(request, platform)
    async with platform.db.reader() as session:
        yield session, await leagues.visible(session, league_id, viewer), viewer


@router.post("/leagues", status_code=201, response_model=LeagueOut, responses=errors(401, 403))
async def create_league(body: LeagueIn, request: Request, platform: PlatformDep) -> LeagueOut:
    """Make a league as the signed-in profile (its organiser and first member)."""
    same_site(request)
    profile = await required(request, platform)
    async with platform.db.transaction() as session:
        league = await leagues.create(session, platform.rules, profile.id, **body.model_dump())
    return league_out(league, profile.id, True)


@router.post("/leagues/join", response_model=LeagueOut, responses=errors(401, 403, 404))
async def join_by_invite(body: InviteIn, request: Request, platform: PlatformDep) -> LeagueOut:
    """Join the league an invite code opens, as the signed-in profile (an unknown code: 404)."""
    same_site(request)
    profile = await required(request, platform)
    async with platform.db.transaction() as session:
        league = await leagues.join_by_invite(session, body.invite, profile.id)
    return league_out(league, profile.id, True)


@router.get("/leagues", response_model=list[LeagueOut], responses=errors())
async def list_leagues(request: Request, platform: PlatformDep, system: str | None = None) -> list[LeagueOut]:
    """Every public league and the private ones you are a member of."""
    viewer = await _viewer(request, platform)
    async with platform.db.reader() as session:
        found = await leagues.listed(session, viewer, system)
        return [league_out(lg, viewer, await leagues.is_member(session, lg.id, viewer)) for lg in found]


@router.post("/leagues/{league_id}/members", response_model=LeagueOut, responses=errors(401, 403, 404))
async def join_league(league_id: str, body: JoinIn, request: Request, platform: PlatformDep) -> LeagueOut:
    """Join as the signed-in profile: a public league as is, a private one with its invite code."""
    same_site(request)
    profile = await required(request, platform)
    async with platform.db.transaction() as session:
        league = await leagues.join(session, league_id, profile.id, body.invite)
    return league_out(league, profile.id, True)


@router.get("/leagues/{league_id}", response_model=StandingsOut, responses=errors(404))
async def league_standings(league_id: str, request: Request, platform: PlatformDep) -> StandingsOut:
    """The standings: games, wins, draws, losses, rating (mu − 3·sigma) and sigma, best first."""
    async with _visible(request, platform, league_id) as (session, league, viewer):
        table = await standings.standings(session, league)
        rows = await standings.battles(session, league.id)
        member = await leagues.is_member(session, league.id, viewer)
    return StandingsOut(
        league=league_out(league, viewer, member),
        standings=[_read_off(StandingOut, s, place=i) for i, s in enumerate(table, start=1)],
        battles=[_battle_out(b) for b in rows],
    )


def _battle_out(b: LeagueBattle) -> BattleOut:
    return BattleOut(battle_id=b.battle_id, number=b.number, rated=b.rated_at is not None, note=b.note)


@router.get("/leagues/{league_id}/changes", response_model=list[ChangeOut], responses=errors(404))
async def league_changes(league_id: str, request: Request, platform: PlatformDep) -> list[ChangeOut]:
    """The append-only rating record, in order: one change per player per rated battle."""
    async with _visible(request, platform, league_id) as (session, league, _):
        return [change_out(c) for c in await standings.record(session, league.id)]


@router.get("/leagues/{league_id}/audit", response_model=AuditOut, responses=errors(404))
async def league_audit(league_id: str, request: Request, platform: PlatformDep) -> AuditOut:
    """Rebuild the standings from scratch (every result replayed in order) and compare."""
    async with _visible(request, platform, league_id) as (session, league, _):
        found = await standings.audit(session, league)
    return AuditOut(
        agrees=found.agrees, battles=found.battles, changes=found.changes, differences=found.differences
    )


async def battle_league(platform: Any, battle_id: str, referee: bool) -> BattleLeagueOut:
    """Whether the battle is rated and for which league, with each side's fleet points. A private
    league is named to the referee only (who chose it): a seat's token is not a membership."""
    async with platform.db.reader() as session:
        await get_battle(session, battle_id)
        pair = await leagues.rated_for(session, battle_id)
        started = await leagues.begun(session, battle_id)
        snap = await session.get(Snapshot, battle_id)
    if pair is None or snap is None:
        return BattleLeagueOut(
            battle_id=battle_id,
            league=None,
            league_name=None,
            begun=started,
            sides=[],
            imbalance=0,
            suggestion="Not rated for a league.",
        )
    kept, league = pair
    fleet = points.fleet_points(platform.rules.load(snap.state), league, kept)
    named = league.public or referee
    return BattleLeagueOut(
        battle_id=battle_id,
        league=league.id if named else None,
        league_name=league.name if named else "a private league",
        begun=started,
        sides=[_read_off(SidePointsOut, s) for s in fleet.sides],
        imbalance=fleet.imbalance,
        suggestion=fleet.suggestion,
    )


@router.get("/battles/{battle_id}/league", response_model=BattleLeagueOut, responses=errors(401, 403, 404))
async def get_battle_league(battle_id: str, platform: PlatformDep, creds: Creds) -> BattleLeagueOut:
    """The league the battle counts for (if any), each side's fleet points, the imbalance and the
    suggested handicap. Any seat of the battle may read it; a private league is named to its
    referee only."""
    seat = await participant_by_bearer(platform, battle_id, creds)
    return await battle_league(platform, battle_id, seat.role == "referee")


@router.put("/battles/{battle_id}/league", response_model=BattleLeagueOut, responses=errors(401, 403, 404))
async def put_battle_league(
    battle_id: str, body: RatedIn, platform: PlatformDep, creds: Creds
) -> BattleLeagueOut:
    """The referee marks the battle rated for a league (null: not rated), before play begins:
    once an action other than the set-up is in the log, this is refused (422, field `league`)."""
    referee = await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.transaction() as session:
        battle = await get_battle(session, battle_id)
        await leagues.mark(session, battle, referee, body.league, body.points)
    return await battle_league(platform, battle_id, True)
