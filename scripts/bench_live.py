"""Live-path benchmark: "action → every watcher updated" through the real app, measured the way
the shared floor tool measures its bare minimum, so the two can be run side by side and compared
as a ratio (read docs/benchmarks.md first).

    .venv/bin/python scripts/bench_live.py --floor /path/to/floor.py \
        --watchers 100 --battles 20 --rate 20 --seconds 20 [--with-floor] [--app-root DIR]

What it does (all on this machine; PostgreSQL as for the tests, user postgres, trust):
  * creates a database of its own (starboard_bench_<pid>), migrates it, starts one uvicorn process
    of the app (``--app-root``: another checkout, e.g. an older commit, for before/after figures)
    pinned to the first CPU, and sets up ``--battles`` battles over REST (a player with a ship, a
    target ship, spectator seats);
  * watchers: ``--watchers`` websocket viewers in a separate process pinned to the other CPU(s),
    watcher k on battle k % battles, each a spectator that says hello with its seq. They use the
    floor tool's minimal RFC 6455 client (imported from ``--floor``; nothing of it is copied here),
    told only the app's path, cookie and hello; a frame is timestamped when its bytes reach the
    watcher's event loop, and counts for every seq up to the seq it carries;
  * trigger: the floor tool's own trigger driver (same process layout: its own process, other CPU)
    writes action i at t0 + i/rate; this process then POSTs a ``damage.apply`` to battle
    i % battles over a kept-alive HTTP connection. Open loop: every latency counts from the
    *scheduled* time, so a stall shows as latency, not as fewer samples; the first ``--warmup``
    seconds are run but not counted.
  * metrics (ms, p50/p90/p99/max): ``answer`` scheduled → HTTP answer received (the app's commit
    plus HTTP); ``e2e`` scheduled → the last watcher of that battle has a frame with that seq;
    CPU ms per action of the app process and of its PostgreSQL backends (/proc); bytes per pushed
    frame (content frames, as received); server RSS per idle websocket (after all watchers said
    hello, minus before, divided by watchers).
  * ``--with-floor`` runs the floor tool with the same watchers/battles/rate/seconds right after, on
    the same database, and prints app/floor ratios of the p50/p90 figures.
Nothing is asserted: these are measurements. The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time
import types
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

monotonic = time.monotonic
PG_ADMIN = os.environ.get("STARBOARD_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("STARBOARD_TEST_REDIS", "redis://127.0.0.1:6379/0")


def load_floor(path: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("floor_tool", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the floor tool from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ws_protocol_of(app_root: Path) -> str:
    """The websocket protocol that checkout's own servers run (its app/web/middleware/serving.py says), so an
    older checkout is measured as it ran; "websockets-sansio" before it said."""
    import re

    found = None
    for serving in (app_root / "app" / "web" / "middleware" / "serving.py", app_root / "app" / "web" / "serving.py"):
        if serving.exists():
            found = re.search(r'^WS_PROTOCOL = "([^"]+)"', serving.read_text(), re.M)
            break
    return found.group(1) if found else "websockets-sansio"


def pct(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    s = sorted(values)

    def at(p: float) -> float:
        return s[min(len(s) - 1, max(0, int(-(-p * len(s) // 100)) - 1))]

    return {"p50": at(50), "p90": at(90), "p99": at(99), "max": s[-1], "n": len(s)}


def fmt(d: dict[str, float]) -> str:
    return " / ".join(f"{d[k]:.2f}" for k in ("p50", "p90", "p99", "max")) if d else "–"


# --------------------------------------------------------------------------------------------
# watcher process: the floor's raw client, pointed at the app
# --------------------------------------------------------------------------------------------


def _masked_text(payload: bytes) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    head = bytes((0x81, 0x80 | n)) if n < 126 else bytes((0x81, 0x80 | 126)) + n.to_bytes(2, "big")
    return head + mask + bytes(c ^ mask[i & 3] for i, c in enumerate(payload))


def watcher_class(floor: types.ModuleType):  # type: ignore[no-untyped-def]
    class AppWatcher(floor.RawWatcher):
        """The floor's RawWatcher with the app's path, cookie and hello; frames recorded by seq."""

        def __init__(self, log: list, battle_id: str, cookie: str, port: int, seq: int) -> None:  # type: ignore[type-arg]
            super().__init__(None, 0, port)
            self.log, self.battle_id, self.cookie, self.seq0 = log, battle_id, cookie, seq
            self.lost = False

        def connection_made(self, transport) -> None:  # type: ignore[no-untyped-def]
            self.transport = transport
            transport.write(
                b"GET /battles/%s/ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
                b"Origin: http://127.0.0.1:%d\r\nCookie: starboard_session=%s\r\n\r\n"
                % (self.battle_id.encode(), self.port, self.key, self.port, self.cookie.encode())
            )

        def hello(self) -> None:
            self.transport.write(_masked_text(json.dumps({"type": "hello", "seq": self.seq0}).encode()))

        def _message(self, payload: bytes, t: float) -> None:
            if payload.startswith(b'{"type"'):
                return  # heartbeats and answers
            i = payload.rfind(b'"seq": ')
            if i < 0:
                return
            self.log.append((int(payload[i + 7 : payload.index(b"}", i)]), t, len(payload)))

        def _fail(self, why: str) -> None:
            if not self.handshake.done():
                self.handshake.set_exception(ConnectionError(why))
            self.lost = True
            self.transport.close()

        def connection_lost(self, exc) -> None:  # type: ignore[no-untyped-def]
            if not self.handshake.done():
                self.handshake.set_exception(exc or ConnectionError("closed during handshake"))
            self.lost = True

    return AppWatcher


async def watcher_main(a: argparse.Namespace) -> None:
    floor = load_floor(a.floor)
    floor.raise_nofile()
    if a._cpus:
        os.sched_setaffinity(0, {int(c) for c in a._cpus.split(",")})
    plan = json.loads(sys.stdin.readline())  # [[battle_id, cookie, seq(, port)], ...] one per watcher
    cls = watcher_class(floor)
    loop = asyncio.get_running_loop()
    sem = asyncio.Semaphore(64)
    watchers = []

    async def one(k: int, battle_id: str, cookie: str, seq: int, port: int | None = None) -> None:
        port = port or a._port  # a plan entry may name the process it watches (--processes)
        async with sem:
            log: list = []  # type: ignore[type-arg]
            _, proto = await loop.create_connection(
                lambda: cls(log, battle_id, cookie, port, seq), "127.0.0.1", port
            )
            await asyncio.wait_for(proto.handshake, 30)
            proto.hello()
            watchers.append((k, proto))

    await asyncio.gather(*(one(k, *w) for k, w in enumerate(plan)))
    print(f"READY {len(watchers)}", flush=True)
    cpu0 = floor.cpu_seconds_self()
    await loop.run_in_executor(None, sys.stdin.readline)  # "END"
    cpu1 = floor.cpu_seconds_self()
    out = {
        "frames": {str(k): p.log for k, p in watchers},
        "lost": sum(1 for _, p in watchers if p.lost),
        "cpu_s": cpu1 - cpu0,
    }
    sys.stdout.write("RESULT " + json.dumps(out, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def driver_main(a: argparse.Namespace) -> None:
    floor = load_floor(a.floor)
    floor.driver_main(
        types.SimpleNamespace(rate=a.rate, _n=a._n, _t0=a._t0, _deadline=a._deadline, _cpus=a._cpus)
    )


# --------------------------------------------------------------------------------------------
# coordinator
# --------------------------------------------------------------------------------------------


class Poster:
    """Kept-alive HTTP/1.1 POSTs of JSON over raw asyncio streams (little harness per action)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def post(self, path: str, body: dict, token: str) -> tuple[int, dict]:  # type: ignore[type-arg]
        """One POST; a kept-alive connection the server closed meanwhile (its keep-alive timeout)
        is dropped and the POST sent once more on a new one (the action_id makes it idempotent)."""
        while self.idle:
            conn = self.idle.pop()
            with contextlib.suppress(OSError, IndexError, asyncio.IncompleteReadError):
                return await self._send(conn, path, body, token)
            conn[1].close()
        return await self._send(await asyncio.open_connection("127.0.0.1", self.port), path, body, token)

    async def _send(
        self,
        conn: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        path: str,
        body: dict,  # type: ignore[type-arg]
        token: str,
    ) -> tuple[int, dict]:  # type: ignore[type-arg]
        reader, writer = conn
        data = json.dumps(body).encode()
        writer.write(
            b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s"
            % (path.encode(), token.encode(), len(data), data)
        )
        await writer.drain()
        status_line = await reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        payload = await reader.readexactly(length)
        self.idle.append(conn)
        return status, json.loads(payload)


