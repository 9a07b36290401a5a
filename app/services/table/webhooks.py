"""Outbound webhook calls, kept apart from the game's own work: one seat cannot slow everyone.

Sends run on their OWN bounded threads (never the event loop's default executor, which undo,
audit, the report and imports use), at most `webhook_max_concurrent` at once in this process; each
attempt — resolving the name, connecting, sending and reading the answer — ends by
`webhook_timeout_seconds` (the socket is shut from outside if the receiver dribbles). A seat's
webhook gets at most `webhook_seat_limit` messages per `webhook_seat_window_seconds`.

Over a bound, a request a seat made (a test, saving a URL) is refused — 429 over the seat's rate,
503 with Retry-After when every slot is busy — and a notification the server started is dropped
with a log line: a notification is a courtesy, the game never waits for it.

Each attempt resolves the host once, checks every address (outbound_address) and connects to a
checked one; the Host header and TLS server name stay the URL's host. Redirects are not followed."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import logging
import math
import socket
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from app.config import Settings
from app.services.errors import Busy, RateLimited
from app.services.table.outbound_address import resolve
from app.services.window import SlidingWindow

log = logging.getLogger(__name__)


def _connect(address: str, port: int, timeout: float) -> socket.socket:
    return socket.create_connection((address, port), timeout)


class PinnedHTTP(http.client.HTTPConnection):
    """Connects to one already-checked address instead of resolving `host` again."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = _connect(self.address, self.port, self.timeout)


class PinnedHTTPS(http.client.HTTPSConnection):
    """The same over TLS: the certificate is checked against the URL's host (SNI kept)."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        self.tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.address = address

    def connect(self) -> None:
        raw = _connect(self.address, self.port, self.timeout)
        self.sock = self.tls.wrap_socket(raw, server_hostname=self.host)


class Attempt:
    """One send's connection, so the waiting side can shut it when the deadline passes (a blocked
    read in the thread then ends at once)."""

    def __init__(self) -> None:
        self.conn: http.client.HTTPConnection | None = None
        self.aborted = False
        self.lock = threading.Lock()

    def attach(self, conn: http.client.HTTPConnection) -> None:
        with self.lock:
            self.conn = conn
            if self.aborted:
                raise TimeoutError("the webhook's deadline passed")

    def abort(self) -> None:
        with self.lock:
            self.aborted = True
            sock = self.conn.sock if self.conn is not None else None
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed
                sock.shutdown(socket.SHUT_RDWR)


def post_once(url: str, body: bytes, timeout: float, allow_private: bool, attempt: Attempt) -> int:
    """One POST (blocking; runs on the webhook threads): resolve once, check, connect to a checked
    address. Answers the HTTP status."""
    deadline = time.monotonic() + timeout
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addresses = resolve(host, port, allow_private)
    kind = PinnedHTTPS if parts.scheme == "https" else PinnedHTTP
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    last: Exception | None = None
    for address in addresses:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        conn = kind(host, port, address, left)
        attempt.attach(conn)
        try:
            conn.request(
                "POST",
                path,
                body=body,
                headers={"Content-Type": "application/json", "User-Agent": "Starboard-notify/1"},
            )
            return conn.getresponse().status
        except (TimeoutError, ConnectionRefusedError) as exc:  # try the name's next address
            last = exc
        finally:
            conn.close()
    raise last or TimeoutError("the webhook's deadline passed")


class Webhooks:
    """This process's outbound calls: the threads, the global cap and each seat's rate."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.cap = settings.webhook_max_concurrent
        self.pool = ThreadPoolExecutor(max_workers=self.cap, thread_name_prefix="webhook")
        self.in_flight = 0
        self.seats = SlidingWindow(settings.webhook_seat_limit, settings.webhook_seat_window_seconds)

    def seat_allows(self, seat_id: str) -> int | None:
        """Count one message to this seat's webhook; None if allowed, else seconds to wait."""
        return self.seats.retry_after(seat_id)

    def check_seat(self, seat_id: str) -> None:
        """A request the seat made: 429 over its rate."""
        wait = self.seat_allows(seat_id)
        if wait is not None:
            s = self.settings
            raise RateLimited(
                f"at most {s.webhook_seat_limit} webhook calls every "
                f"{s.webhook_seat_window_seconds:g} s for a seat; try again in {wait} s",
                "webhook_url",
                retry_after=wait,
            )

    def busy(self) -> Busy:
        return Busy(
            "too many webhook calls are under way on this server; try again shortly",
            "webhook_url",
            retry_after=max(1, math.ceil(self.settings.webhook_timeout_seconds)),
        )

    async def run(self, fn: Any, *args: Any, deadline: float | None = None, abort: Any = None) -> Any:
        """Run blocking `fn(*args)` on a webhook thread, holding one slot until the thread is done.
        Raises Busy when every slot is taken; TimeoutError after `deadline` (calling `abort`, which
        must make the thread return)."""
        if self.in_flight >= self.cap:
            raise self.busy()
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self.pool, fn, *args)
        except RuntimeError:  # the threads were shut down (the server is stopping)
            raise self.busy() from None
        self.in_flight += 1
        future.add_done_callback(self._release)
        try:
            return await asyncio.wait_for(asyncio.shield(future), deadline)
        except TimeoutError:
            if abort is not None:
                abort()
            raise

    def _release(self, _future: Any) -> None:
        self.in_flight -= 1

    async def post(self, url: str, body: bytes) -> int:
        """One attempt within the deadline; its status."""
        s = self.settings
        attempt = Attempt()
        return await self.run(
            post_once,
            url,
            body,
            s.webhook_timeout_seconds,
            s.webhook_allow_private,
            attempt,
            deadline=s.webhook_timeout_seconds + 0.5,
            abort=attempt.abort,
        )

    async def check(self, url: str, check: Any) -> str:
        """A URL checked (its name resolved) on the webhook threads, within the deadline."""
        return await self.run(check, url, deadline=self.settings.webhook_timeout_seconds + 0.5)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def webhooks_of(platform: Any) -> Webhooks:
    """The process's webhook sender (made at first use; app/main.py closes it at shutdown)."""
    if platform.webhooks is None:
        platform.webhooks = Webhooks(platform.settings)
    return platform.webhooks
