"""Sessions, CSRF and origin checks, and request size limits."""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings

SESSION_PARTICIPANTS = "p"  # battle id → participant id
SESSION_CSRF = "csrf"


def csrf_token(conn: HTTPConnection) -> str:
    token = conn.session.get(SESSION_CSRF)
    if not token:
        token = secrets.token_urlsafe(32)
        conn.session[SESSION_CSRF] = token
    return token


def csrf_ok(conn: HTTPConnection, submitted: str | None) -> bool:
    expected = conn.session.get(SESSION_CSRF)
    return bool(expected and submitted and hmac.compare_digest(str(expected), str(submitted)))


def seat_in(conn: HTTPConnection, battle_id: str) -> str | None:
    return conn.session.get(SESSION_PARTICIPANTS, {}).get(battle_id)


def take_seat(conn: HTTPConnection, battle_id: str, participant_id: str) -> None:
    seats = dict(conn.session.get(SESSION_PARTICIPANTS, {}))
    seats[battle_id] = participant_id
    conn.session[SESSION_PARTICIPANTS] = seats


def origin_allowed(conn: HTTPConnection, settings: Settings) -> bool:
    """Same host, or listed in ALLOWED_ORIGINS. A missing Origin (non-browser client) is allowed:
    cookies are what a cross-site page would abuse, and browsers always send Origin on websockets."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if origin in settings.allowed_origins:
        return True
    return urlsplit(origin).netloc == conn.headers.get("host", "")


class BodyLimit:
    """Refuse request bodies over the limit (413) before the app reads them."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await _too_large(send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _too_large(send)


class _TooLarge(Exception):
    pass


async def _too_large(send: Send) -> None:
    body = b'{"detail":{"field":null,"reason":"request body too large"}}'
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
