"""A watcher that behaves like the page's script: says hello with the seq it holds, reconnects
(with backoff) on the close codes the htmx ws extension reconnects on, says hello again when a
heartbeat names a seq above its own, and applies only frames above its seq. It records every
close code and any log entry it was given twice."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time

import websockets

RECONNECT = {1001, 1005, 1006, 1011, 1012, 1013, 1014}
LOG_ID = re.compile(r'id=\\?"log-(\d+)\\?"')


class Watcher:
    def __init__(self, base: str, battle_id: str, cookie: str, seq: int, name: str = "") -> None:
        self.url = base.replace("http://", "ws://") + f"/battles/{battle_id}/ws"
        self.headers = {"Cookie": f"starboard_session={cookie}", "Origin": base}
        self.seq = seq
        self.name = name
        self.closes: list[int | None] = []
        self.log_seen: set[int] = set()
        self.duplicates: list[int] = []
        self.connects = 0
        self.stopped = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> Watcher:
        self.task = asyncio.get_running_loop().create_task(self._run())
        return self

    async def stop(self) -> None:
        self.stopped = True
        if self.task:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task

    async def _run(self) -> None:
        attempt = 0
        while not self.stopped:
            try:
                async with websockets.connect(
                    self.url, additional_headers=self.headers, max_size=2**22, open_timeout=3
                ) as socket:
                    self.connects += 1
                    await socket.send(json.dumps({"type": "hello", "seq": self.seq}))
                    attempt = 0
                    async for raw in socket:
                        self._take(json.loads(raw), socket)
                    code = socket.close_code
            except websockets.exceptions.ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd else None
            except (
                OSError,
                TimeoutError,
                websockets.exceptions.InvalidStatus,
                websockets.exceptions.InvalidHandshake,
            ):
                code = 1006
            self.closes.append(code)
            if code not in RECONNECT and code is not None:
                return
            attempt += 1
            await asyncio.sleep(
                min(0.2, 0.05 * 2**attempt)
            )  # the page backs off further; a test need not wait

    def _take(self, frame: dict, socket) -> None:  # type: ignore[no-untyped-def]
        seq = frame.get("seq")
        if frame.get("type") == "heartbeat":
            if isinstance(seq, int) and seq > self.seq:
                asyncio.get_running_loop().create_task(
                    socket.send(json.dumps({"type": "hello", "seq": self.seq}))
                )
            return
        if "content" in frame and isinstance(seq, int) and seq > self.seq:
            for n in (int(m) for m in LOG_ID.findall(frame["content"])):
                if n in self.log_seen or n > seq:
                    self.duplicates.append(n)
                self.log_seen.add(n)
            self.seq = seq

    async def until(self, seq: int, timeout: float) -> float:
        start = time.monotonic()
        while self.seq < seq:
            if time.monotonic() - start > timeout:
                raise AssertionError(
                    f"watcher {self.name} at {self.seq}, not {seq}, after {timeout}s (closes {self.closes})"
                )
            if self.task is not None and self.task.done():
                raise AssertionError(f"watcher {self.name} gave up: closes {self.closes}")
            await asyncio.sleep(0.02)
        return time.monotonic() - start


async def all_reach(watchers: list[Watcher], seq: int, timeout: float) -> float:
    """Every watcher at `seq` within `timeout` seconds; the time the last one took."""
    times = await asyncio.gather(*(w.until(seq, timeout) for w in watchers))
    return max(times)
