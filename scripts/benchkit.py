"""What the live benchmark (scripts/bench_live.py) and its floor (scripts/bench_floor.py) share, so
the app and the floor are measured by the same trigger, the same watcher client and the same
arithmetic (docs/benchmarks.md):

* the **trigger driver**, a process of its own (``python scripts/benchkit.py driver …``): it writes
  ``"i\\n"`` to its stdout at t0 + i/rate (CLOCK_MONOTONIC, which every process on the machine
  shares), sleeping until shortly before and spinning the last 0.4 ms, then ``DONE``. Whoever reads
  the pipe reacts as it would to a request arriving; latencies count from the *scheduled* time;
* the **watchers**, a process of their own (``python scripts/benchkit.py watchers``): a minimal
  RFC 6455 client on ``asyncio.Protocol`` (no extension, no library), one per plan entry read from
  stdin, each opening ``GET <path>`` with the entry's headers and sending its hello; every frame is
  timestamped when its bytes reach the event loop and kept as (seq, time, bytes, chat mark);
* the **CPU plan** (server on the first CPU, watchers and trigger on the others, PostgreSQL left to
  float), **/proc readers** (CPU seconds of a process, its RSS) and the **statistics** (nearest-rank
  p50/p90/p99/max).

Only the standard library: the app is reached over HTTP and websockets, never imported.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import resource
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
monotonic = time.monotonic
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
SPIN = 0.0004  # seconds spun before each scheduled time (a sleep alone wakes late on a VM)
CHAT_MARK = re.compile(rb"\[bench chat (\d+)\]")  # the mark a benchmark's chat line carries


# -- statistics ----------------------------------------------------------------------------------


def pct(values: list[float]) -> dict[str, float]:
    """p50/p90/p99/max (nearest rank) and n; {} for no values."""
    if not values:
        return {}
    s = sorted(values)

    def at(p: float) -> float:
        return s[min(len(s) - 1, max(0, -(-p * len(s) // 100) - 1))]

    return {"p50": at(50), "p90": at(90), "p99": at(99), "max": s[-1], "n": len(s)}


def fmt(d: dict[str, float]) -> str:
    return " / ".join(f"{d[k]:.2f}" for k in ("p50", "p90", "p99", "max")) if d else "–"


# -- /proc and the CPU plan ------------------------------------------------------------------------


def cpu_seconds_pid(pid: int) -> float | None:
    """User + system CPU seconds of a process (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14, 15 of stat)


def cpu_seconds_self() -> float:
    t = os.times()
    return t.user + t.system


def rss_of(pid: int) -> int:
    """Resident set size of a process, bytes."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * PAGE


def cpu_plan(pin: bool = True) -> tuple[list[int], list[int]]:
    """(server CPUs, client CPUs): the first allowed CPU for the server, the rest for the watchers
    and the trigger; ([], []) when not pinning or with a single CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    if not pin or len(cpus) < 2:
        return [], []
    return cpus[:1], cpus[1:]


def pin(cpus: str | list[int] | None) -> None:
    if cpus:
        wanted = {int(c) for c in cpus.split(",")} if isinstance(cpus, str) else set(cpus)
        os.sched_setaffinity(0, wanted)


def raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the trigger driver ----------------------------------------------------------------------------


def driver_main(rate: float, n: int, t0: float, deadline: float, cpus: str = "") -> None:
    """Write "i\\n" at t0 + i/rate for i < n, then "DONE"; stop at the deadline whatever happens."""
    pin(cpus)
    out = sys.stdout.buffer
    for i in range(n):
        due = t0 + i / rate
        now = monotonic()
        if now > deadline:
            break
        if due - now > SPIN:
            time.sleep(due - now - SPIN)
        while monotonic() < due:
            pass
        out.write(b"%d\n" % i)
        out.flush()
    out.write(b"DONE\n")
    out.flush()


def driver_command(rate: float, n: int, t0: float, cpus: list[int] | None) -> list[str]:
    """The command line of a trigger driver for this schedule (a minute's grace past its end)."""
    return [
        sys.executable,
        str(HERE),
        "driver",
        "--rate",
        repr(rate),
        "--n",
        str(n),
        "--t0",
        repr(t0),
        "--deadline",
        repr(t0 + n / rate + 60),
        "--cpus",
        ",".join(map(str, cpus or [])),
    ]


# -- the watcher client ----------------------------------------------------------------------------


def masked_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """One final, masked client frame (RFC 6455 §5.2)."""
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + mask + bytes(c ^ mask[i & 3] for i, c in enumerate(payload))


