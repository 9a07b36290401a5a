"""Sessions, CSRF and origin checks, request size and JSON limits, policy headers, log redaction."""

from __future__ import annotations

import hmac
import json
import logging
import math
import re
import secrets
from abc import ABC, abstractmethod
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings
from app.services.store.tokens import seat_key

SESSION_PARTICIPANTS = "p"  # battle id → participant id
SESSION_SEAT_KEYS = "k"  # battle id → seat_key of the token the seat was taken with
SESSION_CSRF = "csrf"


class SeatRef(str):
    """A participant id from a browser's session, carrying the key of the token it joined with:
    services.battles.get_participant refuses it once the seat's token was rotated."""

    key: str | None

    def __new__(cls, participant_id: str, key: str | None) -> SeatRef:
        ref = super().__new__(cls, participant_id)
        ref.key = key
        return ref


def csrf_token(conn: HTTPConnection) -> str:
    token = conn.session.get(SESSION_CSRF)
    if not token:
        token = secrets.token_urlsafe(32)
        conn.session[SESSION_CSRF] = token
    return token


def csrf_ok(conn: HTTPConnection, submitted: str | None) -> bool:
    expected = conn.session.get(SESSION_CSRF)
    return bool(expected and submitted and hmac.compare_digest(str(expected), str(submitted)))


def seat_in(conn: HTTPConnection, battle_id: str) -> SeatRef | None:
    participant_id = conn.session.get(SESSION_PARTICIPANTS, {}).get(battle_id)
    if participant_id is None:
        return None
    return SeatRef(participant_id, conn.session.get(SESSION_SEAT_KEYS, {}).get(battle_id))


def take_seat(conn: HTTPConnection, battle_id: str, participant_id: str, token_hash: str) -> None:
    """Seat this browser (tied to the token it joined with); the CSRF token rotates with every
    change of seat, so a token read before the change is no longer accepted after it."""
    seats = dict(conn.session.get(SESSION_PARTICIPANTS, {}))
    keys = dict(conn.session.get(SESSION_SEAT_KEYS, {}))
    changed = seats.get(battle_id) != participant_id
    seats[battle_id] = participant_id
    keys[battle_id] = seat_key(token_hash)
    conn.session[SESSION_PARTICIPANTS] = seats
    conn.session[SESSION_SEAT_KEYS] = keys
    if changed:
        conn.session[SESSION_CSRF] = secrets.token_urlsafe(32)


def origin_allowed(conn: HTTPConnection, settings: Settings) -> bool:
    """Same host, PUBLIC_BASE_URL's origin, or listed in ALLOWED_ORIGINS. A missing Origin
    (non-browser client) is allowed: cookies are what a cross-site page would abuse, and browsers
    always send Origin on websockets."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    origin = origin.rstrip("/")
    public = urlsplit(settings.public_base_url)
    if origin in settings.allowed_origins or origin == f"{public.scheme}://{public.netloc}":
        return True
    return urlsplit(origin).netloc == conn.headers.get("host", "")


# --- Request bodies -------------------------------------------------------------------------------

MAX_JSON_DEPTH = 32  # the same limit services.actions applies to payloads (ship definitions need < 10)
INT_LIMIT = 2**63  # whole numbers must fit a signed 64-bit integer (PostgreSQL bigint, SQLite INTEGER)


class JsonRefused(ValueError):
    """A JSON document the doors refuse: malformed, too deep, or with a number no store can hold."""

    def __init__(self, reason: str, field: str | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.field = field


class _Unstorable:
    """Stands in, while parsing, for a literal no store can hold; check_json reports where it was."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _non_finite(text: str) -> _Unstorable:
    return _Unstorable(f"{text} is not a number JSON allows")


OUT_OF_RANGE = "the number is out of range (at most 2^63 - 1 in size)"


def _field(path: list[str | int]) -> str | None:
    return ".".join(str(p) for p in path) or None


BAD_TEXT = "text may not contain NUL characters or unpaired surrogates (no database stores them)"


