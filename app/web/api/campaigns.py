"""Campaigns over REST for bots and tools: every action of the referee's dashboard, and the
per-viewer read. A campaign seat's token (from the campaign's creation, or a player's seat) is the
bearer; every read goes through `services.campaigns.view`, so a secret roster stays secret here too.
Bad input is a 422 naming the field, and changes nothing."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from app.models import CampaignSeat
from app.services.campaigns import fleets, log
from app.services.campaigns.audit import audit_campaign
from app.services.campaigns.files import export_for, import_campaign
from app.services.campaigns.view import campaign_view, log_view
from app.web.api.battles import SeatOut as BattleSeat
from app.web.api.battles import seat_out as battle_seat_out
from app.web.battle_file_reader import file_body, file_download, read_battle_file
from app.web.deps import SEQ_MAX, Creds, PlatformDep, errors
from app.web.middleware.limits import check_battle_creation

router = APIRouter(prefix="/api/v1", tags=["campaigns"])


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewCampaign(Strict):
    name: str = Field(min_length=1, max_length=120)
    system: str = Field(description="the game system: sfb, b5wars or traveller")
    sides: list[Annotated[str, Field(min_length=1, max_length=40)]] = Field(
        default_factory=list, max_length=8
    )
    options: dict[str, StrictBool] = Field(
        default_factory=dict,
        description="secret_rosters: a side's fleet is secret from the others until its ships fight;"
        " pain_carries: the Shadow pain track starts each battle where the last left it (SH-01)",
    )


class SeatOut(BaseModel):
    seat: str
    name: str
    role: str
    side: str
    token: str = Field(description="shown once; the server keeps only its hash")


class CampaignMade(BaseModel):
    campaign_id: str
    seq: int
    referee: SeatOut


class SideIn(Strict):
    side: str = Field(min_length=1, max_length=40)


class PlayerIn(Strict):
    name: str = Field(min_length=1, max_length=80)
    side: str = Field(min_length=1, max_length=40)


# Its fields are `fleets.add_ship`'s keywords, passed on as they came.
class ShipIn(Strict):
    side: str = Field(min_length=1, max_length=40)
    player: str | None = Field(default=None, description="the player seat that commands it")
    library: str | None = Field(default=None, max_length=60, description="a ship library slug")
    definition: dict[str, Any] | None = Field(default=None, description="a ship definition as JSON")
    points: int | None = Field(
        default=None, ge=0, le=100000, description="its point value (else the definition's)"
    )
    name: str | None = Field(default=None, min_length=1, max_length=80, description="a name of its own")


class RetireIn(Strict):
    reason: str = Field(min_length=1, max_length=300)


class RepairIn(Strict):
    part: str = Field(min_length=1, max_length=40, description="the part whose own rules repair it (hg_ship)")
    section: str = Field(min_length=1, max_length=40)
    system: str = Field(min_length=1, max_length=60)
    dice: list[Annotated[int, Field(ge=1, le=6)]] | None = Field(
        default=None, max_length=10, description="dice rolled at the table (GEN-02); else the server rolls"
    )


class RulingIn(Strict):
    reason: str = Field(min_length=1, max_length=300)
    values: dict[str, Any] | None = Field(
        default=None, description='values by their place in the parts: {"sheet.sections.0.structure": 20}'
    )
    restore: bool = Field(default=False, description="restore the ship as its definition built it")


class RewindIn(Strict):
    to: int = Field(ge=1, le=SEQ_MAX)


class BattleIn(Strict):
    name: str = Field(min_length=1, max_length=120)
    ships: list[Annotated[str, Field(min_length=1, max_length=20)]] = Field(min_length=1, max_length=100)
    options: dict[str, Any] = Field(
        default_factory=dict, description="the battle's options, as POST /battles takes"
    )


class Changed(BaseModel):
    seq: int


async def _seat(platform: Any, campaign_id: str, creds: Any) -> CampaignSeat:
    async with platform.db.reader() as session:
        await log.get_campaign(session, campaign_id)
        return await log.seat_by_token(session, campaign_id, creds.credentials if creds else None)


def _seat_out(made: log.SeatMade) -> SeatOut:
    s = made.seat
    return SeatOut(seat=s.id, name=s.name, role=s.role, side=s.side, token=made.token)


@router.post("/campaigns", status_code=201, response_model=CampaignMade, responses=errors(422, 429))
async def create(body: NewCampaign, request: Request, platform: PlatformDep) -> CampaignMade:
    """A campaign for one game system with its sides; you hold its referee's seat (token shown once)."""
    check_battle_creation(request)
    made = await fleets.create(platform, body.name, body.system, body.options, body.sides)
    return CampaignMade(campaign_id=made.campaign.id, seq=made.campaign.seq, referee=_seat_out(made.referee))


