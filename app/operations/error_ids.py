"""Every error answer quotes its request id, so a player's report ("it said 503, id 4f2c…") leads
the operator to the log lines of that very request: JSON errors carry `request_id` beside `detail`, error
pages show it ("quote this id"), and every answer has it in `X-Request-ID`.

The app's exception handlers are wrapped rather than rewritten: they stay the one place that words
each error, and this adds the id to whatever they answer."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.operations.request_id import request_id

Handler = Callable[[Request, Exception], Response | Awaitable[Response]]


def quoting(handler: Handler) -> Handler:
    """`handler`, with the request id put into the JSON error body it answers."""

    async def quoted(request: Request, exc: Exception) -> Response:
        answer = handler(request, exc)
        response = await answer if isinstance(answer, Awaitable) else answer
        return with_request_id(response)

    return quoted


def with_request_id(response: Response) -> Response:
    rid = request_id()
    if rid is None or not isinstance(response, JSONResponse) or response.status_code < 400:
        return response
    try:
        body: Any = json.loads(bytes(response.body))
    except ValueError:
        return response
    if not isinstance(body, dict) or "detail" not in body:
        return response
    body["request_id"] = rid  # beside the error, not in it: `detail` stays what each door words
    headers = {
        k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-type")
    }
    return JSONResponse(body, status_code=response.status_code, headers=headers)


_QUOTING: set[Any] = set()  # the handlers `install` made: they already quote the id


def install(app: Any) -> None:
    """Wrap the app's exception handlers (after they are installed), and let the templates quote
    the id (`request_id()` in error.html and unavailable.html)."""
    from app.web.drawing.render import env

    env.globals["request_id"] = request_id
    for kind, handler in list(app.exception_handlers.items()):
        if handler not in _QUOTING:  # installing twice wraps nothing twice
            wrapped = quoting(handler)
            _QUOTING.add(wrapped)
            app.exception_handlers[kind] = wrapped
