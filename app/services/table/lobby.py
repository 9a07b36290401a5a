"""The lobby: battles a referee lists for strangers to find — open player seats to claim, a public
link to watch, the finished battles' reports and replays — and the audience's viewscreen delay.

A listing (`LobbyListing`) is the referee's alone to change. An open seat is an existing player
seat the referee marks open; claiming it gives the claimer a *new* token for it (the seat's old link
stops working), at once when the referee chose first come, first served, or once the referee
approves the claim in the table's requests queue (`TableRequest` kind "seat") and the claimer
collects it with the claim secret they were given. Nothing the lobby shows comes from anywhere but
the public view of a battle (`public_reader`: a spectator commanding nothing), so it can show no
more than a spectator's page does."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import existing
from app.models import Battle, LobbyListing, Participant, SeatStatus, TableRequest
from app.rules import STANDARD, Rules
from app.rules.views import battle_view, viewer_for
from app.services.bus import SeatsChanged, TableChanged
from app.services.errors import Conflict, Forbidden, Invalid, NotFound, ServiceError
from app.services.platform import Platform
from app.services.reading.report_share import PUBLIC_ID, public_reader
from app.services.reading.screen import screen_seq as shown_seq
from app.services.store.battles import Seat, get_battle, get_participant, load_state, participants
from app.services.store.seats import utcnow
from app.services.store.tokens import hash_token, new_token

__all__ = ["PUBLIC_ID", "public_reader"]

CLAIMS = ("closed", "approve", "first")
MAX_OPEN_SEATS = 20
MAX_DELAY_ACTIONS = 500
MAX_LISTED = 50  # battles per section of the lobby (newest listing first)
MAX_PENDING_CLAIMS = 20  # seat claims waiting for one battle's referee (anyone may make one)
SEAT = "seat"  # the TableRequest kind of a claim the referee approves


class ListingIn(BaseModel):
    """The referee's listing settings (the referee page's form and PUT /api/v1/battles/{id}/listing)."""

    claims: Literal["closed", "approve", "first"] = Field(
        default="closed",
        description="how an open seat is granted: closed (no seats offered), approve (the referee "
        "approves each claim), first (first come, first served)",
    )
    open_seats: list[str] = Field(
        default_factory=list,
        max_length=MAX_OPEN_SEATS,
        description="participant ids of player seats to offer",
    )
    spectators: bool = Field(default=False, description="anyone may watch by the public link")
    delay_actions: int = Field(
        default=0, ge=0, le=MAX_DELAY_ACTIONS, description="the viewscreen shows the battle N actions behind"
    )
    delay_turn: bool = Field(
        default=False, description="the viewscreen shows the battle as the current turn began"
    )


class ClaimIn(BaseModel):
    name: str = Field(default="", max_length=40, description="the name to sit under (empty: keep the seat's)")


@dataclass
class Claimed:
    """A claim's answer: the seat at once (`seat`, first come) or a request to the referee with the
    secret that later collects the seat (`request_id`, `secret`: shown once)."""

    seat: Seat | None = None
    request_id: int | None = None
    secret: str | None = None


@dataclass
class Entry:
    battle_id: str
    name: str
    system: str
    system_name: str
    turn: int
    step: str
    finished: bool
    ships: list[dict[str, Any]]
    seats: list[dict[str, Any]]
    claims: str
    spectators: bool
    viewers: int
    delayed: bool

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Lobby:
    looking: list[Entry] = field(default_factory=list)  # open seats to claim
    live: list[Entry] = field(default_factory=list)  # battles under way anyone may watch
    finished: list[Entry] = field(default_factory=list)  # public battles that ended

    def as_dict(self) -> dict[str, Any]:
        return {k: [e.as_dict() for e in getattr(self, k)] for k in ("looking", "live", "finished")}


def watchers(viewers: Mapping[str, Collection[Any]]) -> dict[str, int]:
    """Open sockets per battle in this process (seated and public watchers alike): the hub's
    viewers, counted. Each process counts its own; the lobby says so."""
    return {battle_id: len(group) for battle_id, group in viewers.items()}


def blank(battle_id: str) -> LobbyListing:
    return LobbyListing(
        battle_id=battle_id,
        claims="closed",
        open_seats=[],
        spectators=False,
        delay_actions=0,
        delay_turn=False,
    )


async def listing_of(session: AsyncSession, battle_id: str) -> LobbyListing:
    """The battle's listing (an unlisted battle answers a blank one, not stored)."""
    return await session.get(LobbyListing, battle_id) or blank(battle_id)


