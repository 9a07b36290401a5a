"""The battle websocket is served by `SocketDoor`, past the HTTP middleware (issue 12: memory per
idle socket). It must read the session cookie exactly as Starlette's SessionMiddleware signs it,
and refuse one that is forged, expired or not a session."""

from __future__ import annotations

import json
import time
from base64 import b64encode

import itsdangerous

from app.main import SESSION_MAX_AGE
from app.web.ws import SocketDoor

SECRET = "door-secret"


def scope_with(cookie: str | None) -> dict:
    headers = [(b"cookie", f"starboard_session={cookie}".encode())] if cookie is not None else []
    return {"type": "websocket", "path": "/battles/b1/ws", "headers": headers}


def signed(data: object, secret: str = SECRET) -> str:
    return itsdangerous.TimestampSigner(secret).sign(b64encode(json.dumps(data).encode())).decode()


def test_the_door_reads_a_session_as_starlette_signs_it_and_nothing_else() -> None:
    door = SocketDoor(None, SECRET, "starboard_session", SESSION_MAX_AGE)  # type: ignore[arg-type]
    seats = {"seats": {"b1": "p1"}}
    assert door._session(scope_with(signed(seats))) == seats
    assert door._session(scope_with(signed(seats, secret="another"))) == {}  # forged
    assert door._session(scope_with(signed(seats)[:-2] + "xx")) == {}  # tampered
    assert door._session(scope_with(signed(["not", "a", "dict"]))) == {}
    assert door._session(scope_with(None)) == {}
    old = SocketDoor(None, SECRET, "starboard_session", 1)  # type: ignore[arg-type]
    stale = signed(seats)
    time.sleep(2.1)
    assert old._session(scope_with(stale)) == {}  # older than the session's maximum age


async def test_other_paths_and_http_pass_through_to_the_app() -> None:
    seen: list[str] = []

    async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        seen.append(scope["path"])

    door = SocketDoor(app, SECRET, "starboard_session", SESSION_MAX_AGE)
    await door({"type": "http", "path": "/battles/b1/ws", "headers": []}, None, None)  # type: ignore[arg-type]
    await door({"type": "websocket", "path": "/battles/b1/ws/more", "headers": []}, None, None)  # type: ignore[arg-type]
    assert seen == ["/battles/b1/ws", "/battles/b1/ws/more"]
