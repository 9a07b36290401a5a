"""The one way work follows a commit (app/services/bus.py): events the unit of work collected are
handed to their handlers only once it has committed, never when it failed, in the order the handlers
were registered; a handler that fails is logged and neither undoes the commit nor stops the rest."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from sqlalchemy import text

from app.services import bus
from app.services.bus import ActionCommitted
from app.services.errors import ServiceError
from app.services.platform import Platform
from app.services.write import actions
from app.services.write.actions import Command
from tests.service.test_submit import aid, log_count, setup

PROBE = "CREATE TABLE IF NOT EXISTS bus_probe (id VARCHAR(40) PRIMARY KEY)"


@dataclass(frozen=True)
class Happened:
    key: str


class Boom(Exception):
    pass


async def _present(platform: Platform, key: str) -> bool:
    async with platform.db.reader() as session:
        return (await session.scalar(text("SELECT count(*) FROM bus_probe WHERE id = :k"), {"k": key})) == 1


@pytest.fixture
async def probed(platform: Platform) -> AsyncIterator[Platform]:
    """A table of the test's own, dropped after it (the schema stays the migrations')."""
    async with platform.db.engine.begin() as conn:
        await conn.execute(text(PROBE))
    yield platform
    await bus.settle()
    async with platform.db.engine.begin() as conn:
        await conn.execute(text("DROP TABLE bus_probe"))


async def test_handlers_run_after_the_commit_and_see_what_it_wrote(probed: Platform) -> None:
    platform, key = probed, uuid.uuid4().hex
    seen: list[tuple[str, bool]] = []

    async def looks(event: Happened) -> None:  # runs in the background, after the commit
        seen.append(("async", await _present(platform, event.key)))

    platform.bus.on(Happened, lambda event: seen.append(("sync", True)))
    platform.bus.on(Happened, looks)
    async with platform.unit() as work:
        await work.session.execute(text("INSERT INTO bus_probe (id) VALUES (:k)"), {"k": key})
        work.emit(Happened(key))
        assert seen == []  # not while the unit is open
    await bus.settle()
    assert seen == [("sync", True), ("async", True)]


async def test_a_unit_that_fails_hands_nothing_over(probed: Platform) -> None:
    platform, key = probed, uuid.uuid4().hex
    seen: list[Happened] = []
    platform.bus.on(Happened, seen.append)
    with pytest.raises(Boom):
        async with platform.unit() as work:
            await work.session.execute(text("INSERT INTO bus_probe (id) VALUES (:k)"), {"k": key})
            work.emit(Happened(key))
            raise Boom
    await bus.settle()
    assert seen == [] and not await _present(platform, key)


async def test_handlers_run_in_the_order_registered_and_a_failure_stops_none(
    probed: Platform, caplog: pytest.LogCaptureFixture
) -> None:
    platform, key = probed, uuid.uuid4().hex
    order: list[str] = []

    def first(event: Happened) -> None:
        order.append("first")
        raise Boom("first")

    async def second(event: Happened) -> None:
        order.append("second")
        raise Boom("second")

    platform.bus.on(Happened, first)
    platform.bus.on(Happened, second)
    platform.bus.on(Happened, lambda event: order.append("third"))
    with caplog.at_level(logging.ERROR, logger="app.services.bus"):
        async with platform.unit() as work:
            await work.session.execute(text("INSERT INTO bus_probe (id) VALUES (:k)"), {"k": key})
            work.emit(Happened(key))
        await bus.settle()
    assert order == ["first", "third", "second"]  # the sync ones at once, the background one after
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert len(failed) == 2 and any("first" in m for m in failed) and any("second" in m for m in failed)
    assert await _present(platform, key)  # the commit stands


async def test_an_action_hands_one_commit_over_and_a_failing_handler_does_not_fail_it(
    platform: Platform,
) -> None:
    battle_id, ids = await setup(platform)
    got: list[ActionCommitted] = []

    def breaks(event: ActionCommitted) -> None:
        raise Boom

    platform.bus.on(ActionCommitted, breaks)
    platform.bus.on(ActionCommitted, got.append)
    hit = {"target": "crow", "source": "hawk", "amount": 1}
    result = await actions.submit(platform, Command(battle_id, ids["ann"], "damage.apply", hit, aid()))
    assert [(e.commit.battle_id, e.commit.seq, e.actor_id) for e in got] == [
        (battle_id, result.seq, ids["ann"])
    ]
    assert await log_count(platform, battle_id) == result.seq  # committed: one row per seq
    # the kept state (the write path's own first handler) ran before the failing one
    assert platform.states.version(battle_id) == got[0].commit.battle.version


async def test_a_refused_or_repeated_action_hands_nothing_over(platform: Platform) -> None:
    battle_id, ids = await setup(platform)
    got: list[ActionCommitted] = []
    platform.bus.on(ActionCommitted, got.append)
    key = aid()
    hit = {"target": "crow", "source": "hawk", "amount": 1}
    await actions.submit(platform, Command(battle_id, ids["ann"], "damage.apply", hit, key))
    again = await actions.submit(platform, Command(battle_id, ids["ann"], "damage.apply", hit, key))
    assert again.duplicate
    with pytest.raises(ServiceError):
        await actions.submit(platform, Command(battle_id, ids["ann"], "no.such.action", {}, aid()))
    assert len(got) == 1
