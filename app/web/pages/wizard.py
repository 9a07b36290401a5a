"""The home page and the battle-creation wizard: game system → ships (from the library
of that system, or pasted JSON) → seats (players, bots, spectators), each ship given its commander
on the way → one transaction (services/write/creation.py) → every join link on a page of its own, with
copy buttons, until the referee dismisses it.

One plain form with fieldsets: it works without JavaScript (the server checks everything and
answers a refusal with the same form, the field at fault marked and named); static/js/wizard.js
only filters the ship list by system, turns the commander boxes into menus of the seats typed and
counts the seats against the limit. Links are never kept anywhere: the tokens are stored hashed,
so the page that shows them is the answer to the post itself, and a lost one is replaced by a new
link (rotating the seat's token, POST /battles/{id}/links/{pid})."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.rules.system import GameSystem
from app.services.bus import SeatsChanged
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.library.shiplib import library_chosen, library_picks
from app.services.reading.home_cards import home_cards
from app.services.store.battles import (
    add_participant,
    get_battle,
    get_participant,
    participants,
    rotate_token,
)
from app.services.write.creation import SeatWanted, ShipWanted, create_prepared, seat_limit_refusal
from app.web.deps import PlatformDep, join_url
from app.web.drawing.render import templates
from app.web.middleware.errors import refusal_page, service_headers
from app.web.middleware.limits import check_battle_creation
from app.web.middleware.security import csrf_token, seat_in, take_seat
from app.web.numbers import whole_number
from app.web.pages.answers import _form, _pop_flash
from app.web.pages.forms import pasted_json
from app.web.profile_session import browser_seats, refresh, remember

router = APIRouter(include_in_schema=False)

SEAT_FIELDS = (("players", "player"), ("bots", "bot"), ("spectators", "spectator"))
FIELD_NAMES = {
    "name": "Battle name",
    "system": "Game system",
    "dice_mode": "Dice",
    "end_when_one_side_left": "How it ends",
    "turn_limit": "Turn limit",
    "players": "Players",
    "bots": "Bots",
    "spectators": "Spectators",
    "ships": "Ships from the library",
    "definition_json": "Ship definitions as JSON",
    "commander.json": "Commander of the pasted ships",
}
DEFAULT_SPECTATORS = "Spectators"  # one watch-only link unless the referee clears it


async def ship_choices(
    session: AsyncSession, system: GameSystem, slugs: list[str]
) -> dict[str, dict[str, Any]]:
    """The definitions of the ships a create form picked for a game system (samples and saved
    ships, services/library/shiplib.py): only those are read, however large the library."""
    return await library_chosen(session, system, slugs)


def _ending(form: Any) -> dict[str, Any]:
    """The battle options that let it end by itself (GEN-01, GEN-04): none unless asked for."""
    options: dict[str, Any] = {}
    if form.get("end_when_one_side_left") == "true":
        options["end_when_one_side_left"] = True
    raw = str(form.get("turn_limit", "")).strip()
    if raw:
        turns = whole_number(raw, low=1, high=1000)
        if turns is None:
            raise Invalid(
                f"turn_limit: a whole number of turns from 1 to 1000 (you sent {raw!r})", "turn_limit"
            )
        options["turn_limit"] = turns
    return options


def _names(raw: str) -> list[str]:
    return [n.strip() for n in raw.splitlines() if n.strip()]


def _values(form: Any) -> dict[str, Any]:
    """What was typed, to put back in the form after a refusal."""
    values: dict[str, Any] = {k: str(v) for k, v in form.items() if isinstance(v, str)}
    values["ships"] = [str(s) for s in form.getlist("ships")]
    return values


async def _home(
    request: Request,
    platform: PlatformDep,
    values: dict[str, Any] | None = None,
    error: ServiceError | None = None,
) -> Response:
    await refresh(request, platform)  # a signed-in profile's seats from other devices open here too
    rules = platform.rules
    async with platform.db.reader() as session:
        battles = await home_cards(session, rules, *browser_seats(request))
        library = await library_picks(session, rules)  # names and classes of the newest only
    field = (error.field or "") if error else ""
    flash = {"message": error.message, "level": "error", "field": field} if error else _pop_flash(request)
    return templates.TemplateResponse(
        request,
        "home.html",
        {
            "battles": battles,
            "systems": rules.names(),
            "steps": {key: {s.key: s.label for s in system.steps} for key, system in rules.systems.items()},
            "library": library,
            "max_seats": platform.settings.max_seats_per_battle,
            "values": values or {"spectators": DEFAULT_SPECTATORS},
            "errors": {field: error.message.removeprefix(f"{field}: ")} if error else {},
            "field_names": FIELD_NAMES,
            "field": field,  # the page message names it (data-field), as every page's does
            "csrf_token": csrf_token(request),
            "flash": flash,
        },
        status_code=error.status if error else 200,
        headers=service_headers(error) if error else None,
    )


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, platform: PlatformDep) -> Response:
    return await _home(request, platform)


def _seats(form: Any) -> list[SeatWanted]:
    wanted = []
    for field, role in SEAT_FIELDS:
        wanted += [SeatWanted(name, role, field) for name in _names(str(form.get(field, "")))]
    return wanted


def _overflowing(seats: list[SeatWanted], limit: int) -> str:
    """The field whose names take the battle past its seat limit, counted in the form's order with
    the referee's seat first: forty players are the players' fault, not the one spectator after them."""
    for held, seat in enumerate(seats, start=2):
        if held > limit:
            return seat.field
    return SEAT_FIELDS[0][0]


def _commander(form: Any, field: str, seats: list[SeatWanted]) -> int | None:
    """The seat a ship goes to: a player's or bot's name as typed or picked (any case); empty
    leaves it unassigned."""
    # A ship listed under two systems' libraries has a box under each: the one filled in counts.
    typed = next((str(v).strip() for v in reversed(form.getlist(field)) if str(v).strip()), "")
    if not typed:
        return None
    for i, seat in enumerate(seats):
        if seat.role in ("player", "bot") and seat.name.casefold() == typed.casefold():
            return i
    commanders = ", ".join(s.name for s in seats if s.role in ("player", "bot")) or "none yet"
    raise Invalid(f"{field}: {typed!r} is not one of the players or bots (they are: {commanders})", field)


def _pasted(raw: str) -> list[dict[str, Any]]:
    if not raw.strip():
        return []
    data = pasted_json(raw, "definition_json")
    items = data if isinstance(data, list) else [data]
    if not items or not all(isinstance(item, dict) for item in items):
        raise Invalid(
            "definition_json: a ship definition is a JSON object, or a list of them", "definition_json"
        )
    return items


def _fleet(
    form: Any, system: GameSystem | None, offered: dict[str, dict[str, Any]], seats: list[SeatWanted]
) -> list[ShipWanted]:
    """Every ship asked for, library ones first, each with its commander; refused naming the
    field when a ship is not of this system's library (`offered`) or a commander is not a seat."""
    ships = []
    for slug in dict.fromkeys(str(s) for s in form.getlist("ships")):
        if slug not in offered:
            label = system.name if system is not None else "the chosen system's"
            raise Invalid(
                f"ships: {slug!r} is not in the {label} library; pick ships of that system", "ships"
            )
        field = f"commander.{slug}"
        name = str(offered[slug].get("name", slug))
        ships.append(ShipWanted(offered[slug], _commander(form, field, seats), "ships", name))
    pasted = _pasted(str(form.get("definition_json", "")))
    owner = _commander(form, "commander.json", seats) if pasted else None
    for i, d in enumerate(pasted, start=1):
        ships.append(ShipWanted(d, owner, "definition_json", f"pasted ship {i} ({d.get('name', 'no name')})"))
    return ships


