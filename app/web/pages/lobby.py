"""The lobby's pages: /lobby (battles looking for players, live battles to watch, finished public
ones), claiming an open seat, watching by the public link (/battles/{id}/watch: one shared
spectator's view, no seat made), its public report and replay, the audience's viewscreen
(/battles/{id}/screen) and the referee's listing form. What they show is decided in
app/services/table/lobby.py and read through the per-viewer views as the public sees them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle
from app.rules.messages import first_error
from app.services.errors import Invalid, NotFound, ServiceError
from app.services.reading.screen import screen_ships, screen_ticker
from app.services.store.battles import get_battle, get_participant, participants
from app.services.table import lobby
from app.web.deps import ActionsBack, HubDep, PlatformDep, SeqQuery
from app.web.drawing.render import page_context, templates
from app.web.middleware.security import csrf_token, seat_in, take_seat
from app.web.pages.answers import _answer, _flash, _form, _pop_flash, _refused
from app.web.pages.report_share import Opened, public_card, public_page

router = APIRouter(include_in_schema=False)

CLAIMS_KEY = "lobby_claims"  # the session's claims waiting for a referee: {claim id: [battle, secret]}
SCREEN_POLL_SECONDS = 2


@router.get("/lobby", response_class=HTMLResponse)
async def lobby_page(request: Request, platform: PlatformDep, hub: HubDep) -> Response:
    async with platform.db.reader() as session:
        found = await lobby.lobby(session, platform.rules, lobby.watchers(hub.viewers))
        claims = []
        for claim_id, (battle_id, secret) in dict(request.session.get(CLAIMS_KEY, {})).items():
            try:
                status = await lobby.claim_status(session, battle_id, int(claim_id), secret)
            except (ServiceError, ValueError):
                continue
            battle = await session.get(Battle, battle_id)
            claims.append({**status, "battle_id": battle_id, "battle": battle.name if battle else "?"})
    context = {
        "lobby": found,
        "claims": claims,
        "csrf_token": csrf_token(request),
        "flash": _pop_flash(request),
    }
    return templates.TemplateResponse(request, "lobby.html", context)


@router.post("/lobby/{battle_id}/seats/{seat_id}/claim")
async def claim(battle_id: str, seat_id: str, request: Request, platform: PlatformDep) -> Response:
    """First come: this browser takes the seat now. Referee approves: the claim waits in the
    referee's queue and this browser keeps its secret (the lobby shows its answer)."""
    try:
        form = await _form(request)
        try:
            wanted = lobby.ClaimIn(name=str(form.get("name", "")))
        except ValidationError as exc:
            raise Invalid(first_error(exc)[1], "name") from None
        granted = await lobby.claim_seat(platform, battle_id, seat_id, wanted)
    except ServiceError as exc:
        return _refused(request, "/lobby", exc)
    if granted.seat is not None:
        take_seat(request, battle_id, granted.seat.participant.id, granted.seat.participant.token_hash)
        _flash(request, f"You took the seat {granted.seat.participant.name}.", "info")
        return RedirectResponse(f"/battles/{battle_id}", status_code=303)
    held = dict(request.session.get(CLAIMS_KEY, {}))
    held[str(granted.request_id)] = [battle_id, granted.secret]
    request.session[CLAIMS_KEY] = dict(list(held.items())[-10:])  # a browser keeps its last ten claims
    return _answer(request, "/lobby", "Asked the referee: this page shows the answer.", "info")


@router.post("/lobby/claims/{claim_id}/take")
async def take(claim_id: str, request: Request, platform: PlatformDep) -> Response:
    """Collect an approved claim's seat with the secret this browser kept."""
    try:
        await _form(request)
        held = dict(request.session.get(CLAIMS_KEY, {}))
        if claim_id not in held or not claim_id.isdigit():
            raise NotFound("no such claim in this browser", "claim")
        battle_id, secret = held[claim_id]
        seat = await lobby.collect(platform, battle_id, int(claim_id), secret)
    except ServiceError as exc:
        return _refused(request, "/lobby", exc)
    held.pop(claim_id, None)
    request.session[CLAIMS_KEY] = held
    take_seat(request, battle_id, seat.participant.id, seat.participant.token_hash)
    _flash(request, f"You took the seat {seat.participant.name}.", "info")
    return RedirectResponse(f"/battles/{battle_id}", status_code=303)


# --- the referee's listing -----------------------------------------------------------------------


def listing_from_form(form: Any) -> lobby.ListingIn:
    """The form's fields as the REST body; bad input names its field."""
    raw_delay = str(form.get("delay_actions", "") or "0").strip()
    if not raw_delay.isascii() or not raw_delay.isdigit():
        raise Invalid("delay_actions must be a whole number of actions", "delay_actions")
    try:
        return lobby.ListingIn(
            claims=str(form.get("claims", "closed")),
            open_seats=[str(v) for v in form.getlist("open_seats")],
            spectators=form.get("spectators") is not None,
            delay_actions=int(raw_delay),
            delay_turn=form.get("delay_turn") is not None,
        )
    except ValidationError as exc:
        field, message = first_error(exc)
        raise Invalid(message, field) from None


@router.post("/battles/{battle_id}/listing")
async def set_listing(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}#lobby-listing"
    try:
        form = await _form(request)
        await lobby.set_listing(platform, battle_id, seat_in(request, battle_id), listing_from_form(form))
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, "Lobby listing saved.")


