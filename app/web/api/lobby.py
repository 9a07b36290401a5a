"""The lobby over REST for bots: the public list (GET /api/v1/lobby), the referee's listing
settings, and claiming an open seat (at once, or through the referee's approval and a claim
secret that collects the seat). The same service as the pages (app/services/table/lobby.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.services.errors import Forbidden, Unauthorized
from app.services.reading.screen import screen_view
from app.services.store.battles import get_battle
from app.services.table import lobby
from app.web.api.battles import SeatOut, seat_out
from app.web.deps import Creds, HubDep, PlatformDep, errors, participant_by_bearer

router = APIRouter(prefix="/api/v1", tags=["lobby"])

ClaimId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the claim's id, from the claim's answer")]


class ShipOut(BaseModel):
    name: str
    klass: str
    destroyed: bool


class OpenSeatOut(BaseModel):
    id: str
    name: str
    ships: list[str] = Field(description="the ships the seat commands, by their public names")


class EntryOut(BaseModel):
    battle_id: str
    name: str
    system: str
    system_name: str
    turn: int = Field(description="0 while the battle's screen is delayed (its turn is not shown)")
    step: str
    finished: bool
    ships: list[ShipOut] = Field(description="every ship as a spectator sees it")
    seats: list[OpenSeatOut]
    claims: str
    spectators: bool
    viewers: int = Field(description="open sockets on the battle in the process that answered")
    delayed: bool


class LobbyOut(BaseModel):
    looking: list[EntryOut] = Field(description="battles with open seats to claim")
    live: list[EntryOut] = Field(description="battles under way anyone may watch (/battles/{id}/watch)")
    finished: list[EntryOut] = Field(description="public battles that ended (their report and replay)")


class ListingOut(BaseModel):
    claims: Literal["closed", "approve", "first"]
    open_seats: list[str]
    spectators: bool
    delay_actions: int
    delay_turn: bool


class ClaimWaiting(BaseModel):
    status: str = "pending"
    claim_id: int
    claim_secret: str = Field(
        description="shown once: send it as the Bearer token to read or collect the claim"
    )


class ClaimStatus(BaseModel):
    claim_id: int
    status: str
    answer: str | None
    collected: bool


@router.get("/lobby", response_model=LobbyOut, responses=errors())
async def read_lobby(platform: PlatformDep, hub: HubDep) -> Any:
    """Every battle its referee listed: open seats, live battles to watch, finished public ones.
    Ships are shown as a spectator sees them; nothing else of a battle is."""
    async with platform.db.reader() as session:
        found = await lobby.lobby(session, platform.rules, lobby.watchers(hub.viewers))
    return found.as_dict()


@router.get("/battles/{battle_id}/screen", responses=errors(401, 403, 404))
async def read_screen(battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """The audience's viewscreen as data: the seq it shows (behind the battle by the referee's
    delay), each ship's public figures and the last events. Anyone may read it where the battle is
    open to spectators; otherwise a seat of the battle (its bearer token). Only what the public
    may see, whoever asks."""
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        listing = await lobby.listing_of(session, battle_id)
    if not listing.spectators:
        await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        return await screen_view(
            session, battle, int(listing.delay_actions or 0), bool(listing.delay_turn), platform.rules
        )


async def _referee_id(platform: PlatformDep, battle_id: str, creds: Creds) -> str:
    me = await participant_by_bearer(platform, battle_id, creds)
    if me.role != "referee":
        raise Forbidden("only the referee lists the battle")
    return me.id


@router.get("/battles/{battle_id}/listing", response_model=ListingOut, responses=errors(401, 403, 404))
async def read_listing(battle_id: str, platform: PlatformDep, creds: Creds) -> Any:
    """Referee: the battle's lobby listing."""
    await _referee_id(platform, battle_id, creds)
    async with platform.db.reader() as session:
        return lobby.listing_out(await lobby.listing_of(session, battle_id))


@router.put("/battles/{battle_id}/listing", response_model=ListingOut, responses=errors(401, 403, 404))
async def write_listing(battle_id: str, body: lobby.ListingIn, platform: PlatformDep, creds: Creds) -> Any:
    """Referee: list the battle (open seats and how a claim is granted, public spectating, the
    viewscreen's delay) or unlist it (all off). A seat that is not a player seat of this battle is
    refused (422 naming `open_seats`) and nothing changes."""
    me = await _referee_id(platform, battle_id, creds)
    return lobby.listing_out(await lobby.set_listing(platform, battle_id, me, body))


@router.post(
    "/lobby/{battle_id}/seats/{seat_id}/claim",
    status_code=201,
    response_model=SeatOut | ClaimWaiting,
    responses={
        202: {"model": ClaimWaiting, "description": "the referee approves claims: it waits"},
        **errors(404, 409),
    },
)
async def claim_seat(
    battle_id: str, seat_id: str, body: lobby.ClaimIn, request: Request, platform: PlatformDep
) -> Any:
    """Claim an open seat. First come, first served: 201 with the seat's new token (its old link
    stops working). Where the referee approves each claim: 202 with a claim id and secret; read the
    claim with the secret as Bearer token, and collect the seat once it is approved."""
    granted = await lobby.claim_seat(platform, battle_id, seat_id, body)
    if granted.seat is not None:
        return seat_out(request, granted.seat)
    waiting = ClaimWaiting(claim_id=granted.request_id or 0, claim_secret=granted.secret or "")
    return JSONResponse(waiting.model_dump(), status_code=202)


def _secret(creds: Creds) -> str:
    if creds is None:
        raise Unauthorized("send Authorization: Bearer <your claim secret>")
    return creds.credentials


@router.get("/lobby/{battle_id}/claims/{claim_id}", response_model=ClaimStatus, responses=errors(401, 404))
async def read_claim(battle_id: str, claim_id: ClaimId, platform: PlatformDep, creds: Creds) -> Any:
    """A claim's answer (pending, approved, refused), for the holder of its secret."""
    async with platform.db.reader() as session:
        return await lobby.claim_status(session, battle_id, claim_id, _secret(creds))


@router.post(
    "/lobby/{battle_id}/claims/{claim_id}/collect", response_model=SeatOut, responses=errors(401, 404)
)
async def collect_claim(
    battle_id: str, claim_id: ClaimId, request: Request, platform: PlatformDep, creds: Creds
) -> Any:
    """An approved claim's seat, once: its new token and join link."""
    return seat_out(request, await lobby.collect(platform, battle_id, claim_id, _secret(creds)))
