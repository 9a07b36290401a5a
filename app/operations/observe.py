"""The outermost layer of every request, the doors' lean paths included: it gives the request
its id (log lines, the answer's `X-Request-ID`, error bodies, the action's log row) and counts
the 4xx/5xx answers by door (metrics) before anything else can answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.types import Message, Receive, Scope, Send

from app.operations import metrics, request_id

Inner = Callable[[Scope, Receive, Send], Awaitable[None]]
STARTS = ("http.response.start", "websocket.http.response.start")


async def observe(scope: Scope, receive: Receive, send: Send, inner: Inner) -> None:
    """Serve `scope` through `inner` under its request id, counting its answer by door."""
    if scope["type"] not in ("http", "websocket"):
        await inner(scope, receive, send)
        return
    door = metrics.door_of(scope)
    rid = request_id.of_headers(scope.get("headers", ()))
    stamp = (request_id.HEADER, rid.encode("ascii"))

    accepted = False

    async def answered(message: Message) -> None:
        nonlocal accepted
        kind = message["type"]
        if kind in STARTS:
            metrics.answered(door, message["status"])
            message = {**message, "headers": [*message.get("headers", ()), stamp]}
        elif kind == "websocket.accept":
            accepted = True
        elif kind == "websocket.close" and not accepted:  # refused at the handshake: the server answers 403
            metrics.answered(door, 403)
        await send(message)

    token = request_id.current.set(rid)
    try:
        await inner(scope, receive, answered)
    finally:
        request_id.current.reset(token)
