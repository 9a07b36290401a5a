"""The state kept from this process's last commit (`KeptStates`): an action on
PostgreSQL whose battle is still at that version is checked against it, the snapshot neither sent
nor parsed again — and the outcome is exactly what a whole read gives: another process's write in
between means a whole read, and the snapshot is always what the log rebuilds."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from app.models import Battle
from app.services.history import replay as history
from app.services.store import postgres
from app.services.store.battles import load_state
from app.services.write import actions
from app.services.write.actions import Command
from tests.service.test_submit import aid, log_count, own_platform, setup

pytestmark = pytest.mark.postgres


def _hit(battle_id: str, who: str, target: str, source: str, amount: int = 1) -> Command:
    return Command(
        battle_id, who, "damage.apply", {"target": target, "source": source, "amount": amount}, aid()
    )


async def _sent_states(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each action's context statement sent the snapshot's state."""
    sent: list[bool] = []
    real = postgres.fetch

    async def spy(session: Any, statement: postgres.Statement, **values: Any) -> Any:
        row = await real(session, statement, **values)
        if statement in (postgres.READ_BY_ID, postgres.READ_BY_TOKEN):
            sent.append(row["s_state"] is not None)
        return row

    monkeypatch.setattr(postgres, "fetch", spy)
    return sent


def _points(state: Any) -> int:
    """Crow's armour and structure left, all sections together."""
    return sum(
        (sec.get("armour") or 0) + sec["structure"] for sec in state.ships["crow"].parts["sheet"]["sections"]
    )


async def _stored(platform: Any, battle_id: str) -> tuple[Any, int]:
    async with platform.db.reader() as session:
        state, _ = await load_state(session, battle_id)
        version = await session.scalar(select(Battle.version).where(Battle.id == battle_id))
    return state, version


async def test_the_next_action_here_is_checked_against_the_kept_state(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        before = _points((await _stored(platform, battle_id))[0])
        sent = await _sent_states(monkeypatch)
        for n in range(4):
            await actions.submit(platform, _hit(battle_id, ids["ann"], "crow", "hawk", n + 1))
        # Setup's last ship.add left its state kept: Ann's first action reads without it; from then
        # on her seat is kept too, and her actions read nothing (tests/service/test_kept_seats.py).
        assert sent == [False]
        state, version = await _stored(platform, battle_id)
        assert platform.states.version(battle_id) == version
        kept = platform.states.state(battle_id, version, 6)
        assert kept is not None and kept.model_dump() == state.model_dump()
        assert (await history.rebuild(platform, battle_id)).model_dump() == state.model_dump()
        assert _points(state) == before - (1 + 2 + 3 + 4)  # every hit landed, each once


async def test_a_write_by_another_process_in_between_means_a_whole_read(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes take turns on one battle: each finds the battle past its kept version and
    reads it whole; every action applies once, on the other's result."""
    async with own_platform(postgres_url) as here, own_platform(postgres_url) as there:
        battle_id, ids = await setup(here)
        sent = await _sent_states(monkeypatch)
        for _ in range(3):
            await actions.submit(here, _hit(battle_id, ids["ann"], "crow", "hawk"))
            await actions.submit(there, _hit(battle_id, ids["bob"], "hawk", "crow"))
        # `there` kept nothing before its first; from then on each finds the battle moved on (a
        # kept seat's write is refused by its version guard) and reads it whole.
        assert sent == [False, True, True, True, True, True]
        await actions.submit(there, _hit(battle_id, ids["bob"], "hawk", "crow"))
        assert len(sent) == 6  # `there` made the last commit: its kept state and Bob's seat are current
        state, _ = await _stored(here, battle_id)
        assert await log_count(here, battle_id) == 2 + 7
        assert (await history.rebuild(here, battle_id)).model_dump() == state.model_dump()


async def test_a_kept_state_that_is_not_the_snapshots_is_dropped_and_read_whole(postgres_url: str) -> None:
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        state, version = await _stored(platform, battle_id)
        wrong = state.copy_deep()
        wrong.ships["crow"].parts["sheet"]["sections"][1]["structure"] = 1
        platform.states.keep(battle_id, version, 99, wrong)  # the version matches, the seq does not
        result = await actions.submit(platform, _hit(battle_id, ids["ann"], "crow", "hawk", 2))
        assert result.seq == 3 and not result.duplicate
        state, _ = await _stored(platform, battle_id)
        assert state.ships["crow"].parts["sheet"]["sections"][1]["structure"] > 1  # not the wrong one's
        assert not state.ships["crow"].destroyed
        assert (await history.rebuild(platform, battle_id)).model_dump() == state.model_dump()
