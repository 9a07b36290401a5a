"""The time the services read: one clock object on the Platform, so a test moves time by hand
(no sleeps) and the server reads the wall clock. Seconds since the epoch, as floats."""

from __future__ import annotations

import time
from datetime import UTC, datetime


class SystemClock:
    """The wall clock (the server's)."""

    def now(self) -> float:
        return time.time()


class ManualClock:
    """A clock that moves only when told (tests). It starts in 2100 unless told otherwise, so what
    it makes due is never due yet to a server reading the wall clock on the same database."""

    def __init__(self, start: float | None = None) -> None:
        self.t = float(start if start is not None else datetime(2100, 1, 1, tzinfo=UTC).timestamp())

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> float:
        self.t += seconds
        return self.t


_current: list[SystemClock | ManualClock] = [SystemClock()]


def now() -> float:
    """The process's time, for the readers that have no platform at hand (the turn bar's clock)."""
    return _current[0].now()


def use(clock: SystemClock | ManualClock) -> SystemClock | ManualClock:
    """Make `clock` the process's time (a test's ManualClock; `SystemClock()` puts it back), and
    answer it so a platform can take the same one: `platform.clock = use(ManualClock())`."""
    _current[0] = clock
    return clock
