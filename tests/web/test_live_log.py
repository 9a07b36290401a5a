"""The live path keeps each watched battle's log readings (the map's rows, the ⚑ markers, when the
step began) and extends them with the new rows only. What a round reads that way must
be what a read of the whole log gives, after every kind of action — moves, damage, an override, an
undo, a clock move — and a viewer further behind than the kept rows still gets every entry."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import event

from app.db import Database
from app.services import bus
from app.services.bus import ActionCommitted
from app.services.errors import NotFound
from app.services.history.replay import preview
from app.services.reading import live_log
from app.services.reading.live_log import LiveLogs
from app.services.reading.maps import map_rows
from app.services.reading.overrides import standing
from app.services.reading.views import step_began
from app.services.store.seats import aware
from app.services.table import notify
from app.web.drawing.render import LiveRead, live_html, read_live
from tests.helpers import act, set_table, ship_def
from tests.web.test_startrek_rest import ok

FORE = "ships.{}.parts.shields.projections.0.current"


async def settled() -> None:
    await bus.settle()
    await notify.drain()


def readings(read: LiveRead) -> tuple:
    return (
        [r.seq for r in read.moves],
        [(m.seq, m.path, m.value) for m in read.marks],
        aware(read.step_since),
    )


async def from_the_whole_log(db: Database, battle_id: str, seq: int) -> tuple:
    """The same readings as a page makes them: each from the whole log in the database."""
    async with db.reader() as session:
        return (
            [r.seq for r in await map_rows(session, battle_id, seq)],
            [(m.seq, m.path, m.value) for m in await standing(session, battle_id, until=seq)],
            aware(await step_began(session, battle_id, seq)),
        )


async def page_preview(db: Database, battle_id: str) -> dict:
    """The referee's undo/redo preview as the page reads it (from the log in the database)."""
    async with db.reader() as session:
        return await preview(session, battle_id)


async def test_kept_log_readings_match_a_whole_log_read_after_each_action(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_log, "RECENT", 3)  # so a viewer soon falls behind the kept rows
    monkeypatch.setattr(live_log, "REWIND_POINTS", 2)  # so Undo and Redo soon name an unkept line
    table = await set_table(
        client, ships={"ex": (ship_def("excelsior"), "ann"), "sh": (ship_def("shadow-cruiser"), "bob")}
    )
    ex, sh = table.ships["ex"], table.ships["sh"]
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    kept = LiveLogs()
    watcher, ref = table.ids["watcher"], table.ids["ref"]
    start = (await read_live(db, table.battle_id, 0, watching={watcher}, logs=kept)).seq
    steps = [
        ("ann", "ship.move", {"ship": ex, "position": {"hex": "0101", "facing": 1, "speed": 0}}),
        ("bob", "ship.move", {"ship": sh, "position": {"hex": "0305", "facing": 4, "speed": 0}}),
        ("ann", "damage.apply", {"target": sh, "source": ex, "amount": 3}),
        ("ref", "override.set", {"path": FORE.format(ex), "value": 20, "reason": "scenario start"}),
        ("ref", "clock.advance", {}),
        ("ann", "ship.move", {"ship": ex, "position": {"hex": "0202", "facing": 2, "speed": 0}}),
        ("ref", "battle.undo", {"reason": "moved the wrong ship"}),
        ("ref", "override.set", {"path": FORE.format(ex), "value": 18, "reason": "second look"}),
        ("ref", "battle.undo", {"reason": "the first was right"}),
        ("ref", "battle.undo", {"reason": "and the one before"}),
        ("ref", "battle.redo", {}),
        ("ref", "battle.rewind", {"to_seq": 2, "reason": "start the turn again"}),
        ("ann", "damage.apply", {"target": sh, "source": ex, "amount": 1}),
        ("ref", "battle.undo", {"reason": "not yet"}),
    ]
    marks_seen, clocks = set(), set()
    previews: list[dict] = []
    for who, kind, payload in steps:
        seq = (await ok(client, table, who, kind, payload))["seq"]
        # a round for viewers at the previous seq, through the kept readings and from scratch
        live = await read_live(db, table.battle_id, seq - 1, watching={watcher}, logs=kept)
        whole = await read_live(db, table.battle_id, seq - 1, watching={watcher}, logs=LiveLogs())
        assert live.seq == seq and [r.seq for r in live.rows] == [seq]
        assert readings(live) == readings(whole) == await from_the_whole_log(db, table.battle_id, seq), kind
        clocks.add(live.step_since)
        marks_seen.add(tuple((m.seq, m.value) for m in live.marks))
        spectator = live.by_id[watcher]
        assert live_html(live, spectator, seq - 1, "c") == live_html(whole, spectator, seq - 1, "c")
        # the referee's preview, from the kept walk and lines, is the page's (read from the log)
        kept_preview = (await read_live(db, table.battle_id, seq, watching={ref}, logs=kept)).history
        assert kept_preview == await page_preview(db, table.battle_id), kind
        previews.append(kept_preview)
    # the overrides came and went with the undo: the kept marks followed them
    assert any(marks_seen) and len(marks_seen) >= 3
    assert None in clocks and len(clocks) == 2  # the step began at the start, then at the clock move
    # Undo and Redo named rows, some older than the kept lines; the rewind cleared what Redo had
    assert {p["undo"]["seq"] for p in previews if p["undo"]} and any(p["redo"] for p in previews)
    assert previews[-1]["redo"] is not None and previews[-2]["redo"] is None
    # a viewer who has everything up to `start` only, now well behind the 3 kept rows
    behind = await read_live(db, table.battle_id, start, watching={watcher}, logs=kept)
    assert [r.seq for r in behind.rows] == list(range(start + 1, behind.seq + 1))
    # one far behind and one up to date in the same round: the frame rows start at the oldest
    mixed = await read_live(db, table.battle_id, behind.seq - 2, watching={watcher}, logs=kept)
    assert [r.seq for r in mixed.rows] == [behind.seq - 1, behind.seq]


