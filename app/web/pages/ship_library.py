"""The ship library's doors (docs/ship-library.md): REST under /api/v1/ships for bots and
tools, and the referee dashboard's library section. Both call `app/services/library/shiplib.py`; saving and
deleting take a referee's seat (a bearer token over REST, the browser's seat on the pages)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.models import Participant
from app.services.errors import Forbidden, Invalid, ServiceError, Unauthorized
from app.services.library import shiplib
from app.services.store.battles import get_battle, get_participant, participant_by_token
from app.web.battle_file_reader import file_download
from app.web.deps import Creds, PlatformDep, errors, participant_by_bearer
from app.web.drawing.render import render
from app.web.middleware.security import csrf_token, seat_in
from app.web.pages.answers import _answer, _form, _is_htmx, _refused
from app.web.pages.battle import _confirm_page, referee_seats
from app.web.pages.forms import pasted_json

router = APIRouter(prefix="/api/v1", tags=["ships"])
pages = APIRouter(include_in_schema=False)

SlugPath = Annotated[
    str, Path(max_length=60, pattern=r"^[a-z0-9][a-z0-9-]*$", description="a library ship's slug")
]
SystemQuery = Annotated[
    str | None,
    Query(
        max_length=20, description="a game system key (sfb, b5wars, traveller): the ships its battles take"
    ),
]


class LibraryEntry(BaseModel):
    slug: str
    name: str
    klass: str
    system: str = Field(description="the ship's rule family (its definition's `system`)")
    sample: bool = Field(description="a sample shipped with Starboard: read-only")
    source: str = Field(description="sample, json, built (as added to a battle) or now (as it was then)")
    saved_by: str | None = Field(description="the name of the referee who saved it")
    saved_at: datetime | None
    from_ship: str | None = Field(default=None, description="the battle ship it was saved from")
    held: bool = Field(
        default=False, description="saved from a battle still under way: only its referees see it"
    )
    may_delete: bool = Field(default=False, description="whether the caller's token may delete it")


class LibraryList(BaseModel):
    ships: list[LibraryEntry]


class ShipIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    definition: Any = Field(
        description="a ship definition (GET /api/v1/ships/schema), e.g. one exported from the library"
    )


class Rename(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=shiplib.NAME_MAX, description="the saved ship's new name")


class SaveFromBattle(BaseModel):
    model_config = ConfigDict(extra="forbid")
    state: Literal["now", "built"] = Field(
        default="now", description="now: as it is now, damage kept; built: its definition as added"
    )
    name: str | None = Field(default=None, min_length=1, max_length=80, description="a new name for it")


async def _caller(platform: PlatformDep, creds: Creds, required: bool) -> Participant | None:
    if creds is None:
        if required:
            raise Unauthorized("send Authorization: Bearer <a referee's token>")
        return None
    async with platform.db.reader() as session:
        return await participant_by_token(session, creds.credentials)


def _system(platform: PlatformDep, system: str | None) -> Any:
    return None if system is None else shiplib.system_of(platform.rules, system)


@router.get("/ships/schema", responses=errors())
async def ship_schema(platform: PlatformDep, system: SystemQuery = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a ship definition — what `ship.add` and POST /api/v1/ships
    validate; with `system`, `system` (the ship family) is limited to what that game system takes."""
    return shiplib.ship_schema(platform.rules, _system(platform, system))


@router.get("/ships", response_model=LibraryList, responses=errors(403))
async def list_ships(platform: PlatformDep, creds: Creds, system: SystemQuery = None) -> LibraryList:
    """The samples and the saved ships (of the families a `system` battle takes, or all). A referee's
    token also shows the ships held for its battle and which ones it may delete."""
    viewer = await _caller(platform, creds, required=False)
    async with platform.db.reader() as session:
        entries = await shiplib.library_entries(session, platform.rules, _system(platform, system), viewer)
    return LibraryList(ships=[LibraryEntry(**e.model_dump()) for e in entries])


