"""Honest faults in process: /healthz and /readyz, and a database that cannot serve (here: every
pooled connection busy) answered 503 with Retry-After — JSON with {error, field, reason} for the
API, an HTML page with a banner for pages, a flash for htmx — instead of a bare 500."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.conftest import SECRET
from tests.helpers import set_table


@pytest.fixture
async def tight(postgres_url: str) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        database_url=postgres_url,
        secret_key=SECRET,
        db_pool_size=1,
        db_max_overflow=0,
        db_pool_timeout=0.3,
        retry_after_seconds=7,
    )
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as c,
    ):
        c.app = app  # type: ignore[attr-defined]
        yield c


async def test_ready_and_healthy(tight: httpx.AsyncClient) -> None:
    assert (await tight.get("/healthz")).json() == {"status": "ok"}
    r = await tight.get("/readyz")
    assert r.status_code == 200 and r.json() == {
        "status": "ready",
        "checks": {"database": "ok", "broker": "ok"},
    }


async def test_pool_exhausted_is_503_with_retry_after(tight: httpx.AsyncClient) -> None:
    table = await set_table(tight, players=("ann",), spectator=False)
    assert (await tight.get(f"/join/{table.tokens['ann']}")).status_code == 303  # a seat cookie
    page = (await tight.get(f"/battles/{table.battle_id}")).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    engine = tight.app.state.platform.db.engine  # type: ignore[attr-defined]
    async with engine.connect() as held:  # the pool's only connection
        await held.exec_driver_sql("SELECT 1")
        r = await tight.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
        assert r.status_code == 503 and r.headers["retry-after"] == "7"
        assert r.json() == {
            "detail": {"error": "Unavailable", "field": None, "reason": r.json()["detail"]["reason"]},
            "request_id": r.headers["x-request-id"],  # quoted, so the operator finds its lines
        }
        r = await tight.get(f"/battles/{table.battle_id}", headers={"accept": "text/html"})
        assert r.status_code == 503 and r.headers["retry-after"] == "7"
        assert "flash-error" in r.text and "Back in a moment" in r.text
        r = await tight.post(
            f"/battles/{table.battle_id}/actions",
            headers={"hx-request": "true"},
            data={"csrf_token": csrf, "action_type": "clock.advance", "action_id": "x1"},
        )
        assert r.status_code == 503 and 'class="flash flash-error"' in r.text
        r = await tight.get("/readyz")
        assert r.status_code == 503 and r.json()["checks"]["database"].startswith("unreachable")
        assert (await tight.get("/healthz")).status_code == 200
    r = await tight.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
    assert r.status_code == 200


async def test_a_started_server_has_frozen_its_startup_heap(sqlite_url: str) -> None:
    """A full collection with 1,000 sockets open held the loop 150-210 ms while it walked
    the startup heap; the server freezes it once started (FREEZE_STARTUP_HEAP, on by default)."""
    import gc

    from tests.conftest import settings_for

    settings = settings_for(sqlite_url).model_copy(update={"freeze_startup_heap": True})
    assert Settings().freeze_startup_heap is True  # what a server runs with unless told otherwise
    app = create_app(settings)
    gc.unfreeze()  # whatever an earlier test left frozen: the startup must freeze it again
    assert gc.get_freeze_count() == 0
    try:
        async with app.router.lifespan_context(app):
            assert gc.get_freeze_count() > 10_000  # the modules, mappers and templates
    finally:
        gc.unfreeze()  # the test process's heap goes back to the collector


def _wrapped(error: BaseException) -> BaseException:
    """An asyncpg error as SQLAlchemy's asyncpg dialect raises it: its adapter's own error, caused by
    asyncpg's, inside a DBAPIError (the adapter's error is not asyncpg's class)."""
    from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_dbapi
    from sqlalchemy.exc import DBAPIError

    adapted = AsyncAdapt_asyncpg_dbapi.Error(f"{type(error)}: {error}")
    adapted.pgcode = adapted.sqlstate = getattr(error, "sqlstate", None)  # type: ignore[attr-defined]
    adapted.__cause__ = error
    return DBAPIError("SELECT 1", None, adapted)


def _unavailable_errors() -> list[BaseException]:
    import asyncpg
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    return [
        _wrapped(asyncpg.CannotConnectNowError("the database system is starting up")),
        _wrapped(asyncpg.AdminShutdownError("terminating connection due to administrator command")),
        _wrapped(asyncpg.CrashShutdownError("the database system is in recovery mode")),
        _wrapped(asyncpg.TooManyConnectionsError("sorry, too many clients already")),
        _wrapped(
            asyncpg.InternalClientError("cannot switch to state 12; another operation (2) is in progress")
        ),
        asyncpg.InternalClientError("cannot switch to state 11; another operation (2) is in progress"),
        asyncpg.InterfaceError("cannot perform operation: another operation is in progress"),
        PoolTimeout("QueuePool limit of size 1 overflow 0 reached"),
        ConnectionRefusedError(111, "Connection refused"),
    ]


@pytest.mark.parametrize("index", range(9))
def test_every_database_unavailable_condition_is_unavailable(index: int) -> None:
    """Starting up, shutting down, too many connections, a connection left mid-operation, a pool
    that hands none out in time: each answered 503 with Retry-After, not 500."""
    from app.web.middleware.errors import is_unavailable

    assert is_unavailable(_unavailable_errors()[index])


def test_a_real_fault_is_not_called_unavailable() -> None:
    import asyncpg
    from sqlalchemy.exc import IntegrityError

    from app.web.middleware.errors import is_unavailable

    unique = asyncpg.UniqueViolationError("duplicate key value violates unique constraint")
    assert not is_unavailable(_wrapped(unique))
    assert not is_unavailable(IntegrityError("INSERT", None, unique))
    assert not is_unavailable(ValueError("a bug"))
    assert not is_unavailable(asyncpg.InternalClientError("unexpected message"))


async def test_the_feed_ends_with_a_retry_line_when_the_database_goes(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A push feed whose database goes away mid-stream says when to come back (`retry:`, in ms)
    and ends, instead of dying without a word."""
    from app.web.live import feed

    table = await set_table(client, players=("ann",), spectator=False)

    async def starting_up(*_: object) -> tuple[int, bool]:
        raise _wrapped(_unavailable_errors()[0])  # PostgreSQL "the database system is starting up"

    monkeypatch.setattr(feed, "_position_of", starting_up)
    r = await client.get(f"/api/v1/battles/{table.battle_id}/feed", headers=table.auth("ann"))
    assert r.status_code == 200
    retry = client.app.state.settings.retry_after_seconds * 1000  # type: ignore[attr-defined]
    assert r.text.startswith(": feed open") and f"retry: {retry}\n" in r.text, r.text
