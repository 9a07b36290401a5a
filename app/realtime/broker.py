"""Wake-up fan-out between server processes.

Messages are only `(battle_id, seq, topic)`: the database stays the truth, so a lost message costs a
refresh, never a wrong state, and payloads stay far under PostgreSQL's 8000-byte NOTIFY limit.
The topic says what changed — the log (a commit), the seats, or the table talk — so each listener
reads only what it shows (the hub, app/realtime/hub.py, is the one live path for all three).
Backends: in-process (default), PostgreSQL LISTEN/NOTIFY (asyncpg), Redis pub/sub.

How it copes with faults (docs/architecture.md, "The live path under faults"):

* `announce(battle, seq)` never waits and never fails: it wakes this process's viewers at once and
  hands the wake-up to a background publisher, which sends it with its own timeout. What could
  not be sent stays pending (the latest seq per battle) and is sent again when the broker is back.
* The subscription is watched: a lost LISTEN connection is noticed at once (asyncpg's termination
  listener) and a failing Redis subscription at its next read; both are re-established with
  backoff, and every `on_resubscribed` callback then runs, so the hub catches every viewer up
  from the database (wake-ups sent while we were deaf are never made up any other way).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Coroutine
from enum import StrEnum
from typing import Any

from app.operations import metrics

log = logging.getLogger(__name__)


class Topic(StrEnum):
    """What changed in a battle, as a wake-up says it."""

    LOG = "log"  # an action was committed: the seq is its own
    SEATS = "seats"  # a seat was added, removed or given a new link (no seq moves)
    TABLE = "table"  # table talk or a request to the referee (the seq: the chat's, or 0)


Listener = Callable[[str, int, Topic], Awaitable[None]]
Callback = Callable[[], Awaitable[None]]
CHANNEL = "starboard_battles"


class Broker:
    """In-process broker: a wake-up goes straight to this process's listeners."""

    remote = False

    def __init__(self, publish_timeout: float = 2.0, retry_max: float = 5.0) -> None:
        self.listeners: list[Listener] = []
        self.resubscribed: list[Callback] = []
        self.publish_timeout = publish_timeout
        self.retry_max = retry_max
        # (battle, topic) → latest seq not yet sent to the other processes, and when it was announced
        self.pending: dict[tuple[str, Topic], int] = {}
        self.announced: dict[tuple[str, Topic], float] = {}
        self._kick = asyncio.Event()
        self._sending = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._publisher: asyncio.Task[None] | None = None
        self.subscribed = True  # the in-process broker is always "subscribed"
        self.published = 0
        self.publish_failures = 0

    # -- wiring -----------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def on_resubscribed(self, callback: Callback) -> None:
        """Called after the subscription came back (the process may have missed wake-ups)."""
        self.resubscribed.append(callback)

    async def start(self) -> None:
        if self.remote:
            self._publisher = asyncio.get_running_loop().create_task(self._publish_loop())

    async def stop(self) -> None:
        tasks = [t for t in (self._publisher, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task

    async def _stop_remote(
        self, loop: asyncio.Task[None] | None, closers: Callable[[], list[Callable[[], Awaitable[object]]]]
    ) -> None:
        """A remote broker stops: its subscription's loop first, then the publishing, then each
        connection still open once they have stopped (`closers`), a second at most each (one that
        will not close is let go)."""
        if loop:
            loop.cancel()
            with contextlib.suppress(BaseException):
                await loop
        await Broker.stop(self)
        for close in closers():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(close(), 1)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- publishing -------------------------------------------------------------------------

    def announce(self, battle_id: str, seq: int, topic: Topic = Topic.LOG) -> None:
        """After a commit: wake local viewers now, and the other processes in the background.
        Returns at once; nothing here can delay or fail the action that was committed."""
        self._spawn(self._deliver(battle_id, seq, topic))
        if self.remote:
            if seq > self.pending.get((battle_id, topic), -1):
                self.pending[(battle_id, topic)] = seq
                self.announced.setdefault((battle_id, topic), time.time())
            self._kick.set()
        else:
            metrics.WAKEUPS_PUBLISHED.inc()

    async def publish(self, battle_id: str, seq: int, topic: Topic = Topic.LOG) -> None:
        """Send one wake-up and wait for it (tests and tools); `announce` is the app's way."""
        if self.remote:
            async with self._sending:
                await asyncio.wait_for(self._send(battle_id, seq, topic), self.publish_timeout)
        else:
            await self._deliver(battle_id, seq, topic)

    async def _send(self, battle_id: str, seq: int, topic: Topic) -> None:
        """Put one wake-up on the wire. In one process the wire is this process: deliver it here;
        the PostgreSQL and Redis brokers send it to every process instead."""
        await self._deliver(battle_id, seq, topic)

    async def _reset_sender(self) -> None:
        """Drop the publishing connection after a failure or timeout (it may be half-used)."""
        return None

    async def _publish_loop(self) -> None:
        failures = 0
        while True:
            await self._kick.wait()
            self._kick.clear()
            while self.pending:
                (battle_id, topic), seq = next(iter(self.pending.items()))
                try:
                    async with self._sending:  # one command at a time on the publishing connection
                        await asyncio.wait_for(self._send(battle_id, seq, topic), self.publish_timeout)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    failures += 1
                    self.publish_failures += 1
                    delay = _backoff(failures, self.retry_max)
                    log.warning(
                        "publish of %s@%s failed (%r); %d pending, retrying in %.1fs",
                        battle_id,
                        seq,
                        exc,
                        len(self.pending),
                        delay,
                    )
                    with contextlib.suppress(Exception):
                        await self._reset_sender()
                    await asyncio.sleep(delay)
                    continue
                failures = 0
                self.published += 1
                metrics.WAKEUPS_PUBLISHED.inc()
                if self.pending.get((battle_id, topic)) == seq:
                    del self.pending[(battle_id, topic)]
                    self.announced.pop((battle_id, topic), None)

    # -- receiving --------------------------------------------------------------------------

    async def _deliver(self, battle_id: str, seq: int, topic: Topic) -> None:
        metrics.WAKEUPS_RECEIVED.inc()
        for listener in list(self.listeners):
            try:
                await listener(battle_id, seq, topic)
            except Exception:  # one bad listener must not stop the others
                log.exception("broker listener failed")

    def _on_raw(self, raw: str | bytes) -> None:
        try:
            msg = json.loads(raw)
            battle_id, seq, topic = str(msg["b"]), int(msg["s"]), Topic(msg.get("t", Topic.LOG))
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("ignoring malformed broker message %r", raw)
            return
        sent_at = msg.get("at")  # when it was announced (absent from an older process's messages)
        if isinstance(sent_at, int | float):
            metrics.BROKER_LAG.observe(max(0.0, time.time() - sent_at))
        self._spawn(self._deliver(battle_id, seq, topic))

    async def _subscription_back(self) -> None:
        """The subscription is (re-)established: catch up, and send what is pending."""
        self.subscribed = True
        self._kick.set()
        for callback in list(self.resubscribed):
            try:
                await callback()
            except Exception:
                log.exception("resubscribe callback failed")

    def _message(self, battle_id: str, seq: int, topic: Topic) -> str:
        """On the wire: {"b": battle, "s": seq, "at": when it was announced (the receivers' lag
        metric)}, and "t": the topic when it is not the log."""
        body: dict[str, Any] = {
            "b": battle_id,
            "s": seq,
            "at": self.announced.get((battle_id, topic), time.time()),
        }
        if topic is not Topic.LOG:
            body["t"] = str(topic)
        return json.dumps(body)


def _backoff(attempt: int, cap: float) -> float:
    """0.1 s, 0.2 s, 0.4 s … up to `cap`, with ±20 % jitter so processes do not reconnect in step."""
    base = min(cap, 0.1 * (2 ** min(attempt - 1, 10)))
    return base * random.uniform(0.8, 1.2)


class PostgresBroker(Broker):
    """LISTEN/NOTIFY: one dedicated asyncpg connection listens, another notifies."""

    remote = True

    def __init__(self, url: str, connect_timeout: float = 5.0, **kw: float) -> None:
        super().__init__(**kw)
        self.url = url.replace("postgresql+asyncpg://", "postgresql://").replace(
            "postgres://", "postgresql://"
        )
        self.connect_timeout = connect_timeout
        self.listen_conn = None
        self.notify_conn = None
        self.subscribed = False
        self._lost = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None

    async def _listen(self) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.url, timeout=self.connect_timeout)
        try:
            await conn.add_listener(CHANNEL, lambda *args: self._on_raw(args[3]))
        except BaseException:
            with contextlib.suppress(Exception):
                conn.terminate()
            raise
        conn.add_termination_listener(self._on_terminated)
        self.listen_conn = conn

    def _on_terminated(self, conn: Any) -> None:
        if conn is self.listen_conn:
            log.warning("LISTEN connection lost; re-establishing")
            self.subscribed = False
            self._lost.set()

    async def start(self) -> None:
        """Listen now if the server is there; otherwise start unsubscribed (not ready) and keep
        trying in the background rather than refuse to serve."""
        try:
            await self._listen()
            self.subscribed = True
        except Exception as exc:
            log.warning("LISTEN unavailable at start (%r); retrying in the background", exc)
            self._lost.set()
        await super().start()
        self._watch = asyncio.get_running_loop().create_task(self._keep_listening())

    async def _keep_listening(self) -> None:
        """Re-establish LISTEN as soon as it is lost (termination listener), with backoff; a
        probe every few seconds catches a connection that hangs without closing."""
        failures = 0
        while True:
            if not self._lost.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._lost.wait(), 5)
            if not self._lost.is_set():
                try:
                    if self.listen_conn is None:
                        raise ConnectionError("no LISTEN connection to probe")
                    await self.listen_conn.execute("SELECT 1", timeout=self.connect_timeout)
                    continue
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.warning("LISTEN connection does not answer; re-establishing")
                    self.subscribed = False
            old, self.listen_conn = self.listen_conn, None
            if old is not None:
                with contextlib.suppress(Exception):
                    old.terminate()
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failures += 1
                delay = _backoff(failures, self.retry_max)
                log.warning("LISTEN reconnect failed (%r); again in %.1fs", exc, delay)
                self._lost.set()
                await asyncio.sleep(delay)
                continue
            failures = 0
            self._lost.clear()
            log.info("LISTEN re-established")
            await self._subscription_back()

    async def stop(self) -> None:
        await self._stop_remote(
            self._watch, lambda: [c.close for c in (self.listen_conn, self.notify_conn) if c is not None]
        )
        self.listen_conn = self.notify_conn = None

    async def _send(self, battle_id: str, seq: int, topic: Topic) -> None:
        import asyncpg

        if self.notify_conn is None or self.notify_conn.is_closed():
            self.notify_conn = await asyncpg.connect(self.url, timeout=self.connect_timeout)
        await self.notify_conn.execute(
            "SELECT pg_notify($1, $2)", CHANNEL, self._message(battle_id, seq, topic)
        )

    async def _reset_sender(self) -> None:
        conn, self.notify_conn = self.notify_conn, None
        if conn is not None:
            conn.terminate()


