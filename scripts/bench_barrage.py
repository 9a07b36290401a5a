"""A 50-mount High Guard barrage, measured in the pure rules core and over REST (read
docs/benchmarks.md first). Nothing is asserted: these are measurements.

    .venv/bin/python scripts/bench_barrage.py [--app-root DIR] [--core N] [--rest N] [--db postgres|sqlite]
    .venv/bin/python scripts/bench_barrage.py --compare DIR --rounds 3   # before (DIR) / after, alternated

The battle is the Traveller demo's pair from the ship library: the Dauntless battlecruiser fires 50
of its 100 pulse lasers (cone configuration: 70 may fire) at the Arbellatra cruiser (40 sandcasters,
nuclear dampers, 3 sections), at Short range, the split "toward fore", server (seeded) dice, with
initiative rolled so the combat-action loop binds (TR-04).

* core: one `apply_action` of that barrage on the same starting state (the Dauntless next in the
  loop), `--core` times over with a different seed each, after 30 untimed; the p50 of the calls
  (`core`, wall clock) and of their thread CPU time (`core_cpu`: what a loaded machine does not
  inflate). The starting state is made by the checkout's own rules, from the library's ship files.
  Beside it, in the same child: `offers`, a referee's offers on that state (what a page asks
  after each action), and `startrek`, the Shadow Cruiser's 30 points of `damage.apply` on the
  Excelsior in a B5 Wars battle (the Star Trek parts and the sheet read many times).
* REST: the same barrage POSTed to a uvicorn process of the checkout (`--app-root`), timed from
  send to answer (`rest`), with the server's CPU for it (`rest_server_cpu`, /proc schedstat of
  its threads); between two barrages the clock goes on to the next round's Combat step
  (untimed), and a fresh battle is set up every 4 rounds so the target is never worn down. The
  database is one of its own (PostgreSQL `starboard_bench_<pid>`, as the tests reach it, or a
  SQLite file under var/).

`--app-root DIR` measures another checkout (e.g. `git worktree add /tmp/before <commit>`): the core
runs in a child process importing that checkout's `app`, and the server runs from it.
`--compare DIR` measures DIR and this checkout in turn, `--rounds` times (before, after, before, …),
so a shared machine's load falls on both; the medians of the rounds' p50s are printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN = os.environ.get("STARBOARD_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
SHOOTER, TARGET = "tr-dauntless-battlecruiser", "tr-arbellatra-cruiser"
BARRAGE = {"battery": "pulse-lasers", "mounts": 50, "range": "short", "adjacent": "toward fore"}


def definition(app_root: Path, slug: str) -> dict[str, Any]:
    return json.loads((app_root / "app" / "shipdata" / "library" / f"{slug}.json").read_text())


def p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


# --- the pure core (run in a child process that imports the measured checkout's app) -------------


def core_child(app_root: Path, n: int) -> None:
    from app.rules import Action, apply_action, new_battle
    from app.rules.core import REFEREE
    from app.rules.dice import SeededDice

    dice = SeededDice(b"bench-barrage", "setup", 0)
    state = new_battle("traveller", {})
    for slug in (SHOOTER, TARGET):
        add = Action("ship.add", {"definition": definition(app_root, slug), "owner": None}, REFEREE)
        state = apply_action(state, add, dice).state
    ids = {s.name: s.id for s in state.ships.values()}
    shooter, target = ids["Dauntless"], ids["Arbellatra"]
    while state.clock.step != "combat":
        state = apply_action(state, Action("clock.advance", {}, REFEREE), dice).state
    state = apply_action(state, Action("traveller.initiative", {}, REFEREE), dice).state
    if state.game.acting(state) != frozenset({shooter}):
        state = apply_action(state, Action("traveller.pass", {"ship": target}, REFEREE), dice).state
    payload = {"ship": shooter, "target": target, **BARRAGE}
    offers: list[float] = []
    for i in range(n // 4 + 10):  # what a page asks after the barrage: the offers for a commander
        start = time.perf_counter()
        state.game.offers(state, REFEREE)
        if i >= 10:
            offers.append(time.perf_counter() - start)
    samples: list[float] = []
    cpu: list[float] = []
    for i in range(n + 30):
        source = SeededDice(b"bench-barrage", "fire", i)
        start, start_cpu = time.perf_counter(), time.thread_time()
        apply_action(state, Action("traveller.barrage", payload, REFEREE), source)
        if i >= 30:
            samples.append(time.perf_counter() - start)
            cpu.append(time.thread_time() - start_cpu)
    print(
        json.dumps(
            {
                "core_p50_ms": p50_ms(samples),
                "core_cpu_ms": p50_ms(cpu),
                "offers_p50_ms": p50_ms(offers),
                "startrek_p50_ms": startrek_damage(app_root, n),
                "n": n,
            }
        )
    )


def startrek_damage(app_root: Path, n: int) -> float:
    """The Star Trek parts' reads: the Shadow Cruiser's 30 points on the Excelsior in a B5 Wars
    battle's Combat step (shields, power, impulse, warp and the ship sheet each read the parts)."""
    from app.rules import Action, apply_action, new_battle
    from app.rules.core import REFEREE
    from app.rules.dice import SeededDice

    dice = SeededDice(b"bench-barrage", "startrek", 0)
    state = new_battle("b5wars", {})
    for slug in ("shadow-cruiser", "excelsior"):
        add = Action("ship.add", {"definition": definition(app_root, slug), "owner": None}, REFEREE)
        state = apply_action(state, add, dice).state
    ids = {s.name: s.id for s in state.ships.values()}
    while state.clock.step != "combat":
        state = apply_action(state, Action("clock.advance", {}, REFEREE), dice).state
    hit = {"target": ids["Excelsior"], "source": ids["Shadow Cruiser"], "amount": 30, "direction": "fore"}
    samples: list[float] = []
    for i in range(n + 30):
        start = time.perf_counter()
        apply_action(state, Action("damage.apply", hit, REFEREE), SeededDice(b"bench-barrage", "hit", i))
        if i >= 30:
            samples.append(time.perf_counter() - start)
    return p50_ms(samples)


