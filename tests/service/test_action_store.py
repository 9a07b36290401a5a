"""The hand-read rows of the action path (app/services/store/action_store.py): built as SQLAlchemy's own
loading builds them, and usable as ORM objects — in a fresh process too, where nothing has used the
ORM yet (a server's first request may be a REST action)."""

from __future__ import annotations

import subprocess
import sys

from sqlalchemy import inspect

from app.models import Battle
from app.services.store.action_store import BATTLE_COLUMNS, loaded
from tests.conftest import ROOT

ROW = {f"b_{c}": None for c in BATTLE_COLUMNS} | {
    "b_id": "b1",
    "b_seq": 4,
    "b_version": 2,
    "b_status": "active",
}


def test_a_loaded_row_reads_as_loaded_and_is_in_no_session() -> None:
    battle = loaded(Battle, BATTLE_COLUMNS, ROW, "b_")
    assert (battle.id, battle.seq, battle.version, battle.status) == ("b1", 4, 2, "active")
    state = inspect(battle)
    assert state.transient and not state.modified  # nothing to write back by itself
    battle.seq = 5
    assert battle.seq == 5 and state.modified


def test_a_fresh_process_builds_one_before_any_other_orm_use() -> None:
    code = (
        "from app.models import Battle\n"
        "from app.services.store.action_store import BATTLE_COLUMNS, loaded\n"
        "b = loaded(Battle, BATTLE_COLUMNS, {c: None for c in BATTLE_COLUMNS} | {'seq': 7})\n"
        "print(b.seq)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "7"