@router.post("/ships", status_code=201, response_model=LibraryEntry, responses=errors(401, 403, 422))
async def save_ship(body: ShipIn, platform: PlatformDep, creds: Creds) -> LibraryEntry:
    """Referee (any battle's active referee token): save a ship definition into the library. It is
    checked as `ship.add` checks it (422 naming the field) and kept under a slug made from its name."""
    saver = await _caller(platform, creds, required=True)
    assert saver is not None
    entry = await shiplib.save(platform, saver, body.definition)
    return LibraryEntry(**entry.model_dump())


@router.post(
    "/battles/{battle_id}/ships/{ship}/save",
    status_code=201,
    response_model=LibraryEntry,
    responses=errors(401, 403, 404, 422),
)
async def save_battle_ship(
    battle_id: str, ship: str, platform: PlatformDep, creds: Creds, body: SaveFromBattle | None = None
) -> LibraryEntry:
    """Referee of this battle: save one of its ships into the library, as it is now (damage kept; held
    for this battle's referees until the battle ends) or as built (its definition as added)."""
    saver = await participant_by_bearer(platform, battle_id, creds)
    choice = body or SaveFromBattle()
    entry = await shiplib.save_from_battle(platform, saver, ship, choice.state, choice.name)
    return LibraryEntry(**entry.model_dump())


@router.get("/ships/{slug}", responses=errors(403, 404))
async def export_ship(slug: SlugPath, platform: PlatformDep, creds: Creds) -> JSONResponse:
    """A library ship's definition as a file to download: valid against GET /api/v1/ships/schema,
    taken as it is by `ship.add` and (as `definition`) by POST /api/v1/ships."""
    viewer = await _caller(platform, creds, required=False)
    async with platform.db.reader() as session:
        return file_download(await shiplib.export(session, slug, viewer), f"{slug}.json")


@router.delete("/ships/{slug}", status_code=204, responses=errors(401, 403, 404))
async def delete_ship(slug: SlugPath, platform: PlatformDep, creds: Creds) -> Response:
    """A referee of the battle the ship was saved in: delete it from the library (the samples are
    read-only: 403). Battles it was added to keep their copy."""
    viewer = await _caller(platform, creds, required=True)
    assert viewer is not None
    await shiplib.delete(platform, viewer, slug)
    return Response(status_code=204)


@router.patch("/ships/{slug}", response_model=LibraryEntry, responses=errors(401, 403, 404, 422))
async def rename_ship(slug: SlugPath, body: Rename, platform: PlatformDep, creds: Creds) -> LibraryEntry:
    """A referee of the battle the ship was saved in: rename it (its definition's name too; the slug
    stays). Battles it was added to keep their copy."""
    viewer = await _caller(platform, creds, required=True)
    assert viewer is not None
    entry = await shiplib.rename(platform, viewer, slug, body.name)
    return LibraryEntry(**entry.model_dump())


# --- the referee dashboard's library section ------------------------------------------------------------


async def _referee_seat(platform: PlatformDep, request: Request, battle_id: str) -> tuple[Participant, Any]:
    """This browser's seat in the battle, which must be the referee's (the section is theirs)."""
    async with platform.db.reader() as session:
        me = await get_participant(session, battle_id, seat_in(request, battle_id))
        battle = await get_battle(session, battle_id)
    if me.role != "referee":
        raise Forbidden("only the referee keeps the ship library from a battle")
    return me, battle


async def _referee_form(platform: PlatformDep, request: Request, battle_id: str) -> tuple[Any, Participant]:
    """A form of the library section (its CSRF token checked first) and the referee's seat posting it."""
    form = await _form(request)
    me, _ = await _referee_seat(platform, request, battle_id)
    return form, me


async def keepers(platform: PlatformDep, request: Request) -> list[Participant]:
    """The referee seats this browser holds in any battle (`referee_seats`)."""
    async with platform.db.reader() as session:
        return await referee_seats(session, request)


