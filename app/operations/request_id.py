"""One id per request, so an operator can follow it: taken from the client's or the proxy's
`X-Request-ID` when it is a plain short token, otherwise made here. It rides a context variable,
so every log line written while the request is served (and by the tasks it starts) carries it,
the answer carries it back in `X-Request-ID`, error bodies and pages quote it, and an action's log
row keeps it."""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

HEADER = b"x-request-id"
# What we accept from outside: short and plain, so a forged id cannot break a log line or a page.
ACCEPTED = re.compile(rb"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")

current: ContextVar[str | None] = ContextVar("starboard_request_id", default=None)


def of_headers(headers: list[tuple[bytes, bytes]] | tuple[tuple[bytes, bytes], ...]) -> str:
    """The request's id: its X-Request-ID when acceptable, else a new one."""
    for name, value in headers:
        if name.lower() == HEADER:
            if ACCEPTED.fullmatch(value):
                return value.decode("ascii")
            break
    return uuid.uuid4().hex


def request_id() -> str | None:
    """The id of the request being served (None outside one: start-up, background loops)."""
    return current.get()
