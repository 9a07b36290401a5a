"""The battle websocket is served by `SocketDoor`, before the application's own layers (memory per
idle socket). It must read the session cookie exactly as Starlette's SessionMiddleware signs it,
and refuse one that is forged, expired or not a session."""

from __future__ import annotations

import json
from base64 import b64encode

import itsdangerous

from app.main import SESSION_MAX_AGE
from app.web.live.ws import SocketDoor

SECRET = "door-secret"


def scope_with(cookie: str | None) -> dict:
    headers = [(b"cookie", f"starboard_session={cookie}".encode())] if cookie is not None else []
    return {"type": "websocket", "path": "/battles/b1/ws", "headers": headers}


class SignedAt(itsdangerous.TimestampSigner):
    """A signer whose clock reads `age` seconds ago: a cookie signed that long before now."""

    def __init__(self, secret: str, age: int) -> None:
        super().__init__(secret)
        self.age = age

    def get_timestamp(self) -> int:
        return super().get_timestamp() - self.age


def signed(data: object, secret: str = SECRET, age: int = 0) -> str:
    return SignedAt(secret, age).sign(b64encode(json.dumps(data).encode())).decode()


def tampered(cookie: str) -> str:
    """The cookie with one character of its signature changed. Not the last two: the signature's
    last base64 characters carry padding bits, so a change there can decode to the same bytes (a
    fixed "xx" there left about one run in a thousand signed as before)."""
    at = len(cookie) - 6
    return cookie[:at] + ("A" if cookie[at] != "A" else "B") + cookie[at + 1 :]


def test_the_door_reads_a_session_as_starlette_signs_it_and_nothing_else() -> None:
    door = SocketDoor(SECRET, "starboard_session", SESSION_MAX_AGE)
    seats = {"seats": {"b1": "p1"}}
    assert door._session(scope_with(signed(seats))) == seats
    assert door._session(scope_with(signed(seats, secret="another"))) == {}  # forged
    assert door._session(scope_with(tampered(signed(seats)))) == {}
    assert door._session(scope_with(signed(["not", "a", "dict"]))) == {}
    assert door._session(scope_with(None)) == {}
    # Signed longer ago than the session's maximum age: refused; just inside it: read.
    assert door._session(scope_with(signed(seats, age=SESSION_MAX_AGE + 5))) == {}
    assert door._session(scope_with(signed(seats, age=SESSION_MAX_AGE - 5))) == seats


def test_only_the_battle_websocket_goes_through_the_door() -> None:
    assert SocketDoor.battle_of({"type": "websocket", "path": "/battles/b1/ws"}) == "b1"
    assert SocketDoor.battle_of({"type": "http", "path": "/battles/b1/ws"}) is None
    assert SocketDoor.battle_of({"type": "websocket", "path": "/battles/b1/ws/more"}) is None
    assert SocketDoor.battle_of({"type": "websocket", "path": "/battles/b1/table/ws"}) is None
