"""An opt-in meter of what each test file costs in CPU (`STARBOARD_TEST_CPU=var/test-cpu.tsv`).

Wall time on the shared machine says more about the neighbours than about a file; CPU time does
not. A file's CPU is this process's own (`time.process_time()`) plus that of the processes it
started — servers, browsers, CLI runs: those already reaped (`RUSAGE_CHILDREN`) and those still
running, read from /proc (a session server or chromium lives on past the file that started it, and
its CPU while a file drives it belongs to that file). Processes that leave the tree (a daemon that
forks away, like pg_ctl's postmaster) are not counted. A forked server or CLI run (tests/forked.py)
is the forkserver's child, and the forkserver this process's: a live one is read under it, a reaped
one in the forkserver's own line (its reaped children's CPU). Each worker appends one line per file:
file, tests, own CPU s, children CPU s, wall s."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

TICK = os.sysconf("SC_CLK_TCK")


def _descendants_cpu(root: int) -> float:
    """CPU seconds of the live processes under `root` (each with its reaped children's)."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry.name)
        parent[pid] = int(fields[1])
        cpu[pid] = sum(int(f) for f in fields[11:15]) / TICK  # utime stime cutime cstime
    total = 0.0
    for pid in cpu:
        up = parent.get(pid, 0)
        while up > 1 and up != root:
            up = parent.get(up, 0)
        if up == root and pid != root:
            total += cpu[pid]
    return total


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime + _descendants_cpu(os.getpid())


class CpuMeter:
    """Per test file: CPU of this process and of the processes it started, and wall time."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.rows: list[str] = []
        self.start: tuple[float, float, float] | None = None
        self.tests = 0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        if self.start is None:
            self.start = (time.process_time(), _children_cpu(), time.monotonic())
            self.tests = 0
        yield
        self.tests += 1
        if nextitem is None or nextitem.path != item.path:
            own, children, wall = self.start
            self.rows.append(
                f"{item.path.relative_to(item.config.rootpath)}\t{self.tests}\t"
                f"{time.process_time() - own:.2f}\t{_children_cpu() - children:.2f}\t"
                f"{time.monotonic() - wall:.2f}\n"
            )
            self.start = None

    def pytest_sessionfinish(self) -> None:
        if self.rows:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            with open(self.out, "a") as out:  # one write per worker: lines of two workers don't mix
                out.write("".join(self.rows))