async def warm_up(port: int, seat: list) -> None:  # type: ignore[type-arg]
    """One viewer's socket, opened, greeted, answered and closed before the memory baseline: what
    the first frame builds once per process (compiled templates, statement caches) is not a cost
    of each idle socket."""
    from websockets.asyncio.client import connect

    battle_id, cookie, seq = seat[:3]
    async with connect(
        f"ws://127.0.0.1:{port}/battles/{battle_id}/ws",
        additional_headers={"Cookie": f"starboard_session={cookie}", "Origin": f"http://127.0.0.1:{port}"},
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "seq": seq}))
        await asyncio.wait_for(ws.recv(), 30)


async def start_watchers(floor: str, port: int, plan: list) -> asyncio.subprocess.Process:  # type: ignore[type-arg]
    """The watcher client as a process of its own, given its plan; the probes read its READY line."""
    watch = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--floor",
        floor,
        "--_client",
        "--_port",
        str(port),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=2**28,
    )
    watch.stdin.write((json.dumps(plan) + "\n").encode())  # type: ignore[union-attr]
    await watch.stdin.drain()  # type: ignore[union-attr]
    return watch


async def setup_tables(
    srv_url: str, watchers: int, battles: int, role: str = "spectator"
) -> tuple[list, list]:  # type: ignore[type-arg]
    """`battles` battles over REST (a player with a ship, a target ship, spectator seats), and the
    watchers' plan: watcher k on battle k % battles, [battle_id, cookie, seq to say hello with]."""
    import httpx

    from tests.helpers import set_table, simple_ship

    per_battle = -(-watchers // battles)
    seats_per_battle = -(-per_battle // 10)  # ≤ 10 sockets a seat (under the per-seat cap)
    tables = []
    async with httpx.AsyncClient(base_url=srv_url, timeout=30) as c:
        for _ in range(battles):
            t = await set_table(
                c,
                players=("ann",),
                spectator=False,
                ships={
                    "hawk": (simple_ship("Hawk", structure=5000), "ann"),
                    "crow": (simple_ship("Crow", structure=5000), None),
                },
            )
            t.spectators = []  # type: ignore[attr-defined]
            for s in range(seats_per_battle):
                r = await c.post(
                    f"/api/v1/battles/{t.battle_id}/participants",
                    json={"name": f"spec{s}", "role": "spectator"},
                    headers=t.auth("ref"),
                )
                token = r.json()["token"]
                c.cookies.clear()  # a fresh browser for each seat (a seated one is asked first)
                j = await c.get(f"/join/{token}", follow_redirects=False)
                t.spectators.append(j.cookies["starboard_session"])  # type: ignore[attr-defined]
            tables.append(t)
    async with httpx.AsyncClient(base_url=srv_url, timeout=30) as c:
        players = (
            {
                t.battle_id: (await c.get(f"/join/{t.tokens['ann']}", follow_redirects=False)).cookies[
                    "starboard_session"
                ]
                for t in tables
            }
            if role == "player"
            else {}
        )
    plan = []
    for k in range(watchers):
        t = tables[k % battles]
        cookie = players.get(t.battle_id) or t.spectators[(k // battles) % len(t.spectators)]  # type: ignore[attr-defined]
        plan.append([t.battle_id, cookie, 2])
    return tables, plan


def pg_cpu(pids: list[int], floor: types.ModuleType) -> float:
    return sum(c for c in (floor.cpu_seconds_pid(p) for p in pids) if c is not None)


async def backend_pids(url: str, dbname: str) -> list[int]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", dbname
        )
        return [r["pid"] for r in rows]
    finally:
        await conn.close()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_of(pid: int) -> int:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def coordinator(a: argparse.Namespace) -> dict:  # type: ignore[type-arg]
    import asyncpg
    import httpx

    floor = load_floor(a.floor)
    srv_cpus, cli_cpus = floor.cpu_plan(not a.no_pin)
    if cli_cpus:
        os.sched_setaffinity(0, set(cli_cpus))
    cli = ",".join(map(str, cli_cpus or []))
    app_root = Path(a.app_root).resolve()
    dbname = f"starboard_bench_{os.getpid()}"
    base = PG_ADMIN.rsplit("/", 1)[0]
    url = f"{base}/{dbname}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{dbname}"')
    await admin.close()
    procs: list = []  # type: ignore[type-arg]
    servers: list[subprocess.Popen] = []  # type: ignore[type-arg]
    try:
        subprocess.run(
            [sys.executable, "-m", "alembic", "upgrade", "head"],
            cwd=app_root,
            env={**os.environ, "DATABASE_URL": url},
            check=True,
            capture_output=True,
        )
        broadcast = {"memory": "memory://", "redis": REDIS_URL, "postgres": url}[a.broker]
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "BROADCAST_URL": broadcast,
            "SECRET_KEY": "bench-secret",
            "ALLOWED_ORIGINS": "",
            "PYTHONPATH": str(app_root),
        }
        ports = [free_port() for _ in range(a.processes)]
        port = ports[0]  # the actions go to the first process; watchers spread over all of them
        for p_port in ports:
            log = open(ROOT / "var" / f"bench-live-{p_port}.log", "w")  # noqa: SIM115
            servers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "uvicorn",
                        "app.main:create_app",
                        "--factory",
                        "--port",
                        str(p_port),
                        "--log-level",
                        "warning",
                        "--ws",
                        ws_protocol_of(app_root),
                        "--ws-max-size",
                        "65536",
                        *a.uvicorn_arg,
                    ],
                    cwd=app_root,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    preexec_fn=(lambda: os.sched_setaffinity(0, set(srv_cpus))) if srv_cpus else None,
                )
            )
        for p_port in ports:
            for _ in range(200):
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"http://127.0.0.1:{p_port}/openapi.json", timeout=1).status_code == 200:
                        break
                time.sleep(0.1)
        srv_url = f"http://127.0.0.1:{port}"
        tables, plan = await setup_tables(srv_url, a.watchers, a.battles, a.role)
        for k, entry in enumerate(plan):
            entry.append(ports[k % len(ports)])
        for p_port in ports:
            await warm_up(p_port, plan[0])
        await asyncio.sleep(1)
        rss0 = sum(rss_of(srv.pid) for srv in servers)
        me = [sys.executable, __file__, "--floor", a.floor, "--_cpus", cli]
        watch = await asyncio.create_subprocess_exec(
            *me,
            "--_client",
            "--_port",
            str(port),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**28,
        )
        procs.append(watch)
        watch.stdin.write((json.dumps(plan) + "\n").encode())  # type: ignore[union-attr]
        await watch.stdin.drain()  # type: ignore[union-attr]
        line = await asyncio.wait_for(watch.stdout.readline(), 120)  # type: ignore[union-attr]
        if not line.startswith(b"READY"):
            raise SystemExit(f"watchers did not connect: {line!r}")
        await asyncio.sleep(2)  # every hello answered, idle
        rss1 = sum(rss_of(srv.pid) for srv in servers)
        # the schedule
        n = int(a.rate * (a.warmup + a.seconds))
        t0 = monotonic() + 1.0
        pids0 = await backend_pids(PG_ADMIN, dbname)
        pg0 = pg_cpu(pids0, floor)
        cpu0 = sum(floor.cpu_seconds_pid(srv.pid) for srv in servers)
        driver = await asyncio.create_subprocess_exec(
            *me,
            "--_driver",
            "--rate",
            str(a.rate),
            "--_n",
            str(n),
            "--_t0",
            repr(t0),
            "--_deadline",
            repr(t0 + n / a.rate + 60),
            stdout=asyncio.subprocess.PIPE,
        )
        procs.append(driver)
        if a.profile:  # a sampling profile of the first app process over the measured seconds only
            spy = await asyncio.create_subprocess_exec(
                "sh",
                "-c",
                f"sleep {t0 + a.warmup - monotonic():.3f}; exec "
                + a.profile.format(pid=servers[0].pid, seconds=max(1, int(a.seconds))),
            )
            procs.append(spy)
        poster = Poster(port)
        results: dict[int, tuple[float, float, int, int]] = {}  # i → (sched, answered, status, seq)
        errors = 0
        kinds: list[str] = []
        tasks = set()

        async def fire(i: int) -> None:
            nonlocal errors
            t = tables[i % a.battles]
            sched = t0 + i / a.rate
            try:
                status, body = await poster.post(
                    f"/api/v1/battles/{t.battle_id}/actions",
                    {
                        "type": "damage.apply",
                        "action_id": uuid.uuid4().hex,
                        "payload": {"target": "crow", "source": "hawk", "amount": 1},
                    },
                    t.tokens["ann"],
                )
                results[i] = (sched, monotonic(), status, body.get("seq", -1))
                if status != 200:
                    errors += 1
                    kinds.append(f"{status} {str(body)[:120]}")
            except Exception as exc:
                errors += 1
                kinds.append(repr(exc)[:120])

        while True:
            line = await driver.stdout.readline()  # type: ignore[union-attr]
            if not line or line.startswith(b"DONE"):
                break
            task = asyncio.create_task(fire(int(line)))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks, timeout=a.drain)
        await asyncio.sleep(a.drain)
        cpu1 = sum(floor.cpu_seconds_pid(srv.pid) for srv in servers)
        pids1 = await backend_pids(PG_ADMIN, dbname)
        pg1 = pg_cpu(pids1, floor)
        pg_new = pg_cpu([p for p in pids1 if p not in pids0], floor)
        watch.stdin.write(b"END\n")  # type: ignore[union-attr]
        await watch.stdin.drain()  # type: ignore[union-attr]
        line = await asyncio.wait_for(watch.stdout.readline(), 120)  # type: ignore[union-attr]
        got = json.loads(line[len(b"RESULT ") :])
        # metrics
        by_battle: dict[str, list[list]] = {}  # type: ignore[type-arg]
        frames = size = 0
        for k, flog in got["frames"].items():
            by_battle.setdefault(plan[int(k)][0], []).append(flog)
            frames += len(flog)
            size += sum(f[2] for f in flog)
        measured_from = t0 + a.warmup
        answer, e2e, missing = [], [], 0
        for i, (sched, answered, status, seq) in results.items():
            if status != 200 or sched < measured_from:
                continue
            answer.append((answered - sched) * 1000)
            last = None
            for flog in by_battle[tables[i % a.battles].battle_id]:
                t = next((f[1] for f in flog if f[0] >= seq), None)
                if t is None:
                    missing += 1
                    break
                last = t if last is None else max(last, t)
            if last is not None:
                e2e.append((last - sched) * 1000)
        return {
            "app_root": str(app_root),
            "processes": a.processes,
            "broker": a.broker,
            "watchers": a.watchers,
            "role": a.role,
            "battles": a.battles,
            "rate": a.rate,
            "seconds": a.seconds,
            "actions": len(results),
            "errors": errors,
            "error_kinds": sorted(set(kinds))[:5],
            "missing_deliveries": missing,
            "watchers_lost": got["lost"],
            "answer_ms": pct(answer),
            "e2e_ms": pct(e2e),
            "cpu_ms_per_action": {
                "app": (cpu1 - cpu0) * 1000 / n,
                "pg": (pg1 - pg0 + pg_new) * 1000 / n,
                "watchers": got["cpu_s"] * 1000 / n,
            },
            "bytes_per_frame": size / frames if frames else 0,
            "frames": frames,
            "mem_per_idle_socket_kib": (rss1 - rss0) / a.watchers / 1024,
            "url": url,
        }
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                p.kill()
        for srv in servers:
            srv.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                srv.wait(10)
        if not a.with_floor:
            await drop(dbname)


