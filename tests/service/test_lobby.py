"""The lobby's service, on SQLite and PostgreSQL: the viewscreen's delay (N actions, or the state as
the current turn began — GEN-01's turn of steps), what a listing shows (the public view only), and a
first-come seat that two claimers race for going to exactly one of them."""

from __future__ import annotations

import asyncio

import pytest

from app.models import Battle, SeatStatus
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.platform import Platform
from app.services.reading import screen
from app.services.table import lobby
from tests.helpers import simple_ship
from tests.service.test_readiness import Table, table

HIT = {"target": "crow", "source": "hawk", "amount": 5, "direction": "fore"}


async def duel(platform: Platform) -> Table:
    return await table(
        platform, "b5wars", {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )


async def shown(platform: Platform, t: Table, **delay: object) -> int:
    async with platform.db.reader() as session:
        battle = await session.get(Battle, t.id)
        listing = lobby.blank(t.id)
        for key, value in delay.items():
            setattr(listing, key, value)
        return await lobby.screen_seq(session, battle, listing)  # type: ignore[arg-type]


async def seq_of(platform: Platform, t: Table) -> int:
    async with platform.db.reader() as session:
        return (await session.get(Battle, t.id)).seq  # type: ignore[union-attr]


async def test_GEN_01_the_screen_runs_behind_by_actions_or_to_the_turns_start(platform: Platform) -> None:
    t = await duel(platform)
    # the referee walks the clock through turn 1's steps (GEN-01) until turn 2 begins
    while (await t.state()).clock.turn == 1:
        await t.act("ref", "clock.advance", {"reason": "next"})
    opened = await seq_of(platform, t)  # the action that began turn 2
    await t.act("ann", "damage.apply", HIT)
    await t.act("ann", "damage.apply", HIT)
    now = await seq_of(platform, t)
    assert now == opened + 2
    assert await shown(platform, t) == now
    assert await shown(platform, t, delay_actions=1) == now - 1
    assert await shown(platform, t, delay_actions=now + 5) == 0
    assert await shown(platform, t, delay_turn=True) == opened
    async with platform.db.reader() as session:  # read back a page at a time: the same answer
        battle = await session.get(Battle, t.id)
        assert [await screen._turn_opened(session, battle, page=n) for n in (1, 2, 3)] == [opened] * 3  # type: ignore[arg-type]
    assert await shown(platform, t, delay_turn=True, delay_actions=3) == min(opened, now - 3)
    await t.act("ref", "battle.end", {})
    assert await shown(platform, t, delay_turn=True, delay_actions=3) == now + 1  # the end is shown


async def test_GEN_01_in_turn_one_the_turn_delay_shows_the_start(platform: Platform) -> None:
    t = await duel(platform)
    await t.act("ann", "damage.apply", HIT)
    assert await shown(platform, t, delay_turn=True) == 0


async def test_a_listing_shows_names_classes_and_open_seats_only(platform: Platform) -> None:
    t = await duel(platform)
    wanted = lobby.ListingIn(claims="approve", open_seats=[t.ids["bob"]], spectators=True)
    with pytest.raises(Forbidden):
        await lobby.set_listing(platform, t.id, t.ids["ann"], wanted)
    await lobby.set_listing(platform, t.id, t.ids["ref"], wanted)
    async with platform.db.reader() as session:
        found = await lobby.lobby(session, platform.rules, {t.id: 3})
    (entry,) = [e for e in found.looking if e.battle_id == t.id]
    assert entry.ships == [
        {"name": "Hawk", "klass": "Test frigate", "destroyed": False},
        {"name": "Crow", "klass": "Test frigate", "destroyed": False},
    ]
    assert entry.seats == [{"id": t.ids["bob"], "name": "Bob", "ships": ["Crow"]}]
    assert entry.viewers == 3 and entry in found.live and entry.system_name
    assert set(entry.as_dict()) == {
        "battle_id", "name", "system", "system_name", "turn", "step", "finished", "ships", "seats",
        "claims", "spectators", "viewers", "delayed",
    }  # fmt: skip


async def test_a_delayed_battle_shows_no_turn_and_no_losses_in_the_lobby(platform: Platform) -> None:
    t = await duel(platform)
    await t.act("ann", "damage.apply", {**HIT, "amount": 60})  # Crow is destroyed
    wanted = lobby.ListingIn(spectators=True, delay_actions=2)
    await lobby.set_listing(platform, t.id, t.ids["ref"], wanted)
    async with platform.db.reader() as session:
        (entry,) = [e for e in (await lobby.lobby(session, platform.rules)).live if e.battle_id == t.id]
    assert entry.delayed and entry.turn == 0 and entry.step == ""
    assert not any(s["destroyed"] for s in entry.ships)


async def test_two_claims_at_once_for_a_first_come_seat_one_wins(platform: Platform) -> None:
    t = await duel(platform)
    await lobby.set_listing(
        platform, t.id, t.ids["ref"], lobby.ListingIn(claims="first", open_seats=[t.ids["bob"]])
    )

    async def claim(name: str) -> object:
        try:
            return await lobby.claim_seat(platform, t.id, t.ids["bob"], lobby.ClaimIn(name=name))
        except ServiceError as exc:
            return exc

    answers = await asyncio.gather(claim("Zed"), claim("Yan"))
    won = [a for a in answers if isinstance(a, lobby.Claimed)]
    lost = [a for a in answers if isinstance(a, ServiceError)]
    assert len(won) == 1 and len(lost) == 1
    assert isinstance(lost[0], Invalid) and lost[0].field == "seat"
    async with platform.db.reader() as session:
        listing = await lobby.listing_of(session, t.id)
    assert listing.open_seats == []


async def test_a_claimed_seat_keeps_no_webhook_of_its_former_holder(platform: Platform) -> None:
    t = await duel(platform)
    async with platform.db.transaction() as session:
        session.add(
            SeatStatus(participant_id=t.ids["bob"], battle_id=t.id, webhook_url="https://example.org/hook")
        )
    await lobby.set_listing(
        platform, t.id, t.ids["ref"], lobby.ListingIn(claims="first", open_seats=[t.ids["bob"]])
    )
    await lobby.claim_seat(platform, t.id, t.ids["bob"], lobby.ClaimIn(name="Zed"))
    async with platform.db.reader() as session:
        row = await session.get(SeatStatus, t.ids["bob"])
    assert row is not None and row.webhook_url is None
