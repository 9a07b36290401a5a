"""The battle report's request time on a long battle, measured (never asserted):
`PYTHONPATH=. .venv/bin/python scripts/bench_report.py [actions]`.

Plays the Shadow demo (SFB impulses) for `actions` actions — the clock moved impulse by impulse,
a 1-point hit every third action — on a fresh SQLite file, then times `battle_report` for a player
and the referee: the first request after the last action, and the same request again."""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.db import Database  # noqa: E402
from app.demo import create_demos  # noqa: E402
from app.realtime.broker import Broker  # noqa: E402
from app.services.bootstrap import build_platform  # noqa: E402
from app.services.errors import ServiceError  # noqa: E402
from app.services.reading.report import battle_report  # noqa: E402
from app.services.store.battles import get_battle, participants  # noqa: E402
from app.services.write import actions  # noqa: E402
from app.services.write.actions import Command  # noqa: E402
from tests.conftest import migrate, settings_for  # noqa: E402


async def main(n: int) -> None:
    url = f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    migrate(url)
    db = Database(url)
    platform = build_platform(settings=settings_for(url), db=db, broker=Broker())
    demo = (await create_demos(platform, "http://bench"))[0]
    async with db.reader() as session:
        seats = {p.name: p for p in await participants(session, demo["id"])}
    done = 0
    while done < n:
        who, kind, payload = "Referee", "clock.advance", {}
        if done % 3 == 0:
            target, source = (
                ("federation-heavy-cruiser", "shadow-cruiser")
                if done % 2
                else ("shadow-cruiser", "federation-heavy-cruiser")
            )
            who, kind, payload = "Referee", "damage.apply", {"target": target, "source": source, "amount": 1}
        try:
            await actions.submit(
                platform, Command(demo["id"], seats[who].id, kind, payload, uuid.uuid4().hex)
            )
        except ServiceError as exc:
            print("refused:", exc.message)
        done += 1
    async with db.reader() as session:
        battle = await get_battle(session, demo["id"])
        print(f"{battle.seq} actions, turn {battle.turn}")
        for name in ("Kirk", "Referee"):
            times = []
            for _ in range(3):
                t = time.perf_counter()
                report = await battle_report(session, battle, seats[name], platform.rules)
                times.append(time.perf_counter() - t)
            print(
                f"{name}: first {times[0] * 1000:.0f} ms, again {statistics.median(times[1:]) * 1000:.2f} ms "
                f"({len(report.turns)} turns)"
            )
    await db.dispose()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 600))