@router.get("/campaigns/{campaign_id}", responses=errors(401, 403, 404, 422))
async def read(
    campaign_id: str,
    platform: PlatformDep,
    creds: Creds,
    seq: Annotated[
        int | None, Query(ge=0, le=SEQ_MAX, description="the campaign as it stood at this seq")
    ] = None,
) -> dict[str, Any]:
    """The campaign as your seat may read it: sides, players, fleets (a secret roster of another
    side left out until its ships fight), each ship's parts as the next battle starts them (your
    side's), its battles and record."""
    seat = await _seat(platform, campaign_id, creds)
    async with platform.db.reader() as session:
        state = await log.folded(session, campaign_id, seq)
    return campaign_view(state, seat)


@router.get("/campaigns/{campaign_id}/log", responses=errors(401, 403, 404, 422))
async def read_log(campaign_id: str, platform: PlatformDep, creds: Creds) -> list[dict[str, Any]]:
    """The campaign's log as your seat may read it."""
    seat = await _seat(platform, campaign_id, creds)
    async with platform.db.reader() as session:
        rows = await log.events(session, campaign_id)
        state = await log.folded(session, campaign_id)
    return log_view(rows, state, seat)


@router.post(
    "/campaigns/{campaign_id}/sides",
    status_code=201,
    response_model=Changed,
    responses=errors(401, 403, 404, 422),
)
async def add_side(campaign_id: str, body: SideIn, platform: PlatformDep, creds: Creds) -> Changed:
    """Referee: a side joins the campaign."""
    seat = await _seat(platform, campaign_id, creds)
    return Changed(seq=await fleets.add_side(platform, campaign_id, seat, body.side))


@router.post(
    "/campaigns/{campaign_id}/players",
    status_code=201,
    response_model=SeatOut,
    responses=errors(401, 403, 404, 422),
)
async def add_player(campaign_id: str, body: PlayerIn, platform: PlatformDep, creds: Creds) -> SeatOut:
    """Referee: a player's seat by name on a side (its token shown once)."""
    seat = await _seat(platform, campaign_id, creds)
    return _seat_out(await fleets.add_player(platform, campaign_id, seat, body.name, body.side))


class ShipAdded(BaseModel):
    ship: str


@router.post(
    "/campaigns/{campaign_id}/ships",
    status_code=201,
    response_model=ShipAdded,
    responses=errors(401, 403, 404, 422),
)
async def add_ship(campaign_id: str, body: ShipIn, platform: PlatformDep, creds: Creds) -> ShipAdded:
    """Referee: a ship joins a side's fleet, from the ship library (`library`) or as JSON (`definition`)."""
    seat = await _seat(platform, campaign_id, creds)
    return ShipAdded(ship=await fleets.add_ship(platform, campaign_id, seat, **body.model_dump()))


@router.post(
    "/campaigns/{campaign_id}/ships/{ship_id}/retire",
    response_model=Changed,
    responses=errors(401, 403, 404, 422),
)
async def retire(
    campaign_id: str, ship_id: str, body: RetireIn, platform: PlatformDep, creds: Creds
) -> Changed:
    """Referee: a ship leaves its fleet for good (a destroyed one is struck off so)."""
    seat = await _seat(platform, campaign_id, creds)
    return Changed(seq=await fleets.retire(platform, campaign_id, seat, ship_id, body.reason))


@router.post("/campaigns/{campaign_id}/ships/{ship_id}/repair", responses=errors(401, 403, 404, 422))
async def repair(
    campaign_id: str, ship_id: str, body: RepairIn, platform: PlatformDep, creds: Creds
) -> dict[str, Any]:
    """Referee: a repair between battles by the part's own rules (High Guard: TR-22's attempt, a
    standard check with the crew's DMs); its rolls and sentence come back."""
    seat = await _seat(platform, campaign_id, creds)
    return await fleets.repair(
        platform, campaign_id, seat, ship_id, body.part, body.section, body.system, body.dice
    )


