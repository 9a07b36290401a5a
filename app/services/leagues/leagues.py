"""Making and joining a league, who may see it, and the referee's choice that a battle counts for
one. A private league's existence is nobody else's business: to a profile outside it, it is "no
such league", exactly as an id that names nothing."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle, League, LeagueBattle, LeagueMember, Participant
from app.rules import Rules
from app.services.errors import Forbidden, Invalid, NotFound
from app.services.identity import profiles
from app.services.identity.profiles import clean_name
from app.services.store.tokens import new_id

# What the referee does before play: the fleet and its commanders. Once any other action is in
# the log, the battle has begun and whether it is rated is fixed.
SETUP_ACTIONS = ("ship.add", "ship.remove", "ship.assign")
MOST_POINTS = 1_000_000  # a ship's points, at most
MOST_PRICED = 500  # entries in a league's points table


def _now() -> datetime:
    return datetime.now(UTC)


def clean_points(raw: Any, field: str = "points") -> dict[str, int]:
    """A points table: names (a ship's class or name, or a ship id) → whole points 0..MOST_POINTS."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise Invalid(f"{field}: an object of names to whole points", field)
    if len(raw) > MOST_PRICED:
        raise Invalid(f"{field}: at most {MOST_PRICED} entries (you sent {len(raw)})", field)
    out: dict[str, int] = {}
    for name, value in raw.items():
        key = " ".join(str(name).split())
        if not 1 <= len(key) <= 80:
            raise Invalid(f"{field}: each name has 1 to 80 characters", field)
        if type(value) is not int or not 0 <= value <= MOST_POINTS:
            raise Invalid(
                f"{field}.{key}: whole points from 0 to {MOST_POINTS} (you sent {value!r})", f"{field}.{key}"
            )
        out[key] = value
    return out


async def create(
    session: AsyncSession,
    rules: Rules,
    organiser_id: str,
    *,
    name: Any,
    system: Any,
    public: Any,
    points: Any,
) -> League:
    """A new league; its organiser is its first member."""
    clean = clean_name(name)
    if not isinstance(system, str) or system not in rules.systems:
        known = ", ".join(sorted(rules.systems))
        raise Invalid(f"system: one of {known} (you sent {system!r})", "system")
    if type(public) is not bool:
        raise Invalid("public: true or false", "public")
    league = League(
        id=new_id(),
        name=clean,
        system=system,
        organiser_id=organiser_id,
        public=public,
        invite=secrets.token_urlsafe(12),
        points=clean_points(points),
        created_at=_now(),
    )
    session.add(league)
    session.add(LeagueMember(league_id=league.id, profile_id=organiser_id, joined_at=_now()))
    await session.flush()
    return league


async def is_member(session: AsyncSession, league_id: str, profile_id: str | None) -> bool:
    if profile_id is None:
        return False
    return await session.get(LeagueMember, (league_id, profile_id)) is not None


async def visible(session: AsyncSession, league_id: Any, profile_id: str | None) -> League:
    """The league if this viewer may see it: public, or a member of it (else "no such league")."""
    league = await session.get(League, league_id) if isinstance(league_id, str) else None
    if league is None or not (league.public or await is_member(session, league.id, profile_id)):
        raise NotFound("no such league", "league")
    return league


async def listed(session: AsyncSession, profile_id: str | None, system: str | None = None) -> list[League]:
    """Every public league and those the viewer is a member of, newest first."""
    mine = select(LeagueMember.league_id).where(LeagueMember.profile_id == (profile_id or ""))
    query = select(League).where(League.public.is_(True) | League.id.in_(mine))
    if system is not None:
        query = query.where(League.system == system)
    return list(await session.scalars(query.order_by(League.created_at.desc(), League.id)))


async def join(session: AsyncSession, league_id: Any, profile_id: str, invite: Any) -> League:
    """Join a public league, or a private one with its invite code (a wrong code: no such league)."""
    league = await session.get(League, league_id) if isinstance(league_id, str) else None
    if league is None:
        raise NotFound("no such league", "league")
    if await is_member(session, league.id, profile_id):
        return league
    if not league.public and not (
        isinstance(invite, str) and secrets.compare_digest(invite.encode(), league.invite.encode())
    ):
        raise NotFound("no such league", "league")
    session.add(LeagueMember(league_id=league.id, profile_id=profile_id, joined_at=_now()))
    await session.flush()
    return league


async def join_by_invite(session: AsyncSession, invite: Any, profile_id: str) -> League:
    """Join the private (or public) league an invite code opens; an unknown code: no such league."""
    code = invite.strip() if isinstance(invite, str) else ""
    league_id = await session.scalar(select(League.id).where(League.invite == code)) if code else None
    return await join(session, league_id, profile_id, code)


async def begun(session: AsyncSession, battle_id: str) -> bool:
    """Whether play has begun: an action other than the set-up is in the log."""
    found = await session.scalar(
        select(ActionLog.seq)
        .where(ActionLog.battle_id == battle_id, ActionLog.action_type.not_in(SETUP_ACTIONS))
        .limit(1)
    )
    return found is not None


async def mark(
    session: AsyncSession, battle: Battle, referee: Participant, league_id: Any, points: Any
) -> LeagueBattle | None:
    """The referee's choice, before play: rated for this league (and the points of ships its table
    does not price), or not rated (`league_id` None). Fixed once play has begun. A private league
    is only for a referee whose seat a member's profile holds (to anyone else: no such league)."""
    if referee.role != "referee":
        raise Forbidden("only the referee says whether a battle is rated")
    await session.execute(select(Battle.id).where(Battle.id == battle.id).with_for_update())
    if battle.status == "finished" or await begun(session, battle.id):
        raise Invalid(
            "league: play has begun (an action other than the set-up is in the log), so whether "
            "the battle is rated can no longer change",
            "league",
        )
    given = clean_points(points)
    kept = await session.get(LeagueBattle, battle.id)
    if league_id is None:
        if kept is not None:
            await session.delete(kept)
        return None
    league = await session.get(League, league_id) if isinstance(league_id, str) else None
    if league is not None and not league.public:
        holder = (await profiles.holders(session, battle.id)).get(referee.id)
        if not await is_member(session, league.id, holder.id if holder is not None else None):
            league = None
    if league is None:
        raise Invalid(f"league: no such league ({league_id!r})", "league")
    if league.system != battle.system:
        raise Invalid(f"league: {league.name} plays {league.system}, this battle {battle.system}", "league")
    if kept is None:
        kept = LeagueBattle(battle_id=battle.id, created_at=_now(), note="")
        session.add(kept)
    kept.league_id = league.id
    kept.marked_by = referee.id
    kept.points = given
    await session.flush()
    return kept


async def rated_for(session: AsyncSession, battle_id: str) -> tuple[LeagueBattle, League] | None:
    kept = await session.get(LeagueBattle, battle_id)
    if kept is None:
        return None
    league = await session.get(League, kept.league_id)
    return (kept, league) if league is not None else None
