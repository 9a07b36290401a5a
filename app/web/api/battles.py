"""REST API for bots under /api/v1: the same service calls the pages make, with bearer tokens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, StrictInt
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Participant
from app.services.bus import SeatsChanged
from app.services.errors import Forbidden, Invalid, Unauthorized
from app.services.history.records import dice_record as read_dice_record
from app.services.history.replay import rebuild
from app.services.library.catalogue import catalogue
from app.services.library.samples import library as all_ships
from app.services.library.samples import ships_for
from app.services.platform import Platform
from app.services.reading.views import battle_for, viewer_of, visible_log
from app.services.store.battles import (
    add_participant,
    create_battle,
    get_battle,
    load_state,
    remove_participant,
    rotate_token,
)
from app.services.store.drafts import rows as draft_rows
from app.services.store.tokens import hash_token
from app.services.write import actions
from app.services.write.actions import Command
from app.web.deps import SEQ_MAX, Creds, PlatformDep, errors, join_url, participant_by_bearer
from app.web.middleware.limits import check_battle_creation

router = APIRouter(prefix="/api/v1", tags=["api"])


class NewBattle(BaseModel):
    name: str = Field(min_length=1, max_length=120)
    system: str = Field(description="game system key, e.g. sfb, b5wars, traveller (see GET /api/v1/systems)")
    dice_mode: Literal["seeded", "physical"] = "seeded"
    options: dict[str, Any] = Field(default_factory=dict)
    referee_name: str = Field(default="Referee", min_length=1, max_length=80)


class SeatOut(BaseModel):
    participant_id: str
    name: str
    role: str
    token: str = Field(description="shown once; the server keeps only its hash")
    join_url: str


class BattleCreated(BaseModel):
    battle_id: str
    seed_sha256: str
    referee: SeatOut


def seat_out(request: Request, seat: Any) -> SeatOut:
    """A seat as every door that makes one answers it (a battle, the lobby, a campaign's battle):
    its token, shown this once, and the link that joins with it."""
    p = seat.participant
    return SeatOut(
        participant_id=p.id,
        name=p.name,
        role=p.role,
        token=seat.token,
        join_url=join_url(request, seat.token),
    )


@router.post("/battles", status_code=201, response_model=BattleCreated, responses=errors(413, 422, 429))
async def new_battle(body: NewBattle, request: Request, platform: PlatformDep) -> BattleCreated:
    """Create a battle; the caller gets the referee's token. Limited per client address (429)."""
    check_battle_creation(request)
    async with platform.db.transaction() as session:
        battle, seat = await create_battle(
            session,
            body.name,
            body.system,
            dice_mode=body.dice_mode,
            options=body.options,
            referee_name=body.referee_name,
            rules=platform.rules,
        )
    return BattleCreated(battle_id=battle.id, seed_sha256=battle.seed_hash, referee=seat_out(request, seat))


@router.get("/library", responses=errors())
async def library(
    platform: PlatformDep, system: Annotated[str | None, Query(description="a game system key")] = None
) -> dict[str, Any]:
    """Sample ship definitions usable in a battle of this system (all of them without `system`); add
    one with the `ship.add` action."""
    if system is None:
        return {"ships": all_ships()}
    if system not in platform.rules.systems:
        raise Invalid(f"game system must be one of {', '.join(platform.rules.systems)}", "system")
    return {"ships": ships_for(platform.rules.systems[system])}


@router.get("/actions", responses=errors())
async def action_catalogue(platform: PlatformDep) -> dict[str, Any]:
    """Every action type with its summary, who may submit it, where it plays and the JSON schema of its
    payload. What a participant may submit *now* is in the battle's `may_submit`."""
    return {"actions": catalogue(platform.rules)}


@router.get(
    "/battles/{battle_id}",
    responses={
        304: {"description": "unchanged since the ETag sent in If-None-Match"},
        **errors(401, 403, 404, 422),
    },
)
async def read_battle(
    battle_id: str,
    platform: PlatformDep,
    creds: Creds,
    response: Response,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Any:
    """The battle as this participant sees it, with its `seq` (also as the ETag)."""
    participant = await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        # A saved draft changes only its author's (and the referee's) view, and no seq: their ETag
        # carries it, nobody else's does.
        saved = [
            r.updated_at.timestamp()
            for r in await draft_rows(session, battle_id)
            if participant.role == "referee" or r.participant_id == participant.id
        ]
        stamp = f"-d{max(saved):.6f}" if saved else ""
        etag = f'"{battle.id}-{battle.seq}-{participant.id}{stamp}"'
        if if_none_match == etag:
            return Response(status_code=304, headers={"ETag": etag})
        data = await battle_for(session, battle, participant, platform.rules)
    response.headers["ETag"] = etag
    return data


@router.get("/battles/{battle_id}/events", responses=errors(401, 403, 404, 422))
async def events_since(
    battle_id: str, platform: PlatformDep, creds: Creds, since: Annotated[int, Query(ge=0, le=SEQ_MAX)] = 0
) -> dict[str, Any]:
    """Log entries after `since`, each with only the events this participant may read."""
    participant = await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        state, seq = await load_state(session, battle_id, platform.rules)
        entries = await visible_log(session, battle, viewer_of(participant, state), since=since)
    return {
        "seq": seq,
        "entries": [
            {
                "seq": e.seq,
                "actor": e.actor,
                "action_type": e.action_type,
                "clock": e.clock,
                "at": e.at.isoformat(),
                "events": e.events,
                **({"hidden": True} if e.hidden else {}),
                **({"payload": e.payload} if e.payload is not None else {}),
            }
            for e in entries
        ],
    }


class ActionIn(BaseModel):
    type: str = Field(description="an action type from GET /api/v1/actions", examples=["damage.apply"])
    payload: dict[str, Any] = Field(default_factory=dict)
    action_id: str = Field(
        min_length=1, max_length=64, description="made by the client; a repeat applies nothing"
    )
    seq: StrictInt | None = Field(
        default=None, ge=0, le=SEQ_MAX, description="the seq this action was made against (409 if stale)"
    )
    dice: list[Annotated[StrictInt, Field(ge=1, le=actions.MAX_DIE_VALUE)]] | None = Field(
        default=None,
        max_length=actions.MAX_DICE,
        description="physical dice (whole numbers, not strings, floats or booleans), in the order the rule asks for them",
    )


class ActionOut(BaseModel):
    seq: int
    duplicate: bool
    events: list[dict[str, Any]]


@router.post(
    "/battles/{battle_id}/actions", response_model=ActionOut, responses=errors(401, 403, 404, 409, 413, 422)
)
async def submit_action(battle_id: str, body: ActionIn, platform: PlatformDep, creds: Creds) -> JSONResponse:
    """Submit one action as this participant."""
    if creds is None:
        raise Unauthorized("send Authorization: Bearer <your token>")
    return await action_answer(platform, battle_id, body, creds.credentials)


async def action_answer(platform: Platform, battle_id: str, body: ActionIn, token: str) -> JSONResponse:
    """The action door's work once the request is read and valid — shared by this route and the
    lean door in front of the app (app/web/api/action_door.py) that serves well-formed requests."""
    # The seat is found by its token in the action's own read: one read fewer per action.
    command = Command(
        battle_id,
        None,
        body.type,
        body.payload,
        body.action_id,
        body.seq,
        body.dice,
        token_hash=hash_token(token),
    )
    result = await actions.submit(platform, command)
    if isinstance(result, actions.Queued):  # damage that waits for the referee
        return JSONResponse({"queued_request": result.request.id, "status": "pending"}, status_code=202)
    # The answer as ActionOut documents it, serialised once (not built, validated and dumped again).
    return JSONResponse({"seq": result.seq, "duplicate": result.duplicate, "events": result.events})


class NewSeat(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    role: Literal["player", "spectator", "bot", "referee"] = "player"


async def _referee(platform: PlatformDep, battle_id: str, creds: Creds) -> Participant:
    participant = await participant_by_bearer(platform, battle_id, creds)
    if participant.role != "referee":
        raise Forbidden("only the referee may manage participants")
    return participant


@asynccontextmanager
async def _seats_change(platform: Platform, battle_id: str, creds: Creds) -> AsyncIterator[AsyncSession]:
    """A change to the battle's seats: the referee's alone, made in one transaction, and the live
    pages told (SeatsChanged) once it is done."""
    await _referee(platform, battle_id, creds)
    async with platform.transaction() as work:
        yield work.session
        work.emit(SeatsChanged(battle_id))


@router.post(
    "/battles/{battle_id}/participants",
    status_code=201,
    response_model=SeatOut,
    responses=errors(401, 403, 404, 413, 422),
)
async def new_seat(
    battle_id: str, body: NewSeat, request: Request, platform: PlatformDep, creds: Creds
) -> SeatOut:
    """Referee: add a participant; their token is returned once. A battle holds at most
    MAX_SEATS_PER_BATTLE seats (422 naming `participants` past it)."""
    async with _seats_change(platform, battle_id, creds) as session:
        battle = await get_battle(session, battle_id)
        seat = await add_participant(
            session, battle, body.name, body.role, max_seats=platform.settings.max_seats_per_battle
        )
    return seat_out(request, seat)


@router.post(
    "/battles/{battle_id}/participants/{participant_id}/token",
    response_model=SeatOut,
    responses=errors(401, 403, 404, 422),
)
async def new_token_for_seat(
    battle_id: str, participant_id: str, request: Request, platform: PlatformDep, creds: Creds
) -> SeatOut:
    """Referee: give a seat a new token (and join link); the old one stops working at once, and
    browsers seated with it lose the seat at their next request."""
    async with _seats_change(platform, battle_id, creds) as session:
        seat = await rotate_token(session, battle_id, participant_id)
    return seat_out(request, seat)


@router.delete(
    "/battles/{battle_id}/participants/{participant_id}",
    status_code=204,
    responses=errors(401, 403, 404, 422),
)
async def drop_seat(battle_id: str, participant_id: str, platform: PlatformDep, creds: Creds) -> Response:
    """Referee: remove a participant (their token stops working)."""
    async with _seats_change(platform, battle_id, creds) as session:
        await remove_participant(session, battle_id, participant_id)
    return Response(status_code=204)


@router.get("/battles/{battle_id}/dice", responses=errors(401, 403, 404, 422))
async def dice_record(battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """Every die the server rolled, once the battle has ended and its seed is revealed, so anyone can
    re-derive them: roll `index` of action `seq` is HMAC-SHA256(seed, f"{battle}:{seq}:{index}:d{sides}:…")
    (see `app.rules.dice.derive_roll`). `mismatches` lists any the seed does not reproduce."""
    await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        return await read_dice_record(session, await get_battle(session, battle_id))


@router.get("/battles/{battle_id}/audit", responses=errors(401, 403, 404, 422))
async def audit(battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """Referee: rebuild the state from the log and compare it with the stored snapshot."""
    await _referee(platform, battle_id, creds)
    rebuilt = await rebuild(platform, battle_id)
    async with platform.db.reader() as session:
        state, seq = await load_state(session, battle_id, platform.rules)
    return {
        "seq": seq,
        "snapshot_matches_log": rebuilt.model_dump(mode="json") == state.model_dump(mode="json"),
    }
