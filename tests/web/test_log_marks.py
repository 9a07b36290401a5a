"""The log says what undo and rewind took back: each entry no longer in effect is marked in words
("Taken back by #N (rewind)") on a page and in a live frame — the frame updates the marks of the
entries a viewer already holds — and a redo takes the mark away. The history entry says where the
battle's clock went back to."""

from __future__ import annotations

import re

import httpx

from app.services.history.replay import TakenBackWalk
from app.services.reading.live_log import LiveLogs
from app.web.drawing.render import live_html, read_live, regions_of
from tests.helpers import session_cookie, set_table, ship_def
from tests.web.test_startrek_rest import ok


async def page(c: httpx.AsyncClient, token: str, battle_id: str) -> str:
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as browser:
        browser.cookies.set("starboard_session", await session_cookie(c, token))
        return (await browser.get(f"/battles/{battle_id}")).text


def marks(html: str) -> dict[int, str]:
    """seq → the words of its mark, for every entry marked taken back."""
    return {
        int(seq): re.sub(r"<[^>]+>", "", words)
        for seq, words in re.findall(r'<p class="log-mark" id="log-mark-(\d+)">(.*?)</p>', html)
    }


def test_the_walk_marks_what_undo_and_rewind_took_back_and_a_redo_puts_back() -> None:
    walk = TakenBackWalk()
    for seq in range(1, 6):
        assert walk.add(seq, "clock.advance", {}) == set()
    assert walk.add(6, "battle.undo", {"_to_seq": 4, "_undoes": 5, "reason": "x"}) == {5}
    assert walk.add(7, "battle.rewind", {"to_seq": 2, "reason": "x"}) == {3, 4}
    assert {s: (t.by, t.how) for s, t in walk.taken.items()} == {
        5: (6, "undo"),
        3: (7, "rewind"),
        4: (7, "rewind"),
    }
    walk.add(8, "clock.advance", {})
    # a rewind back to a point where 3 and 4 were in effect puts them back; 8 is taken back
    assert walk.add(9, "battle.rewind", {"to_seq": 4, "reason": "x"}) == {3, 4, 8}
    assert {s: (t.by, t.how) for s, t in walk.taken.items()} == {5: (6, "undo"), 8: (9, "rewind")}
    walk.add(10, "battle.undo", {"_to_seq": 3, "_undoes": 4, "reason": "x"})
    assert walk.add(11, "battle.redo", {"_to_seq": 4, "reason": ""}) == {4}
    assert 4 not in walk.taken


async def test_undo_rewind_and_redo_mark_the_log_on_the_page_and_live(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"ex": (ship_def("excelsior"), "ann")})
    ex = table.ships["ex"]
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    kept = LiveLogs()
    watcher = table.ids["watcher"]
    first = (await ok(client, table, "ref", "clock.advance"))["seq"]
    moved = (
        await ok(
            client,
            table,
            "ann",
            "ship.move",
            {"ship": ex, "position": {"hex": "0101", "facing": 1, "speed": 0}},
        )
    )["seq"]
    second = (await ok(client, table, "ref", "clock.advance"))["seq"]
    await read_live(db, table.battle_id, 0, watching={watcher}, logs=kept)
    assert marks(await page(client, table.tokens["watcher"], table.battle_id)) == {}

    rewind = (await ok(client, table, "ref", "battle.rewind", {"to_seq": first, "reason": "wrong step"}))[
        "seq"
    ]
    read = await read_live(db, table.battle_id, second, watching={watcher}, logs=kept)
    frame = live_html(read, read.by_id[watcher], second, "c")
    # the frame marks the entries the viewer holds, each as its own region sent once
    updates = {name: html for name, html in regions_of(frame) if "log-mark" in name}
    assert set(updates) == {f"+#log-mark-{moved}", f"+#log-mark-{second}"}
    assert marks(frame) == {
        moved: f"↶ Taken back by #{rewind} (rewind)",
        second: f"↶ Taken back by #{rewind} (rewind)",
    }
    # and the rewind entry says where the clock went back to
    entry = frame.split(f'id="log-{rewind}"')[1].split("</li>")[0]
    assert re.search(rf'<span class="log-back">← back to [^<]+ \(after #{first}\)</span>', entry)
    shown = await page(client, table.tokens["ann"], table.battle_id)
    assert marks(shown) == marks(frame)
    assert f'id="log-mark-{first}" hidden' in shown

    undo = (await ok(client, table, "ref", "battle.undo", {"reason": "not that either"}))["seq"]
    read = await read_live(db, table.battle_id, rewind, watching={watcher}, logs=kept)
    frame = live_html(read, read.by_id[watcher], rewind, "c")
    assert marks(frame) == {first: f"↶ Taken back by #{undo} (undo)"}
    redo = (await ok(client, table, "ref", "battle.redo", {}))["seq"]
    read = await read_live(db, table.battle_id, undo, watching={watcher}, logs=kept)
    frame = live_html(read, read.by_id[watcher], undo, "c")
    assert f'<p class="log-mark" id="log-mark-{first}" hidden></p>' in frame  # the redo takes it away
    assert "→ on to" in frame.split(f'id="log-{redo}"')[1]
    # a viewer who missed all of it gets the whole log marked as a page shows it
    read = await read_live(db, table.battle_id, 0, watching={watcher}, logs=kept)
    assert (
        marks(live_html(read, read.by_id[watcher], 0, "c"))
        == marks(await page(client, table.tokens["watcher"], table.battle_id))
        == {moved: f"↶ Taken back by #{rewind} (rewind)", second: f"↶ Taken back by #{rewind} (rewind)"}
    )
