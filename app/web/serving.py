"""The HTTP protocol uvicorn runs (`python -m app.cli serve` passes it as `http=`).

uvicorn closes idle keep-alive connections (--timeout-keep-alive) but sets no deadline for a request's
headers: a client that opens a connection and sends a header byte every few seconds (slow loris)
holds it forever. This h11 protocol gives every request head HEADER_TIMEOUT seconds — from the
connection's start or the end of the previous response — and closes the connection when it runs out.
A head over MAX_HEADER_BYTES is answered 400 and the connection closed (h11's own limit,
uvicorn's h11_max_incomplete_event_size, only applies while a head is incomplete)."""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.config import get_settings

# The websocket implementation uvicorn runs: its sans-I/O one (which holds less per idle socket than
# the legacy `websockets` protocol, with a reader task and buffers of its own for every connection),
# trimmed further in app.web.ws_protocol. An import string, as `uvicorn --ws` takes it; the test
# servers and the benchmarks run it too.
WS_PROTOCOL = "app.web.ws_protocol:LeanWebSocketProtocol"


class HeaderDeadlineH11Protocol(H11Protocol):
    _deadline: asyncio.TimerHandle | None = None
    _head: bytearray | None = None

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            limit = get_settings().max_header_bytes
            head = self._head if self._head is not None else bytearray()
            head += data[: limit + 4 - len(head)] if len(head) < limit + 4 else b""
            self._head = head
            if b"\r\n\r\n" not in head and len(head) > limit:
                self._disarm()
                self.send_400_response(f"Request head over {limit} bytes")
                return
        super().data_received(data)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # a whole request head has arrived
            self._disarm()
            self._head = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(get_settings().header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.logger.info(
                "closed a connection whose request headers took over %ss", get_settings().header_timeout
            )
            self.transport.close()
