"""Recovery codes: printed once when a profile is made (or made anew), kept only as SHA-256, each
signing in once — the way back in when every passkey is lost. 80 random bits each, so a code alone
finds its profile and guessing is hopeless (sign-ins by code are also rate-limited per address)."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.models import Profile, RecoveryCode
from app.services.errors import Forbidden, Invalid

COUNT = 10
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off paper without doubt
GROUPS, GROUP_LEN = 4, 4
_SHAPE = re.compile(rf"^[{ALPHABET}]{{{GROUPS * GROUP_LEN}}}$")


def new_code() -> str:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(GROUPS * GROUP_LEN))
    return "-".join(raw[i : i + GROUP_LEN] for i in range(0, len(raw), GROUP_LEN))


def normal(code: str) -> str:
    """The code as typed, without spaces or dashes, in capitals."""
    return re.sub(r"[\s-]", "", code).upper()


def code_hash(code: str) -> str:
    return hashlib.sha256(f"recovery:{normal(code)}".encode()).hexdigest()


def checked(code: object, field: str = "code") -> str:
    """A code of the printed shape (16 letters and digits, dashes and spaces allowed), else 422."""
    text = normal(code) if isinstance(code, str) else ""
    if not _SHAPE.match(text):
        raise Invalid(f"{field}: a recovery code is 16 letters and digits, like ABCD-EFGH-JKMN-PQRS", field)
    return text


async def issue(session: AsyncSession, profile_id: str) -> list[str]:
    """A fresh set of codes (the earlier ones stop working): the plain codes, to show once."""
    await session.execute(delete(RecoveryCode).where(RecoveryCode.profile_id == profile_id))
    codes = [new_code() for _ in range(COUNT)]
    session.add_all(RecoveryCode(code_hash=code_hash(c), profile_id=profile_id) for c in codes)
    await session.flush()
    return codes


async def reissue(db: Database, profile_id: str) -> list[str]:
    async with db.transaction() as session:
        return await issue(session, profile_id)


async def redeem(db: Database, code: object) -> Profile:
    """Sign in with a code: it is spent (a second use is refused) and its profile answered."""
    hashed = code_hash(checked(code))
    async with db.transaction() as session:
        spent = await session.execute(
            update(RecoveryCode)
            .where(RecoveryCode.code_hash == hashed, RecoveryCode.used_at.is_(None))
            .values(used_at=datetime.now(UTC))
            .returning(RecoveryCode.profile_id)
        )
        profile_id = spent.scalar_one_or_none()
        profile = await session.get(Profile, profile_id) if profile_id is not None else None
        if profile is None:
            raise Forbidden("code: that recovery code is not valid, or was used already", "code")
        return profile


async def left(session: AsyncSession, profile_id: str) -> int:
    count = await session.scalar(
        select(func.count())
        .select_from(RecoveryCode)
        .where(RecoveryCode.profile_id == profile_id, RecoveryCode.used_at.is_(None))
    )
    return int(count or 0)
