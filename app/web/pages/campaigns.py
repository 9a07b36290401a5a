"""Campaign pages: the referee's dashboard (create, fleets, a battle from the fleets, repairs and
rulings, add and retire ships, export, import, rewind) and each side's fleet page, where every
ship's record across battles is drawn with the report's bar charts.

A browser holds a campaign seat as it holds a battle seat: the referee's on creating it, a
player's from their link (/campaigns/join/<token>, redacted from the access log as join links
are), kept in the signed session with the key of the token (a replaced token no longer holds it).
Every page reads the campaign through `services.campaigns.view`, the same per-viewer read as
REST. Forms are plain posts answered by redirect (htmx or not); a refusal comes back as the page
with the field named, nothing changed.

The dashboard keeps its fleets and its log current by asking again (htmx, every POLL_SECONDS, the
campaign's seq in the question; answered 204 while nothing was logged since), as the report does:
a campaign changes a few times an evening, and the referee's forms stay out of what is replaced."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select

from app.models import Battle, CampaignSeat
from app.services.campaigns import fleets, log
from app.services.campaigns.files import export_for, import_campaign
from app.services.campaigns.view import campaign_view, log_view
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.library.shiplib import library_picks
from app.services.store.tokens import hash_token, seat_key
from app.web.battle_file_reader import file_download
from app.web.deps import PlatformDep, SeqQuery, join_url
from app.web.drawing.render import templates
from app.web.middleware.limits import check_battle_creation
from app.web.middleware.security import csrf_token
from app.web.pages.answers import _flash, _form, _pop_flash, uploaded_file
from app.web.pages.report import bar_chart
from app.web.profile_session import signed_in

router = APIRouter(include_in_schema=False)

SESSION_CAMPAIGNS = "campaigns"
POLL_SECONDS = 15  # how often an open dashboard asks whether the campaign's log has moved


def _hold(request: Request, campaign_id: str, token_hash: str) -> None:
    held = dict(request.session.get(SESSION_CAMPAIGNS, {}))
    held[campaign_id] = seat_key(token_hash)
    request.session[SESSION_CAMPAIGNS] = held


async def _keep(request: Request, platform: Any, campaign_id: str, seat_id: str, token_hash: str) -> None:
    """This browser holds the seat; a signed-in player's profile remembers it too."""
    _hold(request, campaign_id, token_hash)
    profile = await signed_in(request, platform)
    if profile is not None:
        await log.remember(platform.db, seat_id, profile.id)


async def _seat(request: Request, platform: Any, campaign_id: str) -> CampaignSeat | None:
    """The campaign seat this browser holds (None: none, or its token was replaced)."""
    key = request.session.get(SESSION_CAMPAIGNS, {}).get(campaign_id)
    if key is None:
        return None
    async with platform.db.reader() as session:
        for seat in await log.seats(session, campaign_id):
            if seat_key(seat.token_hash) == key:
                return seat
    return None


def _page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    flash = context.pop("flash", None) or _pop_flash(request)
    field = (flash or {}).get("field")  # the flash names the field at fault (static/js/fields.js marks it)
    return templates.TemplateResponse(
        request,
        name,
        {"csrf_token": csrf_token(request), "flash": flash, "field": field, **context},
        status_code=status,
    )


@router.get("/campaigns", response_class=HTMLResponse)
async def campaigns_home(request: Request, platform: PlatformDep) -> Response:
    """Start a campaign, import one, or go back to one this browser holds — or, signed in, one
    the profile holds from another device (brought into this browser here)."""
    held = []
    profile = await signed_in(request, platform)
    async with platform.db.reader() as session:
        for seat in await log.seats_of_profile(session, profile.id) if profile is not None else []:
            _hold(request, seat.campaign_id, seat.token_hash)
        for cid in request.session.get(SESSION_CAMPAIGNS, {}):
            try:
                held.append(await log.get_campaign(session, cid))
            except ServiceError:
                continue
    return _page(request, "campaigns/home.html", {"held": held, "systems": platform.rules.systems})


@router.post("/campaigns/new")
async def new_campaign(request: Request, platform: PlatformDep) -> Response:
    try:
        form = await _form(request)
        check_battle_creation(request)
        sides = [s.strip() for s in str(form.get("sides", "")).split(",") if s.strip()]
        options = {key: form.get(key) == "yes" for key in fleets.OPTIONS}
        made = await fleets.create(
            platform, str(form.get("name", "")), str(form.get("system", "")), options, sides
        )
    except ServiceError as exc:
        return await _refused_home(request, platform, exc)
    await _keep(request, platform, made.campaign.id, made.referee.seat.id, made.referee.seat.token_hash)
    _flash(request, "Campaign created. This browser holds its referee's seat.", "info")
    return RedirectResponse(f"/campaigns/{made.campaign.id}", status_code=303)


async def _refused_home(request: Request, platform: Any, exc: ServiceError) -> Response:
    flash = {"message": exc.message, "level": "error", "field": exc.field}
    page = _page(
        request,
        "campaigns/home.html",
        {"held": [], "systems": platform.rules.systems, "flash": flash},
        exc.status,
    )
    return page


