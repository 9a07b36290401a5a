"""Table talk: a battle's chat, kept beside the rules log in its own table with its own
seq, so a message never changes the state or the seq actions are made against.

A public message is read by everyone seated at the battle; a private one exists only between its
two ends — a player (or bot) and the referee — and every read here filters by the reader. Posting is
length- and rate-limited per seat (CHAT_RATE_COUNT per CHAT_RATE_SECONDS, held by one conditional
insert, so concurrent posts cannot slip past it). After a message is stored, a wake-up on the
table's topic (`Topic.TABLE`, the chat seq) goes through the broker; each process's hub draws the
chat for each seat watching there and sends what changed (app/realtime/hub.py)."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, literal, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, ChatMessage, Participant
from app.services.bus import TableChanged
from app.services.errors import Forbidden, Invalid, RateLimited, ServiceError
from app.services.platform import Platform
from app.services.store.battles import get_battle, get_participant, participants
from app.services.store.seats import aware, table_options, utcnow

log = logging.getLogger(__name__)

REFEREE = "referee"  # the `to` a player writes to reach the referee privately
SHOWN = 60  # messages a page shows
ATTEMPTS = 30  # tries of a post whose chat seq another post took first (each try one statement)


@dataclass
class Line:
    """One message as a reader sees it; `seq` is the reader's own ordinal (see visible_count)."""

    seq: int
    sender: str
    sender_role: str
    to: str | None  # the other end of a private message, by name
    private: bool
    body: str
    at: datetime
    mine: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "from": self.sender,
            "from_role": self.sender_role,
            "to": self.to,
            "private": self.private,
            "text": self.body,
            "at": self.at.isoformat(),
        }


def _visible_to(participant: Participant) -> Any:
    return or_(
        ChatMessage.recipient_id.is_(None),
        ChatMessage.sender_id == participant.id,
        ChatMessage.recipient_id == participant.id,
    )


async def visible_count(session: AsyncSession, battle_id: str, reader: Participant) -> int:
    """How many messages this reader may see: their own cursor (`seq` of a Line is the reader's
    ordinal, 1…n, so the numbers a reader sees have no gaps where someone else's private line was)."""
    return (
        await session.scalar(
            select(func.count())
            .select_from(ChatMessage)
            .where(ChatMessage.battle_id == battle_id, _visible_to(reader))
        )
        or 0
    )


CATCH_UP_LINES = 3  # lines of table talk shown in "since your last visit"


async def since_visit(
    session: AsyncSession, battle_id: str, reader: Participant, after: datetime | None
) -> dict[str, Any] | None:
    """Table talk others wrote that this reader may see after `after` (when they last left the
    page): how many lines and the first few, for "since your last visit"; None when there is none."""
    if after is None:
        return None
    new = (
        ChatMessage.battle_id == battle_id,
        _visible_to(reader),
        ChatMessage.sender_id != reader.id,
        ChatMessage.created_at > after,
    )
    count = await session.scalar(select(func.count()).select_from(ChatMessage).where(*new)) or 0
    if not count:
        return None
    rows = list(
        await session.scalars(select(ChatMessage).where(*new).order_by(ChatMessage.seq).limit(CATCH_UP_LINES))
    )
    names = {p.id: p.name for p in await participants(session, battle_id)}
    lines = [
        f"{names.get(m.sender_id or '', 'someone')}{' (private)' if m.recipient_id else ''}: {m.body}"
        for m in rows
    ]
    return {"count": count, "lines": lines, "more": max(0, count - len(lines))}


async def lines_for(
    session: AsyncSession, battle_id: str, reader: Participant, *, since: int = 0, limit: int | None = SHOWN
) -> list[Line]:
    """The messages this reader may see (public, or private with them at one end), oldest first,
    after the reader's own ordinal `since` (at most the last `limit`)."""
    start = since
    if limit is not None:
        start = max(since, await visible_count(session, battle_id, reader) - limit)
    query = (
        select(ChatMessage)
        .where(ChatMessage.battle_id == battle_id, _visible_to(reader))
        .order_by(ChatMessage.seq)
        .offset(start)
    )
    rows = list(await session.scalars(query))
    people = {p.id: p for p in await participants(session, battle_id)}
    return [_line(m, start + i + 1, people, reader) for i, m in enumerate(rows)]


