"""A battle as a file over REST: export (referee), the file's JSON Schema, import."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.services.errors import Forbidden
from app.services.history.battlefile import BATTLE_FILE_SCHEMA, export_battle, fork_into, import_into
from app.services.store.battles import get_battle
from app.web.api.battles import SeatOut
from app.web.battle_file_reader import file_body, file_download, read_battle_file
from app.web.deps import SEQ_MAX, Creds, PlatformDep, errors, join_url, participant_by_bearer
from app.web.middleware.limits import check_battle_creation

router = APIRouter(prefix="/api/v1", tags=["api"])


@router.get("/battles/{battle_id}/export", responses=errors(401, 403, 404, 422))
async def export(battle_id: str, platform: PlatformDep, creds: Creds) -> JSONResponse:
    """Referee: the battle as a file (`format: "starboard.battle/1"`, schema at
    GET /api/v1/schemas/battle-file): the ships' definitions as added, the seats without tokens, the
    options and the whole log with every die; the seed only once the battle has ended."""
    if (await participant_by_bearer(platform, battle_id, creds)).role != "referee":
        raise Forbidden("only the referee may export the battle")
    async with platform.db.reader() as session:
        data = await export_battle(session, await get_battle(session, battle_id))
    return file_download(data, f"battle-{battle_id}.json")


@router.get("/schemas/battle-file", responses=errors())
async def battle_file_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a battle file (see docs/battle-file.md)."""
    return BATTLE_FILE_SCHEMA


class ImportedSeat(SeatOut):
    file_id: str = Field(description="the seat's id in the file")


class Imported(BaseModel):
    battle_id: str
    seed_sha256: str = Field(description="the new battle's own seed commitment")
    seq: int
    seats: list[ImportedSeat]


@router.post(
    "/battles/import",
    status_code=201,
    response_model=Imported,
    responses=errors(413, 422, 429),
    openapi_extra={"requestBody": file_body('a battle file (`format: "starboard.battle/1"`)')},
)
async def import_file(request: Request, platform: PlatformDep) -> Imported:
    """Create a new battle from a battle file: its seats (new ids and tokens, returned once; the
    file's first referee seat is yours), options and log, replayed action by action. A file whose
    replay does not reproduce its recorded events and dice is refused with 422 naming the first
    seq that differs (`detail.seq`, `detail.field` `log.<index>`); nothing is created. The new
    battle has its own id and seed: what is rolled after the import comes from that seed. Files up
    to MAX_BODY_BYTES; `python -m app.cli import` takes any size. Limited like new battles (429)."""
    check_battle_creation(request)
    file = read_battle_file(await request.body())  # the same strict reader as the page's import
    battle, seats = await import_into(platform, file)
    return _made(request, battle, seats)


def _made(request: Request, battle: Any, seats: list[dict[str, Any]]) -> Imported:
    return Imported(
        battle_id=battle.id,
        seed_sha256=battle.seed_hash,
        seq=battle.seq,
        seats=[ImportedSeat(**s, join_url=join_url(request, s["token"])) for s in seats],
    )


class ForkFrom(BaseModel):
    model_config = {"extra": "forbid"}
    seq: int = Field(ge=1, le=SEQ_MAX, description="the last entry of the original the fork keeps")


@router.post(
    "/battles/{battle_id}/fork",
    status_code=201,
    response_model=Imported,
    responses=errors(401, 403, 404, 422, 429),
)
async def fork(
    battle_id: str, request: Request, platform: PlatformDep, creds: Creds, body: ForkFrom
) -> Imported:
    """Referee: a what-if — a new battle from the original's first `seq` entries, with the same
    seats (new ids and tokens, returned once) and the log replayed and checked like an import, so
    what was hidden at that seq stays hidden from the same seats. It rolls from its own seed; the
    original is untouched. 422 naming `seq` past the battle's end. Limited like new battles (429)."""
    if (await participant_by_bearer(platform, battle_id, creds)).role != "referee":
        raise Forbidden("only the referee may fork the battle")
    check_battle_creation(request)
    battle, seats = await fork_into(platform, battle_id, body.seq)
    return _made(request, battle, seats)
