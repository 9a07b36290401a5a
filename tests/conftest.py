"""Shared fixtures: real SQLite and PostgreSQL databases (migrated with Alembic), real Redis,
in-process app clients, and real uvicorn server processes for websocket and browser tests."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import settings as hypothesis_settings

from app.config import Settings
from app.db import Database
from app.main import create_app
from app.realtime.broker import Broker
from app.services.bootstrap import build_platform
from app.services.bus import settle
from app.services.platform import Platform
from app.web.middleware.serving import WS_PROTOCOL
from tests import forked

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN = os.environ.get("STARBOARD_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("STARBOARD_TEST_REDIS", "redis://127.0.0.1:6379/0")
SECRET = "test-secret-key-for-starboard-tests"

# Property tests check outcomes, not speed: no per-example deadline (on a busy machine the first
# example of a test, which loads ship files, took 344 ms against hypothesis's default 200 ms).
hypothesis_settings.register_profile("starboard", deadline=None)
hypothesis_settings.load_profile("starboard")


# What a test needs, read from its fixtures: a fixture here (or anything that depends on it) needs
# that server or tool. Fixtures parametrised over backends name what each parameter needs, since
# they get the backend's fixture at run time (request.getfixturevalue), outside the static closure.
NEEDS: dict[str, set[str]] = {
    "postgres": {"postgres_url", "pg_server", "notify_pair", "redis_pair", "own_postgres"},
    "redis": {"redis_url", "redis_pair", "own_redis"},
    "browser": {"browser"},
    "nginx": {"nginx"},
    "fault": {"proxies", "own_redis", "own_postgres"},
}
NEEDS_BY_PARAM: dict[tuple[str, str], set[str]] = {
    ("db_url", "postgres"): {"postgres"},
    ("live", "postgres"): {"postgres"},
    ("replicas", "postgres-notify"): {"postgres"},
    ("replicas", "redis"): {"postgres", "redis"},
}


def needs(item: pytest.Item) -> set[str]:
    """The markers an item's fixtures call for."""
    names = set(getattr(item, "fixturenames", ()))
    found = {marker for marker, fixtures in NEEDS.items() if names & fixtures}
    callspec = getattr(item, "callspec", None)
    for fixture, param in callspec.params.items() if callspec is not None else ():
        found |= NEEDS_BY_PARAM.get((fixture, param), set()) if isinstance(param, str) else set()
    return found


def pytest_configure(config: pytest.Config) -> None:
    """`STARBOARD_TEST_CPU=var/test-cpu.tsv` records each test file's CPU (tests/cpu_meter.py)."""
    if out := os.environ.get("STARBOARD_TEST_CPU"):
        from tests.cpu_meter import CpuMeter

        config.pluginmanager.register(CpuMeter(ROOT / out), "starboard-cpu-meter")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each item marked with what it needs (postgres, redis, browser, nginx, fault), so that
    `-m "not postgres and not redis and not browser"` runs exactly the tests those servers and
    tools are not needed for. Then the longest files first: with two workers taking a file at a
    time (scripts/test.sh runs xdist with `--no-loadscope-reorder`, so this order is the queue),
    a minute-long file started last would leave one worker idle while the other finishes it."""
    for item in items:
        for marker in sorted(needs(item) - {m.name for m in item.iter_markers()}):
            item.add_marker(marker)
    items.sort(key=_queue_place)


def _queue_place(item: pytest.Item) -> int:
    """The schema fuzz (a minute or more a database) first, then the files that start servers,
    browsers or faults (seconds a test), then the rest (milliseconds a test)."""
    if "fuzz" in item.keywords:
        return 0
    if any(marker in item.keywords for marker in ("browser", "fault", "nginx")):
        return 1
    return 2


def migrate(url: str) -> None:
    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )


def _pg_url(name: str) -> str:
    base = PG_ADMIN.rsplit("/", 1)[0]
    return f"{base}/{name}"


async def _pg_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    name = f"starboard_test_{os.getpid()}"
    asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    url = _pg_url(name)
    migrate(url)
    yield url
    asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'starboard.db'}"
    migrate(url)
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Every test that takes it runs twice: on SQLite and on PostgreSQL."""
    return request.getfixturevalue(f"{request.param}_url")


# Each app and platform the suite runs keeps a small pool that waits longer for a free connection:
# two test workers side by side, each with an app, a platform and a server process open, stay well
# inside PostgreSQL's 100 connections, and a burst of concurrent requests queues instead of failing.
# Opening a connection may take longer than the 5 s a server gets on a machine loaded with browsers
# and servers (a loaded run once met a 503 there): 15 s here; the fault tests set their own 1 s.
# In-process apps take it from `settings_for`; server processes and CLI runs from the environment.
TEST_POOL: dict[str, Any] = {
    "db_pool_size": 4,
    "db_max_overflow": 4,
    "db_pool_timeout": 30.0,
    "db_connect_timeout": 15.0,
}
for _name, _value in TEST_POOL.items():
    os.environ.setdefault(_name.upper(), str(_value))


def settings_for(db: str, broadcast: str = "memory://") -> Settings:
    return Settings(
        database_url=db,
        broadcast_url=broadcast,
        secret_key=SECRET,
        allowed_origins=[],
        freeze_startup_heap=False,  # a test process's heap is the suite's, not a server's
        **TEST_POOL,
    )


