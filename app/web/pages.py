"""HTML pages. Forms work without JavaScript (POST → redirect → GET); with htmx they post in place
and answer with a message fragment while the websocket brings the new state."""

from __future__ import annotations

import json
import uuid
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.services import actions as action_service
from app.services.actions import Command
from app.services.battles import (
    add_participant,
    battles_held,
    create_battle,
    get_battle,
    get_participant,
    participant_by_token,
    remove_participant,
)
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.library import definition, ships_for
from app.services.requests import queue_if_needed
from app.web.deps import PlatformDep
from app.web.forms import dice_from_form, payload_from_form
from app.web.render import page_context, render, templates
from app.web.security import SESSION_PARTICIPANTS, csrf_ok, csrf_token, seat_in, take_seat
from app.web.table import page_extras as table_extras

router = APIRouter(include_in_schema=False)

FLASH = "flash"
NEW_LINKS = "new_links"


def _is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def _flash(request: Request, message: str, level: str = "info") -> None:
    request.session[FLASH] = {"message": message, "level": level}


def _pop_flash(request: Request) -> dict[str, str] | None:
    return request.session.pop(FLASH, None)


def _answer(request: Request, to: str, message: str, level: str = "info", status: int = 200) -> Response:
    """htmx gets a message fragment in place; a plain form post gets redirected with a flash."""
    if _is_htmx(request):
        html = render("partials/flash.html", {"message": message, "level": level})
        return HTMLResponse(html, status_code=status)
    _flash(request, message, level)
    return RedirectResponse(to, status_code=303)


async def _form(request: Request) -> Any:
    form = await request.form()
    if not csrf_ok(request, form.get("csrf_token")):  # type: ignore[arg-type]
        raise Forbidden("the form expired or came from another site; reload the page and try again")
    return form


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, platform: PlatformDep) -> Response:
    seats = request.session.get(SESSION_PARTICIPANTS, {})
    async with platform.db.reader() as session:
        battles = await battles_held(session, seats)
    rules = platform.rules
    return templates.TemplateResponse(
        request,
        "home.html",
        {
            "battles": battles,
            "systems": rules.names(),
            "steps": {key: {s.key: s.label for s in system.steps} for key, system in rules.systems.items()},
            "library": {key: ships_for(system) for key, system in rules.systems.items()},
            "csrf_token": csrf_token(request),
            "flash": _pop_flash(request),
        },
    )


@router.post("/battles")
async def new_battle(request: Request, platform: PlatformDep) -> Response:
    try:
        form = await _form(request)
        system = str(form.get("system", ""))
        chosen = [str(s) for s in form.getlist("ships")]
        players = [n.strip() for n in str(form.get("players", "")).splitlines() if n.strip()]
        async with platform.db.transaction() as session:
            battle, referee = await create_battle(
                session,
                str(form.get("name", "")),
                system,
                dice_mode=str(form.get("dice_mode", "seeded")),
                rules=platform.rules,
            )
            seats = [referee] + [
                await add_participant(session, battle, name, "player") for name in players[:8]
            ]
        take_seat(request, battle.id, referee.participant.id)
        for slug in chosen:
            add = Command(
                battle.id,
                referee.participant.id,
                "ship.add",
                {"definition": definition(slug)},
                uuid.uuid4().hex,
            )
            await action_service.submit(platform, add)
    except ServiceError as exc:
        return _answer(request, "/", exc.message, "error", exc.status)
    request.session[NEW_LINKS] = [
        {
            "name": s.participant.name,
            "role": s.participant.role,
            "url": str(request.url_for("join", token=s.token)),
        }
        for s in seats
    ]
    return RedirectResponse(f"/battles/{battle.id}", status_code=303)


@router.get("/join/{token}", name="join")
async def join(token: str, request: Request, platform: PlatformDep) -> Response:
    try:
        async with platform.db.reader() as session:
            participant = await participant_by_token(session, token)
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/", status_code=303)
    take_seat(request, participant.battle_id, participant.id)
    return RedirectResponse(f"/battles/{participant.battle_id}", status_code=303)


