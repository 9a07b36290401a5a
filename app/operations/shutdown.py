"""Restarts nobody notices. On SIGTERM (a rolling restart, `docker compose stop`) uvicorn stops
listening, lets the requests in flight finish — actions included — and closes every websocket
with 1012 ("service restart": the page reconnects to another replica and catches up by seq). What
it cannot know is that a bot's Server-Sent Event feed never finishes by itself: this hook hears
the signal first and ends each feed with a `restart` event and a `retry:` hint, so the bot resumes
elsewhere with Last-Event-ID, and `/readyz` answers 503 so no proxy sends anything new here.
Whatever is still running at SHUTDOWN_DEADLINE_SECONDS is cancelled by uvicorn
(`timeout_graceful_shutdown`), so the process always exits in time.

The hook is chained in front of uvicorn's own signal handler, and only when uvicorn's is the one
installed (an app run in a test process, or by another server, leaves the signals alone)."""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Draining:
    """Whether this process is shutting down, and who is told when it starts."""

    def __init__(self) -> None:
        self.started = False
        self.listeners: list[Callable[[], None]] = []
        self._previous: dict[int, Any] = {}

    def begin(self) -> None:
        if self.started:
            return
        self.started = True
        log.info("shutting down: no new requests; finishing those in flight; feeds told to resume")
        for listener in self.listeners:
            try:
                listener()
            except Exception:  # one listener must not keep the others from hearing it
                log.exception("a shutdown listener failed")

    def install(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Chain the hook in front of uvicorn's handlers; False when they are not uvicorn's."""
        if threading.current_thread() is not threading.main_thread():
            return False
        for sig in SIGNALS:
            previous = signal.getsignal(sig)
            owner = getattr(previous, "__self__", None)
            if owner is None or not type(owner).__module__.startswith("uvicorn"):
                continue

            def hook(signum: int, frame: FrameType | None, previous: Any = previous) -> None:
                loop.call_soon_threadsafe(self.begin)
                previous(signum, frame)

            self._previous[sig] = previous
            signal.signal(sig, hook)
        return bool(self._previous)

    def uninstall(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()