@pytest.fixture
async def platform(db_url: str) -> AsyncIterator[Platform]:
    settings = settings_for(db_url)
    db = Database(db_url, pool_size=4, max_overflow=4, pool_timeout=30.0, connect_timeout=15.0)
    yield build_platform(settings=settings, db=db, broker=Broker())
    await settle()  # the after-commit work is done before the pool closes
    await db.dispose()


@pytest.fixture
async def client(db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process app (lifespan run) behind httpx, on the parametrised database."""
    app = create_app(settings_for(db_url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            c.app = app  # type: ignore[attr-defined]
            yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serving(url: str, seconds: float = 60) -> bool:
    """Wait until a server just started answers at `url` (its /healthz: uvicorn answers nothing before
    the app's startup is done); False if it never does. Not its OpenAPI document: that made every
    server build the whole schema (a quarter of a CPU-second) for a question /healthz answers. The
    deadline is for a server that cannot start: 20 s was met by sound ones on the shared machine at
    a load of 10 to 13, and a session server that misses it errors every test that takes it."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return True
        except httpx.HTTPError:
            time.sleep(0.1)
    return False


class Server:
    """A real uvicorn process serving the app, forked with the app already imported (tests/forked.py)."""

    def __init__(self, db: str, broadcast: str = "memory://", env: dict[str, str] | None = None) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "DATABASE_URL": db,
            "BROADCAST_URL": broadcast,
            "SECRET_KEY": SECRET,
            "ALLOWED_ORIGINS": "",
            "BATTLE_CREATE_LIMIT": "0",  # the suite creates many battles from one address
            **(env or {}),
        }
        self.log_path = ROOT / "var" / f"test-server-{self.port}.log"
        self.log_path.write_text("")
        # `python -m uvicorn ...` forked from a process that has the app imported (tests/forked.py)
        self.proc = forked.start(
            "uvicorn",
            [
                "app.main:create_app",
                "--factory",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                "--ws",
                WS_PROTOCOL,
                "--ws-max-size",
                "65536",  # above MAX_WS_FRAME_BYTES: the app closes 1009 with a full closing handshake
            ],
            env,
            self.log_path,
        )
        if not serving(self.url):
            self.stop()
            raise RuntimeError(f"server on {self.port} did not start; see var/test-server-{self.port}.log")

    def output(self) -> str:
        """What the server has logged so far (warnings and errors: it runs at --log-level warning)."""
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


(ROOT / "var").mkdir(exist_ok=True)
for _old in (ROOT / "var").glob("test-server-*.log"):  # keep only this run's server logs
    _old.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def server(sqlite_url: str) -> Iterator[Server]:
    """One server process on SQLite with the in-process broker."""
    srv = Server(sqlite_url)
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def pg_server(postgres_url: str) -> Iterator[Server]:
    """One server process on PostgreSQL with the in-process broker."""
    srv = Server(postgres_url)
    yield srv
    srv.stop()


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def live(request: pytest.FixtureRequest) -> Server:
    """A real server on each database in turn (streams need one: the in-process transport buffers a
    whole response): `server` and `pg_server`, shared by every module that takes it."""
    return request.getfixturevalue("server" if request.param == "sqlite" else "pg_server")


@pytest.fixture(scope="session")
def notify_pair(postgres_url: str) -> Iterator[tuple[Server, Server]]:
    """Two server processes on one PostgreSQL, woken through its LISTEN/NOTIFY."""
    a, b = Server(postgres_url, postgres_url), Server(postgres_url, postgres_url)
    yield a, b
    a.stop()
    b.stop()


@pytest.fixture(scope="session")
def redis_pair(postgres_url: str, redis_url: str) -> Iterator[tuple[Server, Server]]:
    """Two server processes on one PostgreSQL, woken through Redis pub/sub."""
    a, b = Server(postgres_url, redis_url), Server(postgres_url, redis_url)
    yield a, b
    a.stop()
    b.stop()


@pytest.fixture(scope="session", params=["postgres-notify", "redis"])
def replicas(request: pytest.FixtureRequest) -> tuple[str, Server, Server]:
    """Two server processes on one PostgreSQL woken through each real broker in turn: (the broker,
    one server, the other), shared by every module that takes it."""
    a, b = request.getfixturevalue("notify_pair" if request.param == "postgres-notify" else "redis_pair")
    return request.param, a, b


NGINX = os.environ.get("STARBOARD_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"


@pytest.fixture(scope="session")
def nginx() -> str:
    """The nginx binary (the proxy tests run deploy/nginx.conf in it). Missing, those tests fail:
    scripts/test.sh installs it; a run without it deselects them with -m "not nginx"."""
    if not os.access(NGINX, os.X_OK):
        pytest.fail(
            f"nginx is not installed ({NGINX}): install nginx-light (scripts/test.sh does), "
            'or deselect the tests that need it with -m "not nginx"',
            pytrace=False,
        )
    return NGINX


@pytest.fixture(scope="session")
def redis_url() -> str:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    client.ping()
    client.close()
    return REDIS_URL


def new_id() -> str:
    return uuid.uuid4().hex
