"""What each role's page is pushed for one action, counted in bytes: the live frames a referee, a
player and a spectator of one battle receive, read off the app's own hub with sockets that keep
what they are sent. Byte sizes of a rendering are deterministic (seeded dice, the same names), so
a test may bound them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.realtime.hub import Hub, Subscriber
from tests.helpers import Table, eventually
from tests.web.wsclient import PageCopy

CSRF = "c" * 43  # as long as a real token (secrets.token_urlsafe(32))


@dataclass
class Socket:
    """One watcher's socket: the frames it was sent, decoded with their hunks applied as the page
    applies them (`raw`: as sent), and each one's size in bytes."""

    frames: list[dict[str, Any]] = field(default_factory=list)
    raw: list[dict[str, Any]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    page: PageCopy = field(default_factory=PageCopy)

    async def send(self, text: str) -> None:
        self.raw.append(json.loads(text))
        self.frames.append(self.page.read(json.loads(text)))
        self.sizes.append(len(text.encode()))

    async def close(self, code: int, reason: str) -> None:  # pragma: no cover - a test fails first
        raise AssertionError(f"closed {code}: {reason}")


def hub_of(client: httpx.AsyncClient) -> Hub:
    return client.app.state.hub  # type: ignore[attr-defined,no-any-return]


async def watch(
    client: httpx.AsyncClient, table: Table, seats: dict[str, str], seq: int
) -> dict[str, Socket]:
    """A socket per role (role → the seat's name in `table`), each said hello at `seq` and sent
    its first frame."""
    hub = hub_of(client)
    sockets = {}
    for role, who in seats.items():
        sock = sockets[role] = Socket()
        viewer = Subscriber(table.battle_id, table.ids[who], sock.send, sock.close, csrf=CSRF)
        hub.hello(viewer, seq)
    await eventually(lambda: all(s.frames for s in sockets.values()), what="every first frame")
    return sockets


async def next_frames(sockets: dict[str, Socket], seq: int) -> dict[str, tuple[dict[str, Any], int]]:
    """Each role's frame carrying `seq`, and its size in bytes as sent."""

    def found(sock: Socket) -> int | None:
        return next((i for i, f in enumerate(sock.frames) if f.get("seq") == seq), None)

    await eventually(lambda: all(found(s) is not None for s in sockets.values()), what=f"frames of seq {seq}")
    out = {}
    for role, sock in sockets.items():
        i = found(sock)
        assert i is not None
        out[role] = (sock.frames[i], sock.sizes[i])
    return out
