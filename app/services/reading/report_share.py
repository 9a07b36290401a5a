"""Public links to a battle's report: made by the referee, shown once, revocable.

A link is `/reports/{token}` (the page) and `/reports/{token}.svg` (a summary card to post). Only
the token's SHA-256 is stored (`ReportShare`), as join tokens are. Whoever holds the link reads the
report as a spectator reads it (`PUBLIC`: a spectator seat that commands no ship), so nothing a
spectator may not see — a cloaked ship's path, a commander-only value, an owner-only event, the
table talk (never part of a report) — reaches it. Revoking deletes every link of the battle; a
battle holds at most MAX_SHARES live links."""

from __future__ import annotations

from sqlalchemy import delete, func, insert, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant, ReportShare
from app.services.errors import Conflict, Forbidden, NotFound
from app.services.store.seats import utcnow
from app.services.store.tokens import hash_token, new_token

MAX_SHARES = 20  # live public links per battle (docs/security.md, "Bounds")
PUBLIC_ID = "public:share"  # no participant has it (ids are hex), so no ship is commanded by it


def public_reader(battle: Battle) -> Participant:
    """The seat a share link reads the report from: a spectator's, commanding nothing. Never
    stored; it only says whose view the report is built for."""
    return Participant(id=PUBLIC_ID, battle_id=battle.id, name="Public", role="spectator", token_hash="")


async def make_share(session: AsyncSession, battle: Battle, referee: Participant) -> str:
    """A new public link's token (shown once; only its hash is kept)."""
    if referee.role != "referee":
        raise Forbidden("only the referee shares the report")
    token = new_token()
    # The battle's row locked (PostgreSQL; SQLite runs one writer at a time), then one conditional
    # insert: two referees' tabs asking at once cannot both take the last place.
    await session.execute(select(Battle.id).where(Battle.id == battle.id).with_for_update())
    c = ReportShare.__table__.c
    live = select(func.count()).select_from(ReportShare.__table__).where(c.battle_id == battle.id)
    row = select(
        literal(hash_token(token), c.token_hash.type),
        literal(battle.id, c.battle_id.type),
        literal(referee.id, c.created_by.type),
        literal(utcnow(), c.created_at.type),
    ).where(live.scalar_subquery() < MAX_SHARES)
    stored = await session.scalar(
        insert(ReportShare)
        .from_select([c.token_hash, c.battle_id, c.created_by, c.created_at], row)
        .returning(c.token_hash)
    )
    if stored is None:
        raise Conflict(
            f"a battle keeps at most {MAX_SHARES} public report links; revoke them to make a new one"
        )
    return token


async def revoke_shares(session: AsyncSession, battle: Battle, referee: Participant) -> int:
    """End every public link of the battle at once; how many there were."""
    if referee.role != "referee":
        raise Forbidden("only the referee revokes the report's links")
    live = await live_shares(session, battle.id)
    await session.execute(delete(ReportShare).where(ReportShare.battle_id == battle.id))
    return live


async def live_shares(session: AsyncSession, battle_id: str) -> int:
    found = await session.scalar(
        select(func.count()).select_from(ReportShare).where(ReportShare.battle_id == battle_id)
    )
    return int(found or 0)


async def shared_battle(session: AsyncSession, token: str) -> Battle:
    """The battle a public link shows; NotFound for a token never made or revoked (the same
    answer for both, so a guess learns nothing)."""
    share = await session.get(ReportShare, hash_token(token))
    battle = await session.get(Battle, share.battle_id) if share is not None else None
    if battle is None:
        raise NotFound("no such report link (it may have been revoked)")
    return battle
