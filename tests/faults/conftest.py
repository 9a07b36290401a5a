"""Fault-test fixtures: a throwaway redis-server of our own (the shared one is never stopped) and
TCP proxies between the app processes and PostgreSQL/Redis."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest
import redis

from tests.faults.own_postgres import OwnPostgres
from tests.faults.proxy import Proxy, free_port


class OwnRedis:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                redis.Redis(port=self.port).ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("own redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(5)
            self.proc = None


@pytest.fixture(scope="package")
def own_redis() -> Iterator[OwnRedis]:
    r = OwnRedis()
    yield r
    r.kill()


@pytest.fixture
def proxies() -> Iterator[list[Proxy]]:
    made: list[Proxy] = []
    yield made
    for p in made:
        p.close()


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    """A PostgreSQL server of our own, to be restarted by the test (the shared one never is)."""
    pg = OwnPostgres()
    yield pg
    pg.stop()
