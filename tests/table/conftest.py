"""At the table: an in-process app whose webhooks may reach a receiver on this machine,
a tiny HTTP receiver on a free port, and a way to wait for the after-commit work."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from app.main import create_app
from app.services import bus
from app.services.table import notify
from tests.conftest import settings_for


class Receiver:
    """Answers each POST with the next status of `statuses` (then 200) and keeps the JSON bodies
    it answered 2xx to."""

    def __init__(self, statuses: tuple[int, ...] = ()) -> None:
        self.statuses = list(statuses)
        self.bodies: list[dict[str, Any]] = []
        self.hits = 0
        self.url = ""

    async def __aenter__(self) -> Receiver:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/hook"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()
        await self.server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        found = re.search(rb"content-length:\s*(\d+)", head, re.I)
        body = await reader.readexactly(int(found.group(1))) if found else b""
        self.hits += 1
        status = self.statuses.pop(0) if self.statuses else 200
        if 200 <= status < 300:
            self.bodies.append(json.loads(body))
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        writer.close()


async def settle(rounds: int = 3) -> None:
    """Wait for the after-commit tasks and the notifications they started."""
    for _ in range(rounds):
        await asyncio.sleep(0.05)
        while bus._running or notify._tasks:
            await bus.settle()
            await asyncio.gather(*list(notify._tasks), return_exceptions=True)


def table_app_client(db_url: str, **settings: Any):  # type: ignore[no-untyped-def]
    base = settings_for(db_url).model_dump()
    app = create_app(
        type(settings_for(db_url))(
            **{
                **base,
                "webhook_allow_private": True,
                "webhook_backoff_seconds": 0.05,
                "webhook_timeout_seconds": 2.0,
                **settings,
            }
        )
    )
    return app


@pytest.fixture
async def local_client(db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """Like `client`, with webhooks allowed to reach 127.0.0.1 and nobody counted as active."""
    app = table_app_client(db_url, notify_idle_seconds=0)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            c.app = app  # type: ignore[attr-defined]
            yield c


@pytest.fixture
async def idle_client(db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """Webhooks to 127.0.0.1 allowed; a seat seen on the page in the last 180 s is not notified."""
    app = table_app_client(db_url)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            c.app = app  # type: ignore[attr-defined]
            yield c
