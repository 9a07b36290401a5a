"""At the table on the pages and the live path: table talk, notification settings,
"since your last visit", and players' requests to the referee.

Page routes post like every other form (POST → redirect → GET; with htmx a message fragment in
place). The live path: chat and requests do not touch the rules log, so they wake viewers on their
own topic (`Topic.TABLE`); the hub reads each watching seat's regions with `table_regions`
(partials/table_live.html) and sends each socket what changed for it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant
from app.services.errors import Invalid, ServiceError
from app.services.platform import Platform
from app.services.reading.views import catch_up
from app.services.store import seats
from app.services.store.battles import get_battle, participants
from app.services.table import chat, notify, pings
from app.services.write import requests
from app.web.deps import PlatformDep
from app.web.drawing.render import regions_of, render
from app.web.middleware.security import seat_in
from app.web.numbers import whole_number
from app.web.pages.answers import _answer, _form, _is_htmx, _refused, seat_form

router = APIRouter(include_in_schema=False)
log = logging.getLogger(__name__)


@dataclass
class TableRead:
    """What every seat's table regions share, read once for all the seats of a battle watching:
    the battle's table options, its seats, each reader's chat (`chat.talk_for`), each reader's
    requests (`requests.requests_by_seat`) and the battle's last row (who may ask to undo it). A
    seat's regions are then drawn from it in memory (`context`); each part is filtered by its
    reader as the per-seat reads filter it, so a seat still sees only its own talk. Nothing is
    kept past the round that read it."""

    battle: Battle
    options: dict[str, Any]
    people: list[Participant]
    chat_max: int
    talk: dict[str, tuple[int, list[chat.Line]]]
    shown: dict[str, list[requests.Shown]]
    undo_of: dict[str, int | None]

    @classmethod
    async def of(
        cls,
        session: AsyncSession,
        platform: Platform,
        battle: Battle,
        readers: list[Participant],
        people: list[Participant] | None = None,
    ) -> TableRead:
        """`people`: the battle's seats, if the caller read them already."""
        people = people if people is not None else await participants(session, battle.id)
        askers = [r for r in readers if requests.could_ask_undo(battle, r)]
        last = await requests.last_row(session, battle) if askers else None
        return cls(
            battle,
            await seats.table_options(session, battle),
            people,
            platform.settings.chat_max_chars,
            await chat.talk_for(session, battle.id, readers, people),
            await requests.requests_by_seat(session, battle, readers, rules=platform.rules),
            {r.id: requests.undo_target(last, r) for r in askers},
        )

    def context(self, me: Participant) -> dict[str, Any]:
        """The table's regions for this viewer only: their chat, their requests (the referee: all)."""
        people = [p for p in self.people if p.active]
        if me.role == "referee":
            private_to = [{"value": p.id, "label": p.name} for p in people if p.role in requests.ASKERS]
        elif me.role in requests.ASKERS:
            private_to = [{"value": chat.REFEREE, "label": "the referee"}]
        else:
            private_to = []
        count, lines = self.talk[me.id]
        return {
            "table": {
                "options": self.options,
                "can_chat": me.role != "spectator" or bool(self.options["spectators_chat"]),
                "private_to": private_to,
                "chat_max": self.chat_max,
                "chat_seq": count,
                "has_requests": me.role == "referee" or me.role in requests.ASKERS,
                "undo_seq": self.undo_of.get(me.id),
            },
            "chat_lines": lines,
            "table_requests": self.shown[me.id],
        }


async def table_context(
    session: AsyncSession, platform: Platform, battle: Battle, me: Participant, viewer: Any = None
) -> dict[str, Any]:
    """The table's regions for this viewer only (a page's: the live path reads a `TableRead` for
    every watching seat at once)."""
    return (await TableRead.of(session, platform, battle, [me])).context(me)


async def page_extras(
    platform: Platform, battle: Battle, me: Participant, viewer: Any, seq: int
) -> dict[str, Any]:
    """What the battle page adds: the table's regions, the owner's webhook, and the catch-up since
    the seq this seat last looked at or acted on (which becomes `seq` now)."""
    async with platform.db.reader() as session:  # when this seat last left the page, before this visit
        earlier = await seats.read_status(session, me.id)
    left_at = earlier.last_seen_at if earlier is not None else None
    before = await seats.mark_seen(platform, me.id, seq)
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle.id)
        extras = await table_context(session, platform, battle, me, viewer)
        status = await seats.read_status(session, me.id)
        extras["my_webhook"] = status.webhook_url if status is not None else None
        extras["my_pings"] = await pings.settings_for(session, me)
        extras["catch_up"] = await catch_up(session, battle, viewer, before, seq)
        extras["catch_up_talk"] = await chat.since_visit(session, battle.id, me, left_at)
    return extras


