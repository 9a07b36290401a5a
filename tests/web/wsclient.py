"""A websocket viewer for tests: joins with a session cookie, says hello, collects frames."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import websockets

from app.realtime.diff import apply
from app.web.drawing.render import regions_of


class PageCopy:
    """What static/js/live.js keeps: each region's HTML as the server last sent it, so a frame's
    hunks (`patch`) become whole regions again; `read` puts them back into the frame's content,
    as the page swaps them (a copy of the wrong length fails the test)."""

    def __init__(self) -> None:
        self.regions: dict[str, str] = {}

    def read(self, frame: dict[str, Any]) -> dict[str, Any]:
        if frame.get("type") or "content" not in frame:
            return frame
        rebuilt = []
        for target, length, ops in frame.pop("patch", []):
            new = apply(self.regions.get(target, ""), length, ops)
            assert new is not None, f"the page's copy of {target} is not what the hunks were made against"
            self.regions[target] = new
            rebuilt.append(new)
        frame["content"] = "".join(rebuilt) + frame["content"]
        for target, part in regions_of(frame["content"]):
            if not target.startswith("+"):
                self.regions[target] = part
        return frame


class WsViewer:
    def __init__(self, base: str, battle_id: str, cookie: str, origin: str | None = None) -> None:
        self.url = base.replace("http://", "ws://") + f"/battles/{battle_id}/ws"
        self.headers = {"Cookie": f"starboard_session={cookie}", "Origin": origin or base}
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.heartbeats: list[dict[str, Any]] = []
        self.socket: Any = None
        self.pages = PageCopy()  # each region as the page holds it: a frame's hunks are applied to it

    async def __aenter__(self) -> WsViewer:
        self.socket = await websockets.connect(self.url, additional_headers=self.headers, max_size=2**22)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.socket.close()

    async def hello(self, seq: int) -> None:
        self.pages = PageCopy()
        await self.socket.send(json.dumps({"type": "hello", "seq": seq}))

    async def next_frame(self, timeout: float = 5.0, heartbeats: bool = False) -> dict[str, Any]:
        """The next frame; heartbeats are counted and skipped unless asked for."""
        while True:
            raw = await asyncio.wait_for(self.socket.recv(), timeout)
            frame = json.loads(raw)
            if frame.get("type") == "heartbeat":
                self.heartbeats.append(frame)
                if not heartbeats:
                    continue
            self.raw.append(raw)
            self.frames.append(self.pages.read(frame))
            return frame

    async def frame_with_seq(self, seq: int, timeout: float = 5.0) -> dict[str, Any]:
        while True:
            frame = await self.next_frame(timeout)
            if frame.get("seq", -1) >= seq:
                return frame

    async def answered(self, timeout: float = 5.0) -> dict[str, Any]:
        """Send a frame the server answers (an unknown type: an error) and wait for that answer. The
        server handles a socket's frames one after the other, so every frame sent before it has been
        handled, with whatever it writes, when this returns."""
        await self.socket.send(json.dumps({"type": "round-trip"}))
        while True:
            frame = await self.next_frame(timeout)
            if frame.get("type") == "error" and "round-trip" in json.dumps(frame):
                return frame

    async def until_answered(self, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Every frame (heartbeats aside) that arrives before the answer to a round trip sent now:
        the server handles a socket's frames in order, so what it writes for those sent earlier
        (a hello's catch-up) comes first. Proves "nothing more came" without a fixed wait."""
        await self.socket.send(json.dumps({"type": "round-trip"}))
        got = []
        while True:
            frame = await self.next_frame(timeout)
            if frame.get("type") == "error" and "round-trip" in json.dumps(frame):
                return got
            got.append(frame)


async def cookie_for(base: str, token: str) -> str:
    async with httpx.AsyncClient(base_url=base) as c:
        r = await c.get(f"/join/{token}", follow_redirects=False)
        return r.cookies["starboard_session"]