def listing_out(listing: LobbyListing) -> dict[str, Any]:
    return {
        "claims": listing.claims,
        "open_seats": list(listing.open_seats or []),
        "spectators": bool(listing.spectators),
        "delay_actions": int(listing.delay_actions or 0),
        "delay_turn": bool(listing.delay_turn),
    }


def delayed(listing: LobbyListing) -> bool:
    return bool(listing.delay_actions) or bool(listing.delay_turn)


def watchable(listing: LobbyListing) -> bool:
    """Whether the public link shows the battle live: open to spectators and not delayed (a delay
    would mean nothing if the same public could watch without it; the viewscreen serves them)."""
    return bool(listing.spectators) and not delayed(listing)


async def public_watch(session: AsyncSession, battle_id: str) -> bool:
    return watchable(await listing_of(session, battle_id))


async def seat_or_public(session: AsyncSession, battle: Battle, seat: Any) -> Participant:
    """The browser's seat in this battle; with none, the public's spectator view where the battle
    is open to watchers (not delayed) — else the seat's refusal, as before."""
    try:
        return await get_participant(session, battle.id, seat)
    except ServiceError:
        if await public_watch(session, battle.id):
            return public_reader(battle)
        raise


async def set_listing(platform: Platform, battle_id: str, referee_id: Any, wanted: ListingIn) -> LobbyListing:
    """The referee lists (or unlists) the battle. Every open seat must be an active player seat of
    this battle; nothing changes when one is not. Every process's pages read the seats again, so a
    public watcher of a battle no longer open to them is closed out."""
    async with platform.transaction() as work:
        session = work.session
        await get_battle(session, battle_id)
        me = await get_participant(session, battle_id, referee_id)
        if me.role != "referee":
            raise Forbidden("only the referee lists the battle")
        seats = {p.id: p for p in await participants(session, battle_id) if p.active}
        offered: list[str] = []
        for pid in wanted.open_seats:
            seat = seats.get(pid)
            if seat is None or seat.role != "player":
                raise Invalid(f"{pid[:40]!r} is not a player seat of this battle", "open_seats")
            if pid not in offered:
                offered.append(pid)
        row = await session.get(LobbyListing, battle_id)
        if row is None:
            row = blank(battle_id)
            session.add(row)
        row.claims = wanted.claims
        row.open_seats = offered
        row.spectators = wanted.spectators
        row.delay_actions = wanted.delay_actions
        row.delay_turn = wanted.delay_turn
        row.updated_at = utcnow()
        await session.flush()
        out = blank(battle_id)
        for key, value in listing_out(row).items():
            setattr(out, key, value)
        work.emit(SeatsChanged(battle_id))  # public sockets are checked again at the next round
    return out


def _name(raw: str) -> str:
    name = re.sub(r"\s+", " ", str(raw or "")).strip()
    if len(name) > 40 or any(ord(c) < 32 for c in name):
        raise Invalid("a name is at most 40 printable characters", "name")
    return name


async def _open_seat(
    session: AsyncSession, battle_id: str, seat_id: str, lock: bool = False
) -> tuple[LobbyListing, Participant]:
    """The listing and the open seat, the seat read first. A claim's write is a compare-and-set on
    the seat's token as read here; where reads do not share one snapshot (SQLite, outside the write
    lock), a listing read after the seat can never be older than it: a rival claim committed
    between the two reads shows in the listing (the seat no longer open), one committed after both
    fails the compare-and-set. Read the other way round, a stale listing beside a fresh seat let
    two claims of one first-come seat both win."""
    seat = await session.get(Participant, seat_id)
    query = select(LobbyListing).where(LobbyListing.battle_id == battle_id)
    listing = await session.scalar(query.with_for_update() if lock else query)
    battle = await session.get(Battle, battle_id)
    if battle is None or listing is None or listing.claims == "closed":
        raise NotFound("no such battle looking for players", "battle")
    if battle.status == "finished":
        raise Invalid("the battle has ended", "battle")
    if (
        seat_id not in (listing.open_seats or [])
        or seat is None
        or not seat.active
        or seat.battle_id != battle_id
    ):
        raise Invalid("that seat is not open (someone may have taken it)", "seat")
    return listing, seat