def _line(m: ChatMessage, seq: int, people: dict[str, Participant], reader: Participant) -> Line:
    """A message as this reader sees it, the reader's `seq`-th."""

    def name(pid: str | None) -> str:
        return people[pid].name if pid in people else "someone"

    return Line(
        seq=seq,
        sender=name(m.sender_id),
        sender_role=people[m.sender_id].role if m.sender_id in people else "",
        to=None if m.recipient_id is None else name(m.recipient_id),
        private=m.recipient_id is not None,
        body=m.body,
        at=aware(m.created_at) or m.created_at,
        mine=m.sender_id == reader.id,
    )


def sees(reader: Participant, sender_id: str | None, recipient_id: str | None) -> bool:
    """`_visible_to` in Python: a public message, or a private one with the reader at one end."""
    return recipient_id is None or reader.id in (sender_id, recipient_id)


TALK_PAGE = 4 * SHOWN  # messages read at a time from the end for a battle's watching seats


async def talk_for(
    session: AsyncSession, battle_id: str, readers: list[Participant], people: list[Participant]
) -> dict[str, tuple[int, list[Line]]]:
    """Each reader's `visible_count` and `lines_for` (the last SHOWN), for all the readers at once:
    how many messages each party sends each in one grouped count, then the battle's messages from
    its end, a page at a time, until every reader has its SHOWN lines or the start is reached —
    two statements for a table however many seats watch, where each seat took four. The count
    gives the newest message the pages start from, so a message posted meanwhile is in neither."""
    counted = (
        await session.execute(
            select(ChatMessage.sender_id, ChatMessage.recipient_id, func.count(), func.max(ChatMessage.seq))
            .where(ChatMessage.battle_id == battle_id)
            .group_by(ChatMessage.sender_id, ChatMessage.recipient_id)
        )
    ).all()
    counts = {r.id: sum(n for s, t, n, _ in counted if sees(r, s, t)) for r in readers}
    newest: list[ChatMessage] = []  # newest first
    lacking = {r.id: min(counts[r.id], SHOWN) for r in readers}  # lines each reader still lacks
    before = max((top for *_, top in counted), default=0) + 1
    while any(lacking.values()):
        page = list(
            await session.scalars(
                select(ChatMessage)
                .where(ChatMessage.battle_id == battle_id, ChatMessage.seq < before)
                .order_by(ChatMessage.seq.desc())
                .limit(TALK_PAGE)
            )
        )
        for m in page:
            for r in readers:
                if lacking[r.id] and sees(r, m.sender_id, m.recipient_id):
                    lacking[r.id] -= 1
        newest += page
        if len(page) < TALK_PAGE:
            break
        before = page[-1].seq
    by_id = {p.id: p for p in people}
    talk: dict[str, tuple[int, list[Line]]] = {}
    for r in readers:
        mine = [m for m in newest if sees(r, m.sender_id, m.recipient_id)][:SHOWN][::-1]
        start = counts[r.id] - len(mine)
        talk[r.id] = (counts[r.id], [_line(m, start + i + 1, by_id, r) for i, m in enumerate(mine)])
    return talk


async def referee_of(session: AsyncSession, battle_id: str) -> Participant | None:
    for p in await participants(session, battle_id):
        if p.role == "referee" and p.active:
            return p
    return None


async def _recipient(
    session: AsyncSession, battle: Battle, sender: Participant, to: str | None
) -> str | None:
    if to in (None, "", "all", "public"):
        if sender.role == "spectator" and not (await table_options(session, battle))["spectators_chat"]:
            raise Forbidden("spectators read the table talk here; this battle does not let them write", "to")
        return None
    if sender.role == "spectator":
        raise Forbidden("spectators have no private line to the referee", "to")
    if sender.role in ("player", "bot"):
        if to != REFEREE:
            raise Invalid("a private message goes to the referee: to = 'referee'", "to")
        ref = await referee_of(session, battle.id)
        if ref is None:
            raise Invalid("this battle has no referee to write to", "to")
        return ref.id
    # the referee writes privately to one player
    other = await session.get(Participant, str(to))
    if (
        other is None
        or other.battle_id != battle.id
        or not other.active
        or other.role not in ("player", "bot")
    ):
        raise Invalid("a private message from the referee goes to one player of this battle", "to")
    return other.id


