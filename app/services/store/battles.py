"""Creating battles, seats (participants) and who is who."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant, Snapshot
from app.rules import STANDARD, Rules
from app.rules.core import RuleError
from app.rules.dice import seed_commitment
from app.rules.state import BattleState
from app.services.errors import Forbidden, Invalid, NotFound
from app.services.store.tokens import hash_token, new_id, new_token, seat_key

ROLES = ("referee", "player", "spectator", "bot")


@dataclass(frozen=True)
class Seat:
    """A participant with the token that was just made for them (shown once)."""

    participant: Participant
    token: str


async def create_battle(
    session: AsyncSession,
    name: str,
    system: str,
    *,
    dice_mode: str = "seeded",
    options: dict | None = None,
    referee_name: str = "Referee",
    rules: Rules = STANDARD,
) -> tuple[Battle, Seat]:
    name = name.strip()
    if not 1 <= len(name) <= 120:
        raise Invalid("a battle needs a name of 1 to 120 characters", "name")
    if system not in rules.systems:
        raise Invalid(f"game system must be one of {', '.join(rules.systems)}", "system")
    if dice_mode not in ("seeded", "physical"):
        raise Invalid("dice must be 'seeded' (server rolls) or 'physical' (players enter them)", "dice_mode")
    try:
        state = rules.new_battle(system, options)
    except RuleError as exc:
        raise Invalid(exc.message, exc.field) from None
    seed = secrets.token_bytes(32)
    battle = Battle(
        id=new_id(),
        name=name,
        system=system,
        dice_mode=dice_mode,
        seed=seed.hex(),
        seed_hash=seed_commitment(seed),
        options=state.options,
        turn=state.clock.turn,
        step=state.clock.step,
        seq=0,
        status="active",
    )
    session.add(battle)
    session.add(Snapshot(battle_id=battle.id, seq=0, state=state.model_dump(mode="json")))
    await session.flush()
    seat = await add_participant(session, battle, referee_name, "referee")
    return battle, seat


async def add_participant(
    session: AsyncSession, battle: Battle, name: str, role: str, *, max_seats: int | None = None
) -> Seat:
    name = name.strip()
    if not 1 <= len(name) <= 80:
        raise Invalid("a participant needs a name of 1 to 80 characters", "name")
    if role not in ROLES:
        raise Invalid(f"role must be one of {', '.join(ROLES)}", "role")
    if max_seats is not None:
        held = await session.scalar(
            select(func.count())
            .select_from(Participant)
            .where(Participant.battle_id == battle.id, Participant.active.is_(True))
        )
        if (held or 0) >= max_seats:
            raise Invalid(f"this battle already holds the most seats allowed ({max_seats})", "participants")
    token = new_token()
    participant = Participant(
        id=new_id(), battle_id=battle.id, name=name, role=role, token_hash=hash_token(token)
    )
    session.add(participant)
    await session.flush()
    return Seat(participant, token)


async def seats_held(
    session: AsyncSession, seats: dict[str, str], keys: dict[str, str] | None = None
) -> list[Participant]:
    """The seats a browser (battle id → participant id) still holds: not removed, and not given a
    new link since it joined (`keys`: battle id → the seat key of the token it joined with)."""
    if not seats:
        return []
    keys = keys or {}
    rows = await session.scalars(
        select(Participant).where(Participant.id.in_(list(seats.values())), Participant.active.is_(True))
    )
    return [
        p
        for p in rows
        if seats.get(p.battle_id) == p.id
        and keys.get(p.battle_id, seat_key(p.token_hash)) == seat_key(p.token_hash)
    ]


async def battles_held(
    session: AsyncSession, seats: dict[str, str], keys: dict[str, str] | None = None
) -> list[Battle]:
    """The battles of the seats a browser still holds, latest first."""
    mine = [p.battle_id for p in await seats_held(session, seats, keys)]
    if not mine:
        return []
    rows = await session.scalars(select(Battle).where(Battle.id.in_(mine)))
    return sorted(rows, key=lambda b: b.updated_at, reverse=True)


async def get_battle(session: AsyncSession, battle_id: str) -> Battle:
    battle = await session.get(Battle, battle_id)
    if battle is None:
        raise NotFound("no such battle", "battle")
    return battle


async def participant_by_token(session: AsyncSession, token: str) -> Participant:
    row = await session.scalar(select(Participant).where(Participant.token_hash == hash_token(token)))
    if row is None or not row.active:
        raise Forbidden("that link or token is not valid")
    return row


async def get_participant(session: AsyncSession, battle_id: str, participant_id: str | None) -> Participant:
    if participant_id is None:
        raise Forbidden("join this battle first")
    return checked_seat(await session.get(Participant, str(participant_id)), battle_id, participant_id)


def token_seat(row: Participant | None, battle_id: str) -> Participant:
    """The seat holding a bearer token, if it may act in this battle (else Forbidden, as the REST
    door answers a token)."""
    if row is None or not row.active:
        raise Forbidden("that link or token is not valid")
    if row.battle_id != battle_id:
        raise Forbidden("that token belongs to another battle")
    return row


def checked_seat(row: Participant | None, battle_id: str, participant_id: str | None) -> Participant:
    """The seat row as read for `participant_id`, if it may act in this battle (else Forbidden)."""
    if participant_id is None:
        raise Forbidden("join this battle first")
    if row is None or row.battle_id != battle_id or not row.active:
        raise Forbidden("you are not part of this battle")
    key = getattr(participant_id, "key", None)  # a browser's seat (web.security.SeatRef)
    if key is not None and key != seat_key(row.token_hash):
        raise Forbidden("the referee gave this seat a new link; open that one")
    return row


async def participants(session: AsyncSession, battle_id: str) -> list[Participant]:
    rows = await session.scalars(
        select(Participant).where(Participant.battle_id == battle_id).order_by(Participant.created_at)
    )
    return list(rows)


async def remove_participant(session: AsyncSession, battle_id: str, participant_id: str) -> Participant:
    row = await get_participant(session, battle_id, participant_id)
    if row.role == "referee":
        raise Invalid("the referee's seat cannot be removed", "participant")
    row.active = False
    return row


async def rotate_token(session: AsyncSession, battle_id: str, participant_id: str) -> Seat:
    """A new token for a seat; the old one (join link and bearer) stops working at once."""
    row = await get_participant(session, battle_id, participant_id)
    token = new_token()
    row.token_hash = hash_token(token)
    await session.flush()
    return Seat(row, token)


async def load_state(
    session: AsyncSession, battle_id: str, rules: Rules = STANDARD
) -> tuple[BattleState, int]:
    """The stored snapshot, bound to its game, and its seq."""
    snap = await session.get(Snapshot, battle_id)
    if snap is None:
        raise NotFound("no such battle", "battle")
    return rules.load(snap.state), snap.seq
