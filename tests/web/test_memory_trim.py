"""After a burst of hellos the hub hands freed memory back to the OS (memory per idle
socket): once, when the hellos have paused, not once per hello."""

from __future__ import annotations

import asyncio
import ctypes.util

import pytest

from app.realtime import memory
from app.realtime.memory import Trimmer
from tests.helpers import eventually

glibc = pytest.mark.skipif(memory._TRIM is None, reason=f"no malloc_trim in {ctypes.util.find_library('c')}")


@glibc
async def test_a_burst_of_hellos_trims_once_after_the_quiet() -> None:
    trimmer = Trimmer(quiet=0.3)
    due: list[float] = []
    for _ in range(20):  # a burst: each hello pushes the trim back
        trimmer.soon()
        assert trimmer._timer is not None
        due.append(trimmer._timer.when())
        await asyncio.sleep(0)  # the loop runs between hellos, as it does between sockets
    assert due == sorted(due) and due[-1] > due[0]
    assert trimmer.trims == 0
    await eventually(lambda: trimmer.trims, what="the trim after the quiet")
    assert trimmer.trims == 1  # one for the whole burst
    trimmer.soon()
    await eventually(lambda: trimmer.trims == 2, what="the next hello's trim")


async def test_a_zero_quiet_never_trims() -> None:
    trimmer = Trimmer(quiet=0)
    trimmer.soon()
    await asyncio.sleep(0.05)
    assert trimmer.trims == 0
