"""The battle clock and pings on the pages: a seat's choice of pings (the referee's clock and the
pause are actions, posted through the battle's action form like any other)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.services.errors import ServiceError
from app.services.table import pings
from app.web.deps import PlatformDep
from app.web.pages.answers import _answer, _refused, seat_form
from app.web.pages.forms import pings_ticked

router = APIRouter(include_in_schema=False)


@router.post("/battles/{battle_id}/pings")
async def set_pings(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """Checkboxes: a box left unticked is a ping turned off."""
    back = f"/battles/{battle_id}#notify"
    try:
        form, me = await seat_form(request, platform, battle_id)
        await pings.save(platform, me, pings_ticked(form))
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _answer(request, back, "Pings saved.")
