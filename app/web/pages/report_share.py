"""The report's public link: the referee makes one (POST /battles/{id}/report/share, shown once)
or revokes them all (POST /battles/{id}/report/share/revoke); anyone holding it reads
GET /reports/{token} (the report page as a spectator sees it) and GET /reports/{token}.svg (the
summary card to post). See services/report_share.py for what the link may show."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle
from app.services.errors import Invalid, ServiceError
from app.services.platform import Platform
from app.services.reading.report import Report, battle_report
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


def share_url(request: Request, token: str) -> str:
    return f"{request.app.state.settings.public_base_url}/reports/{token}"


@router.post("/battles/{battle_id}/report/share", response_class=HTMLResponse)
async def make_link(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """A new public link, shown on the report page until the referee leaves it."""
    try:
        await _form(request)
        async with platform.db.transaction() as session:
            battle, me = await seated(session, request, battle_id)
            token = await make_share(session, battle, me)
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
        await _form(request)
        async with platform.db.transaction() as session:
            battle, me = await seated(session, request, battle_id)
            gone = await revoke_shares(session, battle, me)
        _flash(
            request,
            f"{gone} public link{'s' if gone != 1 else ''} revoked: they no longer open the report.",
            "info",
        )
    except ServiceError as exc:
        _flash(request, exc.message, "error")
    return RedirectResponse(f"/battles/{battle_id}/report", status_code=303)


async def public_card(platform: Platform, opened: Callable[[AsyncSession], Awaitable[Battle]]) -> Response:
    """The summary card of the public's report of the battle `opened` finds (or its refusal, in
    plain text): the shared link's card and the lobby's."""
    try:
        async with platform.db.reader() as session:
            battle = await opened(session)
            report = await battle_report(session, battle, public_reader(battle), platform.rules)
    except ServiceError as exc:
        return Response(exc.message, status_code=exc.status, media_type="text/plain")
    return Response(card(report), media_type="image/svg+xml", headers=PUBLIC_HEADERS)


def public_page(request: Request, battle: Battle, report: Report, url: str) -> Response:
    """The public's report at `url` (its card at `url`.svg): the shared link's page and the lobby's."""
    context = report_context(
        battle, public_reader(battle), report, public=True, share_url=url, card_url=f"{url}.svg", flash=None
    )
    return templates.TemplateResponse(request, "report.html", context, headers=PUBLIC_HEADERS)


@router.get("/reports/{token}.svg")
async def shared_card(token: str, platform: PlatformDep) -> Response:
    """The summary card of a shared report, as an SVG image."""
    return await public_card(platform, lambda session: shared_battle(session, token))


@router.get("/reports/{token}", response_class=HTMLResponse)
async def shared_page(
    token: str,
    request: Request,
    platform: PlatformDep,
    since: SeqQuery = None,
) -> Response:
    """A shared report: the spectator's report, for anyone holding the link."""
    try:
        async with platform.db.reader() as session:
            battle = await shared_battle(session, token)
            if since is not None and since >= battle.seq:
                return Response(status_code=204)
            report = await battle_report(session, battle, public_reader(battle), platform.rules)
    except ServiceError as exc:
        return Response(exc.message, status_code=exc.status, media_type="text/plain")
    return public_page(request, battle, report, f"/reports/{token}")