async def _new_holder(session: AsyncSession, seat_id: str) -> None:
    """A seat changing hands keeps no webhook of its former holder's (they would be told when the
    battle waits on the seat they no longer hold)."""
    await session.execute(
        update(SeatStatus)
        .where(SeatStatus.participant_id == seat_id)
        .values(webhook_url=None)
        .execution_options(synchronize_session=False)
    )


async def claim_seat(platform: Platform, battle_id: str, seat_id: str, claim: ClaimIn) -> Claimed:
    """Claim an open seat: first come, the claimer gets the seat's new token now and the seat is no
    longer open; where the referee approves, a request waits in the referee's queue and the claimer
    is given the secret that collects the seat once approved."""
    name = _name(claim.name)
    async with platform.transaction() as work:
        session = work.session
        listing, seat = await _open_seat(session, battle_id, seat_id, lock=True)
        if listing.claims == "first":
            token = new_token()
            # Compare and set on the token read: of two claims at once only one finds it unchanged
            # (PostgreSQL also holds the listing's row; on SQLite see `_open_seat`'s read order).
            taken = await session.execute(
                update(Participant)
                .where(Participant.id == seat_id, Participant.token_hash == seat.token_hash)
                .values(token_hash=hash_token(token), name=name or seat.name)
                .execution_options(synchronize_session=False)
            )
            if taken.rowcount != 1:
                raise Invalid("that seat is not open (someone may have taken it)", "seat")
            listing.open_seats = [p for p in listing.open_seats if p != seat_id]
            listing.updated_at = utcnow()
            await _new_holder(session, seat_id)
            await session.flush()
            await session.refresh(seat)
            granted = Claimed(seat=Seat(seat, token))
            work.emit(SeatsChanged(battle_id))
        else:
            waiting = list(
                await session.scalars(
                    select(TableRequest.id).where(
                        TableRequest.battle_id == battle_id,
                        TableRequest.kind == SEAT,
                        TableRequest.status == "pending",
                    )
                )
            )
            if len(waiting) >= MAX_PENDING_CLAIMS:
                raise Conflict(f"{MAX_PENDING_CLAIMS} claims already wait for this battle's referee")
            secret = new_token()
            req = TableRequest(
                battle_id=battle_id,
                participant_id=seat_id,
                kind=SEAT,
                target_seq=None,
                payload={"name": name, "claim": hash_token(secret), "collected": False},
                reason="",
                status="pending",
            )
            session.add(req)
            await session.flush()
            granted = Claimed(request_id=req.id, secret=secret)
            work.emit(TableChanged(battle_id))  # the referee's queue shows it at once
    return granted


def claim_summary(req: TableRequest, seat_name: str) -> tuple[str, str]:
    """Who claims, and what, as the referee's queue shows a seat claim."""
    name = str((req.payload or {}).get("name") or "") or "someone"
    return name, f"claims the open seat {seat_name}"


async def grant_claim(session: AsyncSession, req: TableRequest) -> None:
    """The referee approves a seat claim (inside the request's answer): the seat is no longer open,
    and the other claims waiting for it are refused."""
    await _open_seat(session, req.battle_id, req.participant_id, lock=True)
    listing = await existing(session, LobbyListing, req.battle_id)
    listing.open_seats = [p for p in listing.open_seats if p != req.participant_id]
    listing.updated_at = utcnow()
    others = await session.scalars(
        select(TableRequest).where(
            TableRequest.battle_id == req.battle_id,
            TableRequest.kind == SEAT,
            TableRequest.participant_id == req.participant_id,
            TableRequest.status == "pending",
            TableRequest.id != req.id,
        )
    )
    for other in others:
        other.status, other.answer, other.decided_at = "refused", "another claim took the seat", utcnow()


async def _claim(session: AsyncSession, battle_id: str, request_id: int, secret: str) -> TableRequest:
    req = await session.get(TableRequest, request_id)
    payload = (req.payload or {}) if req is not None else {}
    if (
        req is None
        or req.battle_id != battle_id
        or req.kind != SEAT
        or payload.get("claim") != hash_token(secret)
    ):
        raise NotFound("no such claim", "claim")  # the same answer for a wrong secret: a guess learns nothing
    return req


