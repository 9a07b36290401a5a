"""The service layer on SQLite and PostgreSQL: one transaction per action, idempotent action ids,
stale seqs refused, rule errors change nothing, and the log rebuilds the snapshot exactly."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlalchemy import func, select

from app.models import ActionLog, Battle
from app.rules.dice import derive_roll
from app.services.bootstrap import build_platform
from app.services.errors import Conflict, Forbidden, Invalid, RollNeeded, Stale
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.store.battles import add_participant, create_battle, load_state
from app.services.write import actions
from app.services.write.actions import Command
from tests.helpers import simple_ship


def aid() -> str:
    return uuid.uuid4().hex


async def setup(platform: Platform, system: str = "b5wars", dice_mode: str = "seeded"):
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(session, "Service test", system, dice_mode=dice_mode)
        ann = await add_participant(session, battle, "Ann", "player")
        bob = await add_participant(session, battle, "Bob", "player")
        watcher = await add_participant(session, battle, "Watcher", "spectator")
    ids = {
        "ref": ref.participant.id,
        "ann": ann.participant.id,
        "bob": bob.participant.id,
        "watcher": watcher.participant.id,
    }
    for name, owner in (("Hawk", "ann"), ("Crow", "bob")):
        await actions.submit(
            platform,
            Command(
                battle.id,
                ids["ref"],
                "ship.add",
                {
                    "definition": simple_ship(name, "sfb" if system == "sfb" else "b5wars"),
                    "owner": ids[owner],
                },
                aid(),
            ),
        )
    return battle.id, ids


async def log_count(platform: Platform, battle_id: str) -> int:
    async with platform.db.reader() as session:
        return await session.scalar(
            select(func.count()).select_from(ActionLog).where(ActionLog.battle_id == battle_id)
        )


@asynccontextmanager
async def own_platform(postgres_url: str, **engine_options: Any) -> AsyncIterator[Platform]:
    """A platform of the test's own on PostgreSQL (its pool is the test's to break)."""
    from app.db import Database
    from app.realtime.broker import Broker
    from tests.conftest import settings_for

    platform = build_platform(
        settings=settings_for(postgres_url), db=Database(postgres_url, **engine_options), broker=Broker()
    )
    try:
        yield platform
    finally:
        await platform.db.dispose()


async def test_submit_writes_log_and_snapshot(platform: Platform) -> None:
    battle_id, ids = await setup(platform)
    result = await actions.submit(
        platform,
        Command(
            battle_id,
            ids["ann"],
            "damage.apply",
            {"target": "crow", "source": "hawk", "amount": 9, "direction": "fore"},
            aid(),
        ),
    )
    assert result.seq == 3 and not result.duplicate
    async with platform.db.reader() as session:
        state, seq = await load_state(session, battle_id)
        battle = await session.get(Battle, battle_id)
    assert seq == 3 and battle.seq == 3
    assert state.ships["crow"].parts["sheet"]["sections"][1]["structure"] == 15


async def test_repeated_action_id_applies_once(platform: Platform) -> None:
    battle_id, ids = await setup(platform)
    key = aid()
    payload = {"target": "crow", "source": "hawk", "amount": 5}
    first = await actions.submit(platform, Command(battle_id, ids["ann"], "damage.apply", payload, key))
    again = await actions.submit(platform, Command(battle_id, ids["ann"], "damage.apply", payload, key))
    assert again.duplicate and again.seq == first.seq and again.events == first.events
    assert await log_count(platform, battle_id) == 3
    with pytest.raises(Conflict) as refused:
        await actions.submit(platform, Command(battle_id, ids["bob"], "damage.apply", payload, key))
    assert refused.value.status == 409 and refused.value.field == "action_id"
    assert refused.value.message == "that action id was already used by someone else"
    assert await log_count(platform, battle_id) == 3  # nothing of Bob's was written


async def test_concurrent_repeats_of_one_action_apply_once(platform: Platform) -> None:
    battle_id, ids = await setup(platform)
    key = aid()
    payload = {"target": "crow", "source": "hawk", "amount": 2}
    results = await asyncio.gather(
        *(
            actions.submit(platform, Command(battle_id, ids["ann"], "damage.apply", payload, key))
            for _ in range(5)
        )
    )
    assert {r.seq for r in results} == {3}
    assert sum(not r.duplicate for r in results) == 1
    assert await log_count(platform, battle_id) == 3


async def test_stale_seq_is_refused_with_409(platform: Platform) -> None:
    battle_id, ids = await setup(platform)
    with pytest.raises(Stale) as err:
        await actions.submit(
            platform,
            Command(
                battle_id,
                ids["ann"],
                "damage.apply",
                {"target": "crow", "source": "hawk", "amount": 5},
                aid(),
                seen_seq=1,
            ),
        )
    assert err.value.status == 409 and err.value.extra["seq"] == 2
    ok = await actions.submit(
        platform,
        Command(
            battle_id,
            ids["ann"],
            "damage.apply",
            {"target": "crow", "source": "hawk", "amount": 5},
            aid(),
            seen_seq=2,
        ),
    )
    assert ok.seq == 3


async def test_refusals_change_nothing(platform: Platform) -> None:
    battle_id, ids = await setup(platform)
    async with platform.db.reader() as session:
        before, _ = await load_state(session, battle_id)
    with pytest.raises(Forbidden) as err:
        await actions.submit(
            platform,
            Command(
                battle_id,
                ids["bob"],
                "damage.apply",
                {"target": "hawk", "source": "hawk", "amount": 5},
                aid(),
            ),
        )
    assert err.value.field == "source" and err.value.status == 403
    with pytest.raises(Invalid) as err:
        await actions.submit(
            platform,
            Command(
                battle_id,
                ids["ann"],
                "damage.apply",
                {"target": "crow", "source": "hawk", "amount": "lots"},
                aid(),
            ),
        )
    assert err.value.field == "amount"
    with pytest.raises(Forbidden):
        await actions.submit(platform, Command(battle_id, ids["watcher"], "clock.advance", {}, aid()))
    with pytest.raises(Forbidden, match="only the referee"):
        await actions.submit(
            platform,
            Command(
                battle_id,
                ids["ann"],
                "override.set",
                {"path": "ships.crow.destroyed", "value": True, "reason": "cheat"},
                aid(),
            ),
        )
    with pytest.raises(Invalid, match="unknown action"):
        await actions.submit(platform, Command(battle_id, ids["ann"], "teleport", {}, aid()))
    async with platform.db.reader() as session:
        after, seq = await load_state(session, battle_id)
    assert after == before and seq == 2 and await log_count(platform, battle_id) == 2


async def test_seeded_rolls_are_derivable_after_the_seed_is_revealed(platform: Platform) -> None:
    """GEN-02: the log records every die; once the seed is revealed anyone re-derives them."""
    battle_id, ids = await setup(platform, system="sfb")
    async with platform.db.reader() as session:
        battle = await session.get(Battle, battle_id)
        commitment = battle.seed_hash
    await actions.submit(
        platform, Command(battle_id, ids["ref"], "battle.end", {"reason": "test over"}, aid())
    )
    async with platform.db.reader() as session:
        battle = await session.get(Battle, battle_id)
    import hashlib

    assert (
        battle.status == "finished" and hashlib.sha256(bytes.fromhex(battle.seed)).hexdigest() == commitment
    )
    assert derive_roll(bytes.fromhex(battle.seed), battle_id, 5, 0, 6) in range(1, 7)
    with pytest.raises(Invalid, match="ended"):
        await actions.submit(platform, Command(battle_id, ids["ref"], "clock.advance", {}, aid()))


async def test_undo_and_rewind_are_logged_actions(platform: Platform) -> None:
    battle_id, ids = await setup(platform)
    await actions.submit(
        platform,
        Command(
            battle_id, ids["ann"], "damage.apply", {"target": "crow", "source": "hawk", "amount": 5}, aid()
        ),
    )
    await actions.submit(
        platform,
        Command(
            battle_id, ids["ann"], "damage.apply", {"target": "crow", "source": "hawk", "amount": 7}, aid()
        ),
    )
    undo = await actions.submit(
        platform, Command(battle_id, ids["ref"], "battle.undo", {"reason": "mistaken entry"}, aid())
    )
    assert (
        undo.seq == 5
        and undo.events[0]["text"] == "⚠ UNDO (Referee): action 4 (damage.apply) is undone — “mistaken entry”"
    )
    async with platform.db.reader() as session:
        state, _ = await load_state(session, battle_id)
    assert state.ships["crow"].parts["sheet"]["sections"][0]["structure"] == 35
    await actions.submit(
        platform,
        Command(battle_id, ids["ref"], "battle.rewind", {"to_seq": 2, "reason": "start again"}, aid()),
    )
    async with platform.db.reader() as session:
        state, seq = await load_state(session, battle_id)
    assert seq == 6 and state.ships["crow"].parts["sheet"]["sections"][0]["structure"] == 40
    with pytest.raises(Forbidden):
        await actions.submit(
            platform, Command(battle_id, ids["ann"], "battle.undo", {"reason": "mine"}, aid())
        )
    assert (await history.rebuild(platform, battle_id)) == state


async def test_physical_dice_ask_for_the_roll_and_change_nothing(platform: Platform) -> None:
    """GEN-02: entered dice. The Shadow pain check needs rolls when the impulse ends."""
    battle_id, ids = await setup(platform, system="sfb", dice_mode="physical")
    await actions.submit(
        platform,
        Command(
            battle_id,
            ids["ref"],
            "ship.add",
            {
                "definition": __import__("tests.helpers", fromlist=["ship_def"]).ship_def("shadow-cruiser"),
                "owner": ids["bob"],
            },
            aid(),
        ),
    )
    await actions.submit(
        platform, Command(battle_id, ids["ref"], "clock.advance", {}, aid())
    )  # into impulse 1
    await actions.submit(
        platform,
        Command(
            battle_id,
            ids["ann"],
            "damage.apply",
            {"target": "shadow-cruiser", "source": "hawk", "amount": 60, "direction": "fore"},
            aid(),
        ),
    )
    with pytest.raises(RollNeeded) as need:
        await actions.submit(platform, Command(battle_id, ids["ref"], "clock.advance", {}, aid()))
    assert need.value.extra["needed"]["sides"] == 6 and need.value.extra["needed"]["index"] == 0
    n = await log_count(platform, battle_id)
    result = await actions.submit(
        platform, Command(battle_id, ids["ref"], "clock.advance", {}, aid(), dice=[6])
    )
    assert await log_count(platform, battle_id) == n + 1
    async with platform.db.reader() as session:
        row = await session.scalar(
            select(ActionLog).where(ActionLog.battle_id == battle_id, ActionLog.seq == result.seq)
        )
    assert row.dice[0]["value"] == 6


async def test_rebuild_equals_snapshot_after_a_long_scripted_battle(platform: Platform) -> None:
    """The snapshot is a cache of the log: replaying 200+ actions, rolls included, gives it exactly."""
    battle_id, ids = await setup(platform, system="sfb")
    from tests.helpers import ship_def

    await actions.submit(
        platform,
        Command(
            battle_id,
            ids["ref"],
            "ship.add",
            {"definition": ship_def("shadow-cruiser"), "owner": ids["bob"]},
            aid(),
        ),
    )
    await actions.submit(
        platform,
        Command(
            battle_id,
            ids["ref"],
            "ship.add",
            {"definition": ship_def("federation-heavy-cruiser"), "owner": ids["ann"]},
            aid(),
        ),
    )
    for i in range(120):
        async with platform.db.reader() as session:
            now, _ = await load_state(session, battle_id)
        target = next((t for t in ("shadow-cruiser", "crow", "hawk") if not now.ships[t].destroyed), None)
        if i < 20 and not now.ships["crow"].destroyed:
            await actions.submit(
                platform,
                Command(
                    battle_id,
                    ids["bob"],
                    "damage.apply",
                    {"target": "federation-heavy-cruiser", "source": "crow", "amount": 1},
                    aid(),
                ),
            )
        if target is not None:
            await actions.submit(
                platform,
                Command(
                    battle_id,
                    ids["ann"],
                    "damage.apply",
                    {
                        "target": target,
                        "source": "federation-heavy-cruiser",
                        "amount": 5 + (i * 7) % 40,
                        "direction": ["fore", "aft", "port"][i % 3],
                    },
                    aid(),
                ),
            )
        await actions.submit(platform, Command(battle_id, ids["ref"], "clock.advance", {}, aid()))
        if i == 40:
            await actions.submit(
                platform, Command(battle_id, ids["ref"], "battle.undo", {"reason": "test undo"}, aid())
            )
    async with platform.db.reader() as session:
        snapshot, seq = await load_state(session, battle_id)
    assert seq > 150
    rebuilt = await history.rebuild(platform, battle_id)
    assert rebuilt.model_dump(mode="json") == snapshot.model_dump(mode="json")


async def test_ships_keep_their_order_on_every_database(platform: Platform) -> None:
    """JSONB would reorder keys; the state is stored as written so hooks walk ships in one order."""
    battle_id, ids = await setup(platform)
    for name in ("Zulu", "Alpha", "Mike-7", "Bo"):
        await actions.submit(
            platform, Command(battle_id, ids["ref"], "ship.add", {"definition": simple_ship(name)}, aid())
        )
    async with platform.db.reader() as session:
        state, _ = await load_state(session, battle_id)
    assert list(state.ships) == ["hawk", "crow", "zulu", "alpha", "mike-7", "bo"]


def test_models_match_the_migrations(postgres_url: str) -> None:
    """`alembic check`: the ORM models and the migrations describe the same schema."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = subprocess.run(
        [sys.executable, "-m", "alembic", "check"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": postgres_url},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "No new upgrade operations detected" in out.stdout + out.stderr


async def test_entered_dice_must_match_what_the_action_rolls(platform: Platform) -> None:
    """GEN-02: an impossible face or a surplus die is refused with the dice field; nothing changes."""
    battle_id, ids = await setup(platform, dice_mode="physical")
    with pytest.raises(Invalid) as err:
        await actions.submit(
            platform,
            Command(
                battle_id,
                ids["ann"],
                "damage.apply",
                {"target": "crow", "source": "hawk", "amount": 2},
                aid(),
                dice=[3],
            ),
        )
    assert (
        err.value.field == "dice"
        and "1 more dice entered than this action rolls (0 needed)" in err.value.message
    )
    assert await log_count(platform, battle_id) == 2


async def test_an_action_on_a_connection_the_database_dropped_applies_once(postgres_url: str) -> None:
    """Pooled connections are not pinged before use (DB_PRE_PING off: three round trips each time).
    One the database dropped (a restart, an idle kill) fails its first statement; the pool is
    renewed and submit goes again once on a fresh connection — the action applies exactly once."""
    import asyncpg

    from tests.conftest import PG_ADMIN

    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        before = await log_count(platform, battle_id)
        async with platform.db.reader() as session:
            pid = await session.scalar(select(func.pg_backend_pid()))
        admin = await asyncpg.connect(PG_ADMIN)
        try:
            # returns once the backend is gone (PostgreSQL 14+: waits up to 10 s for it to exit)
            assert await admin.fetchval("SELECT pg_terminate_backend($1, 10000)", pid)
        finally:
            await admin.close()
        action_id = aid()
        damage = {"target": "crow", "source": "hawk", "amount": 2}
        result = await actions.submit(
            platform, Command(battle_id, ids["ann"], "damage.apply", damage, action_id)
        )
        assert not result.duplicate and await log_count(platform, battle_id) == before + 1
        again = await actions.submit(
            platform, Command(battle_id, ids["ann"], "damage.apply", damage, action_id)
        )
        assert (
            again.duplicate and again.seq == result.seq and await log_count(platform, battle_id) == before + 1
        )


async def test_a_writer_elsewhere_first_makes_the_action_go_again_on_the_new_state(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between an action's checks and its write, another process commits the next seq: the write is
    guarded by the battle's version (one statement on PostgreSQL, the ORM's counter on SQLite), so
    it writes nothing, and submit resolves the action again on the new state — both apply, once
    each, in order, and the snapshot is what the log rebuilds."""
    battle_id, ids = await setup(platform)
    real = platform.store.write
    raced: list[int] = []

    async def elsewhere_first(session, w):  # type: ignore[no-untyped-def]
        if not raced:  # "another process": its own transaction, past this process's battle lock
            raced.append(w.entry.seq)
            other = Command(
                battle_id,
                ids["bob"],
                "damage.apply",
                {"target": "hawk", "source": "crow", "amount": 1},
                aid(),
            )
            await actions._submit_once(platform, other)
        return await real(session, w)

    monkeypatch.setattr(platform.store, "write", elsewhere_first)
    mine = await actions.submit(
        platform,
        Command(
            battle_id, ids["ann"], "damage.apply", {"target": "crow", "source": "hawk", "amount": 2}, aid()
        ),
    )
    assert raced == [3] and mine.seq == 4 and not mine.duplicate
    async with platform.db.reader() as session:
        rows = (
            await session.scalars(
                select(ActionLog).where(ActionLog.battle_id == battle_id).order_by(ActionLog.seq)
            )
        ).all()
        battle = await session.get(Battle, battle_id)
        state, seq = await load_state(session, battle_id)
    assert [(r.seq, r.actor_id) for r in rows[2:]] == [(3, ids["bob"]), (4, ids["ann"])]
    assert seq == battle.seq == 4
    # what submit hands the live path is what the database holds
    assert mine.commit is not None and mine.commit.battle.version == battle.version
    assert mine.commit.row.id == rows[3].id and mine.commit.state.model_dump() == state.model_dump()
    assert (await history.rebuild(platform, battle_id)).model_dump() == state.model_dump()


async def test_a_connection_lost_at_the_write_applies_the_action_once(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database drops the connection after the checks, as the bare-driver write goes out: the
    pool forgets the connection, submit goes again once on a fresh one, and the action applies
    exactly once."""
    import asyncpg

    from app.services.store.postgres import bare_connection
    from tests.conftest import PG_ADMIN

    killed: list[int] = []

    async def drop_first(session, w):  # type: ignore[no-untyped-def]
        if not killed:
            pid = (await bare_connection(session)).get_server_pid()
            admin = await asyncpg.connect(PG_ADMIN)
            try:
                assert await admin.fetchval("SELECT pg_terminate_backend($1, 10000)", pid)
            finally:
                await admin.close()
            killed.append(pid)
        return await real(session, w)

    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        before = await log_count(platform, battle_id)
        real = platform.store.write
        monkeypatch.setattr(platform.store, "write", drop_first)
        result = await actions.submit(
            platform,
            Command(
                battle_id,
                ids["ann"],
                "damage.apply",
                {"target": "crow", "source": "hawk", "amount": 2},
                aid(),
            ),
        )
        assert killed and not result.duplicate and result.seq == before + 1
        assert await log_count(platform, battle_id) == before + 1


async def test_a_write_held_past_the_statement_timeout_is_answered_unavailable(postgres_url: str) -> None:
    """Another transaction holds the battle's row; the action's one-statement write waits until the
    statement timeout. It is answered as "the database is unavailable" (the doors' 503 with
    Retry-After), not as a fault, and nothing of it is written."""
    import asyncpg

    from app.web.middleware.errors import is_unavailable

    async with own_platform(postgres_url, statement_timeout=0.5) as platform:
        battle_id, ids = await setup(platform)
        before = await log_count(platform, battle_id)
        holder = await asyncpg.connect(postgres_url)
        try:
            hold = holder.transaction()
            await hold.start()
            await holder.execute("SELECT 1 FROM battles WHERE id = $1 FOR UPDATE", battle_id)
            with pytest.raises(Exception) as refused:
                await actions.submit(
                    platform,
                    Command(
                        battle_id,
                        ids["ann"],
                        "damage.apply",
                        {"target": "crow", "source": "hawk", "amount": 2},
                        aid(),
                    ),
                )
            assert is_unavailable(refused.value), repr(refused.value)
            await hold.rollback()
        finally:
            await holder.close()
        assert await log_count(platform, battle_id) == before
