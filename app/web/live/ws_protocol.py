"""The websocket protocol uvicorn runs for the app: its sans-I/O one, holding less per open socket.

An idle spectator's socket stays open for hours, so what each one holds is what a crowd costs
(the aim: ≤ 24 KiB per idle socket). uvicorn's `WebSocketsSansIOProtocol` keeps, for the socket's
whole life, things only its first moments need or that are built for many waiters where there is
one: the handshake's request and response (two header maps: ~4.6 KiB), the scope's copy of the
request headers (~1.3 KiB), an `asyncio.Queue` for the frames received (three deques: ~2.3 KiB)
and an `asyncio.Event` for "the transport may be written" (a deque: ~0.8 KiB). This subclass is
the same protocol with those replaced or let go once the socket is accepted:

* `Inbox` — the queue's part uvicorn uses (`put_nowait`, `get`, `empty`) on a list and at most
  one waiting reader (ASGI has one `receive` caller per connection);
* `Writable` — the event's part (`set`, `clear`, `is_set`, `wait`), with waiters only while the
  transport's buffer is full; `wait` on a set flag returns without suspending, as `asyncio.Event`
  does;
* after `websocket.accept`, the handshake request's headers and the scope's are emptied and the
  response dropped: the app reads the Origin and the cookie before it accepts, never after.

`write_text_now` is the hub's way to push a frame, cheaply per action: the text is framed and
written straight to the transport, past Starlette's and uvicorn's `send` (a task and a timeout per
frame), when the socket is open, its buffer not full and no extension (permessage-deflate: a
browser's socket) makes each socket's bytes its own; otherwise the caller sends it the usual way.
Frames are a few hundred bytes now that only what changed is sent (app/realtime/diff.py), so each
socket frames its own: the memo of framed texts this module kept (keyed by the text's `id()`) cost
more to reason about than the microseconds it saved.

The keepalive ping (every socket, every `--ws-ping-interval` seconds: 50 a second at 1,000
sockets) is written as the six bytes it is — a final, unmasked ping frame with a 4-byte payload —
instead of through websockets' frame objects and generators, which made it about 3 % of the
server's CPU at 1,000 watchers and 20 actions a second. Its meaning is uvicorn's: the
same random payload is awaited in the pong, an unanswered ping closes the socket 1011 after
`--ws-ping-timeout`, and the pong is read by uvicorn as before. Each socket's next ping is due
when uvicorn would send it, put off to the next tick of a grid that every socket shares (at most
half a second, a fortieth of the interval), so the pings of a crowd leave together, a few dozen to
a pass of the event loop: one wake-up of the clients' side for all of them rather than one for
every ping, each costing the server a write that wakes a sleeping peer (about a twentieth of the
server's CPU at 1,000 watchers), and their pongs come back together too.

Everything else (framing, closing handshake, backpressure) is uvicorn's.
"""

from __future__ import annotations

import asyncio
import math
import random
from typing import Any, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

PING_TICKS = 40  # a socket's pings are due on a grid of ticks, this many to the ping interval
MAX_PING_TICK = 0.5  # seconds


def ping_due(now: float, interval: float, rtt: float) -> float:
    """When a socket's next keepalive ping is due: uvicorn's time (the interval after the last
    pong, less its round trip), put off to the next tick of a grid every socket shares, a tick
    being a fortieth of the interval and at most half a second."""
    tick = min(MAX_PING_TICK, interval / PING_TICKS)
    return math.ceil((now + max(0.0, interval - rtt)) / tick) * tick


PING_HEAD = bytes((0x89, 4))  # FIN + ping opcode; unmasked, a 4-byte payload (RFC 6455 §5.2, §5.5.2)


def framed(text: str) -> bytes:
    """`text` as one unmasked, final text frame (RFC 6455 §5.2)."""
    payload = text.encode()
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 65536:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return head + payload


class Inbox:
    """Frames received and not yet read by the app, oldest first; one reader at a time."""

    __slots__ = ("_items", "_reader")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._reader: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        reader = self._reader
        if reader is not None and not reader.done():
            reader.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    async def get(self) -> Any:
        while not self._items:
            if self._reader is not None:
                raise RuntimeError("another coroutine is already waiting for this socket's next frame")
            reader = self._reader = asyncio.get_running_loop().create_future()
            try:
                await reader
            finally:
                self._reader = None
        return self._items.pop(0)


class Writable:
    """Whether the transport takes more bytes; a sender waits only while its buffer is full."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol, holding only what an open socket needs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Inbox()  # type: ignore[assignment]  # duck-types uvicorn's asyncio.Queue (get, put_nowait)
        self.writable = Writable()  # type: ignore[assignment]  # duck-types uvicorn's asyncio.Event
        self.writable.set()

    def write_text_now(self, text: str) -> bool:
        """Write `text` as a frame now if nothing stands in the way; False: send it with `send`
        (it is not open, its buffer is full, or an extension frames each socket's bytes its own)."""
        if (
            self.close_sent
            or self.disconnected
            or not self.handshake_complete
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.conn.extensions
            or self.conn.state is not State.OPEN
            or self.transport.is_closing()
        ):
            return False
        self.transport.write(framed(text))
        return True

    def schedule_ping(self) -> None:
        """uvicorn's schedule for the next ping, due on the next tick of a grid shared by every
        socket (see the module's docstring)."""
        assert self.ping_interval is not None
        self.ping_timer = self.loop.call_at(
            ping_due(self.loop.time(), self.ping_interval, self.last_ping_rtt), self.send_keepalive_ping
        )

    def send_keepalive_ping(self) -> None:
        """uvicorn's keepalive ping, written as its bytes (see the module's docstring)."""
        self.ping_timer = None
        if self.close_sent or self.transport.is_closing() or self.conn.state is not State.OPEN:
            return  # as uvicorn: no ping, and none scheduled, on a socket that is closing
        self.pending_ping_payload = payload = random.getrandbits(32).to_bytes(4, "big")
        self.ping_sent_at = self.loop.time()
        self.transport.write(PING_HEAD + payload)
        if self.ping_timeout is not None:
            self.pong_timer = self.loop.call_later(self.ping_timeout, self.keepalive_timeout)
        else:
            self.schedule_ping()

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept" and self.handshake_complete:
            # websockets' parser generator keeps the request in its frame for the socket's life, so
            # dropping uvicorn's reference is not enough: its header map is emptied in place
            self.request.headers.clear()
            self.request = self.response = None  # type: ignore[assignment]  # uvicorn types them as always set
            cast(list[tuple[bytes, bytes]], self.scope["headers"]).clear()  # uvicorn builds them as a list
