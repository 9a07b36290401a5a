"""The floor of "action → every watcher updated": per action only the work the app cannot avoid,
measured with the same trigger, watcher client and arithmetic as the app (scripts/benchkit.py), so
scripts/bench_live.py can report the app as a ratio of it (docs/benchmarks.md).

    .venv/bin/python scripts/bench_floor.py --watchers 100 --battles 20 --rate 20 --seconds 20 \
        [--payload 3000] [--pg postgresql://postgres@127.0.0.1:5432/DB]

Per action, in one server process (asyncio, pinned to the first CPU), nothing else:
  1. one bare asyncpg transaction: BEGIN; INSERT a log row with a unique (battle, seq); UPDATE that
     battle's snapshot row; COMMIT (the tables live in a schema of their own, dropped at the end);
  2. a bare ``websockets`` broadcast of one text frame ``{"content": "<…>", "seq": N}`` of about
     ``--payload`` bytes (the app's frames have this shape; bench_live passes the size of its own)
     to every watcher of that battle.
No HTTP, ORM, templates, authorisation or per-viewer rendering; no compression, no keepalive pings.

Method (the same as bench_live's): the trigger driver (its own process, on the other CPU) writes
"i\\n" to a pipe the server reads at t0 + i/rate; action i goes to battle i % battles as that
battle's next seq; each action is a task of its own. Latency counts from the scheduled time (a
stall shows as latency, not fewer samples); the first --warmup seconds are run but not counted.
The watchers (benchkit's minimal RFC 6455 client, one process on the other CPU) watch battle
k % battles, open ``/battles/<id>/ws`` and say hello as they would to the app.
Metrics (ms, p50/p90/p99/max): ``commit`` scheduled → COMMIT acknowledged; ``e2e`` scheduled → the
last watcher of that battle has the frame; CPU ms per action of the server process and of its
PostgreSQL backends (/proc, over the whole schedule, divided by all actions); server RSS per idle
socket (after every watcher said hello, minus before, divided by the watchers).
Without ``--pg`` it creates a database of its own (PostgreSQL as for the tests: STARBOARD_TEST_PG,
default postgresql://postgres@127.0.0.1:5432/test) and drops it. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchkit  # noqa: E402

PG_ADMIN = os.environ.get("STARBOARD_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def fragment(size: int, battle: int, seq: int) -> str:
    """An HTML-like fragment framed as the app frames its own, about `size` bytes in all."""
    head = f'<hx-partial hx-target="#log-{battle}"><li class="entry" data-seq="{seq}">'
    tail = "</li></hx-partial>"
    body = "Hawk hits Crow for 1 (fore): 1 to armour. " * max(1, (size - len(head) - len(tail) - 40) // 42)
    return json.dumps({"content": head + body + tail, "seq": seq})


# -- the server process ------------------------------------------------------------------------------


async def serve(a: argparse.Namespace) -> None:
    """The floor server: websockets + asyncpg in one event loop; see the module's docstring."""
    import asyncpg
    from websockets.asyncio.server import broadcast
    from websockets.asyncio.server import serve as ws_serve

    benchkit.raise_nofile()
    schema = a._schema
    battles = [f"b{k:04d}" for k in range(a.battles)]
    watching: dict[str, set[Any]] = {b: set() for b in battles}
    pool: asyncio.Queue[Any] = asyncio.Queue()
    for _ in range(a.pool):
        conn = await asyncpg.connect(a.pg, server_settings={"search_path": schema})
        pool.put_nowait(conn)

    async def handler(ws: Any) -> None:
        path = ws.request.path  # /battles/<id>/ws
        battle = path.split("/")[2] if path.count("/") >= 3 else ""
        if battle not in watching:
            await ws.close(1008, "no such battle")
            return
        await ws.recv()  # the hello
        watching[battle].add(ws)
        try:
            await ws.wait_closed()
        finally:
            watching[battle].discard(ws)

    loop = asyncio.get_running_loop()
    async with ws_serve(
        handler, "127.0.0.1", 0, compression=None, ping_interval=None, max_size=2**16
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"LISTENING {port}", flush=True)
        line = await loop.run_in_executor(None, sys.stdin.readline)  # "GO t0 n"
        _, t0s, ns = line.split()
        t0, n = float(t0s), int(ns)
        seqs = dict.fromkeys(battles, 0)
        commits: dict[int, list[Any]] = {}
        errors: list[str] = []
        tasks: set[asyncio.Task[None]] = set()
        payload_size = a.payload

        async def action(i: int) -> None:
            sched = t0 + i / a.rate
            battle = battles[i % len(battles)]
            seqs[battle] += 1
            seq = seqs[battle]
            conn = await pool.get()
            try:
                async with conn.transaction():
                    await conn.execute(
                        "INSERT INTO action_log (battle, seq, body) VALUES ($1, $2, $3)",
                        battle,
                        seq,
                        '{"type": "damage.apply", "payload": {"target": "crow", "amount": 1}}',
                    )
                    await conn.execute(
                        "UPDATE snapshot SET seq = $2, state = $3 WHERE battle = $1",
                        battle,
                        seq,
                        f"state {seq}",
                    )
            except Exception as exc:
                errors.append(repr(exc)[:200])
                return
            finally:
                pool.put_nowait(conn)
            committed = benchkit.monotonic()
            broadcast(watching[battle], fragment(payload_size, i % len(battles), seq))
            commits[i] = [sched, committed, battle, seq]

        reader = asyncio.StreamReader()
        driver = subprocess.Popen(
            benchkit.driver_command(a.rate, n, t0, [int(c) for c in a._driver_cpus.split(",") if c]),
            stdout=subprocess.PIPE,
        )
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), driver.stdout
        )
        try:
            while (got := await reader.readline()) and not got.startswith(b"DONE"):
                task = loop.create_task(action(int(got)))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            if tasks:
                await asyncio.wait(tasks, timeout=a.drain)
        finally:
            transport.close()
            with contextlib.suppress(ProcessLookupError):
                driver.kill()
            driver.wait()
        await asyncio.sleep(a.drain)
        print(
            "RESULT " + json.dumps({"commits": commits, "errors": errors}, separators=(",", ":")), flush=True
        )
        await loop.run_in_executor(None, sys.stdin.readline)  # "STOP"
    while not pool.empty():
        await (await pool.get()).close()


