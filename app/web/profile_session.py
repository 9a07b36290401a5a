"""A browser's profile: the signed cookie that says who is signed in, and the bridge between the
seats a profile remembers and the seats a browser's session holds. Shared by the pages and the
REST door (neither imports the other).

The cookie (`starboard_profile`) is signed with SECRET_KEY by itsdangerous, HttpOnly and
SameSite=Lax (Secure under the SECURE_COOKIES rule, as the session's), and names the profile and
the passkey it signed in with: removing that passkey signs the device out. Signing in copies the
profile's seats into the browser's session with the keys they were claimed with, so every page
and socket reads seats as before and a rotated seat is refused as before."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.models import Participant, Profile
from app.services.errors import Forbidden, RateLimited, Unauthorized
from app.services.identity import profiles
from app.services.identity.passkeys import RelyingParty
from app.services.identity.profiles import HeldSeat
from app.services.platform import Platform
from app.services.store.battles import seats_held
from app.services.store.tokens import seat_key
from app.services.window import SlidingWindow
from app.web.middleware.limits import client_address
from app.web.middleware.security import SESSION_CSRF, SESSION_PARTICIPANTS, SESSION_SEAT_KEYS, origin_allowed

PROFILE_COOKIE = "starboard_profile"
PROFILE_MAX_AGE = 60 * 60 * 24 * 60  # seconds a device stays signed in
SALT = "starboard.profile"


@dataclass(frozen=True)
class SignedIn:
    profile_id: str
    passkey_id: str | None  # None: signed in with a recovery code


def _serializer(request: Request) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(request.app.state.settings.secret_key, salt=SALT)


def cookie_of(request: Request) -> SignedIn | None:
    raw = request.cookies.get(PROFILE_COOKIE)
    if not raw:
        return None
    try:
        data = _serializer(request).loads(raw, max_age=PROFILE_MAX_AGE)
    except BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("p"), str):
        return None
    key = data.get("k")
    return SignedIn(data["p"], key if isinstance(key, str) else None)


async def signed_in(request: Request, platform: Platform) -> Profile | None:
    """The profile this browser is signed in as, if the cookie is good and still stands."""
    found = cookie_of(request)
    if found is None:
        return None
    async with platform.db.reader() as session:
        return await profiles.current(session, found.profile_id, found.passkey_id)


async def required(request: Request, platform: Platform) -> Profile:
    profile = await signed_in(request, platform)
    if profile is None:
        raise Unauthorized("sign in to your profile first (a passkey or a recovery code)")
    return profile


def set_cookie(request: Request, response: Response, profile_id: str, passkey_id: str | None) -> None:
    value = _serializer(request).dumps({"p": profile_id, "k": passkey_id})
    response.set_cookie(
        PROFILE_COOKIE, value, max_age=PROFILE_MAX_AGE, path="/", httponly=True, samesite="lax"
    )


def clear_cookie(response: Response) -> None:
    response.delete_cookie(PROFILE_COOKIE, path="/", httponly=True, samesite="lax")


def relying_party(request: Request) -> RelyingParty:
    """WEBAUTHN_RP_ID and the origins a ceremony may come from: this request's own origin when its
    host is the RP id or below it (the browser checks the same), and PUBLIC_BASE_URL's."""
    settings = request.app.state.settings
    rp_id = settings.webauthn_rp_id
    origins = []
    public = urlsplit(settings.public_base_url)
    if public.hostname and (public.hostname == rp_id or public.hostname.endswith(f".{rp_id}")):
        origins.append(f"{public.scheme}://{public.netloc}")
    host = request.headers.get("host", "")
    hostname = urlsplit(f"//{host}").hostname or ""
    if hostname == rp_id or hostname.endswith(f".{rp_id}"):
        origins.append(f"{request.url.scheme}://{host}")
    return RelyingParty(rp_id, settings.webauthn_rp_name, origins or [f"https://{rp_id}"])


def same_site(request: Request) -> None:
    """A ceremony or profile change sets or spends the profile cookie: only from this site's pages
    (or a client that sends no Origin, as a bot does)."""
    if not origin_allowed(request, request.app.state.settings):
        raise Forbidden("that request came from another site")


def browser_seats(request: Request) -> tuple[dict[str, str], dict[str, str]]:
    return dict(request.session.get(SESSION_PARTICIPANTS, {})), dict(
        request.session.get(SESSION_SEAT_KEYS, {})
    )


