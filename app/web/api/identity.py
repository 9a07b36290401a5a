"""Profiles over REST (for bots, tools, and the pages' own passkey script): the WebAuthn
ceremonies as JSON (options, then verify), sign-in with a recovery code, and `GET /api/v1/me` —
the profile, its devices and every battle it holds a seat in, with whose move it is. Signing in
answers the profile cookie (`starboard_profile`: signed, HttpOnly, SameSite=Lax); the `/me`
routes read it. Seats stay the permission: a battle is acted in with its seat's token or page."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from app.models import Passkey, Profile
from app.services.errors import Invalid
from app.services.identity import passkeys, profiles, recovery
from app.services.store.seats import aware
from app.services.table import pings
from app.web.api.clocks import PingsIn
from app.web.deps import PlatformDep, errors
from app.web.profile_session import (
    bring_seats,
    check_recovery_rate,
    cookie_of,
    relying_party,
    required,
    same_site,
    set_cookie,
    sign_in,
    sign_out,
    signed_in,
)

router = APIRouter(prefix="/api/v1", tags=["profiles"])


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RegisterOptionsIn(Strict):
    name: str | None = Field(
        default=None,
        description="a new profile's display name (1-80 characters); leave out when signed in to add "
        "this device's passkey to your profile",
    )


class CeremonyOut(BaseModel):
    ceremony: str = Field(description="send it back with the credential to verify")
    publicKey: dict[str, Any] = Field(  # noqa: N815 (the browser's own name for it)
        description="the options for navigator.credentials.create() / .get(), base64url-encoded"
    )


class RegisterIn(Strict):
    ceremony: str = Field(max_length=64)
    credential: dict[str, Any] = Field(
        description="the PublicKeyCredential as JSON (id, rawId, response, type)"
    )
    label: str = Field(default="", max_length=80, description="what the devices list calls this passkey")


class SignInIn(Strict):
    ceremony: str = Field(max_length=64)
    credential: dict[str, Any] = Field(
        description="the PublicKeyCredential as JSON (id, rawId, response, type)"
    )


class RecoveryIn(Strict):
    code: str = Field(
        max_length=64, description="one of the printed recovery codes, e.g. ABCD-EFGH-JKMN-PQRS"
    )


class PasskeyOut(BaseModel):
    id: str
    label: str
    created_at: datetime
    last_used_at: datetime | None
    this_device: bool


class ProfileOut(BaseModel):
    id: str
    name: str
    created_at: datetime


class SeatOut(BaseModel):
    battle_id: str
    battle_name: str
    participant_id: str
    seat_name: str
    role: str
    your_move: bool
    waiting_on: list[str]
    waiting_for: str | None
    finished: bool


class MeOut(BaseModel):
    profile: ProfileOut
    battles: list[SeatOut]
    passkeys: list[PasskeyOut]
    recovery_codes_left: int
    library: list[str] = Field(description="slugs of the saved ships that belong to the profile")


class SignedInOut(BaseModel):
    profile: ProfileOut
    recovery_codes: list[str] | None = Field(
        default=None, description="a new profile's recovery codes: shown this once, stored hashed"
    )


def _profile(profile: Profile) -> ProfileOut:
    return ProfileOut(
        id=profile.id, name=profile.name, created_at=aware(profile.created_at) or profile.created_at
    )


def _passkey(key: Passkey, current: str | None) -> PasskeyOut:
    return PasskeyOut(
        id=key.id,
        label=key.label,
        created_at=aware(key.created_at) or key.created_at,
        last_used_at=aware(key.last_used_at),
        this_device=key.id == current,
    )


@router.post("/profiles/passkeys/register/options", response_model=CeremonyOut, responses=errors(403))
async def register_options(body: RegisterOptionsIn, request: Request, platform: PlatformDep) -> CeremonyOut:
    """Begin making a passkey: for a new profile named `name`, or (signed in, no name) one more
    device of your profile."""
    same_site(request)
    profile = await signed_in(request, platform) if body.name is None else None
    if body.name is None and profile is None:
        raise Invalid("name: a new profile needs a name (or sign in to add a device)", "name")
    begun = await passkeys.begin_registration(
        platform.db, relying_party(request), name=body.name, profile=profile
    )
    return CeremonyOut(ceremony=begun.ceremony, publicKey=begun.public_key)


@router.post(
    "/profiles/passkeys/register/verify", status_code=201, response_model=SignedInOut, responses=errors(403)
)
async def register_verify(
    body: RegisterIn, request: Request, response: Response, platform: PlatformDep
) -> SignedInOut:
    """Keep the new passkey. A new profile is made and signed in (the seats this browser holds
    become its own) and its recovery codes come in this answer only."""
    same_site(request)
    current = await signed_in(request, platform)
    done = await passkeys.finish_registration(
        platform.db, relying_party(request), body.ceremony, body.credential, body.label, current
    )
    if current is None:
        await sign_in(request, response, platform, done.profile, done.passkey.id, claim=True)
    elif (found := cookie_of(request)) is not None and found.passkey_id is None:
        set_cookie(request, response, done.profile.id, done.passkey.id)  # from a code to this passkey
    return SignedInOut(profile=_profile(done.profile), recovery_codes=done.recovery_codes)


@router.post("/profiles/passkeys/signin/options", response_model=CeremonyOut, responses=errors(403))
async def signin_options(request: Request, platform: PlatformDep) -> CeremonyOut:
    """Begin signing in with a passkey (any passkey of this site the device holds)."""
    same_site(request)
    begun = await passkeys.begin_signin(platform.db, relying_party(request))
    return CeremonyOut(ceremony=begun.ceremony, publicKey=begun.public_key)


@router.post("/profiles/passkeys/signin/verify", response_model=SignedInOut, responses=errors(403))
async def signin_verify(
    body: SignInIn, request: Request, response: Response, platform: PlatformDep
) -> SignedInOut:
    """Signed in: the profile cookie is set, and this browser is seated in every battle the profile
    holds a seat in."""
    same_site(request)
    profile, key = await passkeys.finish_signin(
        platform.db, relying_party(request), body.ceremony, body.credential
    )
    await sign_in(request, response, platform, profile, key.id)
    return SignedInOut(profile=_profile(profile))


@router.post("/profiles/recovery", response_model=SignedInOut, responses=errors(403, 429))
async def recovery_signin(
    body: RecoveryIn, request: Request, response: Response, platform: PlatformDep
) -> SignedInOut:
    """Sign in with a recovery code when the passkey is lost: the code is spent. Add a new passkey
    next (`register/options` with no name), then remove the lost one."""
    same_site(request)
    recovery.checked(body.code)  # a malformed code is 422 and spends nothing, not even the rate
    check_recovery_rate(request)
    profile = await recovery.redeem(platform.db, body.code)
    await sign_in(request, response, platform, profile, None)
    return SignedInOut(profile=_profile(profile))


@router.get("/me", response_model=MeOut, responses=errors(401))
async def me(request: Request, platform: PlatformDep) -> MeOut:
    """Your profile, its passkeys, and every battle it holds a seat in with whose move it is. A
    seat whose link the referee replaced, or that was removed, is not among them."""
    profile = await required(request, platform)
    await bring_seats(request, platform, profile.id)
    found = cookie_of(request)
    async with platform.db.reader() as session:
        cards = await profiles.my_battles(session, platform.rules, profile.id)
        keys = await passkeys.passkeys_of(session, profile.id)
        left = await recovery.left(session, profile.id)
        library = await profiles.library_of(session, profile.id)
    return MeOut(
        profile=_profile(profile),
        battles=[
            SeatOut(
                battle_id=c.battle.id,
                battle_name=c.battle.name,
                participant_id=c.seat.id,
                seat_name=c.seat.name,
                role=c.seat.role,
                your_move=c.your_move,
                waiting_on=c.waiting_on,
                waiting_for=c.waiting_for,
                finished=c.finished,
            )
            for c in cards
        ],
        passkeys=[_passkey(k, found.passkey_id if found else None) for k in keys],
        recovery_codes_left=left,
        library=[row.slug for row in library],
    )


@router.get("/me/pings", response_model=pings.Pings, responses=errors(401))
async def my_pings(request: Request, platform: PlatformDep) -> pings.Pings:
    """Your pings, for every battle your profile holds a seat in ("your move", "deadline soon";
    by browser, by webhook)."""
    profile = await required(request, platform)
    return await pings.read_profile(platform, profile.id)


@router.put("/me/pings", response_model=pings.Pings, responses=errors(401, 403))
async def set_my_pings(body: PingsIn, request: Request, platform: PlatformDep) -> pings.Pings:
    """Choose your pings once for every battle your profile holds a seat in (a battle's own
    PUT /battles/{id}/pings, made from a seat your profile holds, changes the same choice)."""
    same_site(request)
    profile = await required(request, platform)
    return await pings.save_profile(platform, profile.id, pings.Pings(**body.model_dump()))


@router.delete("/me/passkeys/{passkey_id}", responses=errors(401, 403))
async def remove_passkey(passkey_id: str, request: Request, platform: PlatformDep) -> dict[str, Any]:
    """Remove a device's passkey (that device is signed out); your only passkey stays (422)."""
    same_site(request)
    profile = await required(request, platform)
    key = await passkeys.remove(platform.db, profile.id, passkey_id)
    return {"removed": key.id}


@router.post("/me/recovery-codes", status_code=201, responses=errors(401, 403))
async def new_recovery_codes(request: Request, platform: PlatformDep) -> dict[str, Any]:
    """A fresh set of recovery codes, shown this once; the earlier ones stop working."""
    same_site(request)
    profile = await required(request, platform)
    return {"recovery_codes": await recovery.reissue(platform.db, profile.id)}


@router.post("/me/signout", responses=errors(403))
async def signout(request: Request, response: Response, platform: PlatformDep) -> dict[str, Any]:
    """Sign this browser out: it forgets the profile and the seats it holds through it."""
    same_site(request)
    await sign_out(request, response, platform)
    return {"signed_out": True}
