"""Live-path benchmark: "action → every watcher updated" through the real app, measured with the
same trigger driver, watcher client and arithmetic as the repository's own floor
(scripts/bench_floor.py; both use scripts/benchkit.py), so the two can be run one after the other
and compared as a ratio (read docs/benchmarks.md first).

    .venv/bin/python scripts/bench_live.py --watchers 100 --battles 20 --rate 20 --seconds 20 \
        [--with-floor] [--mix real] [--app-root DIR]

What it does (all on this machine; PostgreSQL as for the tests, user postgres, trust):
  * creates a database of its own (starboard_bench_<pid>), migrates it (alembic), starts one
    uvicorn process of the app (``python -m uvicorn app.main:create_app --factory``; ``--app-root``:
    another checkout, e.g. an older commit, for before/after figures) pinned to the first CPU, and
    sets up ``--battles`` battles over REST (the app is only reached over HTTP and websockets);
  * watchers: ``--watchers`` websocket viewers in a separate process pinned to the other CPU(s),
    watcher k on battle k % battles, using benchkit's minimal RFC 6455 client with the app's path,
    session cookie (from the seat's join link) and hello; a frame is timestamped when its bytes
    reach the watcher's event loop, and counts for every seq up to the seq it carries;
  * trigger: benchkit's trigger driver (its own process, other CPU) writes action i at
    t0 + i/rate; this process then POSTs it to battle i % battles over a kept-alive HTTP
    connection. Open loop: every latency counts from the *scheduled* time, so a stall shows as
    latency, not as fewer samples; the first ``--warmup`` seconds are run but not counted.
  * ``--mix damage`` (the default): each battle a player with a ship and a target ship; every
    action a ``damage.apply``; the watchers spectators (``--role player``: the acting player's tabs).
  * ``--mix real``: each battle a B5 Wars table with Star Trek ships: a referee, four players each
    commanding one ship (Excelsior, Thomas Paine, Shadow Cruiser, the Romulan warbird Haakona) and
    spectators; a battle's watchers are, in order, the referee, the four players, then spectators,
    each on its own seat's link (spectators share a seat only past the battle's seat limit). Each
    battle plays a turn script over and over: Ship Power (a chat line, every commander
    ``step.ready``), Movement (every ship ``ship.move``s, the warbird cloaked from turn 2; the
    referee's ``clock.advance`` ends the step), Combat (three ``damage.apply`` between ships, a
    chat line, every commander ready), Adjust Ship Systems (turn 1 the warbird ``startrek.cloak``s,
    later a referee's chat line; every commander ready). A battle's actions depend on each other
    (the step must have ended before the next step's move), so each is posted once the battle's
    previous one was answered; latency still counts from its scheduled time. A chat line carries a
    mark ("[bench chat i]") its table frame is known by.
  * metrics (ms, p50/p90/p99/max): ``answer`` scheduled → HTTP answer received (the app's commit
    plus HTTP); ``e2e`` scheduled → the last watcher of that battle has a frame with that seq (a
    chat line: a table frame with its mark), also by the watchers' role and by the action's kind;
    CPU ms per action of the app process and of its PostgreSQL backends (/proc); bytes per pushed
    frame (content and table frames, as received), also by role; server RSS per idle websocket
    (after all watchers said hello, minus before, divided by watchers: a hello at the page's own
    seq is sent nothing, so this is the socket's own cost) and per watching socket (the same at
    the run's end, when every page holds what it was sent and the hub keeps a record of it).
  * ``--with-floor`` runs scripts/bench_floor.py right after with the same watchers, battles, rate,
    seconds and warmup, on the same database, its frames as large as the app's were on average,
    and prints app/floor ratios of the p50/p90 figures.
Nothing is asserted: these are measurements. The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchkit  # noqa: E402
from benchkit import fmt  # noqa: E402

monotonic = time.monotonic
PG_ADMIN = os.environ.get("STARBOARD_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("STARBOARD_TEST_REDIS", "redis://127.0.0.1:6379/0")
SEAT_LIMIT = 32  # the app's default max_seats_per_battle
PLAYERS = (  # --mix real: (seat, library ship) — the Star Trek vs Shadows demo's kind of table
    ("kirk", "excelsior"),
    ("sisko", "new-orleans"),
    ("kosh", "shadow-cruiser"),
    ("tomalak", "romulan-warbird"),
)
CLOAKER = "tomalak"


def ws_protocol_of(app_root: Path) -> str:
    """The websocket protocol that checkout's own servers run (its serving module says), so an
    older checkout is measured as it ran; "websockets-sansio" before it said."""
    for serving in sorted(app_root.glob("app/**/serving.py")):
        found = re.search(r'^WS_PROTOCOL = "([^"]+)"', serving.read_text(), re.M)
        if found:
            return found.group(1)
    return "websockets-sansio"


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


async def warm_up(port: int, seat: dict[str, Any]) -> None:
    """One viewer's socket, opened, greeted, answered and closed before the memory baseline: what
    the first frame builds once per process (compiled templates, statement caches) is not a cost
    of each idle socket."""
    from websockets.asyncio.client import connect

    async with connect(
        f"ws://127.0.0.1:{port}/battles/{seat['battle']}/ws",
        additional_headers={
            "Cookie": f"starboard_session={seat['cookie']}",
            "Origin": f"http://127.0.0.1:{port}",
        },
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "seq": seat["seq"] - 1}))
        await asyncio.wait_for(ws.recv(), 30)


# --------------------------------------------------------------------------------------------
# battles, over REST only
# --------------------------------------------------------------------------------------------


class Table:
    """A battle set up over REST: its seats' tokens, its ships' ids, its seq after set-up."""

    def __init__(self, battle_id: str, referee_token: str) -> None:
        self.battle_id = battle_id
        self.tokens: dict[str, str] = {"ref": referee_token}
        self.pids: dict[str, str] = {}
        self.ships: dict[str, str] = {}
        self.seq = 0


def simple_ship(name: str, structure: int) -> dict[str, Any]:
    """A small generic ship: a primary and a fore section (the tests' sample shape)."""
    return {
        "name": name,
        "klass": "Test frigate",
        "system": "b5wars",
        "parts": {
            "sheet": {
                "sections": [
                    {
                        "name": "Primary",
                        "structure_max": structure,
                        "systems": [{"name": "Reactor", "boxes": 6}, {"name": "Bridge", "boxes": 4}],
                    },
                    {
                        "name": "Fore",
                        "arc": "fore",
                        "armour_max": 4,
                        "structure_max": 20,
                        "systems": [{"name": "Laser", "kind": "weapon", "boxes": 5}],
                    },
                ]
            }
        },
    }


async def _created(c: Any, name: str, options: dict[str, Any]) -> Table:
    r = await c.post(
        "/api/v1/battles", json={"name": name, "system": "b5wars", "dice_mode": "seeded", "options": options}
    )
    if r.status_code != 201:
        raise SystemExit(f"battle not created: {r.status_code} {r.text[:300]}")
    body = r.json()
    return Table(body["battle_id"], body["referee"]["token"])


async def _seat(c: Any, t: Table, name: str, role: str) -> str:
    r = await c.post(
        f"/api/v1/battles/{t.battle_id}/participants",
        json={"name": name, "role": role},
        headers={"Authorization": f"Bearer {t.tokens['ref']}"},
    )
    if r.status_code != 201:
        raise SystemExit(f"seat {name} not added: {r.status_code} {r.text[:300]}")
    t.tokens[name], t.pids[name] = r.json()["token"], r.json()["participant_id"]
    return t.tokens[name]


async def _act(c: Any, t: Table, who: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    r = await c.post(
        f"/api/v1/battles/{t.battle_id}/actions",
        json={"type": kind, "payload": payload, "action_id": uuid.uuid4().hex},
        headers={"Authorization": f"Bearer {t.tokens[who]}"},
    )
    if r.status_code != 200:
        raise SystemExit(f"{kind} refused in set-up: {r.status_code} {r.text[:300]}")
    t.seq = r.json()["seq"]
    return r.json()


async def _cookie(srv_url: str, token: str) -> str:
    """The session cookie a fresh browser gets from a seat's join link."""
    import httpx

    async with httpx.AsyncClient(base_url=srv_url, timeout=30) as fresh:
        r = await fresh.get(f"/join/{token}", follow_redirects=False)
        return r.cookies["starboard_session"]


async def setup_tables(
    srv_url: str, watchers: int, battles: int, role: str = "spectator"
) -> tuple[list[Table], list[dict[str, Any]]]:
    """--mix damage: `battles` battles (a player "ann" with Hawk, a target Crow, spectator seats)
    and the watchers' plan: watcher k on battle k % battles, {battle, role, cookie, seq}."""
    import httpx

    per_battle = -(-watchers // battles)
    seats_per_battle = -(-per_battle // 10)  # ≤ 10 sockets a seat (under the per-seat cap)
    tables: list[Table] = []
    spectators: dict[str, list[str]] = {}
    async with httpx.AsyncClient(base_url=srv_url, timeout=30) as c:
        for _ in range(battles):
            t = await _created(c, "Bench battle", {"players_advance_clock": "always"})
            await _seat(c, t, "ann", "player")
            for label, name, owner in (("hawk", "Hawk", t.pids["ann"]), ("crow", "Crow", None)):
                body = await _act(
                    c, t, "ref", "ship.add", {"definition": simple_ship(name, 5000), "owner": owner}
                )
                t.ships[label] = body["events"][0]["ship"]
            spectators[t.battle_id] = [
                await _cookie(srv_url, await _seat(c, t, f"spec{s}", "spectator"))
                for s in range(seats_per_battle)
            ]
            tables.append(t)
    players = (
        {t.battle_id: await _cookie(srv_url, t.tokens["ann"]) for t in tables} if role == "player" else {}
    )
    plan = []
    for k in range(watchers):
        t = tables[k % battles]
        cookie = players.get(t.battle_id) or spectators[t.battle_id][(k // battles) % seats_per_battle]
        plan.append({"battle": t.battle_id, "role": role, "cookie": cookie, "seq": t.seq})
    return tables, plan


async def setup_real(srv_url: str, watchers: int, battles: int) -> tuple[list[Table], list[dict[str, Any]]]:
    """--mix real: `battles` B5 Wars battles, each a referee, four players commanding a Star Trek
    or Shadow ship each, and spectator seats; a battle's watchers are the referee, the players, then
    spectators, each on its own seat (spectators share seats only past the seat limit)."""
    import httpx

    tables: list[Table] = []
    plan: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=srv_url, timeout=30) as c:
        library = {slug: (await c.get(f"/api/v1/ships/{slug}")).json() for _, slug in PLAYERS}
        for b in range(battles):
            here = len(range(b, watchers, battles))  # watchers of this battle
            t = await _created(c, "Bench: Star Trek vs Shadows", {})
            for name, slug in PLAYERS:
                await _seat(c, t, name, "player")
                body = await _act(
                    c, t, "ref", "ship.add", {"definition": library[slug], "owner": t.pids[name]}
                )
                t.ships[name] = body["events"][0]["ship"]
            seen = min(here, 1 + len(PLAYERS))
            who = ["ref"] + [name for name, _ in PLAYERS]
            cookies = [
                ("referee" if j == 0 else "player", await _cookie(srv_url, t.tokens[who[j]]))
                for j in range(seen)
            ]
            spec_seats = min(here - seen, SEAT_LIMIT - 1 - len(PLAYERS))
            specs = [
                await _cookie(srv_url, await _seat(c, t, f"spec{s}", "spectator")) for s in range(spec_seats)
            ]
            cookies += [("spectator", specs[s % spec_seats]) for s in range(here - seen)]
            tables.append(t)
            for role, cookie in cookies:
                plan.append({"battle": t.battle_id, "role": role, "cookie": cookie, "seq": t.seq})
    # watcher k on battle k % battles, as in every mix
    per: dict[str, list[dict[str, Any]]] = {}
    for entry in plan:
        per.setdefault(entry["battle"], []).append(entry)
    return tables, [per[tables[k % battles].battle_id].pop(0) for k in range(watchers)]


def watcher_plan(plan: list[dict[str, Any]], ports: list[int]) -> list[dict[str, Any]]:
    """benchkit's watcher plan: watcher k on process k % len(ports), the app's path, cookie, hello."""
    out = []
    for k, w in enumerate(plan):
        port = ports[k % len(ports)]
        out.append(
            {
                "port": port,
                "path": f"/battles/{w['battle']}/ws",
                "headers": {
                    "Origin": f"http://127.0.0.1:{port}",
                    "Cookie": f"starboard_session={w['cookie']}",
                },
                "hello": json.dumps({"type": "hello", "seq": w["seq"]}),
            }
        )
    return out


async def start_watchers(port: int, plan: list[dict[str, Any]]) -> asyncio.subprocess.Process:
    """The watcher process (benchkit's) given this plan on one app process; its first line is READY."""
    watch = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(benchkit.__file__).resolve()),
        "watchers",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=2**28,
    )
    watch.stdin.write((json.dumps(watcher_plan(plan, [port])) + "\n").encode())  # type: ignore[union-attr]
    await watch.stdin.drain()  # type: ignore[union-attr]
    return watch


def turn_script(turn: int, t: Table) -> list[tuple[str, str, str | None, Any]]:
    """--mix real: one turn of a battle as (kind, who, action type or None for a chat line, payload)."""
    ready = [("step.ready", name, "step.ready", {}) for name, _ in PLAYERS]
    steps: list[tuple[str, str, str | None, Any]] = [("chat", "kirk", None, "Shields up, all ships.")]
    steps += ready  # Ship Power
    for idx, (name, _) in enumerate(PLAYERS):
        position = {
            "hex": f"{2 + 4 * idx:02d}{2 + (3 * turn + idx) % 15:02d}",
            "facing": 1 + (turn + idx) % 6,
            "speed": 4,
        }
        kind = "ship.move cloaked" if name == CLOAKER and turn > 1 else "ship.move"
        steps.append((kind, name, "ship.move", {"ship": t.ships[name], "position": position}))
    steps.append(("clock.advance", "ref", "clock.advance", {"reason": "every ship has moved"}))  # Movement
    for src, dst in (("kirk", "kosh"), ("kosh", "kirk"), ("sisko", "kosh")):
        hit = {"target": t.ships[dst], "source": t.ships[src], "amount": 2, "direction": "fore"}
        steps.append(("damage.apply", src, "damage.apply", hit))
    steps.append(("chat", "kosh", None, "And so it begins."))
    steps += ready  # Combat
    if turn == 1:
        steps.append(("startrek.cloak", CLOAKER, "startrek.cloak", {"ship": t.ships[CLOAKER]}))
    else:
        steps.append(("chat", "ref", None, "Adjust your systems, please."))
    steps += ready  # Adjust Ship Systems
    return steps


class Script:
    """A battle's actions in order, turn after turn."""

    def __init__(self, t: Table) -> None:
        self.t, self.turn = t, 0
        self.steps: list[tuple[str, str, str | None, Any]] = []

    def next(self) -> tuple[str, str, str | None, Any]:
        if not self.steps:
            self.turn += 1
            self.steps = turn_script(self.turn, self.t)
        return self.steps.pop(0)


def pg_cpu(pids: list[int]) -> float:
    return sum(c for c in (benchkit.cpu_seconds_pid(p) for p in pids) if c is not None)


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


free_port = benchkit.free_port


async def coordinator(a: argparse.Namespace) -> dict:  # type: ignore[type-arg]
    import asyncpg
    import httpx

    # One process is pinned as the floor is (the server on one CPU, the clients on the rest); several
    # are not pinned at all: pinned one to a CPU, the second shared its core with the clients and
    # sustained less than one process did, where left to the scheduler it adds capacity.
    srv_cpus, cli_cpus = benchkit.cpu_plan(not a.no_pin and a.processes == 1)
    benchkit.pin(cli_cpus)
    app_root = Path(a.app_root).resolve()
    dbname = f"starboard_bench_{os.getpid()}"
    base = PG_ADMIN.rsplit("/", 1)[0]
    url = f"{base}/{dbname}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{dbname}"')
    await admin.close()
    procs: list = []  # type: ignore[type-arg]
    servers: list[subprocess.Popen] = []  # type: ignore[type-arg]
    watch: benchkit.Watchers | None = None
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
            "BATTLE_CREATE_LIMIT": "0",  # set-up creates every battle from one address
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
        if a.mix == "real":
            tables, plan = await setup_real(srv_url, a.watchers, a.battles)
        else:
            tables, plan = await setup_tables(srv_url, a.watchers, a.battles, a.role)
        for p_port in ports:
            await warm_up(p_port, plan[0])
        await asyncio.sleep(1)
        rss0 = sum(benchkit.rss_of(srv.pid) for srv in servers)
        watch = await benchkit.Watchers.start(watcher_plan(plan, ports), cli_cpus)
        await asyncio.sleep(2)  # every hello answered, idle
        rss1 = sum(benchkit.rss_of(srv.pid) for srv in servers)
        # the schedule
        n = int(a.rate * (a.warmup + a.seconds))
        t0 = monotonic() + 1.0
        pids0 = await backend_pids(PG_ADMIN, dbname)
        pg0 = pg_cpu(pids0)
        cpu0 = sum(benchkit.cpu_seconds_pid(srv.pid) or 0.0 for srv in servers)
        driver = await asyncio.create_subprocess_exec(
            *benchkit.driver_command(a.rate, n, t0, cli_cpus), stdout=asyncio.subprocess.PIPE
        )
        procs.append(driver)
        if a.profile:  # a sampling profile of one app process over the measured seconds only
            spy = await asyncio.create_subprocess_exec(
                "sh",
                "-c",
                f"sleep {t0 + a.warmup - monotonic():.3f}; exec "
                + a.profile.format(pid=servers[a.profile_process].pid, seconds=max(1, int(a.seconds))),
            )
            procs.append(spy)
        poster = Poster(port)
        actions: dict[int, dict[str, Any]] = {}  # i → sched, answered, battle, seq or chat, kind
        errors = 0
        kinds: list[str] = []
        tasks: set[asyncio.Task[None]] = set()
        scripts = [Script(t) for t in tables]
        last: list[asyncio.Task[None] | None] = [None] * a.battles  # --mix real: a battle's previous action

        async def fire(i: int, prev: asyncio.Task[None] | None) -> None:
            nonlocal errors
            t = tables[i % a.battles]
            sched = t0 + i / a.rate
            if a.mix == "real":
                kind, who, action_type, payload = scripts[i % a.battles].next()
                if prev is not None:
                    await asyncio.wait([prev])  # the battle's previous action answered first
            else:
                kind, who, action_type = "damage.apply", "ann", "damage.apply"
                payload = {"target": t.ships["crow"], "source": t.ships["hawk"], "amount": 1}
            try:
                if action_type is None:  # a chat line, known by its mark
                    status, body = await poster.post(
                        f"/api/v1/battles/{t.battle_id}/chat",
                        {"text": f"{payload} [bench chat {i}]"},
                        t.tokens[who],
                    )
                    mark: dict[str, Any] = {"chat": i}
                else:
                    status, body = await poster.post(
                        f"/api/v1/battles/{t.battle_id}/actions",
                        {"type": action_type, "action_id": uuid.uuid4().hex, "payload": payload},
                        t.tokens[who],
                    )
                    mark = {"seq": body.get("seq", -1)}
                answered = monotonic()
                if status not in (200, 201):
                    errors += 1
                    kinds.append(f"{kind}: {status} {str(body)[:120]}")
                    return
                actions[i] = {
                    "sched": sched,
                    "answered": answered,
                    "battle": t.battle_id,
                    "kind": kind,
                    **mark,
                }
            except Exception as exc:
                errors += 1
                kinds.append(f"{kind}: {exc!r}"[:160])

        while True:
            line = await driver.stdout.readline()  # type: ignore[union-attr]
            if not line or line.startswith(b"DONE"):
                break
            i = int(line)
            task = asyncio.create_task(fire(i, last[i % a.battles]))
            last[i % a.battles] = task
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks, timeout=a.drain + (60 if a.mix == "real" else 0))
        await asyncio.sleep(a.drain)
        cpu1 = sum(benchkit.cpu_seconds_pid(srv.pid) or 0.0 for srv in servers)
        rss2 = sum(benchkit.rss_of(srv.pid) for srv in servers)  # every page now holds what it was sent
        pids1 = await backend_pids(PG_ADMIN, dbname)
        pg1 = pg_cpu(pids1)
        pg_new = pg_cpu([p for p in pids1 if p not in pids0])
        got = await watch.finish()
        # metrics
        measured_from = t0 + a.warmup
        answer = [
            (x["answered"] - x["sched"]) * 1000 for x in actions.values() if x["sched"] >= measured_from
        ]
        seen = benchkit.delivered(
            actions, [{"battle": w["battle"], "role": w["role"]} for w in plan], got["frames"], measured_from
        )
        counted: dict[str, int] = {}
        for x in actions.values():
            counted[x["kind"]] = counted.get(x["kind"], 0) + 1
        return {
            "app_root": str(app_root),
            "mix": a.mix,
            "processes": a.processes,
            "broker": a.broker,
            "watchers": a.watchers,
            "watchers_by_role": {
                r: sum(1 for w in plan if w["role"] == r) for r in sorted({w["role"] for w in plan})
            },
            "role": a.role if a.mix == "damage" else "mixed",
            "battles": a.battles,
            "rate": a.rate,
            "seconds": a.seconds,
            "actions": n,
            "actions_by_kind": dict(sorted(counted.items())),
            "errors": errors,
            "error_kinds": sorted(set(kinds))[:5],
            "missing_deliveries": seen["missing_deliveries"],
            "watchers_lost": got["lost"],
            "answer_ms": benchkit.pct(answer),
            "e2e_ms": seen["e2e_ms"],
            "e2e_ms_by_role": seen["e2e_ms_by_role"],
            "e2e_ms_by_kind": seen["e2e_ms_by_kind"],
            "cpu_ms_per_action": {
                "app": (cpu1 - cpu0) * 1000 / n,
                "pg": (pg1 - pg0 + pg_new) * 1000 / n,
                "watchers": got["cpu_s"] * 1000 / n,
            },
            "bytes_per_frame": seen["bytes_per_frame"],
            "bytes_per_frame_by_role": seen["bytes_per_frame_by_role"],
            "frames": seen["frames"],
            "frames_by_role": seen["frames_by_role"],
            "mem_per_idle_socket_kib": (rss1 - rss0) / a.watchers / 1024,
            "mem_per_watching_socket_kib": (rss2 - rss0) / a.watchers / 1024,
            "url": url,
        }
    finally:
        if watch is not None:
            watch.kill()
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


def run_floor(a: argparse.Namespace, url: str, payload: float) -> dict:  # type: ignore[type-arg]
    """scripts/bench_floor.py with the same load, on the same database (a schema of its own), its
    frames as large as the app's were on average."""
    out = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve().parent / "bench_floor.py"),
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
            str(max(200, round(payload))),
            *(["--no-pin"] if a.no_pin else []),
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


def report(a: argparse.Namespace, r: dict[str, Any]) -> None:
    who = (
        f"{a.role}s" if a.mix == "damage" else ", ".join(f"{n} {k}" for k, n in r["watchers_by_role"].items())
    )
    print(
        f"app ({r['app_root']}), mix {a.mix}: W={a.watchers} ({who}) battles={a.battles} rate={a.rate}/s, "
        f"{a.seconds:g} s measured, {a.processes} process(es), broker {a.broker}"
    )
    print(f"  answer  ms p50/p90/p99/max: {fmt(r['answer_ms'])}")
    print(f"  e2e     ms p50/p90/p99/max: {fmt(r['e2e_ms'])}")
    cpu = r["cpu_ms_per_action"]
    print(f"  CPU ms/action app {cpu['app']:.2f}, PostgreSQL {cpu['pg']:.2f}, watchers {cpu['watchers']:.2f}")
    print(
        f"  bytes/frame {r['bytes_per_frame']:.0f} over {r['frames']} frames; "
        f"memory per idle socket {r['mem_per_idle_socket_kib']:.1f} KiB, "
        f"per watching socket {r.get('mem_per_watching_socket_kib', 0):.1f} KiB; errors {r['errors']}, "
        f"missing {r['missing_deliveries']}, watchers lost {r['watchers_lost']}"
    )
    if a.mix == "real":
        for role, size in r["bytes_per_frame_by_role"].items():
            print(
                f"  {role:<10} bytes/frame {size:6.0f} ({r['frames_by_role'][role]} frames); "
                f"e2e ms p50/p90/p99/max {fmt(r['e2e_ms_by_role'].get(role, {}))}"
            )
        for kind, e2e in r["e2e_ms_by_kind"].items():
            print(
                f"  {kind:<18} ({r['actions_by_kind'].get(kind, 0)} posted) e2e ms p50/p90/p99/max {fmt(e2e)}"
            )
    for kind in r["error_kinds"]:
        print(f"  error: {kind}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--watchers", type=int, default=100)
    ap.add_argument("--battles", type=int, default=20)
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--drain", type=float, default=3.0)
    ap.add_argument(
        "--mix",
        choices=("damage", "real"),
        default="damage",
        help="damage: every action a damage.apply, the watchers all of one --role; real: a referee, four "
        "players and spectators a battle, a turn's actions (see above)",
    )
    ap.add_argument(
        "--role",
        choices=("spectator", "player"),
        default="spectator",
        help="--mix damage: watchers watch as spectators, or as the acting player (her tabs; ≤ 20 per battle)",
    )
    ap.add_argument("--app-root", default=str(ROOT), help="the checkout to run (default: this one)")
    ap.add_argument("--uvicorn-arg", action="append", default=[], help="extra uvicorn argument (repeatable)")
    ap.add_argument(
        "--with-floor", action="store_true", help="run scripts/bench_floor.py right after, same load"
    )
    ap.add_argument(
        "--processes",
        type=int,
        default=1,
        help="app processes (watcher k on process k %% N; actions to the first; several are not pinned to CPUs)",
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
    ap.add_argument(
        "--profile-process", type=int, default=0, help="which app process --profile samples (0: the first)"
    )
    a = ap.parse_args()
    (ROOT / "var").mkdir(exist_ok=True)
    if not 0 <= a.profile_process < a.processes:
        raise SystemExit(f"--profile-process: one of the {a.processes} app processes, 0 to {a.processes - 1}")
    a.broker = a.broker or ("memory" if a.processes == 1 else "redis")
    if a.processes > 1 and a.broker == "memory":
        raise SystemExit("several processes need a broker: --broker redis or postgres")
    if a.mix == "real" and a.watchers < a.battles * (2 + len(PLAYERS)):
        print(
            f"note: {a.watchers} watchers over {a.battles} battles leave some battles without a "
            f"spectator (a battle's first {1 + len(PLAYERS)} watchers are the referee and the players)",
            file=sys.stderr,
        )
    if a.rates:
        if a.with_floor:
            raise SystemExit("--rates runs the app only; run the floor at a rate with --rate … --with-floor")
        sweep(a)
        return
    r = asyncio.run(coordinator(a))
    report(a, r)
    if a.with_floor:
        f = run_floor(a, r["url"], r["bytes_per_frame"])
        asyncio.run(drop(r["url"].rsplit("/", 1)[1]))
        r["floor"] = f
        if "e2e_ms" in f and f["e2e_ms"]:
            fe, fc = f["e2e_ms"], f.get("cpu_ms_per_action", {})
            cpu = r["cpu_ms_per_action"]
            print(
                f"floor (scripts/bench_floor.py, same load, {f['bytes_per_frame']:.0f} bytes a frame): "
                f"e2e ms p50/p90/p99/max {fmt(fe)}; CPU ms/action server {fc.get('server', 0):.2f}, "
                f"PostgreSQL {fc.get('pg', 0):.2f}; memory per idle socket "
                f"{f.get('mem_per_idle_socket_kib', 0):.1f} KiB; errors {f.get('errors')}, "
                f"missing {f.get('missing_deliveries')}"
            )
            if r["e2e_ms"]:
                r["app_over_floor"] = {
                    "e2e_p50": r["e2e_ms"]["p50"] / fe["p50"],
                    "e2e_p90": r["e2e_ms"]["p90"] / fe["p90"],
                    "cpu_server": cpu["app"] / max(fc.get("server", 0), 1e-9),
                }
                ratio = r["app_over_floor"]
                print(
                    f"app/floor: e2e p50 × {ratio['e2e_p50']:.1f}, p90 × {ratio['e2e_p90']:.1f}; "
                    f"server CPU per action × {ratio['cpu_server']:.1f}"
                )
        else:
            print(f"floor: {str(f)[:300]}")
    r.pop("url", None)
    print(json.dumps(r, separators=(",", ":")))


if __name__ == "__main__":
    main()
