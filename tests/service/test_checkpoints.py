"""History at bounded cost: a checkpoint of the state every CHECKPOINT_EVERY actions, so the state
at any seq replays fewer actions than that (rewinds to before a checkpoint included), and every
replay runs in a worker thread, never on the event loop. SQLite and PostgreSQL."""

from __future__ import annotations

import threading

from sqlalchemy import select

from app.models import Checkpoint
from app.services import bus
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.store.battles import get_battle
from app.services.write import actions
from app.services.write.actions import Command
from tests.service.test_submit import aid, setup

EVERY = 5


async def _settle() -> None:
    await bus.settle()  # the checkpoint writes run after the answer


async def test_state_at_every_seq_replays_at_most_k_actions_in_a_thread(
    platform: Platform, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(platform.settings, "checkpoint_every", EVERY)
    battle_id, ids = await setup(platform)  # seq 2
    hit = {"target": "crow", "source": "hawk", "amount": 1, "direction": "fore"}
    for n in range(3, 27):
        if n == 14:
            await actions.submit(
                platform, Command(battle_id, ids["ref"], "battle.undo", {"reason": "oops"}, aid())
            )
        elif n == 22:  # back to before two checkpoints
            rewind = {"to_seq": 7, "reason": "again"}
            await actions.submit(platform, Command(battle_id, ids["ref"], "battle.rewind", rewind, aid()))
        else:
            await actions.submit(platform, Command(battle_id, ids["ann"], "damage.apply", hit, aid()))
    await _settle()
    async with platform.db.reader() as session:
        kept = list(await session.scalars(select(Checkpoint.seq).where(Checkpoint.battle_id == battle_id)))
    assert sorted(kept) == [5, 10, 15, 20, 25]

    replayed: list[int] = []
    threads: list[str] = []
    real = history._replay

    def counting(rules, system, options, rows, start, start_seq, known):  # type: ignore[no-untyped-def]
        replayed.append(len(rows))
        threads.append(threading.current_thread().name)
        return real(rules, system, options, rows, start, start_seq, known)

    full_rows = []
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        from app.models import ActionLog

        full_rows = list(
            await session.scalars(
                select(ActionLog).where(ActionLog.battle_id == battle_id).order_by(ActionLog.seq)
            )
        )
        monkeypatch.setattr(history, "_replay", counting)
        for seq in range(0, 27):
            got = await history.state_at(session, battle, seq, platform.rules)
            expected = real(
                platform.rules,
                battle.system,
                battle.options,
                [r for r in full_rows if r.seq <= seq],
                None,
                0,
                {},
            )
            assert got == expected, seq
    assert max(replayed) < EVERY + EVERY  # a rewind before a checkpoint replays that stretch too
    assert sum(replayed) / len(replayed) < EVERY
    assert all(name != threading.main_thread().name for name in threads)
    assert await history.rebuild(platform, battle_id) == got  # the audit still replays it all


async def test_a_checkpoint_is_written_once(platform: Platform, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(platform.settings, "checkpoint_every", 2)
    battle_id, ids = await setup(platform)
    await _settle()
    await history.checkpoint(platform, battle_id, 2)  # again: nothing happens, nothing fails
    async with platform.db.reader() as session:
        kept = list(await session.scalars(select(Checkpoint.seq).where(Checkpoint.battle_id == battle_id)))
    assert kept == [2]