def _duplicates(seats: list[SeatWanted]) -> None:
    seen: dict[str, SeatWanted] = {}
    for seat in seats:
        key = seat.name.casefold()
        if key in seen:
            raise Invalid(
                f"{seat.field}: {seat.name!r} is named twice (also in {seen[key].field}); each seat needs "
                "its own name, so ships can be given to it",
                seat.field,
            )
        seen[key] = seat


@router.post("/battles")
async def new_battle(request: Request, platform: PlatformDep) -> Response:
    """Create the battle, its seats and its fleet in one transaction, then show every link."""
    values: dict[str, Any] = {}
    try:
        form = await _form(request)
        values = _values(form)
        check_battle_creation(request)
        system_key = str(form.get("system", ""))
        system = platform.rules.systems.get(system_key)
        seats = _seats(form)
        limit = platform.settings.max_seats_per_battle
        refused = seat_limit_refusal(len(seats), limit, _overflowing(seats, limit))
        if refused is not None:
            raise refused
        _duplicates(seats)
        async with platform.db.reader() as session:
            picked = [str(s) for s in form.getlist("ships")]
            offered = await ship_choices(session, system, picked) if system is not None else {}
        ships = _fleet(form, system, offered, seats)
        battle, referee, made = await create_prepared(
            platform,
            name=str(form.get("name", "")),
            system=system_key,
            dice_mode=str(form.get("dice_mode", "seeded")),
            seats=seats,
            ships=ships,
            options=_ending(form),
        )
    except ServiceError as exc:
        return await _home(request, platform, values, exc)
    take_seat(request, battle.id, referee.participant.id, referee.participant.token_hash)
    await remember(request, platform, referee.participant)  # a signed-in referee's profile keeps it
    links = [
        {
            "id": seat.participant.id,
            "name": seat.participant.name,
            "role": seat.participant.role,
            "url": join_url(request, seat.token),
            "ships": [ship.definition.get("name", "?") for ship in ships if ship.commander == i],
        }
        for i, seat in enumerate(made)
    ]
    unassigned = [s.definition.get("name", "?") for s in ships if s.commander is None]
    return show_links(
        request, battle, links, referee_url=join_url(request, referee.token), unassigned=unassigned
    )


