"""The Prometheus metrics an operator asks for first (docs/operations.md lists each one and what a
bad value means).

Two kinds. Events (actions, latency, answers by door, refusals, wake-ups, frames) are counted
where they happen, in this process's default registry. Levels (open sockets and feeds, the
database pool, wake-ups not yet published) are read from the app when `/metrics` is scraped, so
nothing on the hot path keeps them. Every value is per process: scrape each replica.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response

ACTIONS = Counter(
    "starboard_actions_total",
    "Actions submitted, by game system and outcome (applied, duplicate, queued, or the refusal)",
    ["system", "outcome"],
)
ACTION_SECONDS = Histogram(
    "starboard_action_seconds",
    "Time from an action's arrival at the write path to its answer",
    ["outcome"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
ANSWERS = Counter(
    "starboard_http_responses_total",
    "Answers with a 4xx or 5xx status, by door (action, api, feed, page, socket, static, health)",
    ["door", "status"],
)
RATE_LIMITED = Counter(
    "starboard_rate_limited_total",
    "Requests, sockets or frames refused by a rate or count limit, by door",
    ["door"],
)
FRAMES = Counter("starboard_frames_sent_total", "Frames sent, by channel (socket, feed)", ["channel"])
FRAME_BYTES = Counter(
    "starboard_frame_bytes_sent_total", "Characters of frames sent, by channel (socket, feed)", ["channel"]
)
WAKEUPS_PUBLISHED = Counter(
    "starboard_wakeups_published_total", "Wake-ups this process put on the broker (or delivered here)"
)
WAKEUPS_RECEIVED = Counter(
    "starboard_wakeups_received_total", "Wake-ups this process received and handed to its listeners"
)
BROKER_LAG = Histogram(
    "starboard_broker_lag_seconds",
    "From a commit's announcement in one process to its wake-up's arrival in this one",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)

# Bound once: the hot paths increment a child without a label lookup.
SOCKET_FRAMES, SOCKET_BYTES = FRAMES.labels("socket"), FRAME_BYTES.labels("socket")
FEED_FRAMES, FEED_BYTES = FRAMES.labels("feed"), FRAME_BYTES.labels("feed")

_ACTION_PATH = re.compile(r"/api/v1/battles/[^/]+/actions")
_FEED_PATH = re.compile(r"/api/v1/battles/[^/]+/feed")


def door_of(scope: dict[str, Any]) -> str:
    """Which door a request came through (a bounded label: never a path)."""
    path: str = scope.get("path", "")
    if scope.get("type") == "websocket":
        return "socket"
    if _ACTION_PATH.fullmatch(path):
        return "action"
    if _FEED_PATH.fullmatch(path):
        return "feed"
    if path.startswith("/api/"):
        return "api"
    if path.startswith("/static/"):
        return "static"
    if path in ("/healthz", "/readyz", "/metrics"):
        return "health"
    return "page"


def answered(door: str, status: int) -> None:
    """Count a 4xx/5xx answer (a 429 is a rate-limit refusal as well)."""
    if status >= 400:
        ANSWERS.labels(door, str(status)).inc()
        if status == 429:
            RATE_LIMITED.labels(door).inc()


def action_done(system: str, outcome: str, started: float) -> None:
    ACTIONS.labels(system or "unknown", outcome).inc()
    ACTION_SECONDS.labels(outcome).observe(time.perf_counter() - started)


class AppLevels(Collector):
    """The levels read from one app when scraped: sockets and feeds open here, the database pool
    (in use, waiting, size), and wake-ups committed but not yet published."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def collect(self) -> Iterable[GaugeMetricFamily]:
        state = self.app.state
        hub = getattr(state, "hub", None)
        feeds = getattr(state, "feeds", None)
        platform = getattr(state, "platform", None)
        yield _gauge(
            "starboard_open_sockets",
            "Battle websockets open in this process",
            sum(hub.sockets.values()) if hub is not None else 0,
        )
        yield _gauge(
            "starboard_open_feeds",
            "Server-Sent Event feeds open in this process",
            sum(len(e) for e in feeds.waiting.values()) if feeds is not None else 0,
        )
        if platform is None:
            return
        in_use, waiting, size = pool_levels(platform.db.engine.sync_engine.pool)
        yield _gauge("starboard_db_pool_in_use", "Database connections checked out of the pool", in_use)
        yield _gauge(
            "starboard_db_pool_waiting", "Requests waiting for a pooled database connection", waiting
        )
        yield _gauge("starboard_db_pool_size", "Connections the pool keeps (its overflow comes on top)", size)
        yield _gauge(
            "starboard_wakeups_pending",
            "Committed wake-ups not yet published to the broker",
            len(platform.broker.pending),
        )
        yield _gauge(
            "starboard_broker_subscribed",
            "1 while the broker's subscription is up",
            1 if platform.broker.subscribed else 0,
        )


def pool_levels(pool: Any) -> tuple[int, int, int]:
    """(checked out, waiting for a connection, size). SQLite's pool has no queue: nobody waits.
    The waiting count is the pool queue's waiters (an asyncio.Queue's getters: read, not changed)."""
    checkedout = pool.checkedout() if hasattr(pool, "checkedout") else 0
    size = pool.size() if hasattr(pool, "size") else 0
    queue = getattr(getattr(pool, "_pool", None), "_queue", None)
    waiting = len(getattr(queue, "_getters", ()) or ())
    return checkedout, waiting, size


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def install(app: Any) -> None:
    """Keep the app's own registry of levels (one per app, so test apps do not share it)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(AppLevels(app))
    app.state.metric_levels = registry


async def metrics(request: Request) -> Response:
    """The Prometheus text: this process's events and the app's levels."""
    body = generate_latest(REGISTRY) + generate_latest(request.app.state.metric_levels)
    return Response(body, media_type=CONTENT_TYPE_LATEST, headers={"cache-control": "no-store"})
