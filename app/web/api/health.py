"""Liveness and readiness for load balancers and orchestrators.

`/healthz`: the process lives and its event loop answers (no I/O). `/readyz`: this process can do
its work — the database answers within the connect timeout and is at the migrations' head, and
the broker's subscription is up (a replica that cannot hear wake-ups would serve stale pages).
"""

from __future__ import annotations

import asyncio
from functools import lru_cache

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.web.drawing.render import ROOT

router = APIRouter(include_in_schema=False)


@lru_cache
def migrations_head() -> str | None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini"))).get_current_head()


@router.get("/healthz")
async def healthz() -> JSONResponse:
    return JSONResponse({"status": "ok"}, headers={"cache-control": "no-store"})


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    platform = request.app.state.platform
    settings = request.app.state.settings
    checks: dict[str, str] = {}
    try:
        revision = await asyncio.wait_for(platform.db.ping(), settings.db_connect_timeout)
        head = migrations_head()
        checks["database"] = "ok" if revision == head else f"at migration {revision}, head is {head}"
    except Exception as exc:  # any failure to answer is "not ready"
        checks["database"] = f"unreachable: {type(exc).__name__}"
    broker = platform.broker
    checks["broker"] = "ok" if broker.subscribed else "not subscribed"
    if broker.pending:
        checks["unpublished"] = str(len(broker.pending))
    draining = getattr(request.app.state, "draining", None)
    if draining is not None and draining.started:
        checks["shutdown"] = "shutting down"
    ready = checks["database"] == "ok" and checks["broker"] == "ok" and "shutdown" not in checks
    headers = {"cache-control": "no-store"}
    if not ready:
        headers["retry-after"] = str(settings.retry_after_seconds)
    return JSONResponse(
        {"status": "ready" if ready else "not ready", "checks": checks},
        status_code=200 if ready else 503,
        headers=headers,
    )
