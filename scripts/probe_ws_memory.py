"""What an idle websocket holds in the app: tracemalloc in a server run in this process.

    .venv/bin/python scripts/probe_ws_memory.py [--watchers 200]

Runs the app (SQLite in var/, in-memory broker) with uvicorn in this process under
``tracemalloc.start(25)``, sets up one battle with scripts/bench_live.py's `setup_tables`
(`--mix real`: `--battles` B5 Wars tables of its `setup_real`, a referee and four commanders
each), connects ``--watchers`` viewers with bench_live's watcher process (scripts/benchkit.py's
raw client, in a separate process so its allocations are not counted), waits until every hello's
round is done, and prints the allocations that grew, grouped by traceback, per socket. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def probe(a: argparse.Namespace) -> None:
    import bench_live
    import uvicorn

    (ROOT / "var").mkdir(exist_ok=True)  # a fresh clone has none
    db = Path(tempfile.mkdtemp(dir=ROOT / "var")) / "probe.db"
    os.environ.update(
        DATABASE_URL=f"sqlite+aiosqlite:///{db}",
        BROADCAST_URL="memory://",
        SECRET_KEY="probe-secret",
        ALLOWED_ORIGINS="",
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "alembic", "upgrade", "head", cwd=ROOT, env=os.environ.copy()
    )
    await proc.wait()
    from app.main import create_app
    from app.web.middleware.serving import WS_PROTOCOL

    port = _free_port()
    app = create_app()
    config = uvicorn.Config(app, port=port, log_level="warning", ws=WS_PROTOCOL, ws_max_size=65536)
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.05)
    if a.mix == "real":  # bench_live's B5 Wars tables: a referee and four commanders, each a view
        _, plan = await bench_live.setup_real(f"http://127.0.0.1:{port}", a.watchers, a.battles)
    else:
        _, plan = await bench_live.setup_tables(f"http://127.0.0.1:{port}", a.watchers, 1)
    await asyncio.sleep(1)
    gc.collect()
    # The snapshot taken before is kept on disk, not in the heap the second one measures, so
    # nothing has to be filtered out of it (filtering millions of traces took minutes).
    saved = Path(tempfile.mkdtemp(dir=ROOT / "var")) / "before.snapshot"
    tracemalloc.take_snapshot().dump(str(saved))
    gc.collect()
    watch = await bench_live.start_watchers(port, plan)
    line = await asyncio.wait_for(watch.stdout.readline(), 60)  # type: ignore[union-attr]
    print(line.decode().strip())
    hub = app.state.hub
    for _ in range(600):  # every hello's round done (a hello at the page's own seq is sent no frame)
        await asyncio.sleep(0.5)
        if not hub._rounds:
            break
    await asyncio.sleep(2)
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    diff = after.compare_to(tracemalloc.Snapshot.load(str(saved)), "traceback")
    total = sum(d.size_diff for d in diff)
    print(f"python heap grew {total / 1024:.0f} KiB: {total / a.watchers / 1024:.1f} KiB a socket")
    for name, key in (("filename", lambda f: (f.filename, 0)), ("lineno", lambda f: (f.filename, f.lineno))):
        grown: dict[tuple[str, int], int] = {}
        for d in diff:
            at = key(d.traceback[-1])  # the innermost frame: where the block was allocated
            grown[at] = grown.get(at, 0) + d.size_diff
        print(f"\nby {name}:")
        for (filename, lineno), size in sorted(grown.items(), key=lambda kv: -kv[1])[: a.top]:
            print(f"{size / a.watchers:8.0f} B/socket  {filename.replace(str(ROOT), '.')}:{lineno}")
    print("\nby traceback:")
    for d in diff[: a.top]:
        if d.size_diff <= 0:
            continue
        print(f"\n{d.size_diff / a.watchers:8.0f} B/socket  {d.count_diff / a.watchers:6.1f} blocks/socket")
        for frame in list(d.traceback)[-a.depth :]:
            print(f"    {frame.filename.replace(str(ROOT), '.')}:{frame.lineno}")
    watch.kill()
    await watch.wait()
    server.should_exit = True
    await serving


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--watchers", type=int, default=200)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--mix", choices=("damage", "real"), default="damage", help="as scripts/bench_live.py's")
    ap.add_argument("--battles", type=int, default=20, help="--mix real: the battles the watchers share")
    ap.add_argument("--depth", type=int, default=8, help="frames of each traceback shown (innermost last)")
    a = ap.parse_args()
    tracemalloc.start(25)
    asyncio.run(probe(a))


if __name__ == "__main__":
    main()
