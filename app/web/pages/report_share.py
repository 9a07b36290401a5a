"""The report's public link: the referee makes one (POST /battles/{id}/report/share, shown once)
or revokes them all (POST /battles/{id}/report/share/revoke); anyone holding it reads
GET /reports/{token} (the report page as a spectator sees it) and GET /reports/{token}.svg (the
summary card to post). See services/report_share.py for what the link may show."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant
from app.services.errors import Invalid, ServiceError
from app.services.platform import Platform
from app.services.reading.report import battle_report
from app.services.reading.report_share import make_share, public_reader, revoke_shares, shared_battle
from app.services.store.battles import get_battle
from app.web.deps import PlatformDep, SeqQuery
from app.web.drawing.render import templates
from app.web.pages.answers import _flash, _form, seated
from app.web.pages.report import report_context, share_box
from app.web.pages.report_card import card

router = APIRouter(include_in_schema=False)

# A shared page or card is public: no shared cache keeps it past a revoke for long, and search
# engines are asked not to index it.
PUBLIC_HEADERS = {"Cache-Control": "public, max-age=60", "X-Robots-Tag": "noindex"}


Changed = TypeVar("Changed")
Opened = Callable[[AsyncSession], Awaitable[Battle]]  # finds the battle a public page shows, or refuses


def share_url(request: Request, token: str) -> str:
    return f"{request.app.state.settings.public_base_url}/reports/{token}"


async def _change_links(
    request: Request,
    platform: Platform,
    battle_id: str,
    change: Callable[[AsyncSession, Battle, Participant], Awaitable[Changed]],
) -> tuple[Participant, Changed]:
    """The referee's form on the report's links (its CSRF token checked first): `change` made in
    one transaction with the battle and this browser's seat (the service refuses any other seat)."""
    await _form(request)
    async with platform.db.transaction() as session:
        battle, me = await seated(session, request, battle_id)
        return me, await change(session, battle, me)


@router.post("/battles/{battle_id}/report/share", response_class=HTMLResponse)
async def make_link(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """A new public link, shown on the report page until the referee leaves it."""
    try:
        me, token = await _change_links(request, platform, battle_id, make_share)
        async with platform.db.reader() as session:
            battle = await get_battle(session, battle_id)
            report = await battle_report(session, battle, me, platform.rules)
    except Invalid as exc:
        _flash(request, f"No report: {exc.message}", "error")
        return RedirectResponse(f"/battles/{battle_id}", status_code=303)
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse(f"/battles/{battle_id}/report", status_code=303)
    url = share_url(request, token)
    context = report_context(
        battle,
        me,
        report,
        public=False,
        share=await share_box(request, platform, battle_id, url),
        flash={
            "message": "A public link to this report is made: copy it now, it is shown only once.",
            "level": "info",
        },
    )
    return templates.TemplateResponse(request, "report.html", context)


@router.post("/battles/{battle_id}/report/share/revoke")
async def revoke_links(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """End every public link of this report at once."""
    try:
        _, gone = await _change_links(request, platform, battle_id, revoke_shares)
        _flash(
            request,
            f"{gone} public link{'s' if gone != 1 else ''} revoked: they no longer open the report.",
            "info",
        )
    except ServiceError as exc:
        _flash(request, exc.message, "error")
    return RedirectResponse(f"/battles/{battle_id}/report", status_code=303)


async def public_card(platform: Platform, opened: Opened) -> Response:
    """The summary card of the public's report of the battle `opened` finds (or its refusal, in
    plain text): the shared link's card and the lobby's."""
    try:
        async with platform.db.reader() as session:
            battle = await opened(session)
            report = await battle_report(session, battle, public_reader(battle), platform.rules)
    except ServiceError as exc:
        return Response(exc.message, status_code=exc.status, media_type="text/plain")
    return Response(card(report), media_type="image/svg+xml", headers=PUBLIC_HEADERS)


async def public_page(
    request: Request, platform: Platform, opened: Opened, url: str, since: int | None
) -> Response:
    """The public's report page of the battle `opened` finds, at `url` (its card at `url`.svg):
    the shared link's page and the lobby's. 204 while `since` (the page's own poll) is the
    battle's seq; a refusal is raised for the door to answer its own way."""
    async with platform.db.reader() as session:
        battle = await opened(session)
        if since is not None and since >= battle.seq:
            return Response(status_code=204)
        reader = public_reader(battle)
        report = await battle_report(session, battle, reader, platform.rules)
    context = report_context(
        battle, reader, report, public=True, share_url=url, card_url=f"{url}.svg", flash=None
    )
    return templates.TemplateResponse(request, "report.html", context, headers=PUBLIC_HEADERS)


@router.get("/reports/{token}.svg")
async def shared_card(token: str, platform: PlatformDep) -> Response:
    """The summary card of a shared report, as an SVG image."""
    return await public_card(platform, lambda session: shared_battle(session, token))


@router.get("/reports/{token}", response_class=HTMLResponse)
async def shared_page(
    token: str, request: Request, platform: PlatformDep, since: SeqQuery = None
) -> Response:
    """A shared report: the spectator's report, for anyone holding the link."""
    try:
        return await public_page(
            request, platform, lambda session: shared_battle(session, token), f"/reports/{token}", since
        )
    except ServiceError as exc:
        return Response(exc.message, status_code=exc.status, media_type="text/plain")
