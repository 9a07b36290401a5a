"""The league pages: every league a viewer may see and a form to make one (signed in), a league's
standings with the rating record behind them (each change linked to its battle, report and dice
check), joining (a public league with a button, a private one with its invite code), and the
referee's choice on a battle: rated for a league or not, with each side's fleet points and the
suggested handicap. Plain forms: they work without JavaScript; a refusal comes back as a flash
naming the field."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.models import League, Profile, Snapshot
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.leagues import leagues, points, standings
from app.services.store.battles import get_battle, get_participant
from app.web.drawing.render import templates
from app.web.middleware.errors import refusal_page
from app.web.middleware.security import csrf_token, seat_in
from app.web.pages.answers import _flash, _form, _pop_flash, signed_form
from app.web.profile_session import signed_in

router = APIRouter(include_in_schema=False)


def _page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    return templates.TemplateResponse(
        request,
        name,
        {"csrf_token": csrf_token(request), "flash": _pop_flash(request), **context},
        status_code=status,
        headers={"Cache-Control": "no-store"},
    )


def points_table(raw: str) -> dict[str, int]:
    """The points table as typed: one "Class or name = points" a line."""
    out: dict[str, int] = {}
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.rpartition("=")
        if not sep or not value.strip().isdigit() or not name.strip():
            raise Invalid(f'points: line {number} should read "Class or name = points"', "points")
        out[name.strip()] = int(value.strip())
    return out


@router.get("/leagues", response_class=HTMLResponse)
async def leagues_page(request: Request) -> Response:
    platform = request.app.state.platform
    profile = await signed_in(request, platform)
    async with platform.db.reader() as session:
        found = await leagues.listed(session, profile.id if profile else None)
    return _page(
        request,
        "leagues/index.html",
        {"profile": profile, "leagues": found, "systems": platform.rules.systems},
    )


def _to_league(request: Request, league: League, said: str) -> Response:
    _flash(request, said)
    return RedirectResponse(f"/leagues/{league.id}", status_code=303)


@router.post("/leagues")
async def create_league(request: Request) -> Response:
    platform = request.app.state.platform

    async def make(profile: Profile, form: Any) -> Response:
        async with platform.db.transaction() as session:
            league = await leagues.create(
                session,
                platform.rules,
                profile.id,
                name=form.get("name"),
                system=form.get("system"),
                public=form.get("public") != "private",
                points=points_table(str(form.get("points", ""))),
            )
        return _to_league(
            request, league, f"League {league.name} made. Share its page; players join it from there."
        )

    return await signed_form(request, platform, "/leagues", make)


@router.post("/leagues/join")
async def join_by_invite(request: Request) -> Response:
    """A private league's invite code, typed: the league it opens (else "no such league")."""
    platform = request.app.state.platform

    async def join(profile: Profile, form: Any) -> Response:
        async with platform.db.transaction() as session:
            league = await leagues.join_by_invite(session, str(form.get("invite", "")), profile.id)
        return _to_league(request, league, f"You joined {league.name}.")

    return await signed_form(request, platform, "/leagues", join)


@router.get("/leagues/{league_id}", response_class=HTMLResponse)
async def league_page(league_id: str, request: Request) -> Response:
    platform = request.app.state.platform
    profile = await signed_in(request, platform)
    viewer = profile.id if profile else None
    try:
        async with platform.db.reader() as session:
            league = await leagues.visible(session, league_id, viewer)
            table = await standings.standings(session, league)
            changes = await standings.record(session, league.id)
            rated = await standings.battles(session, league.id)
            member = await leagues.is_member(session, league.id, viewer)
    except ServiceError as exc:
        return refusal_page(request, exc)
    names = {s.profile_id: s.name for s in table}
    return _page(
        request,
        "leagues/league.html",
        {
            "league": league,
            "standings": table,
            "changes": changes,
            "names": names,
            "rated": rated,
            "member": member,
            "profile": profile,
            "organiser": viewer == league.organiser_id,
            "system": platform.rules.systems.get(league.system),
        },
    )


@router.post("/leagues/{league_id}/join")
async def join_league(league_id: str, request: Request) -> Response:
    platform = request.app.state.platform

    async def join(profile: Profile, form: Any) -> Response:
        async with platform.db.transaction() as session:
            league = await leagues.join(session, league_id, profile.id, None)
        return _to_league(request, league, f"You joined {league.name}.")

    return await signed_form(request, platform, f"/leagues/{league_id}", join, refusal_page)


async def _referee_view(request: Request, battle_id: str) -> dict[str, Any]:
    platform = request.app.state.platform
    profile = await signed_in(request, platform)
    async with platform.db.reader() as session:
        me = await get_participant(session, battle_id, seat_in(request, battle_id))
        if me.role != "referee":
            raise Forbidden("only the referee says whether a battle is rated")
        battle = await get_battle(session, battle_id)
        pair = await leagues.rated_for(session, battle_id)
        started = await leagues.begun(session, battle_id)
        offered = await leagues.listed(session, profile.id if profile else None, battle.system)
        snap = await session.get(Snapshot, battle_id)
    state = platform.rules.load(snap.state) if snap is not None else None
    fleet = points.fleet_points(state, pair[1], pair[0]) if pair and state else None
    if pair and pair[1].id not in {lg.id for lg in offered}:
        offered.append(pair[1])
    return {
        "battle": battle,
        "kept": pair[0] if pair else None,
        "league": pair[1] if pair else None,
        "begun": started,
        "offered": offered,
        "fleet": fleet,
        "ships": list(state.ships.values()) if state else [],
        "even_percent": points.EVEN_PERCENT,
    }


@router.get("/battles/{battle_id}/league", response_class=HTMLResponse)
async def battle_league_page(battle_id: str, request: Request) -> Response:
    try:
        context = await _referee_view(request, battle_id)
    except ServiceError as exc:
        return refusal_page(request, exc)
    return _page(request, "leagues/battle.html", context)


@router.post("/battles/{battle_id}/league")
async def battle_league_choice(battle_id: str, request: Request) -> Response:
    """The referee's choice: rated for the league picked (and ship points given), or not rated."""
    platform = request.app.state.platform
    here = f"/battles/{battle_id}/league"
    try:
        form = await _form(request)
        given: dict[str, int] = {}
        for key, value in form.multi_items():
            if key.startswith("points.") and str(value).strip():
                text = str(value).strip()
                if not text.isdigit():
                    raise Invalid(f"{key}: whole points (you sent {text!r})", key)
                given[key[len("points.") :]] = int(text)
        league_id = str(form.get("league", "")) or None
        async with platform.db.transaction() as session:
            me = await get_participant(session, battle_id, seat_in(request, battle_id))
            battle = await get_battle(session, battle_id)
            kept = await leagues.mark(session, battle, me, league_id, given)
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse(here, status_code=303)
    _flash(request, "Rated for the league." if kept is not None else "Not rated for any league.")
    return RedirectResponse(here, status_code=303)