def mark_of(payload: bytes) -> tuple[int, int]:
    """(seq, chat mark) of a pushed frame: the seq a content frame ends with (`…, "seq": N}`), or
    -1; the highest chat mark a table frame (`…, "table": true}`) carries, or -1. Heartbeats and
    answers (`{"type": …`) are neither."""
    if payload.startswith(b'{"type"'):
        return -1, -1
    if payload.endswith(b'"table": true}'):
        marks = CHAT_MARK.findall(payload)
        return -1, max(map(int, marks)) if marks else -1
    i = payload.rfind(b'"seq": ')
    if i < 0:
        return -1, -1
    end = payload.find(b"}", i)
    try:
        return int(payload[i + 7 : end]), -1
    except ValueError:
        return -1, -1


class RawWatcher(asyncio.Protocol):
    """A minimal websocket client: the opening handshake, then text frames parsed by hand and kept
    as [seq, time, bytes, chat mark]; pings answered; no extension negotiated."""

    def __init__(self, path: str, port: int, headers: dict[str, str], hello: str | None) -> None:
        self.path, self.port, self.headers, self.hello_text = path, port, headers, hello
        self.key = base64.b64encode(os.urandom(16)).decode()
        self.handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.buf = bytearray()
        self.log: list[list[Any]] = []
        self.lost = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        extra = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        transport.write(  # type: ignore[attr-defined]
            (
                f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {self.key}\r\nSec-WebSocket-Version: 13\r\n"
                f"{extra}\r\n"
            ).encode()
        )

    def hello(self) -> None:
        if self.hello_text is not None and self.transport is not None:
            self.transport.write(masked_frame(self.hello_text.encode()))

    def data_received(self, data: bytes) -> None:
        t = monotonic()
        self.buf += data
        if not self.handshake.done():
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buf[: self.buf.find(b"\r\n")])
            del self.buf[: end + 4]
            if b" 101 " not in status + b" ":
                self._fail(f"handshake refused: {status[:80]!r}")
                return
            self.handshake.set_result(None)
        buf = self.buf
        while len(buf) >= 2:
            op, n, at = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            payload = bytes(buf[at : at + n])
            del buf[: at + n]
            if op == 0x1:
                seq, chat = mark_of(payload)
                if seq >= 0 or chat >= 0:
                    self.log.append([seq, t, n, chat])
            elif op == 0x9 and self.transport is not None:  # ping → pong
                self.transport.write(masked_frame(payload, 0xA))
            elif op == 0x8:
                self.lost = True
                if self.transport is not None:
                    self.transport.close()
                return

    def _fail(self, why: str) -> None:
        if not self.handshake.done():
            self.handshake.set_exception(ConnectionError(why))
        self.lost = True
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: BaseException | None) -> None:
        if not self.handshake.done():
            self.handshake.set_exception(exc or ConnectionError("closed during the handshake"))
        self.lost = True


