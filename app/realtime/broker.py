"""Wake-up fan-out between server processes.

Messages are only `(battle_id, seq)`: the database stays the truth, so a lost message costs a
refresh, never a wrong state, and payloads stay far under PostgreSQL's 8000-byte NOTIFY limit.
Backends: in-process (default), PostgreSQL LISTEN/NOTIFY (asyncpg), Redis pub/sub.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Listener = Callable[[str, int], Awaitable[None]]
CHANNEL = "starboard_battles"


class Broker:
    """In-process broker: publish calls the listeners directly."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def publish(self, battle_id: str, seq: int) -> None:
        await self._deliver(battle_id, seq)

    async def _deliver(self, battle_id: str, seq: int) -> None:
        for listener in list(self.listeners):
            try:
                await listener(battle_id, seq)
            except Exception:  # one bad listener must not stop the others
                log.exception("broker listener failed")

    def _on_raw(self, raw: str | bytes) -> None:
        try:
            msg = json.loads(raw)
            battle_id, seq = str(msg["b"]), int(msg["s"])
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring malformed broker message %r", raw)
            return
        asyncio.get_running_loop().create_task(self._deliver(battle_id, seq))


def _encode(battle_id: str, seq: int) -> str:
    return json.dumps({"b": battle_id, "s": seq})


class PostgresBroker(Broker):
    """LISTEN/NOTIFY on one dedicated asyncpg connection; reconnects if the server drops it."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url.replace("postgresql+asyncpg://", "postgresql://").replace(
            "postgres://", "postgresql://"
        )
        self.listen_conn = None
        self.notify_conn = None
        self._lock = asyncio.Lock()
        self._watch: asyncio.Task[None] | None = None

    async def _connect(self) -> None:
        import asyncpg

        self.listen_conn = await asyncpg.connect(self.url)
        await self.listen_conn.add_listener(CHANNEL, lambda *args: self._on_raw(args[3]))
        self.notify_conn = await asyncpg.connect(self.url)

    async def start(self) -> None:
        await self._connect()
        self._watch = asyncio.get_running_loop().create_task(self._keepalive())

    async def _keepalive(self) -> None:
        while True:
            await asyncio.sleep(5)
            try:
                await self.listen_conn.execute("SELECT 1")  # type: ignore[union-attr]
            except Exception:
                log.warning("LISTEN connection lost; reconnecting")
                with contextlib.suppress(Exception):
                    await self._connect()

    async def stop(self) -> None:
        if self._watch:
            self._watch.cancel()
        for conn in (self.listen_conn, self.notify_conn):
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()

    async def publish(self, battle_id: str, seq: int) -> None:
        async with self._lock:
            try:
                await self.notify_conn.execute("SELECT pg_notify($1, $2)", CHANNEL, _encode(battle_id, seq))  # type: ignore[union-attr]
            except Exception:
                log.warning("NOTIFY failed; reconnecting and retrying once")
                await self._connect()
                await self.notify_conn.execute("SELECT pg_notify($1, $2)", CHANNEL, _encode(battle_id, seq))  # type: ignore[union-attr]


class RedisBroker(Broker):
    """Redis pub/sub through redis.asyncio."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.client = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        import redis.asyncio as redis

        self.client = redis.from_url(self.url)
        pubsub = self.client.pubsub()
        await pubsub.subscribe(CHANNEL)
        self._reader = asyncio.get_running_loop().create_task(self._read(pubsub))

    async def _read(self, pubsub) -> None:  # type: ignore[no-untyped-def]
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message and message.get("type") == "message":
                    self._on_raw(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("redis subscription failed; resubscribing")
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    await pubsub.subscribe(CHANNEL)

    async def stop(self) -> None:
        if self._reader:
            self._reader.cancel()
        if self.client is not None:
            await self.client.aclose()

    async def publish(self, battle_id: str, seq: int) -> None:
        await self.client.publish(CHANNEL, _encode(battle_id, seq))  # type: ignore[union-attr]


def make_broker(url: str) -> Broker:
    if url.startswith("memory"):
        return Broker()
    if url.startswith("postgres"):
        return PostgresBroker(url)
    if url.startswith("redis"):
        return RedisBroker(url)
    raise ValueError(f"BROADCAST_URL must be memory://, postgresql://… or redis://…, not {url!r}")
