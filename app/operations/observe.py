"""The outermost layer of every request, the doors' lean paths included: it counts the 4xx/5xx
answers by door (metrics) before anything else can answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.types import Message, Receive, Scope, Send

from app.operations import metrics

Inner = Callable[[Scope, Receive, Send], Awaitable[None]]


async def observe(scope: Scope, receive: Receive, send: Send, inner: Inner) -> None:
    """Serve `scope` through `inner`, counting its answer by door."""
    if scope["type"] not in ("http", "websocket"):
        await inner(scope, receive, send)
        return
    door = metrics.door_of(scope)

    async def counted(message: Message) -> None:
        if message["type"] in ("http.response.start", "websocket.http.response.start"):
            metrics.answered(door, message["status"])
        await send(message)

    await inner(scope, receive, counted)
