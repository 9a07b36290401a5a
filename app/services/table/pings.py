"""Pings: "your move" and "deadline soon", to the browser (the page's Notification API, while the
tab is open: static/js/pings.js reads the turn bar's clock) and to the seat's webhook (a
Discord-compatible body: `content`, and an embed saying the step and the time left).

One ping per wait, never one per action: "your move" is the notifier's message, sent only when a
wait *begins* (notify.py compares who the step waits on with the last action's), and "deadline
soon" goes once per wait, claimed on the clock's row (clocks.py).

Which pings a player wants is theirs, not the battle's: a seat a signed-in profile holds reads and
writes the profile's choice (`Profile.settings["pings"]`), so one choice applies to every battle
of that player; a seat played without a profile keeps its own small row (`PingSettings`). Either
is read with the defaults when nobody chose."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Participant, PingSettings, Profile
from app.services.errors import Forbidden
from app.services.identity import profiles
from app.services.platform import Platform


class Pings(BaseModel):
    """Which pings a seat wants, and how."""

    your_move: bool = True
    deadline: bool = True
    browser: bool = True
    webhook: bool = True


DEFAULT = Pings()


def _of(row: PingSettings | None) -> Pings:
    if row is None:
        return DEFAULT
    return Pings(your_move=row.your_move, deadline=row.deadline, browser=row.browser, webhook=row.webhook)


def of_profile(profile: Profile) -> Pings:
    """What a profile chose (the defaults where it never chose)."""
    return Pings.model_validate((profile.settings or {}).get("pings") or {})


async def settings_for(session: AsyncSession, participant: Participant) -> Pings:
    """The pings wanted for this seat: its profile's, else its own, else the defaults."""
    profile = (await profiles.holders(session, participant.battle_id)).get(participant.id)
    if profile is not None:
        return of_profile(profile)
    return _of(await session.get(PingSettings, participant.id))


async def for_battle(session: AsyncSession, battle_id: str) -> dict[str, Pings]:
    """Every seat's pings in one read (seats nobody chose for are left out: DEFAULT)."""
    rows = await session.execute(
        select(PingSettings)
        .join(Participant, Participant.id == PingSettings.participant_id)
        .where(Participant.battle_id == battle_id)
    )
    wanted = {r.participant_id: _of(r) for r in rows.scalars()}
    wanted.update({seat: of_profile(p) for seat, p in (await profiles.holders(session, battle_id)).items()})
    return wanted


async def read(platform: Platform, participant: Participant) -> Pings:
    async with platform.db.reader() as session:
        return await settings_for(session, participant)


async def save(platform: Platform, participant: Participant, wanted: Pings) -> Pings:
    """The player's choice, made from any of their battles: their profile's where one holds the
    seat (so it applies to every battle they play), else the seat's own. A spectator is never
    waited on, so it has none."""
    if participant.role == "spectator":
        raise Forbidden("spectators are never waited on; there is nothing to ping", "your_move")
    async with platform.db.transaction() as session:
        profile = (await profiles.holders(session, participant.battle_id)).get(participant.id)
        if profile is not None:
            await save_for_profile(session, profile, wanted)
            return wanted
        row = await session.get(PingSettings, participant.id)
        if row is None:
            row = PingSettings(participant_id=participant.id)
            session.add(row)
        row.your_move, row.deadline = wanted.your_move, wanted.deadline
        row.browser, row.webhook = wanted.browser, wanted.webhook
    return wanted


async def read_profile(platform: Platform, profile_id: str) -> Pings:
    """A signed-in player's pings, for every battle they play."""
    async with platform.db.reader() as session:
        profile = await session.get(Profile, profile_id)
    return of_profile(profile) if profile is not None else DEFAULT


async def save_profile(platform: Platform, profile_id: str, wanted: Pings) -> Pings:
    """A signed-in player's choice from their profile page: every battle they hold a seat in."""
    async with platform.db.transaction() as session:
        profile = await session.get(Profile, profile_id)
        if profile is None:
            raise Forbidden("sign in first", "profile")
        await save_for_profile(session, profile, wanted)
    return wanted


async def save_for_profile(session: AsyncSession, profile: Profile, wanted: Pings) -> None:
    """A profile's pings, for every battle it plays (a new dict: the JSON column sees the change)."""
    profile.settings = {**(profile.settings or {}), "pings": wanted.model_dump()}
