"""Data that does not grow for ever: finished battles older than a configured age are written out
as battle files (docs/battle-file.md: every action, every die, the revealed seed — never a token)
and, when asked, removed from the database. From the file, `python -m app.cli verify` checks every
die, and `python -m app.cli import` (or the import page) brings the battle back to read its report.

A battle is removed only after its file has been written, read back and found to hold the whole
log (one transaction per battle; its seats, log, snapshot, chat and the rest go with it)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from sqlalchemy import delete, select

from app.models import Battle, now
from app.services.history.battlefile import export_battle
from app.services.platform import Platform


@dataclass(frozen=True)
class Archived:
    battle_id: str
    path: Path
    actions: int
    removed: bool


async def archive_finished(
    platform: Platform, older_than: timedelta, to: Path, remove: bool
) -> list[Archived]:
    """Write every battle finished and untouched for `older_than` to `to/<id>.json`; with
    `remove`, delete each from the database once its file is safely written."""
    to.mkdir(parents=True, exist_ok=True)
    cutoff = now() - older_than
    async with platform.db.reader() as session:
        ids = list(
            await session.scalars(
                select(Battle.id)
                .where(Battle.status == "finished", Battle.updated_at < cutoff)
                .order_by(Battle.id)
            )
        )
    done: list[Archived] = []
    for battle_id in ids:
        async with platform.db.reader() as session:
            battle = await session.get(Battle, battle_id)
            if battle is None or battle.status != "finished":
                continue
            data = await export_battle(session, battle)
        path = to / f"{battle_id}.json"
        _write(path, data)
        kept = json.loads(path.read_text(encoding="utf-8"))
        whole = len(kept["log"]) == data["battle"]["seq"] and kept["battle"]["seed"] is not None
        if remove and not whole:
            raise RuntimeError(f"{path} does not hold the whole battle; {battle_id} was kept")
        if remove:
            async with platform.db.transaction() as session:
                await session.execute(
                    delete(Battle).where(Battle.id == battle_id, Battle.seq == data["battle"]["seq"])
                )
            platform.states.forget(battle_id)
        done.append(Archived(battle_id, path, len(kept["log"]), remove))
    return done


def _write(path: Path, data: dict) -> None:
    """Written whole or not at all: to a temporary name, flushed to disk, then renamed."""
    temporary = path.with_suffix(".json.part")
    with temporary.open("w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False, indent=1)
        out.flush()
        os.fsync(out.fileno())
    temporary.replace(path)