@router.post("/campaigns/import")
async def import_page(request: Request, platform: PlatformDep) -> Response:
    """A campaign file uploaded: a new campaign whose referee's seat this browser holds."""
    try:
        made = await import_campaign(platform, await uploaded_file(request, "campaign"))
    except ServiceError as exc:
        return await _refused_home(request, platform, exc)
    referee = next((s for s in made["seats"] if s["role"] == "referee"), None)
    if referee is not None:
        await _keep(request, platform, made["campaign"].id, referee["seat"], hash_token(referee["token"]))
    _flash(request, "Campaign imported, its battles with it.", "info")
    return RedirectResponse(f"/campaigns/{made['campaign'].id}", status_code=303)


@router.get("/campaigns/join/{token}", name="join_campaign_seat")
async def join(token: str, request: Request, platform: PlatformDep) -> Response:
    async with platform.db.reader() as session:
        seat = (
            await session.execute(select(CampaignSeat).where(CampaignSeat.token_hash == hash_token(token)))
        ).scalar_one_or_none()
    if seat is None:
        _flash(request, "That campaign link is not valid.", "error")
        return RedirectResponse("/campaigns", status_code=303)
    await _keep(request, platform, seat.campaign_id, seat.id, seat.token_hash)
    return RedirectResponse(f"/campaigns/{seat.campaign_id}", status_code=303)


def _campaign_link(request: Request, token: str) -> str:
    return f"{request.app.state.settings.public_base_url}/campaigns/join/{token}"


def _charts(ship: dict[str, Any]) -> Any:
    """A ship's record across its battles as the report's bar chart: damage taken and dealt per battle."""
    history = ship.get("history") or []
    if not history:
        return None
    top = max([h["taken"] for h in history] + [h["dealt"] for h in history] + [1])
    return bar_chart(
        f"ship-{ship['id']}",
        f"{ship['name']}: damage taken and dealt, battle by battle",
        "; ".join(f"{h['name']}: taken {h['taken']}, dealt {h['dealt']}" for h in history),
        top,
        groups=[
            (f"B{i}", [("taken", "taken", h["taken"]), ("dealt", "dealt", h["dealt"])])
            for i, h in enumerate(history, start=1)
        ],
    )


async def _dashboard(
    request: Request,
    platform: Any,
    campaign_id: str,
    seat: CampaignSeat,
    flash: dict[str, Any] | None = None,
    status: int = 200,
    links: list[tuple[str, str]] | None = None,
) -> Response:
    async with platform.db.reader() as session:
        campaign = await log.get_campaign(session, campaign_id)
        state = await log.folded(session, campaign_id)
        rows = await log.events(session, campaign_id)
        library = await library_picks(session, platform.rules) if seat.role == "referee" else {}
        running = [b["id"] for b in state["battles"].values() if b["status"] == "running"]
        ended = {
            b.id
            for b in (await session.execute(select(Battle).where(Battle.id.in_(running)))).scalars()
            if b.status == "finished"
        }
    view = campaign_view(state, seat)
    system = platform.rules.systems[campaign.system]
    picks = library.get(campaign.system, {}) if library else {}
    menders = [
        name for name, spec in platform.rules.game(campaign.system).parts.items() if spec.mend is not None
    ]
    return _page(
        request,
        "campaigns/dashboard.html",
        {
            "campaign": campaign,
            "view": view,
            "log": list(reversed(log_view(rows, state, seat))),
            "seat": seat,
            "library": picks,
            "menders": menders,
            "system_name": system.name,
            "flash": flash,
            "links": links or [],
            "ended": ended,  # finished battles whose result has not come home yet
            "poll": POLL_SECONDS,
        },
        status,
    )


async def _must_hold(request: Request, platform: Any, campaign_id: str) -> CampaignSeat:
    seat = await _seat(request, platform, campaign_id)
    if seat is None:
        raise Forbidden("this browser holds no seat in that campaign; open your campaign link")
    return seat


@router.get("/campaigns/{campaign_id}", response_class=HTMLResponse)
async def dashboard(
    campaign_id: str, request: Request, platform: PlatformDep, since: SeqQuery = None
) -> Response:
    """The referee's dashboard, or a player's view of the campaign; `since` (the page's own poll)
    answers 204 while the campaign's log has not moved past it."""
    seat = await _must_hold(request, platform, campaign_id)
    if since is not None:
        async with platform.db.reader() as session:
            if (await log.get_campaign(session, campaign_id)).seq <= since:
                return Response(status_code=204)
    return await _dashboard(request, platform, campaign_id, seat)


