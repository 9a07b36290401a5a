"""How a page form is answered: a message fragment in place for htmx, a redirect with a flash for
a plain post; the CSRF check every form passes first; and who posts it — the seat this browser
holds in the battle, or the signed-in profile. Shared by the battle, table, report, league and
profile pages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant, Profile
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.platform import Platform
from app.services.store.battles import get_battle, get_participant
from app.web.battle_file_reader import read_battle_file
from app.web.drawing.render import render
from app.web.middleware.errors import service_headers
from app.web.middleware.limits import check_battle_creation
from app.web.middleware.security import csrf_ok, seat_in
from app.web.profile_session import signed_in

FLASH = "flash"


def _is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def _flash(request: Request, message: str, level: str = "info") -> None:
    request.session[FLASH] = {"message": message, "level": level}


def _pop_flash(request: Request) -> dict[str, str] | None:
    return request.session.pop(FLASH, None)


def _answer(
    request: Request,
    to: str,
    message: str,
    level: str = "info",
    status: int = 200,
    headers: dict[str, str] | None = None,
    field: str | None = None,
) -> Response:
    """htmx gets a message fragment in place (naming the field at fault, which static/js/fields.js
    marks on the form); a plain form post gets redirected with a flash."""
    if _is_htmx(request):
        html = render("partials/flash.html", {"message": message, "level": level, "field": field})
        return HTMLResponse(html, status_code=status, headers=headers)
    _flash(request, message, level)
    return RedirectResponse(to, status_code=303)


def _refused(request: Request, back: str, exc: ServiceError) -> Response:
    """The service refused a form: its sentence in place (the field it names marked), or after the
    redirect back; a busy answer keeps its Retry-After."""
    return _answer(request, back, exc.message, "error", exc.status, service_headers(exc), exc.field)


async def _form(request: Request) -> Any:
    form = await request.form()
    token = form.get("csrf_token")
    if not csrf_ok(request, token if isinstance(token, str) else None):
        raise Forbidden("the form expired or came from another site; reload the page and try again")
    return form


async def uploaded_file(request: Request, what: str) -> Any:
    """The file a page form uploads to make something new (a battle or a campaign): its CSRF token
    checked and the creation limit counted first, then read by the same strict reader as the API's
    import. No file chosen: refused naming `file`."""
    form = await _form(request)
    check_battle_creation(request)
    upload = form.get("file")
    if upload is None or isinstance(upload, str):
        raise Invalid(f"file: choose a {what} file (.json) to import", "file")
    return read_battle_file(await upload.read(), "file")


async def signed_form(
    request: Request,
    platform: Platform,
    back: str,
    work: Callable[[Profile, Any], Awaitable[Response]],
    refused: Callable[[Request, ServiceError], Response] | None = None,
) -> Response:
    """A form only a signed-in profile posts (signed out: on to /signin): `work` answers it with the
    profile and the form. A refusal is flashed on `back`, or answered by `refused` where given."""
    try:
        form = await _form(request)
        profile = await signed_in(request, platform)
        if profile is None:
            return RedirectResponse("/signin", status_code=303)
        return await work(profile, form)
    except ServiceError as exc:
        if refused is not None:
            return refused(request, exc)
        _flash(request, exc.message, "error")
        return RedirectResponse(back, status_code=303)


async def seated(session: AsyncSession, request: Request, battle_id: str) -> tuple[Battle, Participant]:
    """The battle and the seat this browser holds in it, read in the caller's session (no seat:
    the service's refusal, which each page words its own way)."""
    battle = await get_battle(session, battle_id)
    return battle, await get_participant(session, battle_id, seat_in(request, battle_id))


async def seat_form(request: Request, platform: Platform, battle_id: str) -> tuple[Any, Participant]:
    """A battle page's form (its CSRF token checked first) and the seat this browser posts it from."""
    form = await _form(request)
    return form, await my_seat(platform, request, battle_id)


async def my_seat(platform: Platform, request: Request, battle_id: str) -> Participant:
    """The seat this browser holds in the battle, in a read of its own."""
    async with platform.db.reader() as session:
        return await get_participant(session, battle_id, seat_in(request, battle_id))
