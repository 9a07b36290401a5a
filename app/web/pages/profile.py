"""The profile's pages: create one with a passkey, sign in (a passkey, or a recovery code when it
is lost), sign out, My battles (every battle the profile holds a seat in, with whose move it is)
and the devices list. The passkey ceremonies themselves run in static/js/passkeys.js against the
REST endpoints (app/web/api/identity.py); these pages work the forms that need no JavaScript."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.models import Profile
from app.services.errors import ServiceError
from app.services.identity import passkeys, profiles, recovery
from app.services.table import pings
from app.web.deps import PlatformDep
from app.web.drawing.render import templates
from app.web.middleware.security import csrf_token
from app.web.pages.answers import _flash, _form, _pop_flash, signed_form
from app.web.pages.battle import _confirm_page
from app.web.pages.forms import pings_ticked
from app.web.profile_session import (
    bring_seats,
    check_recovery_rate,
    claim_browser_seats,
    cookie_of,
    sign_in,
    sign_out,
    signed_in,
    unclaimed,
)

router = APIRouter(include_in_schema=False)

NO_STORE = {"Cache-Control": "no-store"}  # recovery codes and seats are nobody else's


def _page(request: Request, name: str, context: dict, status: int = 200) -> Response:
    return templates.TemplateResponse(
        request,
        name,
        {"csrf_token": csrf_token(request), "flash": _pop_flash(request), **context},
        status_code=status,
        headers=NO_STORE,
    )


@router.get("/profile/new", response_class=HTMLResponse)
async def new_profile(request: Request, platform: PlatformDep) -> Response:
    if await signed_in(request, platform) is not None:
        return RedirectResponse("/me", status_code=303)
    return _page(request, "profile/new.html", {"codes": None})


@router.get("/signin", response_class=HTMLResponse)
async def signin_page(request: Request) -> Response:
    return _page(request, "profile/signin.html", {})


@router.post("/signin/recovery")
async def signin_recovery(request: Request, platform: PlatformDep) -> Response:
    """A recovery code, typed (no JavaScript needed): spent, signed in, then on to the devices
    page to add a new passkey."""
    try:
        form = await _form(request)
        code = str(form.get("code", ""))
        recovery.checked(code)
        check_recovery_rate(request)
        profile = await recovery.redeem(platform.db, code)
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/signin", status_code=303)
    async with platform.db.reader() as session:
        left = await recovery.left(session, profile.id)
    _flash(
        request,
        f"Signed in with a recovery code ({left} left). Add a new passkey for this device, "
        "then remove the lost one.",
    )
    response = RedirectResponse("/me/devices", status_code=303)
    await sign_in(request, response, platform, profile, None)
    return response


@router.post("/signout")
async def signout(request: Request, platform: PlatformDep) -> Response:
    try:
        await _form(request)
    except ServiceError as exc:
        _flash(request, exc.message, "error")
        return RedirectResponse("/me", status_code=303)
    response = RedirectResponse("/", status_code=303)
    await sign_out(request, response, platform)
    _flash(request, "Signed out on this device. Your profile keeps your battles for the next sign-in.")
    return response


@router.get("/me", response_class=HTMLResponse)
async def my_battles(request: Request, platform: PlatformDep) -> Response:
    profile = await signed_in(request, platform)
    if profile is None:
        return RedirectResponse("/signin", status_code=303)
    await bring_seats(request, platform, profile.id)  # seats claimed elsewhere open here too
    others = await unclaimed(request, platform, profile.id)
    async with platform.db.reader() as session:
        cards = await profiles.my_battles(session, platform.rules, profile.id)
        library = await profiles.library_of(session, profile.id)
        names = await profiles.battle_names(session, [p.battle_id for p in others])
    context = {
        "profile": profile,
        "battles": cards,
        "library": library,
        "others": [(p, names.get(p.battle_id, "")) for p in others],
        "my_pings": pings.of_profile(profile),
    }
    return _page(request, "profile/me.html", context)


@router.post("/me/pings")
async def set_pings(request: Request, platform: PlatformDep) -> Response:
    """The profile's pings, for every battle it plays: a box left unticked is a ping turned off."""

    async def save(profile: Profile, form: Any) -> Response:
        await pings.save_profile(platform, profile.id, pings_ticked(form))
        _flash(request, "Pings saved: they apply to every battle of yours.")
        return RedirectResponse("/me#my-pings", status_code=303)

    return await signed_form(request, platform, "/me#my-pings", save)


@router.post("/me/keep-seats")
async def keep_seats(request: Request, platform: PlatformDep) -> Response:
    """The seats this browser held before signing in join the profile (the player said so)."""

    async def keep(profile: Profile, form: Any) -> Response:
        added = await claim_browser_seats(request, platform, profile.id)
        _flash(request, f"Your profile keeps {added} more seat{'s' if added != 1 else ''}.")
        return RedirectResponse("/me", status_code=303)

    return await signed_form(request, platform, "/me", keep)


async def _devices(request: Request, platform: PlatformDep, codes: list[str] | None = None) -> Response:
    profile = await signed_in(request, platform)
    if profile is None:
        return RedirectResponse("/signin", status_code=303)
    found = cookie_of(request)
    async with platform.db.reader() as session:
        keys = await passkeys.passkeys_of(session, profile.id)
        left = await recovery.left(session, profile.id)
    context = {
        "profile": profile,
        "passkeys": keys,
        "current": found.passkey_id if found else None,
        "codes_left": left,
        "codes": codes,
    }
    return _page(request, "profile/devices.html", context)


@router.get("/me/devices", response_class=HTMLResponse)
async def devices(request: Request, platform: PlatformDep) -> Response:
    return await _devices(request, platform)


@router.post("/me/devices/{passkey_id}/remove")
async def remove_device(passkey_id: str, request: Request, platform: PlatformDep) -> Response:
    """Remove a passkey, asked first on a page of its own (as every destructive step from a page)."""

    async def remove(profile: Profile, form: Any) -> Response:
        if form.get("confirm") != "yes":
            async with platform.db.reader() as session:
                mine = {k.id: k for k in await passkeys.passkeys_of(session, profile.id)}
            label = mine[passkey_id].label if passkey_id in mine else "this passkey"
            return _confirm_page(
                request,
                form,
                f"/me/devices/{passkey_id}/remove",
                "/me/devices",
                f"Remove the passkey “{label}”?",
                "That device is signed out and can no longer sign in with it.",
                "Yes, remove it",
            )
        key = await passkeys.remove(platform.db, profile.id, passkey_id)
        _flash(request, f"Removed the passkey “{key.label}”.")
        return RedirectResponse("/me/devices", status_code=303)

    return await signed_form(request, platform, "/me/devices", remove)


@router.post("/me/recovery-codes")
async def new_codes(request: Request, platform: PlatformDep) -> Response:
    """A fresh set of recovery codes, shown on the answer to this post only."""

    async def reissue(profile: Profile, form: Any) -> Response:
        return await _devices(request, platform, await recovery.reissue(platform.db, profile.id))

    return await signed_form(request, platform, "/me/devices", reissue)
