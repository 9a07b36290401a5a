"""Helpers for the security tests: a browser of one's own per participant (own cookie jar)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

HX = {"HX-Request": "true"}


def csrf(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "no CSRF token on the page"
    return found.group(1)


def has(text: str, value: str) -> bool:
    """The value as a word of its own, not digits inside an id, token or hash."""
    return re.search(rf"(?<![0-9A-Za-z_-]){re.escape(value)}(?![0-9A-Za-z_-])", text) is not None


@asynccontextmanager
async def browser(client: httpx.AsyncClient, token: str | None = None) -> AsyncIterator[httpx.AsyncClient]:
    """A separate browser (its own cookies) on the same in-process app, seated by its join link."""
    transport = httpx.ASGITransport(app=client.app)  # type: ignore[attr-defined]
    async with httpx.AsyncClient(transport=transport, base_url=str(client.base_url)) as b:
        if token is not None:
            r = await b.get(f"/join/{token}", follow_redirects=False)
            assert r.status_code == 303, r.text
        yield b


async def page_form(b: httpx.AsyncClient, battle_id: str) -> str:
    """The CSRF token of this browser's battle page."""
    r = await b.get(f"/battles/{battle_id}")
    assert r.status_code == 200, r.text
    return csrf(r.text)