# -- the coordinator -------------------------------------------------------------------------------


async def backend_pids(pg: str, dbname: str) -> list[int]:
    import asyncpg

    conn = await asyncpg.connect(pg)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", dbname
        )
        return [r["pid"] for r in rows]
    finally:
        await conn.close()


def pg_cpu(pids: list[int]) -> float:
    return sum(c for c in (benchkit.cpu_seconds_pid(p) for p in pids) if c is not None)


async def run(a: argparse.Namespace) -> dict[str, Any]:
    import asyncpg

    srv_cpus, cli_cpus = benchkit.cpu_plan(not a.no_pin)
    benchkit.pin(cli_cpus)
    own_db = not a.pg
    base = PG_ADMIN.rsplit("/", 1)[0]
    dbname = f"starboard_floor_{os.getpid()}" if own_db else a.pg.rsplit("/", 1)[1].split("?")[0]
    pg = f"{base}/{dbname}" if own_db else a.pg
    schema = f"floor_bench_{os.getpid()}_{secrets.token_hex(3)}"
    if own_db:
        admin = await asyncpg.connect(PG_ADMIN)
        await admin.execute(f'CREATE DATABASE "{dbname}"')
        await admin.close()
    setup = await asyncpg.connect(pg)
    server = None
    watchers = None
    try:
        await setup.execute(f"""
            CREATE SCHEMA "{schema}";
            CREATE TABLE "{schema}".action_log (
                id bigserial PRIMARY KEY, battle text NOT NULL, seq bigint NOT NULL, body text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (battle, seq));
            CREATE TABLE "{schema}".snapshot (battle text PRIMARY KEY, seq bigint NOT NULL, state text NOT NULL);
        """)
        await setup.executemany(
            f'INSERT INTO "{schema}".snapshot VALUES ($1, 0, $2)',
            [(f"b{k:04d}", "state 0") for k in range(a.battles)],
        )
        server = await asyncio.create_subprocess_exec(
            sys.executable,
            str(Path(__file__).resolve()),
            "--_serve",
            "--_schema",
            schema,
            "--_driver_cpus",
            ",".join(map(str, cli_cpus)),
            "--pg",
            pg,
            "--battles",
            str(a.battles),
            "--rate",
            str(a.rate),
            "--payload",
            str(a.payload),
            "--pool",
            str(a.pool),
            "--drain",
            str(a.drain),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**28,
            preexec_fn=(lambda: os.sched_setaffinity(0, set(srv_cpus))) if srv_cpus else None,
        )
        line = await asyncio.wait_for(server.stdout.readline(), 30)  # type: ignore[union-attr]
        if not line.startswith(b"LISTENING"):
            raise SystemExit(f"the floor server did not start: {line!r}")
        port = int(line.split()[1])
        plan = [
            {
                "port": port,
                "path": f"/battles/b{k % a.battles:04d}/ws",
                "hello": json.dumps({"type": "hello", "seq": 0}),
            }
            for k in range(a.watchers)
        ]
        meta = [{"battle": f"b{k % a.battles:04d}", "role": "watcher"} for k in range(a.watchers)]
        await asyncio.sleep(0.5)
        rss0 = benchkit.rss_of(server.pid)
        watchers = await benchkit.Watchers.start(plan, cli_cpus)
        await asyncio.sleep(2)  # every hello read, idle
        rss1 = benchkit.rss_of(server.pid)
        n = int(a.rate * (a.warmup + a.seconds))
        t0 = benchkit.monotonic() + 1.0
        pids0 = await backend_pids(PG_ADMIN, dbname)
        pg0 = pg_cpu(pids0)
        cpu0 = benchkit.cpu_seconds_pid(server.pid) or 0.0
        server.stdin.write(f"GO {t0!r} {n}\n".encode())  # type: ignore[union-attr]
        await server.stdin.drain()  # type: ignore[union-attr]
        line = await asyncio.wait_for(server.stdout.readline(), n / a.rate + 120)  # type: ignore[union-attr]
        cpu1 = benchkit.cpu_seconds_pid(server.pid) or 0.0
        pg1 = pg_cpu(await backend_pids(PG_ADMIN, dbname))
        result = json.loads(line[len(b"RESULT ") :])
        got = await watchers.finish()
        server.stdin.write(b"STOP\n")  # type: ignore[union-attr]
        await server.stdin.drain()  # type: ignore[union-attr]
        await asyncio.wait_for(server.wait(), 30)
        measured_from = t0 + a.warmup
        actions = {
            int(i): {"sched": c[0], "battle": c[2], "seq": c[3], "kind": "floor"}
            for i, c in result["commits"].items()
        }
        commit = [(c[1] - c[0]) * 1000 for c in result["commits"].values() if c[0] >= measured_from]
        seen = benchkit.delivered(actions, meta, got["frames"], measured_from)
        return {
            "watchers": a.watchers,
            "battles": a.battles,
            "rate": a.rate,
            "seconds": a.seconds,
            "payload": a.payload,
            "actions": n,
            "errors": n - len(result["commits"]),  # failed or unfinished
            "error_kinds": sorted(set(result["errors"]))[:5],
            "missing_deliveries": seen["missing_deliveries"],
            "watchers_lost": got["lost"],
            "commit_ms": benchkit.pct(commit),
            "e2e_ms": seen["e2e_ms"],
            "cpu_ms_per_action": {
                "server": (cpu1 - cpu0) * 1000 / n,
                "pg": (pg1 - pg0) * 1000 / n,
                "watchers": got["cpu_s"] * 1000 / n,
            },
            "bytes_per_frame": seen["bytes_per_frame"],
            "frames": seen["frames"],
            "mem_per_idle_socket_kib": (rss1 - rss0) / max(1, a.watchers) / 1024,
        }
    finally:
        if watchers is not None:
            watchers.kill()
        if server is not None and server.returncode is None:
            server.kill()
            await server.wait()
        with contextlib.suppress(Exception):
            await setup.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await setup.close()
        if own_db:
            admin = await asyncpg.connect(PG_ADMIN)
            await admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
            await admin.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg", default="", help="a database to use (a schema of its own); default: a new one")
    ap.add_argument("--watchers", type=int, default=100)
    ap.add_argument("--battles", type=int, default=20)
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--drain", type=float, default=3.0)
    ap.add_argument("--payload", type=int, default=3000, help="bytes of each pushed frame (about)")
    ap.add_argument("--pool", type=int, default=8, help="asyncpg connections")
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--_serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--_schema", default="", help=argparse.SUPPRESS)
    ap.add_argument("--_driver_cpus", default="", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a._serve:
        asyncio.run(serve(a))
        return
    r = asyncio.run(run(a))
    print(
        f"floor: W={a.watchers} battles={a.battles} rate={a.rate}/s, {a.seconds:g} s measured, "
        f"{r['bytes_per_frame']:.0f} bytes a frame"
    )
    print(f"  commit  ms p50/p90/p99/max: {benchkit.fmt(r['commit_ms'])}")
    print(f"  e2e     ms p50/p90/p99/max: {benchkit.fmt(r['e2e_ms'])}")
    cpu = r["cpu_ms_per_action"]
    print(
        f"  CPU ms/action server {cpu['server']:.2f}, PostgreSQL {cpu['pg']:.2f}, watchers {cpu['watchers']:.2f}"
    )
    print(
        f"  memory per idle socket {r['mem_per_idle_socket_kib']:.1f} KiB; errors {r['errors']}, "
        f"missing {r['missing_deliveries']}, watchers lost {r['watchers_lost']}"
    )
    print(json.dumps(r, separators=(",", ":")))


if __name__ == "__main__":
    main()
