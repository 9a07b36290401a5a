"""The dice check page: after the end, every die the server rolled with the revealed
seed, recomputed in the participant's own browser (static/js/verify_dice.js, WebCrypto), so
nobody has to trust the server's own check or write HMAC code. Before the end it says when it opens;
the seed never leaves the server before then. In an imported battle the dice up to the import are
checked against the seed of the battle that rolled them, or said not checkable yet while that seed
is not revealed."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.services.errors import Forbidden, ServiceError
from app.services.history.records import dice_record
from app.web.deps import PlatformDep
from app.web.drawing.render import templates
from app.web.pages.answers import _flash, seated

router = APIRouter(include_in_schema=False)


@router.get("/battles/{battle_id}/dice", response_class=HTMLResponse)
async def dice_page(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    try:
        async with platform.db.reader() as session:
            battle, me = await seated(session, request, battle_id)
            try:
                record = await dice_record(session, battle)
            except Forbidden:  # not ended: the seed is still secret
                record = None
    except ServiceError as exc:
        _flash(request, f"{exc.message} — open your join link to take your seat.", "error")
        return RedirectResponse("/", status_code=303)
    context = {"battle": battle, "me": me, "record": record, "check": _for_browser(record), "flash": None}
    return templates.TemplateResponse(request, "dice.html", context)


def _for_browser(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the page's script recomputes: each source's battle id, seed and commitment (the seeds
    are revealed ones only), and every roll with the index of its source."""
    if record is None or record["dice_mode"] != "seeded":
        return None
    keep = ("battle", "through_seq", "seed_sha256", "seed", "own")
    return {
        "sources": [{k: source[k] for k in keep} for source in record["sources"]],
        "rolls": record["rolls"],
    }
