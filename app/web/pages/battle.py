"""HTML pages. Forms work without JavaScript (POST → redirect → GET); with htmx they post in place
and answer with a message fragment while the websocket brings the new state."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Participant
from app.services.bus import SeatsChanged
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.library.shiplib import library_definition, library_entries
from app.services.reading.views import seen_as
from app.services.store.battles import (
    get_battle,
    get_participant,
    load_state,
    participant_by_token,
    remove_participant,
    seats_held,
)
from app.services.write import actions
from app.services.write.actions import Command
from app.web.deps import SEQ_MAX, PlatformDep
from app.web.drawing.render import page_context, render, templates
from app.web.drawing.rulebook import reference
from app.web.middleware.security import csrf_token, seat_in, take_seat
from app.web.numbers import whole_number
from app.web.pages.answers import _answer, _flash, _form, _is_htmx, _pop_flash, _refused, seated
from app.web.pages.forms import dice_from_form, pasted_json, payload_from_form
from app.web.pages.lobby import listing_context
from app.web.pages.table import page_extras as table_extras
from app.web.profile_session import browser_seats, remember

router = APIRouter(include_in_schema=False)


# Destructive steps from a page are confirmed first: the server refuses them without confirm=yes
# and answers with a page that asks (keyboard and no-JavaScript friendly). Bots over REST do not ask.
CONFIRMED_ACTIONS = {
    "ship.remove": (
        "Remove {ship} from the battle?",
        "Its sheet and damage go with it (undo can bring it back).",
        "Yes, remove {ship}",
    ),
    "battle.end": (
        "End the battle?",
        "Nobody can act after the end, undo included{seed}.",
        "Yes, end the battle",
    ),
}


def _confirm_page(
    request: Request, form: Any, action: str, back: str, question: str, consequence: str, yes: str
) -> Response:
    """Ask before a destructive step. An htmx post gets the question as a page message with the
    same form (confirm=yes) to press; a plain post gets a page of its own."""
    fields = [(k, str(v)) for k, v in form.multi_items() if k != "confirm" and isinstance(v, str)]
    context = {
        "question": question,
        "consequence": consequence,
        "yes": yes,
        "action": action,
        "back": back,
        "fields": fields,
        "flash": None,
        "csrf_token": csrf_token(request),
    }
    if _is_htmx(request):
        html = render(
            "partials/flash.html", {"message": f"{question} Confirm on the page first.", "level": "error"}
        )
        return HTMLResponse(html, status_code=422)
    return templates.TemplateResponse(request, "confirm.html", context, status_code=200)


@router.get("/rules", response_class=HTMLResponse)
async def rules_page(request: Request) -> Response:
    """The rules reference (docs/rules.md): every rule ID the tracker names, with its reading."""
    intro, groups = reference()
    return templates.TemplateResponse(
        request, "rules.html", {"intro": intro, "groups": groups, "flash": _pop_flash(request)}
    )


# The home page and battle creation (the wizard) are in app/web/pages/wizard.py.


# Join pages are never cached, and send no Referer at all (an old-style /join/<token> URL would be it).
NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


@router.get("/join", name="join_page")
async def join_page(request: Request) -> Response:
    """Where join links (/join#<token>) land: static/js/join.js posts the fragment's token here."""
    return templates.TemplateResponse(
        request,
        "join.html",
        {"csrf_token": csrf_token(request), "flash": _pop_flash(request), "confirm": None},
        headers=NO_STORE,
    )


@router.post("/join")
async def join_post(request: Request, platform: PlatformDep) -> Response:
    """Take the seat of the token posted (with this page's CSRF token: a cross-site form cannot seat
    anyone). A browser already seated as someone else is asked first, unless it said yes."""
    try:
        form = await _form(request)
        token = str(form.get("token", "")).strip().lstrip("#")
        return await _seat_or_ask(request, platform, token, confirmed=form.get("confirm") == "yes")
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/", status_code=303)


@router.get("/join/{token}", name="join")
async def join(token: str, request: Request, platform: PlatformDep) -> Response:
    """Old-style links with the token in the path (still accepted; the access log redacts them).
    With no seat in this browser the seat is taken at once; otherwise the switch is confirmed."""
    try:
        return await _seat_or_ask(request, platform, token, confirmed=False)
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/", status_code=303)


async def _seat_or_ask(request: Request, platform: PlatformDep, token: str, confirmed: bool) -> Response:
    async with platform.db.reader() as session:
        participant = await participant_by_token(session, token)
        battle = await get_battle(session, participant.battle_id)
        held = [] if confirmed else await seats_held(session, *browser_seats(request))
        already = any(p.id == participant.id for p in held)
        current = next((p for p in held if p.battle_id == participant.battle_id), held[0] if held else None)
        current_battle = await get_battle(session, current.battle_id) if current is not None else None
    if current is None or already:
        take_seat(request, participant.battle_id, participant.id, participant.token_hash)
        await remember(request, platform, participant)  # a signed-in profile keeps the seat
        return RedirectResponse(f"/battles/{participant.battle_id}", status_code=303)
    confirm = {
        "current_name": current.name,
        "current_role": current.role,
        "current_battle": current_battle.name if current_battle else "",
        "new_name": participant.name,
        "new_role": participant.role,
        "new_battle": battle.name,
    }
    return templates.TemplateResponse(
        request,
        "join.html",
        {"csrf_token": csrf_token(request), "flash": None, "confirm": confirm, "token": token},
        headers=NO_STORE,
    )


async def referee_seats(session: AsyncSession, request: Request) -> list[Participant]:
    """The referee seats this browser still holds, in any battle: a library ship saved in one of
    them is renamed or deleted from the library section of any other."""
    held = await seats_held(session, *browser_seats(request))
    return [seat for seat in held if seat.role == "referee"]


@router.get("/battles/{battle_id}", response_class=HTMLResponse)
async def battle_page(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    try:
        async with platform.db.reader() as session:
            battle, me = await seated(session, request, battle_id)
            context = await page_context(session, battle, me, csrf_token(request), rules=platform.rules)
            if me.role == "referee":  # the samples and the saved ships (app/services/library/shiplib.py)
                system = platform.rules.game(battle.system).system
                also = await referee_seats(session, request)
                context["ship_library"] = await library_entries(session, platform.rules, system, me, also)
                context.update(await listing_context(platform, battle_id))  # the lobby listing form
    except ServiceError as exc:
        _flash(request, f"{exc.message} — open your join link to take your seat.", "error")
        return RedirectResponse("/", status_code=303)
    context.update(await table_extras(platform, battle, me, context["viewer"], context["seq"]))  # table talk
    context["flash"] = _pop_flash(request)
    template = "referee.html" if me.role == "referee" else "battle.html"
    return templates.TemplateResponse(request, template, context)


@router.get("/battles/{battle_id}/replay", response_class=HTMLResponse)
async def replay_page(
    battle_id: str,
    request: Request,
    platform: PlatformDep,
    seq: int | None = None,
    back: Annotated[int, Query(ge=0)] = 0,
    seat_as: Annotated[str | None, Query(alias="as", max_length=64)] = None,
) -> Response:
    """The battle as it stood after action `seq` (or `back` actions before the latest, which is what
    the log's replay link asks for, so the link follows the battle), read-only, as this participant
    may see it — or, for the referee, as the seat named by `as` saw it (the perspective picker).
    Its log shows the latest page of entries up to `seq`; the link above them pages back, so a long
    battle's replay costs what a short one's does."""
    refused: ServiceError | None = None
    try:
        async with platform.db.reader() as session:
            battle, me = await seated(session, request, battle_id)
            shown = me
            if seat_as:
                try:
                    shown = await seen_as(session, battle_id, me, seat_as)
                except ServiceError as exc:  # answered on the replay as the reader's own
                    refused = exc
            at = max(0, min(battle.seq - back if seq is None else seq, battle.seq))
            context = await page_context(
                session, battle, shown, csrf_token(request), at_seq=at, rules=platform.rules
            )
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/", status_code=303)
    context.update(replay_seq=at, last_seq=battle.seq, flash=None, looker=me)
    seen = shown.id if shown.id != me.id else ""
    context.update(seen_as=seen, as_query=f"&as={seen}" if seen else "")
    # the seats the referee may see the battle through (the page already read the battle's seats)
    context["perspectives"] = (
        [p for p in context["people"] if p.role != "referee"] if me.role == "referee" else []
    )
    if refused is not None:
        context.update(flash={"message": refused.message, "level": "error"}, field=refused.field)
        return templates.TemplateResponse(request, "replay.html", context, status_code=refused.status)
    return templates.TemplateResponse(request, "replay.html", context)


@router.post("/battles/{battle_id}/actions")
async def act(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}"
    try:
        form = await _form(request)
        seen = _seen_seq(form.get("seen_seq"))
        me = seat_in(request, battle_id)
        kind = str(form.get("action_type", ""))
        if kind in CONFIRMED_ACTIONS and form.get("confirm") != "yes":
            ship = str(form.get("p.ship", ""))
            async with platform.db.reader() as session:
                asker = await get_participant(session, battle_id, me)
                state, _ = await load_state(session, battle_id, platform.rules)
                rolled = (await get_battle(session, battle_id)).dice_mode
            if asker.role == "referee" and not state.finished:  # others are refused as they are
                name = state.ships[ship].name if ship in state.ships else (ship or "the ship")
                # Only where the server rolled is there a seed to reveal (physical dice have none).
                seed = ", and the dice seed is revealed" if rolled == "seeded" else ""
                question, consequence, yes = (t.format(ship=name, seed=seed) for t in CONFIRMED_ACTIONS[kind])
                to = f"/battles/{battle_id}/actions"
                return _confirm_page(request, form, to, back, question, consequence, yes)
        command = Command(
            battle_id,
            me,
            str(form.get("action_type", "")),
            payload_from_form(form),
            str(form.get("action_id", "")) or uuid.uuid4().hex,
            seen,
            dice_from_form(form),
        )
        result = await actions.submit(platform, command)
        if isinstance(result, actions.Queued):  # damage that waits for the referee
            return _answer(request, back, "Sent to the referee for approval.", "info")
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
        return _answer(request, back, message, "error", exc.status, field=exc.field)
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
            definition_data = pasted_json(raw_json, "definition", "the ship definition")
        else:
            definition_data = await _library_ship(platform, str(form.get("library", "")), battle_id, request)
        owner = str(form.get("owner", "")).strip() or None
        add = Command(
            battle_id,
            seat_in(request, battle_id),
            "ship.add",
            {"definition": definition_data, "owner": owner},
            str(form.get("action_id", "")) or uuid.uuid4().hex,
        )
        result = await actions.submit(platform, add)
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, result.events[0]["text"] if result.events else "Ship added.")


async def _library_ship(
    platform: PlatformDep, slug: str, battle_id: str | None = None, request: Request | None = None
) -> dict[str, Any]:
    """A sample or saved ship's definition, as this battle's seat may see it (a ship held for its
    battle is there for its referee only), refused naming the `library` field."""
    async with platform.db.reader() as session:
        me = None
        if battle_id is not None and request is not None:
            me = await get_participant(session, battle_id, seat_in(request, battle_id))
        try:
            return await library_definition(session, slug, me)
        except ServiceError as exc:
            raise Invalid(exc.message, "library") from None


def _seen_seq(raw: object) -> int | None:
    """The form's seen_seq: empty for none, else ASCII digits within a seq's range (not '²' or '٣')."""
    text = str(raw or "").strip()
    if not text:
        return None
    seq = whole_number(text, high=SEQ_MAX)
    if seq is None:
        raise Invalid(f"seen_seq must be a whole number (ASCII digits, at most {SEQ_MAX})", "seen_seq")
    return seq


@router.post("/battles/{battle_id}/participants/{participant_id}/remove")
async def drop_seat(battle_id: str, participant_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}"
    try:
        form = await _form(request)
        if form.get("confirm") != "yes":
            async with platform.db.reader() as session:
                me = await get_participant(session, battle_id, seat_in(request, battle_id))
                if me.role != "referee":
                    raise Forbidden("only the referee removes participants")
                who = await get_participant(session, battle_id, participant_id)
            return _confirm_page(
                request,
                form,
                f"/battles/{battle_id}/participants/{participant_id}/remove",
                back,
                f"Remove {who.name} from the battle?",
                "Their link and token stop working at once; ships they command stay, unassigned.",
                f"Yes, remove {who.name}",
            )
        async with platform.transaction() as work:
            session = work.session
            me = await get_participant(session, battle_id, seat_in(request, battle_id))
            if me.role != "referee":
                raise Forbidden("only the referee removes participants")
            gone = await remove_participant(session, battle_id, participant_id)
            work.emit(SeatsChanged(battle_id))
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, f"{gone.name} has left the battle.")
