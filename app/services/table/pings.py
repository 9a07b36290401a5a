"""Pings: "your move" and "deadline soon", to the browser (the page's Notification API, while the
tab is open: static/js/pings.js reads the turn bar's clock) and to the seat's webhook (a
Discord-compatible body: `content`, and an embed saying the step and the time left).

One ping per wait, never one per action: "your move" is the notifier's message, sent only when a
wait *begins* (notify.py compares who the step waits on with the last action's), and "deadline
soon" goes once per wait, claimed on the clock's row (clocks.py). Which pings a seat wants is one
small row (`PingSettings`), read with defaults when the seat never chose: it belongs to the seat
now and can move to a player's profile as it is."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant, PingSettings, SeatStatus
from app.rules.generic.timing import span
from app.services.errors import Forbidden
from app.services.platform import Platform
from app.services.table import notify


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


async def settings_for(session: AsyncSession, participant_id: str) -> Pings:
    return _of(await session.get(PingSettings, participant_id))


async def for_battle(session: AsyncSession, battle_id: str) -> dict[str, Pings]:
    """Every seat's pings in one read (seats that never chose are left out: DEFAULT)."""
    rows = await session.execute(
        select(PingSettings)
        .join(Participant, Participant.id == PingSettings.participant_id)
        .where(Participant.battle_id == battle_id)
    )
    return {r.participant_id: _of(r) for r in rows.scalars()}


async def read(platform: Platform, participant: Participant) -> Pings:
    async with platform.db.reader() as session:
        return await settings_for(session, participant.id)


async def save(platform: Platform, participant: Participant, wanted: Pings) -> Pings:
    """The seat's own choice (a spectator is never waited on, so it has none)."""
    if participant.role == "spectator":
        raise Forbidden("spectators are never waited on; there is nothing to ping", "your_move")
    async with platform.db.transaction() as session:
        row = await session.get(PingSettings, participant.id)
        if row is None:
            row = PingSettings(participant_id=participant.id)
            session.add(row)
        row.your_move, row.deadline = wanted.your_move, wanted.deadline
        row.browser, row.webhook = wanted.browser, wanted.webhook
    return wanted


def deadline_body(
    battle_name: str, seat_name: str, left_s: float, link: str
) -> tuple[str, list[dict[str, Any]]]:
    """The "deadline soon" message: Discord's incoming-webhook fields (`content`, `embeds`)."""
    content = f"Starboard: “{battle_name}” — {seat_name}, your time runs out in {span(left_s)}.{link}"
    embed = {"title": "Deadline soon", "description": f"{span(left_s)} left to act", "color": 0xE8A33D}
    return content, [embed]


async def deadline_soon(platform: Platform, battle_id: str, participant_id: str, left_s: float) -> bool:
    """Ping a seat whose time runs out soon, by its webhook if it wants this ping (the page's
    browser ping reads the turn bar's clock itself). Answers whether a message was started."""
    async with platform.db.reader() as session:
        seat = await session.get(Participant, participant_id)
        status = await session.get(SeatStatus, participant_id)
        battle = await session.get(Battle, battle_id)
        wanted = await settings_for(session, participant_id)
    if seat is None or battle is None or status is None or not status.webhook_url:
        return False
    if not (wanted.deadline and wanted.webhook):
        return False
    content, embeds = deadline_body(battle.name, seat.name, left_s, notify.link_to(platform, battle_id))
    notify.spawn(notify.deliver(platform, status.webhook_url, content, seat=participant_id, embeds=embeds))
    return True