async def watchers_main(cpus: str) -> None:
    """The watcher process: the plan on stdin (one JSON list of {"port", "path", "headers",
    "hello"}), "READY n" once every watcher said hello, then on "END" one line
    "RESULT {frames: {k: [[seq, t, bytes, chat], …]}, lost, cpu_s}"."""
    raise_nofile()
    pin(cpus)
    plan = json.loads(sys.stdin.readline())
    loop = asyncio.get_running_loop()
    sem = asyncio.Semaphore(64)  # a connection storm of at most 64 handshakes at a time
    watchers: dict[int, RawWatcher] = {}

    async def one(k: int, w: dict[str, Any]) -> None:
        async with sem:
            _, proto = await loop.create_connection(
                lambda: RawWatcher(w["path"], w["port"], w.get("headers", {}), w.get("hello")),
                "127.0.0.1",
                w["port"],
            )
            await asyncio.wait_for(proto.handshake, 30)
            proto.hello()
            watchers[k] = proto

    await asyncio.gather(*(one(k, w) for k, w in enumerate(plan)))
    print(f"READY {len(watchers)}", flush=True)
    cpu0 = cpu_seconds_self()
    await loop.run_in_executor(None, sys.stdin.readline)  # "END"
    cpu1 = cpu_seconds_self()
    out = {
        "frames": {str(k): p.log for k, p in watchers.items()},
        "lost": sum(1 for p in watchers.values() if p.lost),
        "cpu_s": cpu1 - cpu0,
    }
    sys.stdout.write("RESULT " + json.dumps(out, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class Watchers:
    """The coordinator's handle on a watcher process."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(
        cls, plan: list[dict[str, Any]], cpus: list[int] | None, timeout: float = 120
    ) -> Watchers:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(HERE),
            "watchers",
            "--cpus",
            ",".join(map(str, cpus or [])),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**28,
        )
        proc.stdin.write((json.dumps(plan) + "\n").encode())  # type: ignore[union-attr]
        await proc.stdin.drain()  # type: ignore[union-attr]
        line = await asyncio.wait_for(proc.stdout.readline(), timeout)  # type: ignore[union-attr]
        if not line.startswith(b"READY"):
            proc.kill()
            raise SystemExit(f"the watchers did not connect: {line!r}")
        return cls(proc)

    async def finish(self, timeout: float = 120) -> dict[str, Any]:
        self.proc.stdin.write(b"END\n")  # type: ignore[union-attr]
        await self.proc.stdin.drain()  # type: ignore[union-attr]
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)  # type: ignore[union-attr]
        await self.proc.wait()
        return json.loads(line[len(b"RESULT ") :])

    def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()


# -- what the frames say ---------------------------------------------------------------------------


def delivered(
    actions: dict[int, dict[str, Any]],
    plan_meta: list[dict[str, Any]],
    frames: dict[str, list[list[Any]]],
    measured_from: float,
) -> dict[str, Any]:
    """e2e per action: scheduled → the last watcher of its battle holds a frame for it (a content
    frame with that seq or a later one; for a chat line, a table frame with its mark or a later
    one), overall, by the watchers' role and by the action's kind; bytes per frame by role.

    `actions`: i → {"sched", "battle", "seq" or "chat", "kind"} (answered and accepted ones only);
    `plan_meta`: per watcher {"battle", "role"}."""
    by_battle: dict[str, list[tuple[str, list[list[Any]]]]] = {}
    size: dict[str, list[int]] = {}
    for k, meta in enumerate(plan_meta):
        flog = frames.get(str(k), [])
        by_battle.setdefault(meta["battle"], []).append((meta["role"], flog))
        s = size.setdefault(meta["role"], [0, 0])
        s[0] += len(flog)
        s[1] += sum(f[2] for f in flog)
    e2e: list[float] = []
    by_role: dict[str, list[float]] = {}
    by_kind: dict[str, list[float]] = {}
    missing = 0
    for a in actions.values():
        if a["sched"] < measured_from:
            continue
        chat = "chat" in a
        want = a["chat"] if chat else a["seq"]
        col = 3 if chat else 0
        last: dict[str, float] = {}
        gone = False
        for role, flog in by_battle.get(a["battle"], ()):
            t = next((f[1] for f in flog if f[col] >= want), None)
            if t is None:
                gone = True
                continue
            last[role] = max(last.get(role, t), t)
        if gone:
            missing += 1
            continue
        if not last:
            continue
        e2e.append((max(last.values()) - a["sched"]) * 1000)
        by_kind.setdefault(a["kind"], []).append((max(last.values()) - a["sched"]) * 1000)
        for role, t in last.items():
            by_role.setdefault(role, []).append((t - a["sched"]) * 1000)
    frames_n = sum(s[0] for s in size.values())
    return {
        "e2e_ms": pct(e2e),
        "e2e_ms_by_role": {r: pct(v) for r, v in sorted(by_role.items())},
        "e2e_ms_by_kind": {r: pct(v) for r, v in sorted(by_kind.items())},
        "missing_deliveries": missing,
        "frames": frames_n,
        "bytes_per_frame": sum(s[1] for s in size.values()) / frames_n if frames_n else 0,
        "bytes_per_frame_by_role": {r: (s[1] / s[0] if s[0] else 0) for r, s in sorted(size.items())},
        "frames_by_role": {r: s[0] for r, s in sorted(size.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    d = sub.add_parser("driver", help="the trigger driver")
    d.add_argument("--rate", type=float, required=True)
    d.add_argument("--n", type=int, required=True)
    d.add_argument("--t0", type=float, required=True)
    d.add_argument("--deadline", type=float, required=True)
    d.add_argument("--cpus", default="")
    w = sub.add_parser("watchers", help="the watcher process (plan on stdin)")
    w.add_argument("--cpus", default="")
    a = ap.parse_args()
    if a.what == "driver":
        driver_main(a.rate, a.n, a.t0, a.deadline, a.cpus)
    else:
        asyncio.run(watchers_main(a.cpus))


if __name__ == "__main__":
    main()
