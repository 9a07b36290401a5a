"""Honest undo and redo: undo always steps back over one more real action — never over an
undo, redo or rewind — and redo puts back what was undone, only while nothing else happened since.
Every step is a logged action, so the log rebuilds the snapshot exactly (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from app.services.errors import Invalid
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.store.battles import load_state
from app.services.write import actions
from app.services.write.actions import Command
from tests.service.test_submit import aid, setup


async def hit(platform: Platform, battle_id: str, ids: dict[str, str], amount: int) -> int:
    payload = {"target": "crow", "source": "hawk", "amount": amount}
    return (
        await actions.submit(platform, Command(battle_id, ids["ann"], "damage.apply", payload, aid()))
    ).seq


async def ref(platform: Platform, battle_id: str, ids: dict[str, str], type_: str, payload: dict) -> str:
    result = await actions.submit(platform, Command(battle_id, ids["ref"], type_, payload, aid()))
    return result.events[0]["text"]


async def structure(platform: Platform, battle_id: str) -> int:
    async with platform.db.reader() as session:
        state, _ = await load_state(session, battle_id)
    assert (await history.rebuild(platform, battle_id)) == state  # the log rebuilds the snapshot
    return state.ships["crow"].parts["sheet"]["sections"][0]["structure"]


async def test_undo_twice_steps_back_two_real_actions_and_redo_twice_restores_them(
    platform: Platform,
) -> None:
    battle_id, ids = await setup(platform)  # seq 1, 2: the two ships
    assert await hit(platform, battle_id, ids, 5) == 3
    assert await hit(platform, battle_id, ids, 7) == 4
    assert await structure(platform, battle_id) == 28  # 40 − 5 − 7 (no armour on the primary)
    assert await ref(platform, battle_id, ids, "battle.undo", {"reason": "second hit mistaken"}) == (
        "⚠ UNDO (Referee): action 4 (damage.apply) is undone — “second hit mistaken”"
    )
    assert await structure(platform, battle_id) == 35
    # Undoing again takes back the first hit (action 3), not the undo (action 5).
    assert await ref(platform, battle_id, ids, "battle.undo", {"reason": "first hit too"}) == (
        "⚠ UNDO (Referee): action 3 (damage.apply) is undone — “first hit too”"
    )
    assert await structure(platform, battle_id) == 40
    async with platform.db.reader() as session:
        shown = await history.preview(session, battle_id)
    assert shown["undo"]["seq"] == 2 and shown["undo"]["line"] == "#2 Crow (Test frigate) joins the battle."
    assert shown["redo"]["seq"] == 3 and shown["redo"]["line"].startswith("#3 Hawk hits Crow for 5")
    # Redo puts them back, the latest undone first.
    assert await ref(platform, battle_id, ids, "battle.redo", {}) == (
        "⚠ REDO (Referee): action 3 (damage.apply) is restored"
    )
    assert await structure(platform, battle_id) == 35
    assert await ref(platform, battle_id, ids, "battle.redo", {"reason": "it was right"}) == (
        "⚠ REDO (Referee): action 4 (damage.apply) is restored — “it was right”"
    )
    assert await structure(platform, battle_id) == 28
    with pytest.raises(Invalid, match="nothing to redo"):
        await ref(platform, battle_id, ids, "battle.redo", {})
    # Undo after a redo takes back the redone action 4 again.
    assert "action 4 (damage.apply) is undone" in await ref(
        platform, battle_id, ids, "battle.undo", {"reason": "no, really"}
    )
    assert await structure(platform, battle_id) == 35


async def test_an_action_after_an_undo_clears_redo(platform: Platform) -> None:
    battle_id, ids = await setup(platform)
    await hit(platform, battle_id, ids, 5)
    await hit(platform, battle_id, ids, 7)
    await ref(platform, battle_id, ids, "battle.undo", {"reason": "mistaken"})
    assert await hit(platform, battle_id, ids, 2) == 6
    assert await structure(platform, battle_id) == 33
    with pytest.raises(Invalid, match="nothing to redo") as refused:
        await ref(platform, battle_id, ids, "battle.redo", {})
    assert refused.value.field == "battle"
    assert await structure(platform, battle_id) == 33
    # The next undo takes back the new hit (6), then the first (3): the undone 4 stays undone.
    assert "action 6 (damage.apply)" in await ref(
        platform, battle_id, ids, "battle.undo", {"reason": "a" * 3}
    )
    assert "action 3 (damage.apply)" in await ref(
        platform, battle_id, ids, "battle.undo", {"reason": "b" * 3}
    )
    assert await structure(platform, battle_id) == 40


async def test_rewind_names_its_point_clears_redo_and_undo_then_steps_back_from_there(
    platform: Platform,
) -> None:
    battle_id, ids = await setup(platform)
    await hit(platform, battle_id, ids, 5)  # 3
    await hit(platform, battle_id, ids, 7)  # 4
    await ref(platform, battle_id, ids, "battle.undo", {"reason": "mistaken"})  # 5
    text = await ref(platform, battle_id, ids, "battle.rewind", {"to_seq": 3, "reason": "back to the first"})
    assert text.startswith("⚠ REWIND (Referee): back to action 3 (after #3 Hawk hits Crow for 5")
    assert text.endswith("— “back to the first”")
    assert await structure(platform, battle_id) == 35
    with pytest.raises(Invalid, match="nothing to redo"):
        await ref(platform, battle_id, ids, "battle.redo", {})
    assert "action 3 (damage.apply) is undone" in await ref(
        platform, battle_id, ids, "battle.undo", {"reason": "and that"}
    )
    assert await structure(platform, battle_id) == 40
    for _ in range(2):  # the two ships
        await ref(platform, battle_id, ids, "battle.undo", {"reason": "ships"})
    with pytest.raises(Invalid, match="nothing to undo"):
        await ref(platform, battle_id, ids, "battle.undo", {"reason": "more"})
    async with platform.db.reader() as session:
        state, _ = await load_state(session, battle_id)
    assert state.ships == {}


async def test_a_rebuild_that_returns_twice_to_one_point_finds_it_as_it_was(platform: Platform) -> None:
    """The log's replay changes a state in place only when no later row returns to it: two rewinds
    to the same action, each followed by a hit, rebuild to the snapshot (40 − 5 − 2 = 33)."""
    battle_id, ids = await setup(platform)  # seq 1, 2: the two ships
    assert await hit(platform, battle_id, ids, 5) == 3
    await hit(platform, battle_id, ids, 7)  # seq 4
    await ref(platform, battle_id, ids, "battle.rewind", {"to_seq": 3, "reason": "wrong arc"})  # seq 5
    await hit(platform, battle_id, ids, 1)  # seq 6
    await ref(platform, battle_id, ids, "battle.rewind", {"to_seq": 3, "reason": "wrong again"})  # seq 7
    assert await hit(platform, battle_id, ids, 2) == 8
    assert await structure(platform, battle_id) == 33  # `structure` checks rebuild == snapshot
