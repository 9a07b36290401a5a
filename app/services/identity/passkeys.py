"""The WebAuthn ceremonies (the `webauthn` package): registering a passkey — for a new profile or
another device of a signed-in one — and signing in with one. Each ceremony's challenge is kept in
the database and spent by the answer that verifies (a failed answer changes nothing; an unanswered
one expires). Sign-in asks for a discoverable credential, so nobody types a name."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from app.db import Database
from app.models import IdentityChallenge, Passkey, Profile
from app.services.errors import Invalid
from app.services.identity import recovery
from app.services.identity.profiles import clean_name, new_profile
from app.services.store.tokens import new_id

Verified = TypeVar("Verified")

CEREMONY_SECONDS = 300  # an options answer must be verified within this
MAX_PASSKEYS = 20  # devices one profile may hold


@dataclass(frozen=True)
class RelyingParty:
    """Who the passkeys are for: the host name (WEBAUTHN_RP_ID), its display name, and the origins
    a ceremony may come from (the page's own, whose host is that name or below it)."""

    rp_id: str
    name: str
    origins: list[str]


@dataclass(frozen=True)
class Begun:
    ceremony: str
    public_key: dict[str, Any]  # PublicKeyCredentialCreation/RequestOptions as JSON


@dataclass(frozen=True)
class Registered:
    profile: Profile
    passkey: Passkey
    recovery_codes: list[str] | None  # only for a new profile: shown once


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def clean_label(raw: Any) -> str:
    """A device's label as the devices list shows it (empty: "Passkey")."""
    text = " ".join(str(raw or "").split())[:80]
    return text or "Passkey"


async def _keep(db: Database, purpose: str, challenge: bytes, **fields: Any) -> str:
    ceremony = secrets.token_urlsafe(24)
    async with db.transaction() as session:
        await session.execute(delete(IdentityChallenge).where(IdentityChallenge.expires_at < _now()))
        session.add(
            IdentityChallenge(
                id=ceremony,
                purpose=purpose,
                challenge=bytes_to_base64url(challenge),
                expires_at=_now() + timedelta(seconds=CEREMONY_SECONDS),
                **fields,
            )
        )
    return ceremony


async def _ceremony(session: AsyncSession, ceremony: Any, purpose: str) -> IdentityChallenge:
    row = await session.get(IdentityChallenge, ceremony) if isinstance(ceremony, str) else None
    if row is None or row.purpose != purpose or _aware(row.expires_at) < _now():
        raise Invalid("ceremony: that passkey request is unknown or expired; start again", "ceremony")
    return row


async def _spend(session: AsyncSession, row: IdentityChallenge) -> None:
    """Spend the challenge; a second answer racing this one finds it gone and is refused."""
    gone = await session.execute(delete(IdentityChallenge).where(IdentityChallenge.id == row.id))
    if not gone.rowcount:
        raise Invalid("ceremony: that passkey request was answered already; start again", "ceremony")


def _as_json(options: Any) -> dict[str, Any]:
    return json.loads(options_to_json(options))


def _credential(raw: Any) -> dict[str, Any]:
    if (
        not isinstance(raw, dict)
        or not isinstance(raw.get("id"), str)
        or not isinstance(raw.get("response"), dict)
    ):
        raise Invalid(
            "credential: send the PublicKeyCredential as JSON (id, rawId, response, type)", "credential"
        )
    return raw


async def begin_registration(
    db: Database, rp: RelyingParty, *, name: Any = None, profile: Profile | None = None
) -> Begun:
    """Options to make a passkey: for a new profile called `name`, or another device of `profile`
    (its passkeys excluded, so a device is not registered twice)."""
    excluded: list[PublicKeyCredentialDescriptor] = []
    if profile is None:
        display = clean_name(name)
        handle = bytes_to_base64url(secrets.token_bytes(32))
    else:
        display, handle = profile.name, profile.user_handle
        async with db.reader() as session:
            keys = await passkeys_of(session, profile.id)
        if len(keys) >= MAX_PASSKEYS:
            raise Invalid(
                f"passkey: a profile holds at most {MAX_PASSKEYS} passkeys; remove one first", "passkey"
            )
        excluded = [PublicKeyCredentialDescriptor(id=base64url_to_bytes(k.credential_id)) for k in keys]
    options = generate_registration_options(
        rp_id=rp.rp_id,
        rp_name=rp.name,
        user_id=base64url_to_bytes(handle),
        user_name=display,
        user_display_name=display,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=excluded,
    )
    ceremony = await _keep(
        db,
        "register",
        options.challenge,
        profile_id=profile.id if profile is not None else None,
        user_handle=handle,
        name=display,
    )
    return Begun(ceremony, _as_json(options))


def _verified(
    verify: Callable[..., Verified], row: IdentityChallenge, rp: RelyingParty, credential: Any, **key: Any
) -> Verified:
    """The answer checked by `verify` (the package's registration or sign-in check) against the
    ceremony's challenge and this relying party (and, signing in, the stored `key`); any refusal
    is Invalid naming the credential."""
    try:
        return verify(
            credential=credential,
            expected_challenge=base64url_to_bytes(row.challenge),
            expected_rp_id=rp.rp_id,
            expected_origin=rp.origins,
            **key,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise Invalid(f"credential: the passkey could not be verified ({exc})", "credential") from None


async def finish_registration(
    db: Database, rp: RelyingParty, ceremony: Any, credential: Any, label: Any, signed_in: Profile | None
) -> Registered:
    """Verify the new credential and keep it: a new profile (with its recovery codes, shown once)
    or one more device of the signed-in profile that began the ceremony."""
    credential = _credential(credential)
    async with db.transaction() as session:
        row = await _ceremony(session, ceremony, "register")
        if row.profile_id is not None and (signed_in is None or signed_in.id != row.profile_id):
            raise Invalid(
                "ceremony: that passkey request belongs to another profile; start again", "ceremony"
            )
        verified = _verified(verify_registration_response, row, rp, credential)
        credential_id = bytes_to_base64url(verified.credential_id)
        taken = await session.scalar(select(Passkey.id).where(Passkey.credential_id == credential_id))
        if taken is not None:
            raise Invalid("credential: that passkey is registered already", "credential")
        await _spend(session, row)
        codes = None
        if row.profile_id is None:
            profile = new_profile(row.name or "Player", row.user_handle or "")
            session.add(profile)
            await session.flush()
            codes = await recovery.issue(session, profile.id)
        else:
            found = await session.get(Profile, row.profile_id)
            if found is None:
                raise Invalid("ceremony: that profile is gone", "ceremony")
            profile = found
        key = Passkey(
            id=new_id(),
            profile_id=profile.id,
            credential_id=credential_id,
            public_key=bytes_to_base64url(verified.credential_public_key),
            sign_count=verified.sign_count,
            label=clean_label(label),
            created_at=_now(),
        )
        session.add(key)
        await session.flush()
        return Registered(profile, key, codes)


async def begin_signin(db: Database, rp: RelyingParty) -> Begun:
    options = generate_authentication_options(
        rp_id=rp.rp_id, user_verification=UserVerificationRequirement.PREFERRED
    )
    return Begun(await _keep(db, "signin", options.challenge), _as_json(options))


async def finish_signin(
    db: Database, rp: RelyingParty, ceremony: Any, credential: Any
) -> tuple[Profile, Passkey]:
    """Verify an assertion against the stored key; its counter moves on (a counter that went
    backwards is refused by the verification: a cloned authenticator)."""
    credential = _credential(credential)
    async with db.transaction() as session:
        row = await _ceremony(session, ceremony, "signin")
        key = await session.scalar(select(Passkey).where(Passkey.credential_id == credential["id"]))
        if key is None:
            raise Invalid(
                "credential: that passkey is not registered here (it may have been removed)", "credential"
            )
        verified = _verified(
            verify_authentication_response,
            row,
            rp,
            credential,
            credential_public_key=base64url_to_bytes(key.public_key),
            credential_current_sign_count=key.sign_count,
        )
        await _spend(session, row)
        key.sign_count = verified.new_sign_count
        key.last_used_at = _now()
        profile = await session.get(Profile, key.profile_id)
        assert profile is not None  # the foreign key cascades
        await session.flush()
        return profile, key


async def passkeys_of(session: AsyncSession, profile_id: str) -> list[Passkey]:
    rows = await session.scalars(
        select(Passkey).where(Passkey.profile_id == profile_id).order_by(Passkey.created_at, Passkey.id)
    )
    return list(rows)


async def remove(db: Database, profile_id: str, passkey_id: Any) -> Passkey:
    """Remove a device's passkey (it signs that device out). The last one stays: without a passkey
    only the recovery codes would be left."""
    async with db.transaction() as session:
        key = await session.get(Passkey, passkey_id) if isinstance(passkey_id, str) else None
        if key is None or key.profile_id != profile_id:
            raise Invalid("passkey: no such passkey on your profile", "passkey")
        count = await session.scalar(
            select(func.count()).select_from(Passkey).where(Passkey.profile_id == profile_id)
        )
        if (count or 0) <= 1:
            raise Invalid("passkey: this is your only passkey; add another device first", "passkey")
        await session.delete(key)
        return key