@router.post(
    "/campaigns/{campaign_id}/ships/{ship_id}/ruling",
    response_model=Changed,
    responses=errors(401, 403, 404, 422),
)
async def ruling(
    campaign_id: str, ship_id: str, body: RulingIn, platform: PlatformDep, creds: Creds
) -> Changed:
    """Referee: a ruling between battles with its reason — values set, or the ship restored as built."""
    seat = await _seat(platform, campaign_id, creds)
    return Changed(
        seq=await fleets.ruling(platform, campaign_id, seat, ship_id, body.reason, body.values, body.restore)
    )


@router.post("/campaigns/{campaign_id}/rewind", response_model=Changed, responses=errors(401, 403, 404, 422))
async def rewind(campaign_id: str, body: RewindIn, platform: PlatformDep, creds: Creds) -> Changed:
    """Referee: the campaign put back as it stood after seq `to` (logged; nothing is deleted)."""
    seat = await _seat(platform, campaign_id, creds)
    return Changed(seq=await fleets.rewind(platform, campaign_id, seat, body.to))


class BattleMade(BaseModel):
    battle_id: str
    ships: dict[str, str] = Field(description="fleet ship id → the battle's ship id")
    seats: list[BattleSeat] = Field(
        description="the battle's referee first, then a seat per player (tokens shown once)"
    )


@router.post(
    "/campaigns/{campaign_id}/battles",
    status_code=201,
    response_model=BattleMade,
    responses=errors(401, 403, 404, 422, 429),
)
async def start_battle(
    campaign_id: str, body: BattleIn, request: Request, platform: PlatformDep, creds: Creds
) -> BattleMade:
    """Referee: a battle from the fleets — the ships picked, each as its fleet keeps it now, commanded
    by its player's new seat. Its end comes home to the fleets by itself, as one campaign event."""
    seat = await _seat(platform, campaign_id, creds)
    check_battle_creation(request)
    started = await fleets.start_battle(platform, campaign_id, seat, body.name, body.ships, body.options)
    seats = [battle_seat_out(request, s) for s in (started.referee, *started.seats)]
    return BattleMade(battle_id=started.battle.id, ships=started.ships, seats=seats)


@router.post("/campaigns/{campaign_id}/battles/{battle_id}/record", responses=errors(401, 403, 404, 422))
async def record(campaign_id: str, battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """Referee: bring a finished battle's result home now, if it has not come by itself (it is
    written once; `seq` null when there was nothing to write)."""
    seat = await _seat(platform, campaign_id, creds)
    fleets.referee_only(seat)
    return {"seq": await fleets.record_battle(platform, battle_id)}


@router.get("/campaigns/{campaign_id}/audit", responses=errors(401, 403, 404, 422))
async def audit(campaign_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """Referee: every battle result the campaign recorded, made again from its battle's log and
    compared (`ok`; per battle `matches` and where it differs)."""
    seat = await _seat(platform, campaign_id, creds)
    fleets.referee_only(seat)
    return await audit_campaign(platform, campaign_id)


@router.get("/campaigns/{campaign_id}/export", responses=errors(401, 403, 404, 422))
async def export(campaign_id: str, platform: PlatformDep, creds: Creds) -> JSONResponse:
    """Referee: the campaign as one file (`starboard.campaign/1`), its battles as battle files inside."""
    seat = await _seat(platform, campaign_id, creds)
    return file_download(await export_for(platform, campaign_id, seat), f"campaign-{campaign_id}.json")


@router.post(
    "/campaigns/import",
    status_code=201,
    responses=errors(413, 422, 429),
    openapi_extra={"requestBody": file_body('a campaign file (`format: "starboard.campaign/1"`)')},
)
async def import_file(request: Request, platform: PlatformDep) -> dict[str, Any]:
    """A new campaign from a campaign file: new seats (tokens shown once), its battles imported and
    checked as battle files are, its log appended as it was. Refused whole naming the field."""
    check_battle_creation(request)
    made = await import_campaign(platform, read_battle_file(await request.body()))
    return {
        "campaign_id": made["campaign"].id,
        "seq": made["campaign"].seq,
        "seats": made["seats"],
        "battles": made["battles"],
    }
