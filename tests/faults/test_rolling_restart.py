"""A rolling restart nobody notices: behind deploy/nginx.conf with two replicas (PostgreSQL, Redis
pub/sub), each replica in turn is sent SIGTERM and started again while three battles are played
through nginx. No action is lost or applied twice (a client whose action got no answer sends it
again with the same action id, as the page and the bots do), and every watcher — reconnecting on
1012 as the page does — is at the database's seq within 5 s of the last action."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, SECRET, free_port, serving
from tests.faults.watcher import Watcher, all_reach
from tests.helpers import Table, set_table, simple_ship
from tests.nginx import deploy_nginx
from tests.web.wsclient import cookie_for

pytestmark = [pytest.mark.fault, pytest.mark.postgres, pytest.mark.nginx]

HIT = {"target": "crow", "source": "hawk", "amount": 1}
BATTLES = 3


class Replica:
    """`python -m app.cli serve` on a fixed port, so it can be stopped and started again there."""

    def __init__(self, db: str, broadcast: str, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": db,
            "BROADCAST_URL": broadcast,
            "SECRET_KEY": SECRET,
            "BATTLE_CREATE_LIMIT": "0",
            "SHUTDOWN_DEADLINE_SECONDS": "5",
            "WS_HEARTBEAT_SECONDS": "1",
        }
        self.log_path = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        with self.log_path.open("a") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.cli",
                    "serve",
                    "--no-demo",
                    "--no-migrate",
                    "--port",
                    str(self.port),
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        assert serving(self.url, 30), self.log_path.read_text()

    def restart(self) -> int | None:
        """SIGTERM, wait for it to drain and exit, start it again on the same port."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=30)
        self.start()
        return code

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


retried: list[str] = []


async def until_answered(c: httpx.AsyncClient, table: Table, action_id: str) -> int:
    """Send an action until it is answered 200, always with the same action id: the seq it has."""
    body = {"type": "damage.apply", "payload": HIT, "action_id": action_id}
    for attempt in range(400):
        if attempt:
            retried.append(action_id)
        try:
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/actions", json=body, headers=table.auth("ann")
            )
        except httpx.TransportError:
            await asyncio.sleep(0.05)
            continue
        if r.status_code == 200:
            return int(r.json()["seq"])
        assert r.status_code in (502, 503, 504), r.text  # a replica going away; anything else is a bug
        await asyncio.sleep(0.05)
    raise AssertionError(f"{action_id} was never answered")


async def test_a_rolling_restart_of_both_replicas_loses_nothing(
    postgres_url: str, redis_url: str, nginx: str, tmp_path: Path
) -> None:
    replicas = [Replica(postgres_url, redis_url, tmp_path / f"replica-{n}.log") for n in range(2)]
    watchers: list[Watcher] = []
    with deploy_nginx(nginx, [r.port for r in replicas], tmp_path) as base:
        try:
            async with httpx.AsyncClient(base_url=base, timeout=30) as c:
                ships = {
                    "hawk": (simple_ship("Hawk", structure=4000), "ann"),
                    "crow": (simple_ship("Crow", structure=4000), "bob"),
                }
                tables = [await set_table(c, ships=ships) for _ in range(BATTLES)]
                for table in tables:
                    for who in ("bob", "watcher"):
                        cookie = await cookie_for(base, table.tokens[who])
                        watchers.append(
                            Watcher(base, table.battle_id, cookie, 0, f"{who}@{table.battle_id}").start()
                        )
                await all_reach(watchers, 2, 10)

                stop = asyncio.Event()
                answered: dict[str, dict[str, int]] = {t.battle_id: {} for t in tables}

                async def player(table: Table) -> None:
                    n = 0
                    while not stop.is_set():
                        action_id = f"roll-{table.battle_id}-{n}"
                        answered[table.battle_id][action_id] = await until_answered(c, table, action_id)
                        n += 1

                players = [asyncio.create_task(player(t)) for t in tables]
                codes = []
                for replica in replicas:  # one after the other, the other serving meanwhile
                    before = sum(len(a) for a in answered.values())
                    codes.append(await asyncio.to_thread(replica.restart))
                    await asyncio.sleep(0)  # let the players go on against the restarted pair
                    while sum(len(a) for a in answered.values()) < before + 2 * BATTLES:
                        await asyncio.sleep(0.05)
                stop.set()
                await asyncio.gather(*players)

                assert all(code in (0, -signal.SIGTERM) for code in codes), codes
                for table in tables:
                    r = await c.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ref"))
                    entries = [e for e in r.json()["entries"] if e["action_type"] == "damage.apply"]
                    seqs = sorted(answered[table.battle_id].values())
                    assert len(seqs) == len(set(seqs)) == len(entries)  # each applied once, none lost
                    assert [e["seq"] for e in entries] == seqs
                for table in tables:
                    seq = (
                        await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
                    ).json()["seq"]
                    mine = [w for w in watchers if w.name.endswith(table.battle_id)]
                    await all_reach(mine, seq, 5)  # every watcher converges within 5 s
                    assert all(not w.duplicates for w in mine)
                    # both replicas restarted: every watcher was told 1012 by its own, and came back
                    assert all(1012 in w.closes and w.connects >= 2 for w in mine), [
                        (w.closes, w.connects) for w in mine
                    ]
        finally:
            for w in watchers:
                await w.stop()
            for replica in replicas:
                replica.stop()
