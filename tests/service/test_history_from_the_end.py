"""History read from the log's end gives exactly what the whole log's walk gives, so a long battle's
undo and recent log cost what a short one's do: undo's and redo's targets (`replay.history_tops`
against `replay.stacks`) and which of the shown entries were taken back (`replay.taken_back` from
the first entry shown against the walk from the start), on random logs of real actions, undos,
redos, rewinds, overrides (the ⚑ markers in effect, `standing` against `marks_in`) and undos logged
before undo was honest, longer than the window read at a time, on
SQLite and PostgreSQL."""

from __future__ import annotations

import random
import uuid
from typing import Any

from sqlalchemy import delete

from app.models import ActionLog
from app.services.history import replay
from app.services.platform import Platform
from app.services.reading.overrides import OVERRIDE, is_special, marks_in, standing
from app.services.store.battles import create_battle


def random_log(rng: random.Random, length: int, undos: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """A log the service could have written: each undo takes back what is in effect, each redo puts
    back what may be redone, each rewind goes to an earlier row; then `undos` undos in a row."""
    rows: list[tuple[int, str, dict[str, Any]]] = []
    for seq in range(1, length + undos + 1):
        now = replay.stacks([_Row(s, k, p) for s, k, p in rows])
        roll = 0.0 if seq > length else rng.random()
        if roll < 0.2 and now.in_effect:
            undone = now.in_effect[-1]
            rows.append((seq, replay.UNDO, {"reason": "r", "_to_seq": undone - 1, "_undoes": undone}))
        elif roll < 0.3 and now.redoable:
            rows.append((seq, replay.REDO, {"reason": "r", "_to_seq": now.redoable[-1]}))
        elif roll < 0.35 and seq > 1:
            rows.append((seq, replay.REWIND, {"reason": "r", "to_seq": rng.randrange(0, seq - 1)}))
        elif roll < 0.37 and now.in_effect:  # an undo from before undo was honest: clears redo
            rows.append((seq, replay.UNDO, {"reason": "r", "_to_seq": now.in_effect[-1] - 1}))
        elif roll < 0.45:
            rows.append((seq, OVERRIDE, {"path": f"ships.crow.p{rng.randrange(3)}"}))
        else:
            rows.append((seq, "clock.advance", {}))
    return [(k, p) for _, k, p in rows]


def events_of(seq: int, kind: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    """An override row's event, as the log keeps it (what the ⚑ markers read)."""
    if kind != OVERRIDE:
        return []
    data = {"path": payload["path"], "new": seq, "old": 0, "reason": "r"}
    return [{"kind": "override", "text": "set", "data": data}]


class _Row:
    def __init__(self, seq: int, action_type: str, payload: dict[str, Any]) -> None:
        self.seq, self.action_type, self.payload = seq, action_type, payload


async def test_the_tops_from_the_logs_end_equal_the_whole_walk_on_random_logs(platform: Platform) -> None:
    rng = random.Random(20261205)
    async with platform.db.transaction() as session:
        battle, _ = await create_battle(session, "tops", "sfb")
        battle_id = battle.id
    checked = with_marks = 0
    for trial in range(40):
        # every fourth ends in a run of undos longer than the window read at a time
        log = random_log(rng, rng.choice([1, 5, 63, 64, 65, 130, 200]), 70 if trial % 4 == 0 else 0)
        async with platform.db.transaction() as session:
            await session.execute(delete(ActionLog).where(ActionLog.battle_id == battle_id))
            session.add_all(
                ActionLog(
                    battle_id=battle_id,
                    seq=seq,
                    action_id=uuid.uuid4().hex,
                    actor_role="referee",
                    action_type=kind,
                    payload=payload,
                    dice=[],
                    events=events_of(seq, kind, payload),
                )
                for seq, (kind, payload) in enumerate(log, start=1)
            )
        whole = replay.stacks([_Row(seq, k, p) for seq, (k, p) in enumerate(log, start=1)])
        async with platform.db.reader() as session:
            tops = await replay.history_tops(session, battle_id)
        walk = replay.TakenBackWalk()
        for seq, (kind, payload) in enumerate(log, start=1):
            walk.add(seq, kind, payload)
        async with platform.db.reader() as session:
            for since in {0, len(log) // 2, max(0, len(log) - 10), len(log) - 1}:
                shown = await replay.taken_back(session, battle_id, len(log), since)
                assert shown == {s: t for s, t in walk.taken.items() if s > since}, (trial, since)
            marks = await standing(session, battle_id)
        kinds = [(seq, k) for seq, (k, _) in enumerate(log, start=1)]
        details = {seq: (p, events_of(seq, k, p)) for seq, (k, p) in enumerate(log, start=1) if is_special(k)}
        assert sorted(marks, key=lambda m: m.path) == sorted(marks_in(kinds, details), key=lambda m: m.path)
        assert tops == replay.Tops(
            undo=whole.in_effect[-1] if whole.in_effect else None,
            redo=whole.redoable[-1] if whole.redoable else None,
            last=len(log),
        ), (trial, log[-5:])
        checked += 1
        with_marks += bool(marks)
    assert checked == 40 and with_marks > 10


async def test_an_empty_log_has_nothing_to_undo_or_redo(platform: Platform) -> None:
    async with platform.db.transaction() as session:
        battle, _ = await create_battle(session, "empty", "sfb")
    async with platform.db.reader() as session:
        assert await replay.history_tops(session, battle.id) == replay.Tops(None, None, 0)
