"""Per-process registry of websocket viewers. A broker wake-up (battle, seq) makes each viewer of
that battle render its own fragments from the database and receive them, tagged with the seq."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Subscriber:
    """One open websocket: who is watching which battle, and the last seq they have."""

    battle_id: str
    participant_id: str
    send_text: Callable[[str], Awaitable[None]]
    render: Callable[[int], Awaitable[tuple[str, int]]]  # since → (html, seq)
    last_seq: int | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def catch_up(self, seq_hint: int | None = None) -> None:
        """Send everything after last_seq; a wake-up for a seq already sent is ignored."""
        async with self.lock:
            if self.last_seq is None or (seq_hint is not None and seq_hint <= self.last_seq):
                return
            html, seq = await self.render(self.last_seq)
            if seq <= self.last_seq:
                return
            await self.send_text(json.dumps({"content": html, "seq": seq}))
            self.last_seq = seq


class Hub:
    def __init__(self) -> None:
        self.viewers: dict[str, set[Subscriber]] = {}
        self._sending: set[asyncio.Task[None]] = set()

    def join(self, viewer: Subscriber) -> None:
        self.viewers.setdefault(viewer.battle_id, set()).add(viewer)

    def leave(self, viewer: Subscriber) -> None:
        group = self.viewers.get(viewer.battle_id)
        if group:
            group.discard(viewer)
            if not group:
                del self.viewers[viewer.battle_id]

    async def wake(self, battle_id: str, seq: int) -> None:
        """Start each viewer's catch-up and return at once: the action that caused the wake-up does
        not wait for every viewer's rendering, and a slow client delays nobody but itself."""
        for viewer in list(self.viewers.get(battle_id, ())):
            task = asyncio.get_running_loop().create_task(self._send(viewer, seq))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, viewer: Subscriber, seq: int) -> None:
        try:
            await viewer.catch_up(seq)
        except Exception as exc:  # a closed or broken socket: forget the viewer
            log.info("dropping viewer of %s after send failure: %r", viewer.battle_id, exc)
            self.leave(viewer)

    async def drain(self) -> None:
        """Wait for the sends under way (shutdown)."""
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)