@router.get("/campaigns/{campaign_id}/fleets/{side}", response_class=HTMLResponse)
async def fleet_page(campaign_id: str, side: str, request: Request, platform: PlatformDep) -> Response:
    """A side's fleet: each ship's record across battles, drawn as a chart, as this seat may see it."""
    seat = await _must_hold(request, platform, campaign_id)
    async with platform.db.reader() as session:
        campaign = await log.get_campaign(session, campaign_id)
        state = await log.folded(session, campaign_id)
    view = campaign_view(state, seat)
    if side not in view["sides"]:
        raise Invalid(f"side: no side {side!r} in this campaign", "side")
    ships = [{**s, "chart": _charts(s)} for s in view["ships"] if s["side"] == side]
    return _page(
        request,
        "campaigns/fleet.html",
        {"campaign": campaign, "view": view, "side": side, "ships": ships, "seat": seat},
    )


@router.get("/campaigns/{campaign_id}/export")
async def export_page(campaign_id: str, request: Request, platform: PlatformDep) -> Response:
    seat = await _must_hold(request, platform, campaign_id)
    return file_download(await export_for(platform, campaign_id, seat), f"campaign-{campaign_id}.json")


def _opt(form: Any, key: str) -> str | None:
    value = str(form.get(key, "")).strip()
    return value or None


def _json(form: Any, key: str) -> Any:
    raw = _opt(form, key)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise Invalid(f"{key}: not JSON", key) from None


def _int(form: Any, key: str) -> int | None:
    raw = _opt(form, key)
    if raw is None:
        return None
    if not raw.lstrip("-").isdigit() or len(raw) > 9:
        raise Invalid(f"{key}: a whole number", key)
    return int(raw)


async def _do(
    platform: Any, campaign_id: str, seat: CampaignSeat, what: str, form: Any, request: Request
) -> tuple[str, list[tuple[str, str]]]:
    """One dashboard form: the campaign's own command, and the message said after it."""
    if what == "sides":
        await fleets.add_side(platform, campaign_id, seat, str(form.get("side", "")))
        return "Side added.", []
    if what == "players":
        made = await fleets.add_player(
            platform, campaign_id, seat, str(form.get("name", "")), str(form.get("side", ""))
        )
        link = (made.seat.name, _campaign_link(request, made.token))
        return f"{made.seat.name} plays for {made.seat.side}.", [link]
    if what == "ships":
        ship = await fleets.add_ship(
            platform,
            campaign_id,
            seat,
            side=str(form.get("side", "")),
            player=_opt(form, "player"),
            library=_opt(form, "library"),
            definition=_json(form, "definition"),
            points=_int(form, "points"),
            name=_opt(form, "name"),
        )
        return f"Ship {ship} joins the fleet.", []
    ship_id = str(form.get("ship", ""))
    if what == "retire":
        await fleets.retire(platform, campaign_id, seat, ship_id, str(form.get("reason", "")))
        return "Ship retired.", []
    if what == "repair":
        done = await fleets.repair(
            platform,
            campaign_id,
            seat,
            ship_id,
            str(form.get("part", "")),
            str(form.get("section", "")),
            str(form.get("system", "")),
        )
        return str(done["text"]), []
    if what == "ruling":
        values = _json(form, "values")
        if values is not None and not isinstance(values, dict):
            raise Invalid("values: a JSON object of place → value", "values")
        await fleets.ruling(
            platform,
            campaign_id,
            seat,
            ship_id,
            str(form.get("reason", "")),
            values,
            form.get("restore") == "yes",
        )
        return "Ruling logged.", []
    if what == "rewind":
        to = _int(form, "to")
        if to is None:
            raise Invalid("to: the seq to go back to", "to")
        await fleets.rewind(platform, campaign_id, seat, to)
        return f"The campaign is back as it stood after entry {to}.", []
    if what == "record":
        seq = await fleets.record_battle(platform, str(form.get("battle", "")))
        return ("The battle's result is home." if seq else "Nothing to bring home."), []
    if what == "battles":
        check_battle_creation(request)
        started = await fleets.start_battle(
            platform, campaign_id, seat, str(form.get("name", "")), [str(s) for s in form.getlist("ships")]
        )
        links = [(s.participant.name, join_url(request, s.token)) for s in [started.referee, *started.seats]]
        return f"Battle {started.battle.name} started.", links
    raise Invalid("no such campaign form", "form")


@router.post("/campaigns/{campaign_id}/{what}")
async def act(campaign_id: str, what: str, request: Request, platform: PlatformDep) -> Response:
    seat = await _must_hold(request, platform, campaign_id)
    try:
        form = await _form(request)
        message, links = await _do(platform, campaign_id, seat, what, form, request)
    except ServiceError as exc:
        flash = {"message": exc.message, "level": "error", "field": exc.field}
        return await _dashboard(request, platform, campaign_id, seat, flash, exc.status)
    if links:  # tokens are shown once, in the answer itself: never kept in a flash or a log
        flash = {"message": message + " Copy the links now: they are shown once.", "level": "info"}
        page = await _dashboard(request, platform, campaign_id, seat, flash, links=links)
        page.headers["Cache-Control"] = "no-store"
        page.headers["Referrer-Policy"] = "no-referrer"
        return page
    _flash(request, message, "info")
    return RedirectResponse(f"/campaigns/{campaign_id}", status_code=303)