def show_links(
    request: Request,
    battle: Any,
    links: list[dict[str, Any]],
    *,
    referee_url: str | None = None,
    unassigned: list[str] | None = None,
    seats: list[Any] | None = None,
    headline: str | None = None,
    status: int = 200,
    flash: dict[str, str] | None = None,
) -> Response:
    """Links shown until the referee leaves the page (never stored; no-store, no Referer)."""
    return templates.TemplateResponse(
        request,
        "partials/wizard_links.html",
        {
            "battle": battle,
            "links": links,
            "referee_url": referee_url,
            "unassigned": unassigned or [],
            "seats": seats or [],
            "headline": headline,
            "csrf_token": csrf_token(request),
            "flash": flash,
        },
        status_code=status,
        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
    )


async def _referee_seat(request: Request, battle_id: str, session: AsyncSession) -> None:
    me = await get_participant(session, battle_id, seat_in(request, battle_id))
    if me.role != "referee":
        raise Forbidden("only the referee gives out join links")


async def _seats_page(
    request: Request,
    platform: PlatformDep,
    battle_id: str,
    links: list[dict[str, Any]],
    headline: str | None = None,
    flash: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    async with platform.db.reader() as session:
        await _referee_seat(request, battle_id, session)
        battle = await get_battle(session, battle_id)
        people = [p for p in await participants(session, battle_id) if p.active]
    return show_links(request, battle, links, seats=people, headline=headline, flash=flash, status=status)


@router.get("/battles/{battle_id}/links", response_class=HTMLResponse)
async def links_page(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """The referee's join links: every seat, with a New link button for each (the old link stops
    working) and a form to add a seat — each new link shown until the referee dismisses it."""
    try:
        return await _seats_page(request, platform, battle_id, [])
    except ServiceError as exc:
        return refusal_page(request, exc)


def _link(request: Request, seat: Any) -> dict[str, Any]:
    p = seat.participant
    return {"id": p.id, "name": p.name, "role": p.role, "url": join_url(request, seat.token), "ships": []}


@router.post("/battles/{battle_id}/links/{participant_id}")
async def new_link(battle_id: str, participant_id: str, request: Request, platform: PlatformDep) -> Response:
    """A seat's link shown again: a new token (the old link and bearer token stop working)."""
    try:
        await _form(request)
        async with platform.transaction() as work:
            await _referee_seat(request, battle_id, work.session)
            seat = await rotate_token(work.session, battle_id, participant_id)
            work.emit(SeatsChanged(battle_id))
        if str(seat_in(request, battle_id)) == seat.participant.id:  # the referee's own: keep it here
            take_seat(request, battle_id, seat.participant.id, seat.participant.token_hash)
            await remember(request, platform, seat.participant)
        headline = f"New link for {seat.participant.name}: the old one no longer works."
        return await _seats_page(request, platform, battle_id, [_link(request, seat)], headline)
    except ServiceError as exc:
        return await _links_error(request, platform, battle_id, exc)


@router.post("/battles/{battle_id}/links")
async def add_seat(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """A seat added after creation, its link shown until dismissed (not in a passing message)."""
    try:
        form = await _form(request)
        async with platform.transaction() as work:
            session = work.session
            await _referee_seat(request, battle_id, session)
            battle = await get_battle(session, battle_id)
            seat = await add_participant(
                session,
                battle,
                str(form.get("name", "")),
                str(form.get("role", "player")),
                max_seats=platform.settings.max_seats_per_battle,
            )
            work.emit(SeatsChanged(battle_id))
        headline = f"{seat.participant.name} ({seat.participant.role}) is seated."
        return await _seats_page(request, platform, battle_id, [_link(request, seat)], headline)
    except ServiceError as exc:
        return await _links_error(request, platform, battle_id, exc)


async def _links_error(
    request: Request, platform: PlatformDep, battle_id: str, exc: ServiceError
) -> Response:
    flash = {"message": exc.message, "level": "error", "field": exc.field or ""}
    try:
        return await _seats_page(request, platform, battle_id, [], flash=flash, status=exc.status)
    except ServiceError as again:
        return refusal_page(request, again)