def storable_text(text: str) -> bool:
    """PostgreSQL text and JSONB hold neither NUL nor lone surrogates (which are not UTF-8 at all)."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_json(value: Any, depth_limit: int = MAX_JSON_DEPTH) -> None:
    """Raise JsonRefused for a value nested over `depth_limit` containers, a non-finite float, a
    whole number outside ±2^63, or text no database can store. Iterative: no input exhausts the stack."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in node:
                if not storable_text(key):
                    raise JsonRefused(BAD_TEXT, _field(path))
            children: list[tuple[str | int, Any]] = list(node.items())
        elif isinstance(node, list):
            children = list(enumerate(node))
        else:
            if isinstance(node, _Unstorable):
                raise JsonRefused(node.reason, _field(path))
            if isinstance(node, str) and not storable_text(node):
                raise JsonRefused(BAD_TEXT, _field(path))
            if isinstance(node, float) and not math.isfinite(node):
                raise JsonRefused("the number is too large (it would be infinite)", _field(path))
            if isinstance(node, int) and not isinstance(node, bool) and not -INT_LIMIT <= node < INT_LIMIT:
                raise JsonRefused(OUT_OF_RANGE, _field(path))
            continue
        if len(path) >= depth_limit:
            where = _field(path[:1]) or "body"
            raise JsonRefused(
                f"the {where} is nested more than {MAX_JSON_DEPTH} levels deep", _field(path[:1])
            )
        stack.extend((child, [*path, key]) for key, child in reversed(children))


def _parse_int(text: str) -> int | _Unstorable:
    if len(text.lstrip("-")) > 19:  # longer than any 64-bit number: refused without converting it
        return _Unstorable(OUT_OF_RANGE)
    return int(text)


# One decoder for every body: json.loads with these hooks builds a new one per call, a cost on every request.
_DECODER = json.JSONDecoder(parse_constant=_non_finite, parse_int=_parse_int)


def strict_loads(raw: str | bytes, depth_limit: int = MAX_JSON_DEPTH) -> Any:
    """json.loads that refuses NaN/Infinity, numbers out of range and deep nesting (JsonRefused)."""
    try:
        if not isinstance(
            raw, str
        ):  # as json.loads reads bytes: UTF-8, or another Unicode encoding by its BOM
            raw = raw.decode(json.detect_encoding(raw), "surrogatepass")
        value = _DECODER.decode(raw)
    except RecursionError:
        raise JsonRefused(f"the body is nested more than {MAX_JSON_DEPTH} levels deep", None) from None
    except json.JSONDecodeError as exc:
        raise JsonRefused(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", None
        ) from None
    except UnicodeDecodeError:
        raise JsonRefused("not valid JSON: the body is not UTF-8", None) from None
    check_json(value, depth_limit)
    return value


def error_body(error: str, field: str | None, reason: str, **extra: Any) -> bytes:
    return json.dumps({"detail": {"error": error, "field": field, "reason": reason, **extra}}).encode()


