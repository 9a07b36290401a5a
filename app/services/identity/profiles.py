"""Profiles and the seats they remember. A profile grants nothing of its own: it keeps, per seat,
the key of the token the seat was claimed with (`tokens.seat_key`), so a seat given a new link by
its referee (rotation) or removed no longer comes back with the profile — exactly as a browser's
session loses it."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.models import Battle, LibraryShip, Participant, Passkey, Profile, ProfileSeat
from app.rules import Rules
from app.services.errors import Invalid
from app.services.reading.home_cards import HomeCard, home_cards
from app.services.store.tokens import new_id, seat_key

NAME_MAX = 80


def clean_name(raw: Any, field: str = "name") -> str:
    """A display name: 1 to 80 characters, no control characters, inner spaces folded."""
    name = " ".join(str(raw if raw is not None else "").split())
    if not 1 <= len(name) <= NAME_MAX:
        raise Invalid(f"{field}: a name has 1 to {NAME_MAX} characters (you sent {len(name)})", field)
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
        raise Invalid(f"{field}: a name may not hold control characters", field)
    return name


def new_profile(name: str, user_handle: str) -> Profile:
    return Profile(id=new_id(), name=name, user_handle=user_handle, settings={}, created_at=datetime.now(UTC))


async def current(session: AsyncSession, profile_id: str, passkey_id: str | None) -> Profile | None:
    """The profile a signed cookie names, if it still stands: the profile exists and, for a passkey
    sign-in, that passkey was not removed (removing a device signs it out)."""
    profile = await session.get(Profile, profile_id)
    if profile is None:
        return None
    if passkey_id is not None:
        key = await session.get(Passkey, passkey_id)
        if key is None or key.profile_id != profile_id:
            return None
    return profile


@dataclass(frozen=True)
class HeldSeat:
    """A seat a profile still holds, with the key it was claimed with (what a browser's session
    keeps to be refused once the seat's link is rotated)."""

    participant: Participant
    key: str


async def held_seats(session: AsyncSession, profile_id: str) -> list[HeldSeat]:
    """The seats the profile remembers that still grant something: active, and claimed with the
    token the seat holds now."""
    rows = await session.execute(
        select(ProfileSeat.seat_key, Participant)
        .join(Participant, Participant.id == ProfileSeat.participant_id)
        .where(ProfileSeat.profile_id == profile_id, Participant.active.is_(True))
        .order_by(ProfileSeat.claimed_at)
    )
    return [HeldSeat(p, key) for key, p in rows.all() if key == seat_key(p.token_hash)]


async def holders(session: AsyncSession, battle_id: str) -> dict[str, Profile]:
    """The profile holding each seat of a battle, by seat id — only while the seat's link is the one
    it was claimed with (a new link takes the seat away from the profile)."""
    rows = await session.execute(
        select(Participant, ProfileSeat.seat_key, Profile)
        .join(ProfileSeat, ProfileSeat.participant_id == Participant.id)
        .join(Profile, Profile.id == ProfileSeat.profile_id)
        .where(Participant.battle_id == battle_id, Participant.active.is_(True))
    )
    return {p.id: profile for p, key, profile in rows.all() if key == seat_key(p.token_hash)}


async def claim(db: Database, profile_id: str, seats: list[HeldSeat]) -> int:
    """Remember these seats for the profile (each checked against its token now: a browser's stale
    seat is not claimed). Answers how many were new."""
    added = 0
    for _attempt in range(3):
        try:
            async with db.transaction() as session:
                added = 0
                for seat in seats:
                    row = await session.get(Participant, seat.participant.id)
                    if row is None or not row.active or seat_key(row.token_hash) != seat.key:
                        continue
                    kept = await session.get(ProfileSeat, (profile_id, row.id))
                    if kept is None:
                        session.add(
                            ProfileSeat(
                                profile_id=profile_id,
                                participant_id=row.id,
                                battle_id=row.battle_id,
                                seat_key=seat.key,
                                claimed_at=datetime.now(UTC),
                            )
                        )
                        added += 1
                    elif kept.seat_key != seat.key:  # claimed again with the seat's new link
                        kept.seat_key = seat.key
                return added
        except IntegrityError:  # the same seat claimed twice at once: the other made the row; go again
            continue
    return added


async def my_battles(session: AsyncSession, rules: Rules, profile_id: str) -> list[HomeCard]:
    """Each battle the profile holds a seat in, with whose move it is: the home page's cards, drawn
    for the profile's seats instead of one browser's."""
    cards: list[HomeCard] = []
    for seat in await held_seats(session, profile_id):
        p = seat.participant
        cards += await home_cards(session, rules, {p.battle_id: p.id}, {p.battle_id: seat.key})
    return sorted(cards, key=lambda c: c.battle.updated_at, reverse=True)


async def library_of(session: AsyncSession, profile_id: str) -> list[LibraryShip]:
    """The ship library entries that belong to the profile: those saved in a battle where it holds
    the referee's seat (the library's own rule: a battle's referees keep what was saved there)."""
    battles = [
        s.participant.battle_id
        for s in await held_seats(session, profile_id)
        if s.participant.role == "referee"
    ]
    if not battles:
        return []
    rows = await session.scalars(
        select(LibraryShip).where(LibraryShip.saved_in.in_(battles)).order_by(LibraryShip.created_at)
    )
    return list(rows)


async def battle_names(session: AsyncSession, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    rows = await session.execute(select(Battle.id, Battle.name).where(Battle.id.in_(ids)))
    return {i: n for i, n in rows.all()}