async def table_regions(
    platform: Platform, battle_id: str, seat_ids: list[str]
) -> dict[str, list[tuple[str, str]] | None]:
    """The chat and requests regions of each of these seats, as (target, <hx-partial> element)
    pairs — what the hub sends each seat's sockets when the table talk changed (None: no longer
    seated). What the seats share is read once (`TableRead`), however many of them watch."""
    async with platform.db.reader() as session:
        try:
            battle = await get_battle(session, battle_id)
        except ServiceError:
            return dict.fromkeys(seat_ids)
        people = await participants(session, battle_id)
        seated = {p.id: p for p in people if p.active}
        readers = [seated[s] for s in seat_ids if s in seated]
        if not readers:
            return dict.fromkeys(seat_ids)
        read = await TableRead.of(session, platform, battle, readers, people)
    regions: dict[str, list[tuple[str, str]] | None] = dict.fromkeys(seat_ids)
    for me in readers:
        context = read.context(me) | {"battle": {"id": battle_id}, "me": me}
        regions[me.id] = regions_of(render("partials/table_live.html", context))
    return regions


# --- page routes ---------------------------------------------------------------------------------


@router.post("/battles/{battle_id}/chat")
async def post_chat(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}#chat"
    try:
        form = await _form(request)
        await chat.post(
            platform,
            battle_id,
            seat_in(request, battle_id),
            str(form.get("text", "")),
            str(form.get("to", "")) or None,
        )
    except ServiceError as exc:
        return _refused(request, back, exc)
    if _is_htmx(request):
        return HTMLResponse("", status_code=200)
    return _answer(request, back, "Sent.")


@router.post("/battles/{battle_id}/notifications")
async def set_notifications(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}#notify"
    try:
        form, me = await seat_form(request, platform, battle_id)
        if form.get("test"):
            ok = await notify.send_test(platform, me)
            message = "Test sent: the webhook answered." if ok else "The webhook did not answer with success."
            return _answer(request, back, message, "info" if ok else "error", 200 if ok else 502)
        kept = await notify.set_webhook(platform, me, str(form.get("webhook_url", "")))
    except ServiceError as exc:  # a refusal over a bound keeps its Retry-After
        return _refused(request, back, exc)
    return _answer(request, back, "Webhook saved." if kept else "Webhook notifications are off.")


@router.post("/battles/{battle_id}/requests")
async def ask(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}#requests"
    try:
        form = await _form(request)
        req = await requests.ask_undo(platform, battle_id, seat_in(request, battle_id), form.get("reason"))
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, f"Asked the referee to undo action #{req.target_seq}.")


@router.post("/battles/{battle_id}/requests/{request_id}")
async def answer_request(
    battle_id: str, request_id: int, request: Request, platform: PlatformDep
) -> Response:
    back = f"/battles/{battle_id}#requests"
    try:
        form = await _form(request)
        if not 1 <= request_id < 2**31:
            raise Invalid("no such request", "request")
        decision = str(form.get("decision", ""))
        if decision not in ("approve", "refuse"):
            raise Invalid("approve or refuse", "decision")
        row = await requests.decide(
            platform,
            battle_id,
            seat_in(request, battle_id),
            request_id,
            decision == "approve",
            form.get("answer"),
        )
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, f"Request {row.status}.")


@router.post("/battles/{battle_id}/table")
async def table_settings(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}#table-options"
    try:
        form, me = await seat_form(request, platform, battle_id)
        deadline = str(form.get("step_deadline_minutes", "")).strip()
        minutes = whole_number(deadline) if deadline else None
        if deadline and minutes is None:  # ASCII digits only: '²' passes str.isdigit() but not int()
            raise Invalid("a step deadline is a whole number of minutes", "step_deadline_minutes")
        await seats.set_table_options(
            platform,
            battle_id,
            me,
            {
                "spectators_chat": form.get("spectators_chat") == "on",
                "damage_needs_approval": form.get("damage_needs_approval") == "on",
                "step_deadline_minutes": minutes,
            },
        )
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, "Table options saved.")