async def unclaimed(request: Request, platform: Platform, profile_id: str) -> list[Participant]:
    """The seats this browser holds that the profile does not (yet)."""
    seats, keys = browser_seats(request)
    async with platform.db.reader() as session:
        held = await seats_held(session, seats, keys)
        mine = {s.participant.id for s in await profiles.held_seats(session, profile_id)}
    return [p for p in held if p.id not in mine]


async def claim_browser_seats(request: Request, platform: Platform, profile_id: str) -> int:
    """The seats this browser holds become the profile's (only those it still holds)."""
    seats, keys = browser_seats(request)
    async with platform.db.reader() as session:
        held = await seats_held(session, seats, keys)
    return await profiles.claim(
        platform.db, profile_id, [HeldSeat(p, keys.get(p.battle_id, seat_key(p.token_hash))) for p in held]
    )


async def remember(request: Request, platform: Platform, participant: Participant) -> None:
    """A signed-in browser just took a seat (a join link, a battle it made): the profile keeps it."""
    profile = await signed_in(request, platform)
    if profile is not None:
        await profiles.claim(
            platform.db, profile.id, [HeldSeat(participant, seat_key(participant.token_hash))]
        )


async def bring_seats(request: Request, platform: Platform, profile_id: str) -> list[HeldSeat]:
    """Seat this browser in every battle the profile holds a seat in and the browser holds none
    (a battle where it sits already keeps its seat). Answers the profile's seats."""
    seats, keys = browser_seats(request)
    async with platform.db.reader() as session:
        mine = await profiles.held_seats(session, profile_id)
        still = {p.battle_id for p in await seats_held(session, seats, keys)}
    changed = False
    for seat in mine:
        battle = seat.participant.battle_id
        if battle not in still:
            seats[battle], keys[battle] = seat.participant.id, seat.key
            still.add(battle)
            changed = True
    if changed:
        request.session[SESSION_PARTICIPANTS] = seats
        request.session[SESSION_SEAT_KEYS] = keys
        request.session[SESSION_CSRF] = secrets.token_urlsafe(32)  # seats changed: as take_seat does
    return mine


async def refresh(request: Request, platform: Platform) -> Profile | None:
    """For a signed-in browser: seats the profile gained on another device open here too."""
    if cookie_of(request) is None:
        return None
    profile = await signed_in(request, platform)
    if profile is not None:
        await bring_seats(request, platform, profile.id)
    return profile


async def sign_in(
    request: Request,
    response: Response,
    platform: Platform,
    profile: Profile,
    passkey_id: str | None,
    *,
    claim: bool = False,
) -> None:
    """Signed in on this browser: the profile's seats come to it. Its own seats join the profile
    only when `claim` (the profile was just made here): a shared computer's seats are someone
    else's until the player says so on My battles ("Keep them in my profile")."""
    if claim:
        await claim_browser_seats(request, platform, profile.id)
    await bring_seats(request, platform, profile.id)
    set_cookie(request, response, profile.id, passkey_id)


async def sign_out(request: Request, response: Response, platform: Platform) -> None:
    """This browser forgets the profile and the seats it holds through it (a shared computer keeps
    nothing of the player's battles); the profile keeps them for the next sign-in."""
    found = cookie_of(request)
    if found is not None:
        async with platform.db.reader() as session:
            mine = {s.participant.id for s in await profiles.held_seats(session, found.profile_id)}
        seats, keys = browser_seats(request)
        for battle, pid in list(seats.items()):
            if pid in mine:
                seats.pop(battle)
                keys.pop(battle, None)
        request.session[SESSION_PARTICIPANTS] = seats
        request.session[SESSION_SEAT_KEYS] = keys
        request.session[SESSION_CSRF] = secrets.token_urlsafe(32)
    clear_cookie(response)


def check_recovery_rate(request: Request) -> None:
    """Recovery-code sign-ins per address (RECOVERY_SIGNIN_LIMIT per window): guessing stays hopeless."""
    settings = request.app.state.settings
    limiter = getattr(request.app.state, "recovery_limiter", None)
    if limiter is None:
        limiter = SlidingWindow(settings.recovery_signin_limit, settings.recovery_signin_window_seconds)
        request.app.state.recovery_limiter = limiter
    wait = limiter.retry_after(client_address(request)) if settings.recovery_signin_limit else None
    if wait is not None:
        raise RateLimited(
            f"too many recovery sign-ins from your address; try again in {wait} s", None, retry_after=wait
        )
