"""The referee's override picker: the form names a value by its path (a radio among the
values app/rules/overrides.py offers) and carries the new value in that value's own control; this
door reads it in the value's own kind and range, then submits the same `override.set` a REST client
would, with the path it built. Refusals name the control they came from, so the page marks it."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.rules.core import RuleError
from app.rules.overrides import choice_at, choices_for
from app.services.errors import Forbidden, Invalid, NotFound, ServiceError
from app.services.reading.overrides import flags, standing
from app.services.reading.views import read_battle
from app.services.store.battles import get_participant, load_state
from app.services.write import actions as action_service
from app.services.write.actions import Command
from app.web.deps import PlatformDep
from app.web.drawing.render import render, values_version
from app.web.middleware.errors import service_headers
from app.web.middleware.security import csrf_token, seat_in
from app.web.pages.answers import _answer, _form, seated
from app.web.pages.battle import _seen_seq

router = APIRouter(include_in_schema=False)

SET = "set."  # the control of the value at path P is named "set.P"


@router.post("/battles/{battle_id}/override")
async def override_picked(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}#override-picker"
    field: str | None = "path"
    try:
        form = await _form(request)
        me = seat_in(request, battle_id)
        path = str(form.get("path", "")).strip()
        async with platform.db.reader() as session:
            if (await get_participant(session, battle_id, me)).role != "referee":
                raise Forbidden("only the referee overrides values", "path")
            state, _ = await load_state(session, battle_id, platform.rules)
        if not path:
            raise Invalid("path: pick the value to correct first", "path")
        choice = choice_at(state, path)
        if choice is None:
            raise Invalid(f"path: {path!r} is not a value the picker offers (the path form sets any)", "path")
        field = SET + path
        typed = [v for v in form.getlist(field) if isinstance(v, str)]
        if not typed or not typed[-1].strip():
            raise Invalid(f"{choice.label}: type the new value", field)
        try:
            value = choice.parse(typed[-1])  # a toggle sends "no" then, when ticked, "yes": the last counts
        except RuleError as exc:
            raise Invalid(exc.message, field) from None
        payload = {"path": path, "value": value, "reason": str(form.get("reason", "")), "named": True}
        command = Command(
            battle_id,
            me,
            "override.set",
            payload,
            str(form.get("action_id", "")) or uuid.uuid4().hex,
            _seen_seq(form.get("seen_seq")),
        )
        result = await action_service.submit(platform, command)
    except ServiceError as exc:
        # The rules' own refusal of the value ("value: …") belongs to the picked control.
        where = field if exc.field in ("value", "path") and field else exc.field
        return _answer(request, back, exc.message, "error", exc.status, field=where)
    note = "Already applied." if result.duplicate else " ".join(e["text"] for e in result.events[:1])
    return _answer(request, back, note or "Done.", "info")


@router.get("/battles/{battle_id}/override/{ship_id}", response_class=HTMLResponse)
async def override_values(battle_id: str, ship_id: str, request: Request, platform: PlatformDep) -> Response:
    """One ship's values in the override picker as they stand now. A live frame carries only each
    ship's version (`values_version`) — drawing every ship's values into every referee's frame
    was about a tenth of an action's CPU — so the page fetches these when the referee opens a ship
    whose values it holds an older version of (static/js/live.js)."""
    try:
        async with platform.db.reader() as session:
            battle, me = await seated(session, request, battle_id)
            if me.role != "referee":
                raise Forbidden("only the referee overrides values", "ship")
            data, viewer, _, state = await read_battle(session, battle, me, rules=platform.rules)
            ship = data["state"]["ships"].get(ship_id)
            if ship is None:
                raise NotFound(f"ship: no ship {ship_id!r} in this battle", "ship")
            marks = await standing(session, battle_id, until=data["seq"])
    except ServiceError as exc:
        return HTMLResponse(
            render("partials/flash.html", {"message": exc.message, "level": "error", "field": exc.field}),
            status_code=exc.status,
            headers=service_headers(exc),
        )
    marked = flags(marks, state, data["state"], viewer, battle.status == "finished").get(ship_id, {})
    context = {
        "ship": ship,
        "choices": choices_for(state, ship_id),
        "marked": marked,
        "version": values_version(ship, marked),
        "battle": {"id": battle.id, "dice_mode": battle.dice_mode},
        "csrf_token": csrf_token(request),
        "seq": data["seq"],
    }
    return HTMLResponse(render("partials/override_ship.html", context))
