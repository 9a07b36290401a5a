"""Profiles (app/services/identity), on SQLite and PostgreSQL: a passkey makes a profile with its
recovery codes (kept hashed, each spent once); a passkey signs in with its counter moving on; a
profile remembers seats by the key they were claimed with, so a seat given a new link (rotation)
no longer comes back with it; whose move it is comes from the battle's own turn bar (GEN-01)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.models import IdentityChallenge, Passkey, Profile, RecoveryCode
from app.services.errors import Forbidden, Invalid
from app.services.identity import passkeys, profiles, recovery
from app.services.identity.passkeys import RelyingParty
from app.services.identity.profiles import HeldSeat
from app.services.platform import Platform
from app.services.store.battles import add_participant, create_battle, rotate_token
from app.services.store.tokens import seat_key
from tests.soft_passkey import SoftPasskey

RP = RelyingParty("localhost", "Starboard", ["http://localhost:8000"])


async def register(platform: Platform, name: str = "Ann") -> tuple[passkeys.Registered, SoftPasskey]:
    device = SoftPasskey("http://localhost:8000")
    begun = await passkeys.begin_registration(platform.db, RP, name=name)
    done = await passkeys.finish_registration(
        platform.db, RP, begun.ceremony, device.create(begun.public_key), "Laptop", None
    )
    return done, device


async def count(platform: Platform, model: type) -> int:
    async with platform.db.reader() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def test_a_passkey_makes_a_profile_with_codes_kept_hashed(platform: Platform) -> None:
    done, device = await register(platform)
    async with platform.db.reader() as session:  # the ceremony was spent
        assert (
            await session.scalar(
                select(func.count())
                .select_from(IdentityChallenge)
                .where(IdentityChallenge.user_handle == done.profile.user_handle)
            )
            == 0
        )
    assert done.profile.name == "Ann" and done.passkey.label == "Laptop"
    codes = done.recovery_codes or []
    assert len(codes) == recovery.COUNT == 10 and len(set(codes)) == 10
    async with platform.db.reader() as session:
        kept = (
            await session.scalars(
                select(RecoveryCode.code_hash).where(RecoveryCode.profile_id == done.profile.id)
            )
        ).all()
        left = await recovery.left(session, done.profile.id)
    assert left == 10 and not set(codes) & set(kept)  # only hashes are stored
    assert sorted(kept) == sorted(recovery.code_hash(c) for c in codes)

    begun = await passkeys.begin_signin(platform.db, RP)
    profile, key = await passkeys.finish_signin(platform.db, RP, begun.ceremony, device.get(begun.public_key))
    assert (profile.id, key.id, key.sign_count) == (done.profile.id, done.passkey.id, 1)
    with pytest.raises(Invalid) as replay:  # the same answer again: its ceremony is spent
        await passkeys.finish_signin(platform.db, RP, begun.ceremony, device.get(begun.public_key))
    assert replay.value.field == "ceremony"


async def test_a_bad_answer_is_refused_naming_the_field_and_changes_nothing(platform: Platform) -> None:
    with pytest.raises(Invalid) as empty:
        await passkeys.begin_registration(platform.db, RP, name="   ")
    assert empty.value.field == "name"
    begun = await passkeys.begin_registration(platform.db, RP, name="Bob")
    before = (await count(platform, Profile), await count(platform, Passkey))
    wrong_origin = SoftPasskey("http://evil.example")
    with pytest.raises(Invalid) as bad:
        await passkeys.finish_registration(
            platform.db, RP, begun.ceremony, wrong_origin.create(begun.public_key), "", None
        )
    assert bad.value.field == "credential"
    with pytest.raises(Invalid) as shapeless:
        await passkeys.finish_registration(platform.db, RP, begun.ceremony, {"id": 3}, "", None)
    assert shapeless.value.field == "credential"
    assert (await count(platform, Profile), await count(platform, Passkey)) == before
    async with platform.db.reader() as session:  # still open for the right answer
        assert await session.get(IdentityChallenge, begun.ceremony) is not None
    right = SoftPasskey("http://localhost:8000")
    done = await passkeys.finish_registration(
        platform.db, RP, begun.ceremony, right.create(begun.public_key), "", None
    )
    assert done.passkey.label == "Passkey"


async def test_a_recovery_code_signs_in_once(platform: Platform) -> None:
    done, _ = await register(platform)
    code = (done.recovery_codes or [])[3]
    profile = await recovery.redeem(platform.db, code.lower().replace("-", " "))  # as typed from paper
    assert profile.id == done.profile.id
    with pytest.raises(Forbidden) as again:
        await recovery.redeem(platform.db, code)
    assert again.value.field == "code"
    with pytest.raises(Invalid) as malformed:
        await recovery.redeem(platform.db, "1234")
    assert malformed.value.field == "code"
    async with platform.db.reader() as session:
        assert await recovery.left(session, done.profile.id) == 9
    fresh = await recovery.reissue(platform.db, done.profile.id)
    with pytest.raises(Forbidden):  # the earlier set stopped working
        await recovery.redeem(platform.db, (done.recovery_codes or [])[0])
    assert (await recovery.redeem(platform.db, fresh[0])).id == done.profile.id


async def test_the_last_passkey_stays_and_another_device_may_be_removed(platform: Platform) -> None:
    done, _ = await register(platform)
    with pytest.raises(Invalid) as only:
        await passkeys.remove(platform.db, done.profile.id, done.passkey.id)
    assert only.value.field == "passkey"
    begun = await passkeys.begin_registration(platform.db, RP, profile=done.profile)
    assert [c["id"] for c in begun.public_key["excludeCredentials"]] == [done.passkey.credential_id]
    phone = SoftPasskey("http://localhost:8000")
    with pytest.raises(Invalid) as stranger:  # a ceremony begun for a profile is finished by it only
        await passkeys.finish_registration(
            platform.db, RP, begun.ceremony, phone.create(begun.public_key), "Phone", None
        )
    assert stranger.value.field == "ceremony"
    added = await passkeys.finish_registration(
        platform.db, RP, begun.ceremony, phone.create(begun.public_key), "Phone", done.profile
    )
    assert added.recovery_codes is None and added.profile.id == done.profile.id
    await passkeys.remove(platform.db, done.profile.id, done.passkey.id)
    async with platform.db.reader() as session:
        assert [k.label for k in await passkeys.passkeys_of(session, done.profile.id)] == ["Phone"]
        assert await profiles.current(session, done.profile.id, done.passkey.id) is None  # signed out
        assert await profiles.current(session, done.profile.id, added.passkey.id) is not None


async def test_GEN_01_a_profile_remembers_seats_until_their_link_is_rotated(platform: Platform) -> None:
    done, _ = await register(platform)
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(session, "Ridge", "b5wars")
        ann = await add_participant(session, battle, "Ann", "player")
    seats = [
        HeldSeat(ann.participant, seat_key(ann.participant.token_hash)),
        HeldSeat(ref.participant, "stale"),
    ]
    assert await profiles.claim(platform.db, done.profile.id, seats) == 1  # a stale key is not claimed
    assert await profiles.claim(platform.db, done.profile.id, seats) == 0  # nor the same seat twice
    async with platform.db.reader() as session:
        cards = await profiles.my_battles(session, platform.rules, done.profile.id)
    assert [(c.battle.name, c.seat.name) for c in cards] == [("Ridge", "Ann")]
    # GEN-01: a battle with no ships is waited on by nobody but the referee setting it up
    assert cards[0].your_move is False and cards[0].finished is False

    async with platform.db.transaction() as session:
        await rotate_token(session, battle.id, ann.participant.id)
    async with platform.db.reader() as session:
        assert await profiles.held_seats(session, done.profile.id) == []
        assert await profiles.my_battles(session, platform.rules, done.profile.id) == []