class RedisBroker(Broker):
    """Redis pub/sub through redis.asyncio: one client subscribes, another publishes."""

    remote = True

    def __init__(self, url: str, connect_timeout: float = 5.0, **kw: float) -> None:
        super().__init__(**kw)
        self.url = url
        self.connect_timeout = connect_timeout
        self.client = None  # publishing
        self.sub_client = None
        self.subscribed = False
        self._reader: asyncio.Task[None] | None = None

    async def _subscribe(self) -> Any:
        import redis.asyncio as redis

        client = redis.from_url(self.url, socket_connect_timeout=self.connect_timeout, retry=None)
        pubsub = client.pubsub()
        try:
            await asyncio.wait_for(pubsub.subscribe(CHANNEL), self.connect_timeout)
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
                await client.aclose()
            raise
        self.sub_client = client
        return pubsub

    async def start(self) -> None:
        try:
            pubsub = await self._subscribe()
            self.subscribed = True
        except Exception as exc:
            log.warning("redis unavailable at start (%r); retrying in the background", exc)
            pubsub = None
        await super().start()
        self._reader = asyncio.get_running_loop().create_task(self._read(pubsub))

    async def _read(self, pubsub: Any) -> None:
        failures = 0
        while True:
            try:
                if pubsub is None:
                    pubsub = await self._subscribe()
                    failures = 0
                    log.info("redis subscription re-established")
                    await self._subscription_back()
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message and message.get("type") == "message":
                    self._on_raw(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.subscribed = False
                failures += 1
                delay = _backoff(failures, self.retry_max)
                log.warning("redis subscription failed (%r); resubscribing in %.1fs", exc, delay)
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                if self.sub_client is not None:
                    with contextlib.suppress(Exception):
                        await self.sub_client.aclose()
                pubsub, self.sub_client = None, None
                await asyncio.sleep(delay)

    async def stop(self) -> None:
        await self._stop_remote(
            self._reader, lambda: [c.aclose for c in (self.client, self.sub_client) if c is not None]
        )

    async def _send(self, battle_id: str, seq: int, topic: Topic) -> None:
        import redis.asyncio as redis

        if self.client is None:
            self.client = redis.from_url(
                self.url,
                socket_connect_timeout=self.connect_timeout,
                socket_timeout=self.publish_timeout,
                retry=None,
            )
        await self.client.publish(CHANNEL, self._message(battle_id, seq, topic))

    async def _reset_sender(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.aclose(), 1)


def make_broker(url: str, **kw: float) -> Broker:
    if url.startswith("memory"):
        kw.pop("connect_timeout", None)
        return Broker(**kw)
    if url.startswith("postgres"):
        return PostgresBroker(url, **kw)
    if url.startswith("redis"):
        return RedisBroker(url, **kw)
    raise ValueError(f"BROADCAST_URL must be memory://, postgresql://… or redis://…, not {url!r}")
