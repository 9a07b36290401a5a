"""The hub's shared read: the referee's undo/redo preview, which reads the whole log, is
read only when a referee watches in this process; every viewer still gets what it must show."""

from __future__ import annotations

import httpx

from app.web.drawing.render import LiveViews, live_html, read_live
from tests.helpers import act, set_table, simple_ship


async def test_the_undo_preview_is_read_only_for_a_watching_referee(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    r = await act(client, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 2})
    seq = r.json()["seq"]
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    spectators_only = await read_live(db, table.battle_id, 0, watching={table.ids["watcher"]})
    assert spectators_only.history is None
    assert spectators_only.seq == seq and [row.seq for row in spectators_only.rows][-1] == seq
    for watching in ({table.ids["watcher"], table.ids["ref"]}, None):  # None: any seat may be watching
        read = await read_live(db, table.battle_id, 0, watching=watching)
        assert read.history is not None and read.history["undo"]["seq"] == seq
        html = live_html(read, read.by_id[table.ids["ref"]], 0, LiveViews().placeholder)
        assert 'id="undo-what"' in html  # the referee's frame says what Undo would take back
    spectator = spectators_only.by_id[table.ids["watcher"]]
    assert 'id="undo-what"' not in live_html(spectators_only, spectator, 0, "csrf")