async def drop(dbname: str) -> None:
    import asyncpg

    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
    await admin.close()


def run_floor(a: argparse.Namespace, url: str) -> dict:  # type: ignore[type-arg]
    out = subprocess.run(
        [
            sys.executable,
            a.floor,
            "--pg",
            url,
            "--watchers",
            str(a.watchers),
            "--battles",
            str(a.battles),
            "--rate",
            str(a.rate),
            "--seconds",
            str(a.seconds),
            "--warmup",
            str(a.warmup),
            "--payload",
            "3000",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = out.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"error": out.stderr[-2000:]}


def sweep(a: argparse.Namespace) -> None:
    """The highest sustained rate: each rate of --rates on a fresh database, one after another."""
    best = None
    rows = []
    for rate in [float(x) for x in a.rates.split(",") if x.strip()]:
        a.rate = rate
        r = asyncio.run(coordinator(a))
        asyncio.run(drop(r.pop("url").rsplit("/", 1)[1]))
        ok = (
            r["errors"] == 0 and r["missing_deliveries"] == 0 and r["e2e_ms"].get("p99", 1e12) <= a.sustain_ms
        )
        rows.append({"rate": rate, "sustained": ok, **r})
        print(
            f"rate {rate:g}/s: {'sustained' if ok else 'NOT sustained'}; e2e ms p50/p90/p99/max "
            f"{fmt(r['e2e_ms'])}; CPU ms/action app {r['cpu_ms_per_action']['app']:.2f}; "
            f"errors {r['errors']}, missing {r['missing_deliveries']}",
            flush=True,
        )
        if ok:
            best = rate
        else:
            break  # past the knee: higher rates only queue more
    print(f"highest sustained rate: {best if best is not None else 'none'} actions/s")
    print(json.dumps({"sweep": rows, "highest_sustained": best}, separators=(",", ":")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--floor", required=True, help="path to the floor tool (floor.py)")
    ap.add_argument("--watchers", type=int, default=100)
    ap.add_argument("--battles", type=int, default=20)
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--drain", type=float, default=3.0)
    ap.add_argument(
        "--role",
        choices=("spectator", "player"),
        default="spectator",
        help="watchers watch as spectators, or as the acting player (her tabs; ≤ 20 per battle)",
    )
    ap.add_argument("--app-root", default=str(ROOT), help="the checkout to run (default: this one)")
    ap.add_argument("--uvicorn-arg", action="append", default=[], help="extra uvicorn argument (repeatable)")
    ap.add_argument("--with-floor", action="store_true", help="run the floor tool right after, same load")
    ap.add_argument(
        "--processes",
        type=int,
        default=1,
        help="app processes (watcher k on process k %% N; actions to the first)",
    )
    ap.add_argument(
        "--broker",
        choices=("memory", "redis", "postgres"),
        default=None,
        help="how processes wake each other (default: memory for one process, redis for more)",
    )
    ap.add_argument(
        "--rates",
        default="",
        help="comma-separated rates to run one after another (fresh database each); prints the highest "
        "sustained: no errors, no delivery missing, e2e p99 under --sustain-ms",
    )
    ap.add_argument("--sustain-ms", type=float, default=1000.0)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument(
        "--profile",
        default="",
        help="a profiler command run over the measured seconds, {pid} and {seconds} filled in, e.g. "
        "'py-spy record -p {pid} -d {seconds} -r 250 -f raw -o prof.txt --nonblocking'",
    )
    ap.add_argument("--_client", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--_driver", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--_port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--_cpus", default="", help=argparse.SUPPRESS)
    ap.add_argument("--_n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--_t0", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--_deadline", type=float, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a._client:
        asyncio.run(watcher_main(a))
        return
    if a._driver:
        driver_main(a)
        return
    (ROOT / "var").mkdir(exist_ok=True)
    a.broker = a.broker or ("memory" if a.processes == 1 else "redis")
    if a.processes > 1 and a.broker == "memory":
        raise SystemExit("several processes need a broker: --broker redis or postgres")
    if a.rates:
        sweep(a)
        return
    r = asyncio.run(coordinator(a))
    print(
        f"app ({r['app_root']}): W={a.watchers} ({a.role}s) battles={a.battles} rate={a.rate}/s, "
        f"{a.seconds:g} s measured, {a.processes} process(es), broker {a.broker}"
    )
    print(f"  answer  ms p50/p90/p99/max: {fmt(r['answer_ms'])}")
    print(f"  e2e     ms p50/p90/p99/max: {fmt(r['e2e_ms'])}")
    cpu = r["cpu_ms_per_action"]
    print(f"  CPU ms/action app {cpu['app']:.2f}, PostgreSQL {cpu['pg']:.2f}, watchers {cpu['watchers']:.2f}")
    print(
        f"  bytes/frame {r['bytes_per_frame']:.0f} over {r['frames']} frames; "
        f"memory per idle socket {r['mem_per_idle_socket_kib']:.1f} KiB; errors {r['errors']}, "
        f"missing {r['missing_deliveries']}, watchers lost {r['watchers_lost']}"
    )
    if a.with_floor:
        f = run_floor(a, r["url"])
        asyncio.run(drop(r["url"].rsplit("/", 1)[1]))
        r["floor"] = f
        if "e2e_ms" in f:
            fe, fc = f["e2e_ms"], f.get("cpu_ms_per_action", {})
            print(
                f"floor (same load): e2e ms p50/p90/p99/max {fmt(fe)}; CPU ms/action server "
                f"{fc.get('server', 0):.2f}, PostgreSQL {fc.get('pg_backends', 0):.2f}; "
                f"memory per idle socket {f.get('mem_per_conn_bytes', 0) / 1024:.1f} KiB"
            )
            print(
                f"app/floor: e2e p50 × {r['e2e_ms']['p50'] / fe['p50']:.1f}, p90 × {r['e2e_ms']['p90'] / fe['p90']:.1f}; "
                f"server CPU per action × {cpu['app'] / max(fc.get('server', 0), 1e-9):.1f}"
            )
        else:
            print(f"floor: {str(f)[:300]}")
    r.pop("url", None)
    print(json.dumps(r, separators=(",", ":")))


if __name__ == "__main__":
    main()
