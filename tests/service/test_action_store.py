"""The action store (app/services/store/): one protocol, its database chosen once when the platform
is built, statements written with named parameters — and the write path itself knows no database."""

from __future__ import annotations

import ast

import pytest

from app.config import Settings
from app.db import Database
from app.realtime.broker import Broker
from app.services.kept import Kept
from app.services.platform import Platform
from app.services.store.postgres import WRITE, PostgresActionStore, Statement
from app.services.store.sqlite import SqliteActionStore
from tests.conftest import ROOT


def test_named_parameters_compile_to_positions_once_each() -> None:
    stmt = Statement.of("SELECT :a, :b::jsonb, :a FROM t WHERE x = :b AND y = 'x::text'")
    assert stmt.sql == "SELECT $1, $2::jsonb, $1 FROM t WHERE x = $2 AND y = 'x::text'"
    assert stmt.args({"b": 2, "a": 1}) == [1, 2]


def test_a_missing_or_unknown_parameter_is_refused_not_sent_in_the_wrong_place() -> None:
    stmt = Statement.of("SELECT :a, :b")
    with pytest.raises(KeyError):
        stmt.args({"a": 1})
    with pytest.raises(TypeError, match="unknown"):
        stmt.args({"a": 1, "b": 2, "c": 3})


def test_the_write_names_every_value_it_takes() -> None:
    assert set(WRITE.names) == {
        *("battle_id", "version", "seq", "turn", "step", "status", "at", "state"),
        *(
            "action_id",
            "actor_id",
            "actor_role",
            "action_type",
            "clock",
            "payload",
            "dice",
            "events",
            "request_id",
        ),
        *("token_hash", "options_read", "options", "no_drafts"),
    }


@pytest.mark.parametrize(
    ("url", "store"),
    [("sqlite:///unused.db", SqliteActionStore), ("postgresql://u@127.0.0.1:1/unused", PostgresActionStore)],
)
def test_the_store_is_chosen_once_for_the_database(url: str, store: type) -> None:
    platform = Platform(settings=Settings(database_url=url), db=Database(url), broker=Broker())
    assert type(platform.store) is store


def test_kept_rows_are_copies_in_no_session() -> None:
    from sqlalchemy import inspect

    from app.models import Battle

    kept_battle = Battle(id="b1", name="x", system="sfb", status="active", seq=4, version=2)
    kept = Kept(version=2, seq=4, state=None, battle=kept_battle)  # type: ignore[arg-type]
    rows = PostgresActionStore().from_kept(kept)
    assert rows is not None
    battle, snap = rows
    assert battle is not kept_battle and (battle.id, battle.seq, battle.version) == ("b1", 4, 2)
    assert inspect(battle).transient and snap.state is None and snap.seq == 4
    battle.seq = 5
    assert kept_battle.seq == 4  # live frames draw the kept one: a write never changes it
    assert SqliteActionStore().from_kept(kept) is None  # the ORM's rows are read by each action


def test_the_write_path_names_no_database() -> None:
    """The services hold no branch on the database: only the store's implementations do."""
    for path in (ROOT / "app" / "services").rglob("*.py"):
        if path.name in ("postgres.py", "sqlite.py", "platform.py"):
            continue
        text = path.read_text()
        assert "driver_of" not in text and "asyncpg" not in text, path
        imported = {
            node.module
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.ImportFrom) and node.module is not None
        }
        assert not imported & {"app.services.store.postgres", "app.services.store.sqlite"}, path