async def _saved(platform: PlatformDep, request: Request, battle_id: str, entry: shiplib.Entry) -> Response:
    """The message; for htmx also the library list and the "Add a ship" list, swapped out of band."""
    where = "held for this battle's referees until it ends" if entry.held else "in the library"
    message = f"Saved {entry.name} as “{entry.slug}” ({where})."
    back = f"/battles/{battle_id}#ship-library"
    if not _is_htmx(request):
        return _answer(request, back, message)
    me, battle = await _referee_seat(platform, request, battle_id)
    system = platform.rules.game(battle.system).system
    also = await keepers(platform, request)
    async with platform.db.reader() as session:
        entries = await shiplib.library_entries(session, platform.rules, system, me, also)
    html = render("partials/flash.html", {"message": message, "level": "info"})
    html += render(
        "partials/ship_library.html",
        {
            "oob": True,
            "ship_library": entries,
            "battle": {"id": battle_id, "system": battle.system},
            "csrf_token": csrf_token(request),
        },
    )
    return HTMLResponse(html)


@pages.post("/battles/{battle_id}/library")
async def save_json_page(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """Referee: save a ship definition pasted as JSON."""
    back = f"/battles/{battle_id}#ship-library"
    try:
        form, me = await _referee_form(platform, request, battle_id)
        raw = str(form.get("definition_json", "")).strip()
        if not raw:
            raise Invalid("definition: paste a ship definition (JSON) to save", "definition")
        entry = await shiplib.save(platform, me, pasted_json(raw, "definition"))
    except ServiceError as exc:
        return _refused(request, back, exc)
    return await _saved(platform, request, battle_id, entry)


@pages.post("/battles/{battle_id}/library/ship")
async def save_ship_page(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """Referee: save a ship of this battle, as it is now or as built."""
    back = f"/battles/{battle_id}#ship-library"
    try:
        form, me = await _referee_form(platform, request, battle_id)
        name = str(form.get("name", "")).strip() or None
        if name is not None and len(name) > 80:
            raise Invalid("name: may have at most 80 characters", "name")
        entry = await shiplib.save_from_battle(
            platform, me, str(form.get("ship", "")), str(form.get("state", "now")), name
        )
    except ServiceError as exc:
        return _refused(request, back, exc)
    return await _saved(platform, request, battle_id, entry)


@pages.post("/battles/{battle_id}/library/{slug}/delete")
async def delete_page(battle_id: str, slug: str, request: Request, platform: PlatformDep) -> Response:
    """Referee: delete a saved ship, asked first on a page of its own (keyboard and no-JavaScript
    friendly, as every destructive step from a page)."""
    back = f"/battles/{battle_id}#ship-library"
    try:
        form, me = await _referee_form(platform, request, battle_id)
        if form.get("confirm") != "yes":
            async with platform.db.reader() as session:
                definition = await shiplib.library_definition(session, slug, me, field="slug")
            name = str(definition.get("name", slug))
            return _confirm_page(
                request,
                form,
                f"/battles/{battle_id}/library/{slug}/delete",
                back,
                f"Delete {name} from the ship library?",
                "Battles it was added to keep their copy; export it first to keep a file of it.",
                f"Yes, delete {name}",
            )
        entry = await shiplib.delete(platform, me, slug, await keepers(platform, request))
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, f"Deleted {entry.name} (“{entry.slug}”) from the ship library.")


@pages.post("/battles/{battle_id}/library/{slug}/rename")
async def rename_page(battle_id: str, slug: str, request: Request, platform: PlatformDep) -> Response:
    """Referee: give a saved ship a new name (a ship saved in any battle this browser referees)."""
    back = f"/battles/{battle_id}#ship-library"
    try:
        form, me = await _referee_form(platform, request, battle_id)
        entry = await shiplib.rename(
            platform, me, slug, str(form.get("name", "")), await keepers(platform, request)
        )
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, f"Renamed “{entry.slug}” to {entry.name}.")


@pages.get("/battles/{battle_id}/library/{slug}.json")
async def export_page(battle_id: str, slug: str, request: Request, platform: PlatformDep) -> Response:
    """The dashboard's export link: the same file as GET /api/v1/ships/{slug}, as this seat may see it."""
    try:
        me, _ = await _referee_seat(platform, request, battle_id)
        async with platform.db.reader() as session:
            data = await shiplib.export(session, slug, me)
    except ServiceError as exc:
        return _refused(request, f"/battles/{battle_id}#ship-library", exc)
    return file_download(data, f"{slug}.json")
