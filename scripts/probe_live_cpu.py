"""Where the live path's CPU goes: cProfile over an app served in this process.

    .venv/bin/python scripts/probe_live_cpu.py [--watchers 100] [--mix real] [--cpu | --no-profile]

Serves the app (PostgreSQL as for the tests, a database of its own, in-memory broker) with uvicorn
in this process, sets up battles with scripts/bench_live.py's `setup_tables` (`--mix real`: its
`setup_real`, the B5 Wars tables of a referee and four commanders), connects the watchers in
bench_live's watcher process (another process: not profiled), then POSTs `--actions` actions at
`--rate` a second with bench_live's `Poster` under cProfile — damage entries, or (`--mix real`)
bench_live's turn script, each battle's actions one after another — and prints the functions with
the most cumulative and own time. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import os
import pstats
import sys
import time
import traceback
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


async def probe(a: argparse.Namespace) -> None:
    import asyncpg
    import bench_live
    import uvicorn

    dbname = f"starboard_probe_{os.getpid()}"
    admin = await asyncpg.connect(bench_live.PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{dbname}"')
    await admin.close()
    url = f"{bench_live.PG_ADMIN.rsplit('/', 1)[0]}/{dbname}"
    os.environ.update(
        DATABASE_URL=url, BROADCAST_URL="memory://", SECRET_KEY="probe-secret", ALLOWED_ORIGINS=""
    )
    try:
        migrate = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "alembic",
            "upgrade",
            "head",
            cwd=ROOT,
            env=os.environ.copy(),
            stderr=asyncio.subprocess.DEVNULL,
        )
        await migrate.wait()
        from app.main import create_app
        from app.web.middleware.serving import WS_PROTOCOL

        port = bench_live.free_port()
        served = create_app()
        server = uvicorn.Server(uvicorn.Config(served, port=port, log_level="warning", ws=WS_PROTOCOL))
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        if a.mix == "real":
            tables, plan = await bench_live.setup_real(f"http://127.0.0.1:{port}", a.watchers, a.battles)
        else:
            tables, plan = await bench_live.setup_tables(f"http://127.0.0.1:{port}", a.watchers, a.battles)
        scripts = [bench_live.Script(t) for t in tables]
        last: list[asyncio.Task[None] | None] = [None] * a.battles
        watch = await bench_live.start_watchers(port, plan)
        print((await watch.stdout.readline()).decode().strip())  # type: ignore[union-attr]
        await asyncio.sleep(1)
        poster = bench_live.Poster(port)
        statements: collections.Counter[str] = collections.Counter()

        from sqlalchemy.ext.asyncio import AsyncSession

        originals = {name: getattr(AsyncSession, name) for name in ("execute", "scalars", "scalar", "get")}

        def counted(name: str):  # type: ignore[no-untyped-def]
            original = originals[name]

            def call(self, *args, **kwargs):  # type: ignore[no-untyped-def]
                where = [
                    f"{f.filename.rsplit('/app/', 1)[1]}:{f.lineno}"
                    for f in traceback.extract_stack()[:-1]
                    if "/app/" in f.filename and "site-packages" not in f.filename
                ]
                statements[" < ".join(reversed(where[-3:])) + f" ({name})"] += 1
                return original(self, *args, **kwargs)

            return call

        for name in originals:
            setattr(AsyncSession, name, counted(name))
        timed = time_functions() if a.no_profile else {}
        # --cpu: the process's CPU time per function, less shaken than wall time by a busy machine
        profile = cProfile.Profile(time.process_time) if a.cpu else cProfile.Profile()
        cpu_before = time.process_time()
        hub_before = dict(served.state.hub.stats)
        if not a.no_profile:
            profile.enable()
        tasks = []

        async def fire(i: int, prev: asyncio.Task[None] | None) -> None:
            t = tables[i % a.battles]
            if a.mix == "real":  # bench_live's turn script: a battle's actions one after another
                _, who, action_type, payload = scripts[i % a.battles].next()
                if prev is not None:
                    await asyncio.wait([prev])
            else:
                who, action_type = "ann", "damage.apply"
                payload = {"target": t.ships["crow"], "source": t.ships["hawk"], "amount": 1}
            if action_type is None:
                await poster.post(f"/api/v1/battles/{t.battle_id}/chat", {"text": payload}, t.tokens[who])
            else:
                body = {"type": action_type, "action_id": uuid.uuid4().hex, "payload": payload}
                await poster.post(f"/api/v1/battles/{t.battle_id}/actions", body, t.tokens[who])

        for i in range(a.actions):
            task = asyncio.create_task(fire(i, last[i % a.battles]))
            last[i % a.battles] = task
            tasks.append(task)
            await asyncio.sleep(1 / a.rate)
        await asyncio.gather(*tasks)
        await asyncio.sleep(1)
        profile.disable()
        cpu_ms = (time.process_time() - cpu_before) * 1000 / a.actions
        for name, original in originals.items():
            setattr(AsyncSession, name, original)
        # the server's and the poster's CPU (this process; the watchers run in another), per action
        print(f"process CPU per action: {cpu_ms:.2f} ms{'' if a.no_profile else ' (profiled)'}")
        for where, spent in timed.items():  # inclusive: a function's share holds what it calls
            print(f"{spent[0] * 1000 / a.actions:8.2f} ms/action  {spent[1] / a.actions:6.1f} calls  {where}")
        print(f"session reads per action: {sum(statements.values()) / a.actions:.1f}")
        hub_after = served.state.hub.stats  # a round's renderings (one per distinct view) and frames
        print(
            "renderings, frames per action: "
            + ", ".join(f"{(hub_after[k] - hub_before[k]) / a.actions:.1f}" for k in ("renders", "frames"))
        )
        for text, n in statements.most_common(40):
            print(f"{n / a.actions:6.2f}  {text}")
        if not a.no_profile:
            stats = pstats.Stats(profile)
            stats.sort_stats("cumulative").print_stats(a.top)
            stats.sort_stats("tottime").print_stats(a.top)
            if a.dump:
                stats.dump_stats(a.dump)
        watch.stdin.write(b"END\n")  # type: ignore[union-attr]
        watch.kill()
        await watch.wait()
        server.should_exit = True
        await serving
    finally:
        await bench_live.drop(dbname)


# What --no-profile times, unprofiled (the process's CPU around each call, what it calls included):
# a profiler's cost falls on many small Python calls (templates) and not on a few C calls (JSON,
# hashes, zlib), so it misjudges a memo against the drawing it saves.
TIMED = (
    ("app.web.drawing.render", "LiveViews.html"),
    ("app.web.drawing.render", "_context"),
    ("app.web.drawing.render", "view_data"),
    ("app.web.drawing.render", "display_values"),
    ("app.web.drawing.render", "offers_for"),
    ("app.web.drawing.render", "map_for"),
    ("app.web.drawing.render", "choices_for"),
    ("app.web.drawing.render", "render"),
    ("app.web.drawing.cards", "CardMemo.cards"),
    ("app.web.drawing.cards", "CardMemo._key"),
    ("app.web.drawing.cards", "CardMemo._drawn"),
    ("app.realtime.hub", "Drawn.frame"),
    ("app.realtime.hub", "patch"),
    ("app.realtime.hub", "Hub._push"),
)


def time_functions() -> dict[str, list[float]]:
    """Wrap each of TIMED where its callers find it; returns name → [CPU seconds, calls], filled as it
    runs."""
    import importlib

    spent: dict[str, list[float]] = {}
    for module_name, name in TIMED:
        owner: Any = importlib.import_module(module_name)
        *path, attr = name.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, attr)
        total = spent.setdefault(f"{module_name}.{name}", [0.0, 0.0])

        def timed(*args: Any, _original: Any = original, _total: list[float] = total, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                _total[0] += time.process_time() - start
                _total[1] += 1

        setattr(owner, attr, timed)
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--watchers", type=int, default=100)
    ap.add_argument("--battles", type=int, default=20)
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--top", type=int, default=60)
    ap.add_argument("--mix", choices=("damage", "real"), default="damage", help="as scripts/bench_live.py's")
    ap.add_argument("--dump", help="write the profile here too (pstats format)")
    ap.add_argument(
        "--cpu", action="store_true", help="time functions by the process's CPU time, not the clock"
    )
    ap.add_argument("--no-profile", action="store_true", help="only the process's CPU per action, unprofiled")
    a = ap.parse_args()
    asyncio.run(probe(a))


if __name__ == "__main__":
    main()
