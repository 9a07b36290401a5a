"""Memory a burst of sockets freed, handed back to the operating system.

When many viewers connect at once (a battle starts, a process restarts and every page reconnects),
each handshake, seat read and first frame allocates and frees a few tens of KiB. The C allocator
keeps what was freed for reuse, so the process stays as large as at the burst's peak long after
(memory per idle socket was about twice what the idle sockets hold). A moment after the
last hello of a burst, glibc's `malloc_trim` returns the free pages; elsewhere (no glibc) it does
nothing.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

QUIET_SECONDS = 1.0  # trim once the hellos have paused this long


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


_TRIM = _malloc_trim()


def trim() -> bool:
    """Return free heap pages to the OS now (True if the allocator could)."""
    if _TRIM is None:
        return False
    return bool(_TRIM(0))


class Trimmer:
    """`soon()` after each hello; the trim runs once the hellos have been quiet for a moment."""

    def __init__(self, quiet: float = QUIET_SECONDS) -> None:
        self.quiet = quiet
        self._timer: asyncio.TimerHandle | None = None
        self.trims = 0

    def soon(self) -> None:
        if _TRIM is None or self.quiet <= 0:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self.quiet, self._run)

    def _run(self) -> None:
        self._timer = None
        try:
            trim()
            self.trims += 1
        except Exception:  # never a reason to fail a socket
            log.exception("malloc_trim failed")
