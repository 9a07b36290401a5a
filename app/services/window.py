"""The one sliding-window counter every per-client and per-seat limit uses (battle creation per
address, webhook sends per seat): kept in this process's memory, so with N replicas a client gets N
times the limit, which still bounds a flood (docs/security.md, "Bounds")."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable


class SlidingWindow:
    """At most `limit` events per `window` seconds per key; limit 0 switches it off."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.hits: dict[str, deque[float]] = {}

    def retry_after(self, key: str) -> int | None:
        """Count one event for `key`; None if allowed, else whole seconds until one is."""
        if self.limit <= 0:
            return None
        now = self.clock()
        hits = self.hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        if len(hits) >= self.limit:
            return max(1, math.ceil(hits[0] + self.window - now))
        hits.append(now)
        if len(self.hits) > 10_000:  # forget clients with no recent events
            for stale in [k for k, v in self.hits.items() if not v or v[-1] <= now - self.window]:
                del self.hits[stale]
        return None