def bench_core(app_root: Path, n: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--core-child", "--core", str(n), "--app-root", str(app_root)],
        cwd=app_root,
        env={**os.environ, "PYTHONPATH": str(app_root)},
        check=True,
        capture_output=True,
        text=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "core": got["core_p50_ms"],
        "core_cpu": got["core_cpu_ms"],
        "offers": got["offers_p50_ms"],
        "startrek": got["startrek_p50_ms"],
    }


# --- over REST ----------------------------------------------------------------------------------


class Battle:
    def __init__(self, c: Any, app_root: Path) -> None:
        self.c, self.app_root = c, app_root
        self.id, self.token, self.ships = "", "", {}  # type: ignore[var-annotated]

    async def create(self) -> None:
        body = {"name": "Barrage bench", "system": "traveller", "dice_mode": "seeded", "options": {}}
        r = await self.c.post("/api/v1/battles", json=body)
        if r.status_code != 201:
            raise SystemExit(f"battle not created: {r.status_code} {r.text[:300]}")
        self.id, self.token = r.json()["battle_id"], r.json()["referee"]["token"]
        for slug in (SHOOTER, TARGET):
            events = await self.act(
                "ship.add", {"definition": definition(self.app_root, slug), "owner": None}
            )
            self.ships[slug] = events["events"][0]["ship"]
        await self.to_combat()
        await self.act("traveller.initiative", {})

    async def act(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        r = await self.c.post(
            f"/api/v1/battles/{self.id}/actions",
            json={"type": kind, "payload": payload, "action_id": uuid.uuid4().hex},
            headers={"Authorization": f"Bearer {self.token}"},
        )
        if r.status_code != 200:
            raise SystemExit(f"{kind} refused: {r.status_code} {r.text[:300]}")
        return r.json()

    async def clock(self) -> dict[str, Any]:
        r = await self.c.get(f"/api/v1/battles/{self.id}", headers={"Authorization": f"Bearer {self.token}"})
        return r.json()["state"]["clock"]

    async def to_combat(self, after_turn: int = 0) -> None:
        """Advance the clock (untimed) to the Combat step of a round after `after_turn`."""
        for _ in range(20):
            clock = await self.clock()
            if clock["step"] == "combat" and clock["turn"] > after_turn:
                return
            await self.act("clock.advance", {})
        raise SystemExit("the clock never reached the next Combat step")

    async def fire(self, server_pid: int) -> tuple[float, float]:
        """One timed barrage; the target passes first (untimed) when the loop names it."""
        r = await self.c.get(f"/api/v1/battles/{self.id}", headers={"Authorization": f"Bearer {self.token}"})
        ships = r.json()["state"]["ships"]

        def turn_key(slug: str) -> tuple[int, int, int, str]:
            """The combat-action loop's order (TR-04, traveller/loop.py): next actor first."""
            unit = ships[self.ships[slug]]["parts"]["hg_ship"]
            base = unit.get("initiative_base") or 0
            now = unit["round"].get("initiative")
            return (
                unit["round"].get("actions") or 0,
                -(base if now is None else now),
                -base,
                unit_name[slug],
            )

        unit_name = {slug: ships[sid]["name"] for slug, sid in self.ships.items()}
        target_round = ships[self.ships[TARGET]]["parts"]["hg_ship"]["round"]
        if not target_round.get("passed") and turn_key(TARGET) < turn_key(SHOOTER):
            await self.act("traveller.pass", {"ship": self.ships[TARGET]})
        payload = {"ship": self.ships[SHOOTER], "target": self.ships[TARGET], **BARRAGE}
        await asyncio.sleep(0.02)  # the last action's after-commit work is done: the server is idle
        start, start_cpu = time.perf_counter(), cpu_seconds(server_pid)
        await self.act("traveller.barrage", payload)
        return time.perf_counter() - start, cpu_seconds(server_pid) - start_cpu


def cpu_seconds(pid: int) -> float:
    """CPU time the process's threads have run (/proc/PID/task/*/schedstat, nanoseconds): unlike
    the wall clock, it does not grow when other work on a shared machine takes the CPU."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


async def bench_rest(app_root: Path, n: int, db: str) -> dict[str, float]:
    import httpx

    (ROOT / "var").mkdir(exist_ok=True)
    dbname = f"starboard_bench_{os.getpid()}"
    if db == "postgres":
        import asyncpg

        admin = await asyncpg.connect(PG_ADMIN)
        await admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{dbname}"')
        await admin.close()
        url = f"{PG_ADMIN.rsplit('/', 1)[0]}/{dbname}"
    else:
        path = ROOT / "var" / f"{dbname}.db"
        path.unlink(missing_ok=True)
        url = f"sqlite:///{path}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BROADCAST_URL": "memory://",
        "SECRET_KEY": "bench-secret",
        "ALLOWED_ORIGINS": "",
        "BATTLE_CREATE_LIMIT": "0",
        "PYTHONPATH": str(app_root),
    }
    server = None
    try:
        subprocess.run(
            [sys.executable, "-m", "alembic", "upgrade", "head"],
            cwd=app_root,
            env=env,
            check=True,
            capture_output=True,
        )
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        log = open(ROOT / "var" / f"bench-barrage-{port}.log", "w")  # noqa: SIM115
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--port", str(port)]
            + ["--log-level", "warning"],
            cwd=app_root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/openapi.json", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        samples: list[float] = []
        cpu: list[float] = []
        async with httpx.AsyncClient(base_url=base, timeout=30) as c:
            battle = None
            for i in range(n + 4):
                if i % 4 == 0:
                    battle = Battle(c, app_root)
                    await battle.create()
                else:
                    assert battle is not None
                    await battle.to_combat((await battle.clock())["turn"])
                assert battle is not None
                took, used = await battle.fire(server.pid)
                if i >= 4:  # the first battle warms the server up
                    samples.append(took)
                    cpu.append(used)
        return {"rest": p50_ms(samples), "rest_server_cpu": p50_ms(cpu)}
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        if db == "postgres":
            import asyncpg

            admin = await asyncpg.connect(PG_ADMIN)
            await admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
            await admin.close()


def measure(app_root: Path, a: argparse.Namespace) -> dict[str, float]:
    found: dict[str, float] = {}
    if a.core:
        found.update(bench_core(app_root, a.core))
    if a.rest:
        found.update(asyncio.run(bench_rest(app_root, a.rest, a.db)))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app-root", default=str(ROOT), help="the checkout to measure (default: this one)")
    ap.add_argument("--core", type=int, default=400, help="timed barrages in the core (0: skip)")
    ap.add_argument("--rest", type=int, default=60, help="timed barrages over REST (0: skip)")
    ap.add_argument("--db", choices=("postgres", "sqlite"), default="postgres")
    ap.add_argument("--compare", help="a 'before' checkout to alternate with --app-root")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--core-child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    app_root = Path(a.app_root).resolve()
    if a.core_child:
        core_child(app_root, a.core)
        return
    if not a.compare:
        print(json.dumps({"checkout": str(app_root), **measure(app_root, a)}))
        return
    before = Path(a.compare).resolve()
    rounds: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for r in range(a.rounds):
        for label, root in (("before", before), ("after", app_root)):
            got = measure(root, a)
            rounds[label].append(got)
            print(
                json.dumps({"round": r + 1, "code": label, **{k: round(v, 3) for k, v in got.items()}}),
                flush=True,
            )
    summary = {
        label: {k: round(statistics.median(g[k] for g in got), 3) for k in got[0]}
        for label, got in rounds.items()
    }
    print(json.dumps({"medians_ms": summary, "load": os.getloadavg()}))


if __name__ == "__main__":
    main()