async def test_a_round_reads_up_to_its_snapshot_and_no_drafts_where_the_game_has_none(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(client, ships={"ex": (ship_def("excelsior"), "ann")})
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    r = await act(
        client, table, "ann", "damage.apply", {"target": table.ships["ex"], "amount": 1, "direction": "fore"}
    )
    assert r.status_code == 200, r.text
    read = await read_live(db, table.battle_id, 0, logs=LiveLogs())
    assert read.rows[-1].seq == read.seq and read.drafts == []
    with pytest.raises(NotFound):
        await read_live(db, "no-such-battle", 0, logs=LiveLogs())


async def test_a_round_after_a_local_action_reads_nothing_back_and_draws_the_same(
    client: httpx.AsyncClient,
) -> None:
    """The process that committed hands its commit to the live path: a round at that seq runs no
    SQL statement at all — the referee's undo/redo preview included — and draws what a read of the
    database draws."""
    table = await set_table(
        client, ships={"ex": (ship_def("excelsior"), "ann"), "sh": (ship_def("shadow-cruiser"), "bob")}
    )
    ex, sh = table.ships["ex"], table.ships["sh"]
    platform = client.app.state.platform  # type: ignore[attr-defined]
    db = platform.db
    kept = LiveLogs()

    def keep(done: ActionCommitted) -> None:
        kept.committed(done.commit)

    platform.bus.on(ActionCommitted, keep)
    statements: list[str] = []

    def count(conn, cursor, statement, *args) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    watcher = table.ids["watcher"]
    watching = {watcher, table.ids["ref"]}
    try:
        first = await read_live(db, table.battle_id, 0, watching=watching, logs=kept, wanted=None)
        event.listen(db.engine.sync_engine, "before_cursor_execute", count)
        moves = [
            ("ann", "ship.move", {"ship": ex, "position": {"hex": "0101", "facing": 1, "speed": 0}}),
            ("ann", "damage.apply", {"target": sh, "source": ex, "amount": 2, "direction": "fore"}),
            ("ref", "override.set", {"path": FORE.format(ex), "value": 20, "reason": "scenario start"}),
            ("ref", "clock.advance", {}),
        ]
        seq = first.seq
        for who, kind, payload in moves:
            seq = (await ok(client, table, who, kind, payload))["seq"]
            await settled()  # the action's own background work (last seen) is not the round's
            statements.clear()
            live = await read_live(db, table.battle_id, seq - 1, watching=watching, logs=kept, wanted=seq)
            assert statements == [], (kind, statements)  # nothing read back
            fresh = await read_live(db, table.battle_id, seq - 1, watching=watching, logs=LiveLogs())
            assert statements, kind  # the comparison did read the database
            assert live.seq == fresh.seq == seq and [r.seq for r in live.rows] == [seq]
            assert readings(live) == readings(fresh) and live.history == fresh.history, kind
            assert live.history is not None and live.history["undo"]["seq"] == seq
            spectator = live.by_id[watcher]
            assert live_html(live, spectator, seq - 1, "c") == live_html(fresh, spectator, seq - 1, "c"), kind
        # a seq heard of from elsewhere (newer than this process's commit) is read from the database
        statements.clear()
        newer = await read_live(db, table.battle_id, seq - 1, watching={watcher}, logs=kept, wanted=seq + 1)
        assert newer.seq == seq and statements
        # a seat change (the hub's refresh count moves) reads the seats again
        statements.clear()
        await read_live(db, table.battle_id, seq, watching={watcher}, logs=kept, wanted=seq, seats_version=1)
        assert any("FROM participants" in s for s in statements)
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", count)
        platform.bus.off(ActionCommitted, keep)


def test_the_map_keeps_only_rows_that_place_a_ship() -> None:
    """Drawing the map walks the rows whose events it reads — a move, a cloak, a reveal (ST-24) —
    not every damage row: a battle of many hits costs its moves, not its length."""
    from app.models import ActionLog

    def row(seq: int, kind: str, *events: str) -> ActionLog:
        return ActionLog(
            battle_id="b",
            seq=seq,
            action_id=str(seq),
            actor_role="player",
            action_type=kind,
            clock="T1 I1",
            payload={},
            dice=[],
            events=[{"kind": e, "text": e} for e in events],
        )

    log = live_log.BattleLog()
    log.extend(
        [
            row(1, "ship.move", "move"),
            *(row(seq, "damage.apply", "damage") for seq in range(2, 50)),
            row(50, "damage.apply", "damage", "cloak_revealed"),
            row(51, "startrek.cloak", "cloak"),
        ]
    )
    assert [r.seq for r in log.moves] == [1, 50, 51] and log.last == 51
    # what the map keeps of a row is its map events: the damage beside the reveal is not kept
    assert [e["kind"] for e in log.moves[1].events] == ["cloak_revealed"]


def test_a_watched_battle_lets_go_of_the_rows_its_viewers_are_past() -> None:
    """The whole rows kept for frames are those after the oldest viewer's seq: a battle watched for
    hours holds its last moves, not its set-up — a `ship.add` row carries a ship's whole definition."""
    from app.models import ActionLog

    def row(seq: int) -> ActionLog:
        return ActionLog(
            battle_id="b",
            seq=seq,
            action_id=str(seq),
            actor_role="player",
            action_type="ship.add",
            clock="T1 I1",
            payload={"ship": {"name": "a ship's whole definition"}},
            dice=[],
            events=[],
        )

    log = live_log.BattleLog()
    log.extend([row(seq) for seq in range(1, 101)])
    assert [r.seq for r in log.recent] == list(range(1, 101))
    log.trim(90)
    assert [r.seq for r in log.recent] == list(range(91, 101))
    assert [r.seq for r in log.rows_after(95) or []] == [96, 97, 98, 99, 100]
    assert log.rows_after(89) is None  # from further back: read from the database
    log.trim(100)
    assert not log.recent and log.rows_after(100) == []  # every viewer up to date
    assert log.kinds[0] == (1, "ship.add") and log.last == 100  # the readings still cover the whole log