def _clean(body: Any, limit: int) -> str:
    if not isinstance(body, str):
        raise Invalid("a message is text", "text")
    text = body.replace("\r\n", "\n").strip()
    if not text:
        raise Invalid("write something first", "text")
    if len(text) > limit:
        raise Invalid(f"a message is at most {limit} characters (this one has {len(text)})", "text")
    return text


async def post(
    platform: Platform,
    battle_id: str,
    sender_id: str | None,
    body: Any,
    to: str | None = None,
    *,
    limited: bool = True,
) -> Line:
    """Store one message from a seated participant and wake every viewer's chat. `to`: None for the
    table, 'referee' (a player's private line), or a player's id (the referee's private line)."""
    settings = platform.settings
    text = _clean(body, settings.chat_max_chars)
    for _attempt in range(ATTEMPTS):
        try:
            async with platform.transaction() as work:
                session = work.session
                battle = await get_battle(session, battle_id)
                sender = await get_participant(session, battle_id, sender_id)
                recipient = await _recipient(session, battle, sender, to)
                seq = await _insert_within_limit(
                    session, settings, battle_id, sender.id, recipient, text, limited
                )
                work.emit(TableChanged(battle_id, seq))
            break
        except IntegrityError:  # another message took this chat seq first: count again
            continue
    else:
        raise ServiceError("the chat is busy; try again")
    async with platform.db.reader() as session:  # this message, numbered as its sender reads it
        before = await session.scalar(
            select(func.count())
            .select_from(ChatMessage)
            .where(ChatMessage.battle_id == battle_id, ChatMessage.seq < seq, _visible_to(sender))
        )
        return (await lines_for(session, battle_id, sender, since=before or 0, limit=None))[0]


async def _insert_within_limit(
    session: AsyncSession,
    settings: Any,
    battle_id: str,
    sender_id: str,
    recipient: str | None,
    text: str,
    limited: bool,
) -> int:
    """Store the message in ONE statement — INSERT … SELECT … WHERE (the sender's messages in the
    window) < the limit — with its chat seq (the battle's last + 1) read in the same statement. Two
    posts that both counted under the limit both want the same seq: the unique (battle, seq) lets
    one in and the other fails, is retried, and counts again. So concurrent posts never get past the
    limit (a separate count, then an insert, let 6 of 20 through). Answers the new chat seq."""
    now = utcnow()
    c = ChatMessage.__table__.c
    next_seq = select(func.coalesce(func.max(c.seq), 0) + 1).where(c.battle_id == battle_id).scalar_subquery()
    row = select(
        literal(battle_id, c.battle_id.type),
        next_seq,
        literal(sender_id, c.sender_id.type),
        literal(recipient, c.recipient_id.type),
        literal(text, c.body.type),
        literal(now, c.created_at.type),
    )
    if limited:
        window = now - timedelta(seconds=settings.chat_rate_seconds)
        recent = (
            select(func.count())
            .select_from(ChatMessage.__table__)
            .where(c.battle_id == battle_id, c.sender_id == sender_id, c.created_at > window)
            .scalar_subquery()
        )
        row = row.where(recent < settings.chat_rate_count)
    columns = [c.battle_id, c.seq, c.sender_id, c.recipient_id, c.body, c.created_at]
    stored = await session.scalar(insert(ChatMessage).from_select(columns, row).returning(c.seq))
    if stored is None:
        raise RateLimited(
            f"slow down: at most {settings.chat_rate_count} messages in {settings.chat_rate_seconds:g} s",
            "text",
            retry_after=max(1, math.ceil(settings.chat_rate_seconds)),
        )
    return int(stored)
