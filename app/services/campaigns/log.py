"""The campaign's rows: the campaign, its seats (each a token, kept as its SHA-256) and its
append-only log. Every change is one `CampaignEvent` with the next seq; nothing is updated or
deleted but the campaign's own `seq` (the log's last number)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Campaign, CampaignEvent, CampaignSeat
from app.services.campaigns.fold import fold
from app.services.errors import Forbidden, Invalid, NotFound, Unauthorized
from app.services.store.tokens import hash_token, new_id, new_token


@dataclass(frozen=True)
class SeatMade:
    """A seat and its token (shown once)."""

    seat: CampaignSeat
    token: str


async def add_seat(session: AsyncSession, campaign_id: str, name: str, role: str, side: str = "") -> SeatMade:
    token = new_token()
    seat = CampaignSeat(
        id=new_id(), campaign_id=campaign_id, name=name, role=role, side=side, token_hash=hash_token(token)
    )
    session.add(seat)
    await session.flush()
    return SeatMade(seat, token)


async def get_campaign(session: AsyncSession, campaign_id: str, *, lock: bool = False) -> Campaign:
    query = select(Campaign).where(Campaign.id == campaign_id)
    if lock:
        query = query.with_for_update()
    found = (await session.execute(query)).scalar_one_or_none()
    if found is None:
        raise NotFound("no such campaign", "campaign")
    return found


async def seat_by_token(session: AsyncSession, campaign_id: str, token: str | None) -> CampaignSeat:
    """The seat holding this token in this campaign: the one thing every campaign door checks."""
    if not token:
        raise Unauthorized("send the campaign seat's token (Authorization: Bearer …)")
    seat = (
        await session.execute(select(CampaignSeat).where(CampaignSeat.token_hash == hash_token(token)))
    ).scalar_one_or_none()
    if seat is None or seat.campaign_id != campaign_id:
        raise Forbidden("that token holds no seat in this campaign")
    return seat


async def seats(session: AsyncSession, campaign_id: str) -> list[CampaignSeat]:
    query = (
        select(CampaignSeat).where(CampaignSeat.campaign_id == campaign_id).order_by(CampaignSeat.created_at)
    )
    return list((await session.execute(query)).scalars())


async def append(
    session: AsyncSession,
    campaign: Campaign,
    kind: str,
    data: dict[str, Any],
    actor: str,
    battle_id: str | None = None,
) -> CampaignEvent:
    """The next event of the campaign's log, in the caller's transaction (the campaign row locked)."""
    campaign.seq = (campaign.seq or 0) + 1
    event = CampaignEvent(
        campaign_id=campaign.id, seq=campaign.seq, kind=kind, actor=actor, battle_id=battle_id, data=data
    )
    session.add(event)
    await session.flush()
    return event


async def events(session: AsyncSession, campaign_id: str, upto: int | None = None) -> list[CampaignEvent]:
    query = select(CampaignEvent).where(CampaignEvent.campaign_id == campaign_id)
    if upto is not None:
        query = query.where(CampaignEvent.seq <= upto)
    return list((await session.execute(query.order_by(CampaignEvent.seq))).scalars())


async def folded(session: AsyncSession, campaign_id: str, upto: int | None = None) -> dict[str, Any]:
    """The campaign as its log leaves it (at `upto` when given)."""
    rows = await events(session, campaign_id, upto)
    if upto is not None and not upto >= 0:
        raise Invalid("seq: a seq of the campaign's log, 0 or more", "seq")
    return fold((r.seq, r.kind, r.data) for r in rows)


def new_campaign(name: str, system: str, options: dict[str, Any]) -> Campaign:
    return Campaign(id=new_id(), name=name, system=system, options=options, seq=0)


async def remember(db: Any, seat_id: str, profile_id: str) -> None:
    """A signed-in player's profile keeps the campaign seat this browser just took, so their other
    devices bring it (the seat's token stays the permission: the profile only remembers it)."""
    async with db.transaction() as session:
        seat = await session.get(CampaignSeat, seat_id)
        if seat is not None:
            seat.profile_id = profile_id


async def seats_of_profile(session: AsyncSession, profile_id: str) -> list[CampaignSeat]:
    """The campaign seats a profile remembers, oldest first."""
    rows = await session.execute(
        select(CampaignSeat).where(CampaignSeat.profile_id == profile_id).order_by(CampaignSeat.created_at)
    )
    return list(rows.scalars())
