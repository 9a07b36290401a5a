"""The end's frame, per viewer: the seed only once the battle has ended, the entries the end opens
(a cloaked ship's moves, ST-22) drawn again for those who held them hidden — with the end's own
visibility, so a referee-only line stays the referee's — and the move form taken away."""

from __future__ import annotations

import httpx

from app.services.reading.live_log import LiveLogs
from app.web.drawing.render import live_html, read_live, regions_of
from tests.helpers import set_table, ship_def
from tests.web.test_startrek_rest import ok
from tests.web.test_startrek_ws import has

SECRET = "0912"


async def test_the_end_frame_opens_what_the_end_opens_and_nothing_before(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client,
        players=("kirk", "tomalak"),
        ships={
            "excelsior": (ship_def("excelsior"), "kirk"),
            "warbird": (ship_def("romulan-warbird"), "tomalak"),
        },
    )
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    await ok(client, table, "ref", "clock.advance")  # → Movement
    await ok(
        client, table, "kirk", "ship.move", {"ship": "excelsior", "position": {"hex": "0505", "facing": 1}}
    )
    await ok(
        client, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": "0306", "facing": 2}}
    )
    for _ in range(2):
        await ok(client, table, "ref", "clock.advance")
    await ok(client, table, "tomalak", "startrek.cloak", {"ship": "haakona"})
    for _ in range(2):
        await ok(client, table, "ref", "clock.advance")
    pos = {"hex": SECRET, "facing": 2, "speed": 6}
    moved = (await ok(client, table, "tomalak", "ship.move", {"ship": "haakona", "position": pos}))["seq"]
    secret = (await ok(client, table, "ref", "startrek.set_signature", {"ship": "haakona", "signature": 37}))[
        "seq"
    ]
    kept = LiveLogs()
    read = await read_live(db, table.battle_id, 0, logs=kept)
    seed = read.battle.seed
    before = {who: live_html(read, read.by_id[table.ids[who]], 0, "c") for who in ("kirk", "watcher")}
    for who, frame in before.items():
        assert seed not in frame and not has(frame, SECRET) and "Seed (revealed)" not in frame, who
        assert "The dice check (opens at the end)" in frame, who
    end = (await ok(client, table, "ref", "battle.end", {}))["seq"]
    read = await read_live(db, table.battle_id, secret, logs=kept)
    for who in ("kirk", "watcher"):
        frame = live_html(read, read.by_id[table.ids[who]], secret, "c")
        regions = dict(regions_of(frame))
        assert seed in regions["#fairness"] and "Check every die in your browser" in regions["#fairness"], who
        assert "Haakona (cloaked) moves: hex 0912" in regions[f"+#log-{moved}"], who
        assert f"+#log-{secret}" not in regions and "signature" not in frame, who  # the referee's line
        assert regions["#map-move"].strip().endswith('<div id="map-move"></div></hx-partial>'), who
        # a viewer who already has the end gets none of it again
        later = live_html(read, read.by_id[table.ids[who]], end, "c")
        assert f"#log-{moved}" not in later, who