async def claim_status(session: AsyncSession, battle_id: str, request_id: int, secret: str) -> dict[str, Any]:
    req = await _claim(session, battle_id, request_id, secret)
    return {
        "claim_id": req.id,
        "status": req.status,
        "answer": req.answer,
        "collected": bool((req.payload or {}).get("collected")),
    }


async def collect(platform: Platform, battle_id: str, request_id: int, secret: str) -> Seat:
    """An approved claim's seat, once: a new token for it (the seat's old link stops working)."""
    async with platform.transaction() as work:
        session = work.session
        req = await _claim(session, battle_id, request_id, secret)
        payload = dict(req.payload or {})
        if req.status != "approved":
            raise Invalid(f"the claim is {req.status}", "claim")
        if payload.get("collected"):
            raise Invalid("the seat was already collected with this claim", "claim")
        seat = await get_participant(session, battle_id, req.participant_id)
        token = new_token()
        seat.token_hash = hash_token(token)
        if payload.get("name"):
            seat.name = str(payload["name"])
        req.payload = {**payload, "collected": True}
        await _new_holder(session, seat.id)
        await session.flush()
        taken = Seat(seat, token)
        work.emit(SeatsChanged(battle_id))
    return taken


async def screen_seq(session: AsyncSession, battle: Battle, listing: LobbyListing) -> int:
    """The seq the battle's viewscreen shows under this listing's delay (app/services/reading/screen.py)."""
    return await shown_seq(session, battle, int(listing.delay_actions or 0), bool(listing.delay_turn))


async def lobby(
    session: AsyncSession, rules: Rules = STANDARD, viewers: Mapping[str, int] | None = None
) -> Lobby:
    """The lobby as anyone sees it: every listed battle's public view — its system, its ships as a
    spectator sees them (name and class; nothing a ship's parts hide), its turn, its watchers here."""
    counts = viewers or {}
    rows = (
        await session.execute(
            select(LobbyListing, Battle)
            .join(Battle, Battle.id == LobbyListing.battle_id)
            .order_by(LobbyListing.updated_at.desc())
            .limit(MAX_LISTED * 3)
        )
    ).all()
    found = Lobby()
    for listing, battle in rows:
        finished = battle.status == "finished"
        open_seats = list(listing.open_seats or []) if listing.claims != "closed" and not finished else []
        if not listing.spectators and not open_seats:
            continue
        entry = await _entry(session, rules, battle, listing, open_seats, counts.get(battle.id, 0))
        if entry.seats and len(found.looking) < MAX_LISTED:
            found.looking.append(entry)
        if listing.spectators and not finished and len(found.live) < MAX_LISTED:
            found.live.append(entry)
        if listing.spectators and finished and len(found.finished) < MAX_LISTED:
            found.finished.append(entry)
    return found


async def _entry(
    session: AsyncSession,
    rules: Rules,
    battle: Battle,
    listing: LobbyListing,
    open_seats: list[str],
    viewers: int,
) -> Entry:
    state, _ = await load_state(session, battle.id, rules)
    shown = battle_view(state, viewer_for(PUBLIC_ID, "spectator", state))["ships"]
    owners = {sid: ship.owner for sid, ship in state.ships.items()}
    people = {p.id: p for p in await participants(session, battle.id) if p.active}
    seats = [
        {
            "id": pid,
            "name": people[pid].name,
            "ships": [v["name"] for sid, v in shown.items() if owners.get(sid) == pid],
        }
        for pid in open_seats
        if pid in people and people[pid].role == "player"
    ]
    system = state.game.system
    hold = delayed(listing) and battle.status != "finished"  # the screen's delay: no turn, no losses now
    return Entry(
        battle_id=battle.id,
        name=battle.name,
        system=battle.system,
        system_name=system.name,
        turn=0 if hold else state.clock.turn,
        step="" if hold else system.step(state.clock).label,
        finished=battle.status == "finished",
        ships=[
            {
                "name": v["name"],
                "klass": v.get("klass", ""),
                "destroyed": not hold and bool(v.get("destroyed")),
            }
            for v in shown.values()
        ],
        seats=seats,
        claims=listing.claims,
        spectators=bool(listing.spectators),
        viewers=viewers if listing.spectators else 0,
        delayed=delayed(listing),
    )
