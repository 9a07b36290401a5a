"""History at a bounded cost, measured (never asserted): a long battle's pages and history tools.

    PYTHONPATH=. .venv/bin/python scripts/bench_history.py [--actions 10000] [--db postgres|sqlite]
                                                           [--rounds 5]

Plays the Shadow demo (SFB impulses) for `--actions` actions through the service — the clock moved
impulse by impulse, a 1-point hit every hundredth (the ships last the whole battle) — on a fresh database (PostgreSQL: a database
of its own on STARBOARD_TEST_PG, default 127.0.0.1:5432, dropped at the end), then times, through
the app's own doors (in process, httpx over ASGI), the median of `--rounds` requests each:

* the state at seq n/2 and at the last seq (`replay.state_at`);
* a player's battle page, the replay page at seq n/2, the battle report (REST, a player);
* the audit (a full rebuild compared with the snapshot);
* undo (the referee's, REST) — each round undoes one more action.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.db import Database  # noqa: E402
from app.demo import create_demos  # noqa: E402
from app.main import create_app  # noqa: E402
from app.realtime.broker import Broker  # noqa: E402
from app.services.bootstrap import build_platform  # noqa: E402
from app.services.errors import ServiceError  # noqa: E402
from app.services.history import replay  # noqa: E402
from app.services.platform import Platform  # noqa: E402
from app.services.store.battles import get_battle, participants  # noqa: E402
from app.services.write import actions  # noqa: E402
from app.services.write.actions import Command  # noqa: E402
from tests.conftest import _pg_admin, _pg_url, migrate, settings_for  # noqa: E402


def database(kind: str) -> tuple[str, Callable[[], None]]:
    """A fresh database URL and how to drop it."""
    if kind == "sqlite":
        import tempfile

        return f"sqlite:///{tempfile.mkdtemp()}/history.db", lambda: None
    name = f"starboard_history_{os.getpid()}"
    asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    return _pg_url(name), lambda: asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def fill(url: str, n: int) -> tuple[str, dict[str, str]]:
    """The demo battle played for n actions; its id and each seat's token."""
    db = Database(url)
    platform = build_platform(settings=settings_for(url), db=db, broker=Broker())
    demo = (await create_demos(platform, "http://bench"))[0]
    async with db.reader() as session:
        seats = {p.name: p for p in await participants(session, demo["id"])}
    started = time.perf_counter()
    for done in range(n):
        who, kind, payload = "Referee", "clock.advance", {}
        if done % 100 == 0:
            target, source = (
                ("federation-heavy-cruiser", "shadow-cruiser")
                if done % 200
                else ("shadow-cruiser", "federation-heavy-cruiser")
            )
            kind, payload = "damage.apply", {"target": target, "source": source, "amount": 1}
        try:
            await actions.submit(
                platform, Command(demo["id"], seats[who].id, kind, payload, uuid.uuid4().hex)
            )
        except ServiceError as exc:
            print("refused:", exc.message)
        if done and done % 1000 == 0:
            print(f"  {done} actions ({time.perf_counter() - started:.0f} s)", flush=True)
    await db.dispose()
    tokens = {name: link.rsplit("#", 1)[1] for name, link in demo["links"].items()}
    return demo["id"], tokens


async def timed(rounds: int, call: Callable[[], Awaitable[Any]]) -> float:
    """The median of `rounds` calls, in ms (one warm-up call first)."""
    await call()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        await call()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


async def measure(url: str, battle_id: str, tokens: dict[str, str], rounds: int) -> dict[str, float]:
    app = create_app(settings_for(url))
    figures: dict[str, float] = {}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as c:
            platform: Platform = app.state.platform
            ref = {"Authorization": f"Bearer {tokens['Referee']}"}
            kirk = {"Authorization": f"Bearer {tokens['Kirk']}"}
            seq = (await c.get(f"/api/v1/battles/{battle_id}", headers=ref)).json()["seq"]
            half = seq // 2

            async def state(at: int) -> None:
                async with platform.db.reader() as session:
                    battle = await get_battle(session, battle_id)
                    await replay.state_at(session, battle, at, platform.rules)

            figures[f"state at seq {half}"] = await timed(rounds, lambda: state(half))
            figures[f"state at seq {seq}"] = await timed(rounds, lambda: state(seq))
            cookie = (await c.get(f"/join/{tokens['Kirk']}", follow_redirects=False)).cookies[
                "starboard_session"
            ]
            page = {"Cookie": f"starboard_session={cookie}"}
            figures["player's page"] = await timed(rounds, lambda: ok_get(c, f"/battles/{battle_id}", page))
            figures[f"replay page at seq {half}"] = await timed(
                rounds, lambda: ok_get(c, f"/battles/{battle_id}/replay?seq={half}", page)
            )
            figures["report (REST, a player)"] = await timed(
                rounds, lambda: ok_get(c, f"/api/v1/battles/{battle_id}/report", kirk)
            )
            figures["audit"] = await timed(
                rounds, lambda: ok_get(c, f"/api/v1/battles/{battle_id}/audit", ref)
            )

            async def undo() -> None:
                body = {"type": "battle.undo", "payload": {"reason": "bench"}, "action_id": uuid.uuid4().hex}
                r = await c.post(f"/api/v1/battles/{battle_id}/actions", json=body, headers=ref)
                assert r.status_code in (200, 201), (r.status_code, r.text[:300])

            figures["undo (REST)"] = await timed(rounds, undo)
    return figures


async def ok_get(c: httpx.AsyncClient, path: str, headers: dict[str, str]) -> httpx.Response:
    r = await c.get(path, headers=headers)
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--actions", type=int, default=10_000)
    ap.add_argument("--db", choices=("postgres", "sqlite"), default="postgres")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--keep", metavar="FILE", help="keep the database; write its URL, battle and tokens to FILE"
    )
    ap.add_argument("--reuse", metavar="FILE", help="measure again the battle a --keep run wrote to FILE")
    a = ap.parse_args()
    if a.reuse:
        kept = json.loads(Path(a.reuse).read_text())
        url, battle_id, tokens, drop = kept["url"], kept["battle"], kept["tokens"], lambda: None
    else:
        url, drop = database(a.db)
        battle_id, tokens = "", {}
    try:
        if not a.reuse:
            migrate(url)
            print(f"filling {a.actions} actions on {a.db}…", flush=True)
            battle_id, tokens = asyncio.run(fill(url, a.actions))
        figures = asyncio.run(measure(url, battle_id, tokens, a.rounds))
        for what, ms in figures.items():
            print(f"{what:32s} {ms:9.1f} ms (median of {a.rounds})")
    finally:
        if a.keep:
            Path(a.keep).write_text(json.dumps({"url": url, "battle": battle_id, "tokens": tokens}))
        elif not a.reuse:
            drop()


if __name__ == "__main__":
    main()
