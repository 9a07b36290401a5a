"""The REST action door's lean path: `POST /api/v1/battles/{id}/actions` served in front of
Starlette's and FastAPI's layers when the request is well formed, the way `ws.SocketDoor` serves
the battle websocket.

Why: the action is the one request a crowd's every update starts from, and at 1,000 watchers the
framework around it (eight ASGI layers, route matching, dependency solving, validating the body a
second time) was about a tenth of the server's CPU per action (docs/benchmarks.md).

What it does not do is answer differently. It takes a request only when the full stack would
hand the very same thing to the route: JSON by Content-Type with a Content-Length within the body
limit, no query, no cookie (SessionMiddleware would refresh one), no root path, a Bearer token,
and a body that parses strictly and validates as `ActionIn`. Anything else — including every
malformed request, whose 401/413/422 answers the full stack words — is handed to the app with the
body it has read replayed, so those answers come from one place. Once the service has been called
the request cannot be handed on (the action may be applied), so its exceptions are answered by
the app's own exception handlers, found as Starlette finds them, with the same security headers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.web.middleware.security import MAX_JSON_DEPTH, JsonRefused, replaying, secured, strict_loads

log = logging.getLogger(__name__)

ACTION_PATH = re.compile(r"/api/v1/battles/([^/]+)/actions")
Handler = Callable[[Request, Exception], Response | Awaitable[Response]]


class ActionDoor:
    """Serves well-formed action requests; `battle_of` says which requests it may take."""

    def __init__(self, max_body_bytes: int) -> None:
        self.max_body_bytes = max_body_bytes
        self.served = self.handed_on = 0  # how many requests took each way (tests, probes)

    @staticmethod
    def battle_of(scope: Scope) -> str | None:
        """The battle id when this request is an action POST the door may look at, else None."""
        if scope["type"] != "http" or scope["method"] != "POST":
            return None
        found = ACTION_PATH.fullmatch(scope["path"])
        return found.group(1) if found else None

    async def serve(self, app: Any, battle_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        from app.web.api.battles import ActionIn, action_answer  # the route's own model and work

        headers = dict(reversed(scope["headers"]))  # of a repeated header the first, as Starlette reads it
        body, token = None, _bearer(headers.get(b"authorization"))
        if token is not None and self._plain(scope, headers):
            body = await _read(receive, int(headers[b"content-length"]))
            if body is None:
                return  # the client went away before sending its body
        action = _valid(ActionIn, body) if body is not None else None
        if action is None or token is None:
            self.handed_on += 1
            await app.full_stack(scope, replaying(body, receive) if body is not None else receive, send)
            return
        self.served += 1
        scope["app"] = app
        try:
            response = await action_answer(app.state.platform, battle_id, action, token)
        except Exception as exc:  # answered as the app's handlers answer it, never a bare 500
            response = await _handled(app, Request(scope), exc)
        await response(scope, receive, secured(send, secure_cookies=False))  # it sets no cookie

    def _plain(self, scope: Scope, headers: dict[bytes, bytes]) -> bool:
        """Whether the full stack would hand this request's body to the route untouched."""
        length = headers.get(b"content-length", b"")
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        return (
            length.isdigit()
            and int(length) <= self.max_body_bytes
            and (content_type == b"application/json" or content_type.endswith(b"+json"))
            and b"cookie" not in headers
            and not scope.get("query_string")
            and not scope.get("root_path")
            and "\x00" not in scope["path"]
        )


def _bearer(value: bytes | None) -> str | None:
    """The token of `Authorization: Bearer <token>`, as FastAPI's HTTPBearer reads it."""
    if not value:
        return None
    scheme, _, credentials = value.decode("latin-1").partition(" ")
    if scheme.lower() != "bearer" or not credentials:
        return None
    return credentials


async def _read(receive: Receive, length: int) -> bytes | None:
    chunks: list[bytes] = []
    seen = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        seen += len(chunk)
        chunks.append(chunk)
        if not message.get("more_body", False) or seen > length:
            return b"".join(chunks)


def _valid(model: Any, body: bytes) -> Any | None:
    try:
        value = strict_loads(body, MAX_JSON_DEPTH + 1)  # as BodyLimit reads it
        return model.model_validate(value) if isinstance(value, dict) else None
    except (JsonRefused, ValidationError, ValueError):
        return None


async def _handled(app: Any, request: Request, exc: Exception) -> Response:
    """The response the app's exception handlers give for `exc` (the first class in its MRO with a
    handler, as Starlette looks them up); a handler that raises again, or none, gets the app's
    answer to an unexpected fault, logged as the server logs one."""
    handlers: dict[Any, Handler] = app.exception_handlers
    handler = next((handlers[kind] for kind in type(exc).__mro__ if kind in handlers), None)
    if handler is not None and handler is not handlers.get(Exception):
        try:
            return await _called(handler, request, exc)
        except Exception as again:
            exc = again
    log.error("action request failed", exc_info=exc)
    fallback = handlers.get(Exception) or handlers.get(500)
    if fallback is None:  # pragma: no cover - install_error_handlers always registers one
        raise exc
    return await _called(fallback, request, exc)


async def _called(handler: Handler, request: Request, exc: Exception) -> Response:
    answer = handler(request, exc)
    return await answer if isinstance(answer, Awaitable) else answer
