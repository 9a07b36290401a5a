"""The map's share of a live frame, measured (never asserted):
`.venv/bin/python scripts/bench_map.py`.

A B5 Wars battle with 20 ships on the map (one of them cloaked, with a hidden path) in a SQLite file
under var/. For one player it times, as the hub does per seq: the shared read (`read_live`), the
whole frame rendered for that viewer (`live_html`, the map included), and the map alone (its model
from the view and the log rows, then its board and status partials). Prints medians in ms and the
map's share of the frame.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.db import Database  # noqa: E402
from app.realtime.broker import Broker  # noqa: E402
from app.rules.geometry import Hex, printed  # noqa: E402
from app.services.bootstrap import build_platform  # noqa: E402
from app.services.library.samples import definition  # noqa: E402
from app.services.platform import Platform  # noqa: E402
from app.services.reading.maps import map_for, map_rows  # noqa: E402
from app.services.reading.views import view_data, viewer_of, with_drafts  # noqa: E402
from app.services.store.battles import add_participant, create_battle  # noqa: E402
from app.services.write import actions  # noqa: E402
from app.services.write.actions import Command  # noqa: E402
from app.web.drawing.render import live_html, read_live, render  # noqa: E402
from tests.conftest import migrate, settings_for  # noqa: E402

SHIPS = 20
ROUNDS = 200
FLEET = ("excelsior", "shadow-cruiser", "new-orleans", "federation-heavy-cruiser", "galaxy-class")


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def battle(platform: Platform) -> tuple[str, str, str]:
    """20 ships placed over a 30×20 area, the last a Romulan warbird that cloaks and moves twice."""
    async with platform.db.transaction() as session:
        made, referee = await create_battle(session, "Bench: 20 ships on the map", "b5wars")
        players = [await add_participant(session, made, f"P{i}", "player") for i in range(4)]
    ref = referee.participant.id

    async def do(who: str, kind: str, payload: dict) -> dict:
        result = await actions.submit(platform, Command(made.id, who, kind, payload, uuid.uuid4().hex))
        return result.events[0] if result.events else {}

    ids = []
    for i in range(SHIPS):
        slug = "romulan-warbird" if i == SHIPS - 1 else FLEET[i % len(FLEET)]
        owner = players[i % len(players)].participant.id
        event = await do(ref, "ship.add", {"definition": definition(slug), "owner": owner})
        ids.append(event["ship"])
    await do(ref, "clock.advance", {})  # → Movement
    for i, sid in enumerate(ids):
        where = printed(Hex(2 + (i % 5) * 6, 2 + (i // 5) * 4))
        await do(ref, "ship.move", {"ship": sid, "position": {"hex": where, "facing": 1 + i % 6, "speed": 4}})
    for _ in range(2):
        await do(ref, "clock.advance", {})  # → Adjust Ship Systems
    await do(ref, "startrek.cloak", {"ship": ids[-1]})
    for _ in range(2):
        await do(ref, "clock.advance", {})  # → turn 2 Movement
    for hex_ in ("1210", "1311"):
        await do(ref, "ship.move", {"ship": ids[-1], "position": {"hex": hex_, "facing": 2}})
    return made.id, players[0].participant.id, ids[0]


async def main() -> None:
    path = ROOT / "var" / "bench_map.sqlite"
    path.parent.mkdir(exist_ok=True)
    path.unlink(missing_ok=True)
    url = f"sqlite+aiosqlite:///{path}"
    migrate(url)
    db = Database(url)
    platform = build_platform(settings=settings_for(url), db=db, broker=Broker())
    try:
        battle_id, player, _ = await battle(platform)
        reads, frames, maps, queries = [], [], [], []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            read = await read_live(db, battle_id, since=0)
            reads.append(time.perf_counter() - start)
            async with db.snapshot_reader() as session:
                start = time.perf_counter()
                await map_rows(session, battle_id, read.seq)
                queries.append(time.perf_counter() - start)
            me = read.by_id[player]
            start = time.perf_counter()
            live_html(read, me, read.seq - 1, "csrf")
            frames.append(time.perf_counter() - start)
            viewer = viewer_of(me, read.state)
            state = with_drafts(read.state, read.drafts, viewer)
            data = view_data(read.battle, state, read.seq, me, viewer, read.people)
            start = time.perf_counter()
            model = map_for(data["state"], read.moves, viewer, False)
            context = {"map": model, "seq": read.seq, "movers": []}
            render("partials/map_board.html", context) + render("partials/map_status.html", context)
            maps.append(time.perf_counter() - start)
        shown = len(model["counters"]) if model else 0
        print(
            f"{SHIPS} ships ({shown} counters shown to this player, {len(model['ghosts'])} ghost), {ROUNDS} rounds"
        )
        print(f"shared read (read_live, once per seq):  {median_ms(reads):7.2f} ms")
        print(f"  of which the map's log rows (map_rows): {median_ms(queries):7.2f} ms")
        print(f"frame for one viewer (live_html):       {median_ms(frames):7.2f} ms")
        print(f"  of which the map (model + SVG):       {median_ms(maps):7.2f} ms")
        print(f"map / frame: {median_ms(maps) / median_ms(frames):.0%}")
        whole = median_ms(reads) + median_ms(frames)
        print(
            f"map (rows + model + SVG) / (read + frame): {(median_ms(queries) + median_ms(maps)) / whole:.0%}"
        )
    finally:
        await db.dispose()


if __name__ == "__main__":
    asyncio.run(main())