async def listing_context(platform: Any, battle_id: str) -> dict[str, Any]:
    """What the referee page's listing form shows: the settings and the player seats to offer."""
    async with platform.db.reader() as session:
        listing = await lobby.listing_of(session, battle_id)
        seats = [p for p in await participants(session, battle_id) if p.active and p.role == "player"]
    return {"listing": lobby.listing_out(listing), "listing_seats": seats}


# --- watching by the public link -----------------------------------------------------------------


async def _public(session: Any, battle_id: str) -> tuple[Any, Any]:
    battle = await get_battle(session, battle_id)
    listing = await lobby.listing_of(session, battle_id)
    if not listing.spectators:
        raise NotFound("this battle is not open to spectators", "battle")
    return battle, listing


@router.get("/battles/{battle_id}/watch", response_class=HTMLResponse)
async def watch(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """The battle as every public watcher sees it: a spectator's page with no seat, live over the
    battle's socket (app/web/live/ws.py serves such a browser the one public view)."""
    try:
        async with platform.db.reader() as session:
            battle, listing = await _public(session, battle_id)
            if not lobby.watchable(listing):  # a delayed battle is watched on its screen only
                return RedirectResponse(f"/battles/{battle_id}/screen", status_code=303)
            context = await page_context(
                session, battle, lobby.public_reader(battle), csrf_token(request), rules=platform.rules
            )
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/lobby", status_code=303)
    context["flash"] = _pop_flash(request)
    context["replay_url"] = f"/battles/{battle_id}/watch/replay"
    return templates.TemplateResponse(request, "watch.html", context, headers={"Cache-Control": "no-store"})


@router.get("/battles/{battle_id}/watch/replay", response_class=HTMLResponse)
async def watch_replay(
    battle_id: str, request: Request, platform: PlatformDep, seq: SeqQuery = None, back: ActionsBack = 0
) -> Response:
    """The public replay: the battle after action `seq`, as a spectator sees it (up to the screen's
    seq while a delay holds, so the replay cannot run ahead of it)."""
    try:
        async with platform.db.reader() as session:
            battle, listing = await _public(session, battle_id)
            last = await lobby.screen_seq(session, battle, listing)
            at = max(0, last - back) if seq is None else min(seq, last)
            context = await page_context(
                session,
                battle,
                lobby.public_reader(battle),
                csrf_token(request),
                at_seq=at,
                rules=platform.rules,
            )
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/lobby", status_code=303)
    context.update(
        replay_seq=at,
        last_seq=last,
        flash=None,
        live_url=f"/battles/{battle_id}/watch",
        replay_url=f"/battles/{battle_id}/watch/replay",
    )
    return templates.TemplateResponse(request, "replay.html", context)


@router.get("/battles/{battle_id}/watch/report", response_class=HTMLResponse)
async def watch_report(
    battle_id: str, request: Request, platform: PlatformDep, since: SeqQuery = None
) -> Response:
    """The public report (a spectator's), of a battle open to spectators and not delayed (or ended)."""
    opened = _report_open(battle_id, "the report opens when the battle ends (the screen is delayed)")
    try:
        return await public_page(request, platform, opened, f"/battles/{battle_id}/watch/report", since)
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/lobby", status_code=303)


@router.get("/battles/{battle_id}/watch/report.svg")
async def watch_card(battle_id: str, platform: PlatformDep) -> Response:
    return await public_card(platform, _report_open(battle_id, "the report opens when the battle ends"))


def _report_open(battle_id: str, not_yet: str) -> Opened:
    """The battle whose public report (page or card) may be read: open to spectators, and ended
    where the screen is delayed (else refused with `not_yet`)."""

    async def opened(session: AsyncSession) -> Battle:
        battle, listing = await _public(session, battle_id)
        if lobby.delayed(listing) and battle.status != "finished":
            raise NotFound(not_yet, "battle")
        return battle

    return opened


# --- the viewscreen ------------------------------------------------------------------------------


@router.get("/battles/{battle_id}/screen", response_class=HTMLResponse)
async def screen(
    battle_id: str, request: Request, platform: PlatformDep, since: SeqQuery = None, behind: ActionsBack = 0
) -> Response:
    """The audience's viewscreen: the map, every ship's public state and the last events, in big
    type with no controls, behind the battle by the referee's delay. Anyone may open it where the
    battle is open to spectators, a seat of the battle always; either way it shows only what the
    public may see. `since` (the screen's own poll) answers 204 while the shown seq (and how far behind it is) has not moved."""
    try:
        async with platform.db.reader() as session:
            battle = await get_battle(session, battle_id)
            listing = await lobby.listing_of(session, battle_id)
            if not listing.spectators:
                await get_participant(session, battle_id, seat_in(request, battle_id))
            at = await lobby.screen_seq(session, battle, listing)
            held = battle.seq - at if battle.status != "finished" else 0
            if since is not None and since == at and behind == held:
                return Response(status_code=204)
            reader = lobby.public_reader(battle)
            context = await page_context(
                session,
                battle,
                reader,
                "",
                log_limit=None,
                log_since=max(0, at - 40),
                at_seq=None if at == battle.seq else at,
                rules=platform.rules,
            )
    except ServiceError:
        _flash(request, "This battle's screen is not public: open your join link first.", "error")
        return RedirectResponse("/lobby", status_code=303)
    context.update(
        screen_seq=at,
        behind=held,
        delay=lobby.listing_out(listing),
        ticker=screen_ticker(context["log"]),
        ships=screen_ships(context["state"], platform.rules.game(battle.system).parts),
        poll=SCREEN_POLL_SECONDS,
        flash=None,
    )
    return templates.TemplateResponse(request, "screen.html", context, headers={"Cache-Control": "no-store"})
