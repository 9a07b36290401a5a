"""The HTTP protocol uvicorn runs (`python -m app.cli serve` passes it as `http=`).

uvicorn closes idle keep-alive connections (--timeout-keep-alive) but sets no deadline for a request's
headers: a client that opens a connection and sends a header byte every few seconds (slow loris)
holds it forever. This protocol gives every request head HEADER_TIMEOUT seconds — from the
connection's start or the end of the previous response — and close the connection when it runs out.
A head over MAX_HEADER_BYTES is answered 400 and the connection closed.

It is uvicorn's httptools protocol (a parser in C, which uvicorn[standard] installs); h11's
pure-Python one, used before, cost about a fifth more CPU per REST action."""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.config import get_settings

# The websocket implementation uvicorn runs: its sans-I/O one (which holds less per idle socket than
# the legacy `websockets` protocol, with a reader task and buffers of its own for every connection),
# trimmed further in app.web.live.ws_protocol. An import string, as `uvicorn --ws` takes it; the test
# servers and the benchmarks run it too.
WS_PROTOCOL = "app.web.live.ws_protocol:LeanWebSocketProtocol"


class HeaderDeadlineHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the same head deadline and size limit. A head is awaited
    from the connection's start and from the end of each request's body; the deadline runs from
    then, or from the end of the previous response, until the head is complete."""

    _deadline: asyncio.TimerHandle | None = None
    _awaiting_head = True  # no head has begun to be counted since the last one completed
    _head_bytes = 0
    _heads = 0  # heads completed on this connection
    _head_size = 0  # the current head's URL and headers as parsed so far
    _refusal: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        awaiting, heads = self._awaiting_head, self._heads
        super().data_received(data)
        if awaiting and self._heads == heads and not self.transport.is_closing():
            self._head_bytes += len(data)  # all of it was head: no head completed in it
            limit = get_settings().max_header_bytes
            if self._head_bytes > limit:
                self._refusal = f"Request head over {limit} bytes"
                self.send_400_response(self._refusal)

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def _count(self, size: int) -> None:
        """A head that completes in one piece is measured by its parts as the parser reads them;
        over the limit, the parser is stopped (uvicorn answers its error with send_400_response)."""
        self._head_size += size
        limit = get_settings().max_header_bytes
        if self._head_size > limit:
            self._refusal = f"Request head over {limit} bytes"
            raise ValueError(self._refusal)

    def send_400_response(self, msg: str) -> None:
        self._disarm()
        super().send_400_response(self._refusal or msg)

    def on_headers_complete(self) -> None:
        self._awaiting_head, self._head_bytes, self._head_size = False, 0, 0
        self._heads += 1
        self._disarm()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._awaiting_head = True  # the next request's head (its deadline starts with the response's end)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self._awaiting_head:
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
        if self._awaiting_head and not self.transport.is_closing():
            self.logger.info(
                "closed a connection whose request headers took over %ss", get_settings().header_timeout
            )
            self.transport.close()