@router.get("/battles/{battle_id}", response_class=HTMLResponse)
async def battle_page(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    try:
        async with platform.db.reader() as session:
            battle = await get_battle(session, battle_id)
            me = await get_participant(session, battle_id, seat_in(request, battle_id))
            context = await page_context(session, battle, me, csrf_token(request), rules=platform.rules)
    except ServiceError as exc:
        _flash(request, f"{exc.message} — open your join link to take your seat.", "error")
        return RedirectResponse("/", status_code=303)
    context.update(await table_extras(platform, battle, me, context["viewer"], context["seq"]))  # issue 11
    context["flash"] = _pop_flash(request)
    context["new_links"] = request.session.pop(NEW_LINKS, None) if me.role == "referee" else None
    template = "referee.html" if me.role == "referee" else "battle.html"
    return templates.TemplateResponse(request, template, context)


@router.get("/battles/{battle_id}/replay", response_class=HTMLResponse)
async def replay_page(
    battle_id: str, request: Request, platform: PlatformDep, seq: int | None = None
) -> Response:
    """The battle as it stood after action `seq`, read-only, as this participant may see it."""
    try:
        async with platform.db.reader() as session:
            battle = await get_battle(session, battle_id)
            me = await get_participant(session, battle_id, seat_in(request, battle_id))
            at = battle.seq if seq is None else max(0, min(seq, battle.seq))
            context = await page_context(
                session, battle, me, csrf_token(request), log_limit=None, at_seq=at, rules=platform.rules
            )
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/", status_code=303)
    context.update(replay_seq=at, last_seq=battle.seq, flash=None)
    return templates.TemplateResponse(request, "replay.html", context)


@router.post("/battles/{battle_id}/actions")
async def act(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}"
    try:
        form = await _form(request)
        seen = str(form.get("seen_seq", "")).strip()
        me = seat_in(request, battle_id)
        command = Command(
            battle_id,
            me,
            str(form.get("action_type", "")),
            payload_from_form(form),
            str(form.get("action_id", "")) or uuid.uuid4().hex,
            int(seen) if seen.isdigit() else None,
            dice_from_form(form),
        )
        if await queue_if_needed(platform, command):  # issue 11: damage waiting for the referee
            return _answer(request, back, "Sent to the referee for approval.", "info")
        result = await action_service.submit(platform, command)
        shown = result.events
    except ServiceError as exc:
        message = exc.message
        if exc.extra.get("needed"):
            need = exc.extra["needed"]
            plan = exc.extra.get("plan") or [need]
            wanted = "; ".join(
                f"die {d['index'] + 1}: 1d{d['sides']} for {d['purpose']}"
                + ("" if d.get("always", True) else " (if called for)")
                for d in plan
            )
            message = f"Roll needed — enter these dice, in order, in the Dice box (with any you entered) and submit again: {wanted}."
        return _answer(request, back, message, "error", exc.status)
    lines = [e["text"] for e in shown[:3]]
    note = "Already applied." if result.duplicate else " ".join(lines) or "Done."
    return _answer(request, back, note, "info")


@router.post("/battles/{battle_id}/ships")
async def add_ship(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """Referee: add a ship from the library or from a JSON ship definition."""
    back = f"/battles/{battle_id}"
    try:
        form = await _form(request)
        raw_json = str(form.get("definition_json", "")).strip()
        if raw_json:
            try:
                definition_data = json.loads(raw_json)
            except json.JSONDecodeError as exc:
                raise Invalid(
                    f"the ship definition is not valid JSON: {exc.msg} at line {exc.lineno}", "definition"
                ) from None
        else:
            definition_data = definition(str(form.get("library", "")))
        owner = str(form.get("owner", "")).strip() or None
        add = Command(
            battle_id,
            seat_in(request, battle_id),
            "ship.add",
            {"definition": definition_data, "owner": owner},
            str(form.get("action_id", "")) or uuid.uuid4().hex,
        )
        result = await action_service.submit(platform, add)
    except ServiceError as exc:
        return _answer(request, back, exc.message, "error", exc.status)
    return _answer(request, back, result.events[0]["text"] if result.events else "Ship added.")


@router.post("/battles/{battle_id}/participants")
async def new_seat(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}"
    try:
        form = await _form(request)
        async with platform.db.transaction() as session:
            me = await get_participant(session, battle_id, seat_in(request, battle_id))
            if me.role != "referee":
                raise Forbidden("only the referee adds participants")
            battle = await get_battle(session, battle_id)
            seat = await add_participant(
                session, battle, str(form.get("name", "")), str(form.get("role", "player"))
            )
    except ServiceError as exc:
        return _answer(request, back, exc.message, "error", exc.status)
    url = str(request.url_for("join", token=seat.token))
    return _answer(
        request, back, f"{seat.participant.name} ({seat.participant.role}) can join with {url} — shown once."
    )


@router.post("/battles/{battle_id}/participants/{participant_id}/remove")
async def drop_seat(battle_id: str, participant_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}"
    try:
        await _form(request)
        async with platform.db.transaction() as session:
            me = await get_participant(session, battle_id, seat_in(request, battle_id))
            if me.role != "referee":
                raise Forbidden("only the referee removes participants")
            gone = await remove_participant(session, battle_id, participant_id)
    except ServiceError as exc:
        return _answer(request, back, exc.message, "error", exc.status)
    return _answer(request, back, f"{gone.name} has left the battle.")