async def send_error(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _content_type(scope: Scope) -> bytes:
    return dict(scope["headers"]).get(b"content-type", b"").split(b";")[0].strip().lower()


def _is_json(scope: Scope) -> bool:
    content_type = _content_type(scope)
    return content_type == b"application/json" or content_type.endswith(b"+json")


def _is_form(scope: Scope) -> bool:
    return _content_type(scope) == b"application/x-www-form-urlencoded"


def _has_nul(raw: bytes) -> bool:
    return b"\x00" in raw or b"%00" in raw.lower()


class HttpMiddleware(ABC):
    """An ASGI middleware that acts on HTTP requests only: websockets and lifespan pass straight
    through to the app (the socket door has its own checks)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    @abstractmethod
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """What the middleware does with one HTTP request (calling `self.app` to pass it on)."""


class BodyLimit(HttpMiddleware):
    """Refuse request bodies over the limit with 413 — announced by Content-Length or found while a
    chunked body streams in — and JSON bodies the doors cannot store (422, naming the field):
    NaN/Infinity, numbers out of range, nesting deeper than 32 levels. Both before the app reads them."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await _too_large(send)
            return
        if "\x00" in scope["path"]:
            await send_error(send, 422, error_body("Invalid", "path", BAD_TEXT))
            return
        if _has_nul(scope.get("query_string", b"")):
            await send_error(send, 422, error_body("Invalid", "query", BAD_TEXT))
            return
        if (_is_json(scope) or _is_form(scope)) and scope["method"] in ("POST", "PUT", "PATCH", "DELETE"):
            await self._buffered(scope, receive, send)
            return
        seen = 0
        refused = False

        async def limited() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    # Answer 413 now; the app sees the client gone and whatever it answers is dropped.
                    refused = True
                    await _too_large(send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, limited, guarded_send)

    async def _buffered(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the whole (bounded) JSON or form body, check it, then hand the same bytes to the app."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            seen += len(body)
            if seen > self.max_bytes:
                await _too_large(send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        raw = b"".join(chunks)
        if raw and _is_form(scope):
            if _has_nul(raw):
                await send_error(send, 422, error_body("Invalid", None, BAD_TEXT))
                return
        elif raw:
            try:
                strict_loads(raw, MAX_JSON_DEPTH + 1)  # the body object wraps payload/options
            except JsonRefused as exc:
                await send_error(send, 422, error_body("Invalid", exc.field, exc.reason))
                return
        await self.app(scope, replaying(raw, receive), send)


def replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` for an app after a door read the body: that body, then the connection's own messages."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _too_large(send: Send) -> None:
    await send_error(send, 413, error_body("TooLarge", None, "request body too large"))


# --- Response headers and cookies -----------------------------------------------------------------

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
]


class SecurityHeaders(HttpMiddleware):
    """Every HTTP answer (pages, API, static files, errors) carries the policy headers; cookies get
    `Secure` when SECURE_COOKIES=true, or with auto when the request came over HTTPS (scope scheme,
    which uvicorn --proxy-headers takes from X-Forwarded-Proto of a trusted proxy)."""

    def __init__(self, app: ASGIApp, secure_cookies: str = "auto") -> None:
        super().__init__(app)
        self.secure_cookies = secure_cookies

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        secure = self.secure_cookies == "true" or (
            self.secure_cookies == "auto" and scope.get("scheme") == "https"
        )

        await self.app(scope, receive, secured(send, secure))


def secured(send: Send, secure_cookies: bool) -> Send:
    """`send` with the policy headers added to the answer's start (those a route set itself are
    kept: a route may be stricter), and cookies marked `Secure` when `secure_cookies`."""

    async def with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            present = {k.lower() for k, _ in headers}
            if secure_cookies:
                headers = [
                    (k, v + b"; Secure")
                    if k.lower() == b"set-cookie" and b"secure" not in v.lower()
                    else (k, v)
                    for k, v in headers
                ]
            message = {
                **message,
                "headers": headers + [(k, v) for k, v in SECURITY_HEADERS if k not in present],
            }
        await send(message)

    return with_headers


# --- Logs -----------------------------------------------------------------------------------------

_JOIN_PATH = re.compile(r"/join/[^/?#\s\"]+")


def redact_join_tokens(text: str) -> str:
    return _JOIN_PATH.sub("/join/[redacted]", text)


class RedactJoinTokens(logging.Filter):
    """Old-style join links (/join/<token>) never reach a log line: the access log's path argument
    (uvicorn.access logs '%s - "%s %s HTTP/%s" %d' with the path third) is rewritten."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(redact_join_tokens(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str) and "/join/" in record.msg:
            record.msg = redact_join_tokens(record.msg)
        return True


def install_log_redaction() -> None:
    for name in ("uvicorn.access", "uvicorn.error", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactJoinTokens) for f in logger.filters):
            logger.addFilter(RedactJoinTokens())
