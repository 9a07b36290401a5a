"""The map's own door: `GET /battles/{id}/map?select=<ship>` draws the map with that
ship's overlays for the seated viewer — the whole page without JavaScript, or (with
`part=selection`) only the overlay and its words, which static/js/map.js swaps in. Drawn on the
server per viewer like every page, so a selection can never ask for what the viewer may not see:
a ship they cannot see on the map is refused exactly like one that does not exist."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.services.errors import ServiceError
from app.services.reading.maps import read_map
from app.services.reading.views import read_battle
from app.services.store.battles import get_battle
from app.services.table.lobby import seat_or_public
from app.web.deps import PlatformDep, SeqQuery
from app.web.drawing.render import page_context, render, templates
from app.web.middleware.security import csrf_token, seat_in
from app.web.pages.answers import _flash

router = APIRouter(include_in_schema=False)

SELECTION = "selection"


def _refusal(select: str) -> str:
    return f"select: “{select}” is not a ship you can see on the map"


@router.get("/battles/{battle_id}/map", response_class=HTMLResponse)
async def map_page(
    battle_id: str,
    request: Request,
    platform: PlatformDep,
    select: Annotated[str | None, Query(max_length=60)] = None,
    part: Annotated[str | None, Query(max_length=20)] = None,
    seq: SeqQuery = None,
) -> Response:
    """The map for this seat, as of `seq` (a replay) or now, with `select`'s overlays."""
    try:
        async with platform.db.reader() as session:
            battle = await get_battle(session, battle_id)
            me = await seat_or_public(session, battle, seat_in(request, battle_id))  # the lobby's watchers
            at = None if seq is None else min(seq, battle.seq)
            if part == SELECTION:
                data, viewer, _, _ = await read_battle(session, battle, me, at, platform.rules)
                model = await read_map(
                    session, battle, data["state"], data["seq"], viewer, select, rules=platform.rules
                )
                context = {"map": model}
            else:
                context = await page_context(
                    session, battle, me, csrf_token(request), log_limit=0, at_seq=at, rules=platform.rules
                )
                model = await read_map(
                    session,
                    battle,
                    context["state"],
                    context["seq"],
                    context["viewer"],
                    select,
                    rules=platform.rules,
                )
                context["map"] = model
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/", status_code=303)
    missing = bool(select) and model is not None and model["selected"] is None
    status = 422 if missing else 200
    if model is None:
        return HTMLResponse(
            render(
                "partials/flash.html",
                {"message": "This battle is not played on a hex map.", "level": "error"},
            ),
            status_code=404,
        )
    if part == SELECTION:
        html = render("partials/map_overlay.html", context) + render("partials/map_selection.html", context)
        if missing:
            html += render(
                "partials/flash.html",
                {"message": _refusal(select or ""), "level": "error", "field": "select"},
            )
        return HTMLResponse(html, status_code=status)
    context.update(
        flash={"message": _refusal(select or ""), "level": "error"} if missing else None, replay_seq=at
    )
    return templates.TemplateResponse(request, "map.html", context, status_code=status)
