"""Service errors become JSON for the API (`{"detail": {"error", "field", "reason"}}` with the right
status and headers) and messages for pages; a browser opening a page that fails gets the same reason
as an HTML page (templates/error.html: a title, a heading and a way home). A database that cannot
be reached (down, cut off, too slow, or every pooled connection busy) is answered 503 with
Retry-After — JSON for the API, an HTML page with a banner for browsers — and the connection is
kept alive, instead of a bare 500."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import InterfaceError as SAInterfaceError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.rules.messages import humane
from app.services.errors import ServiceError

REASONS = {404: "NotFound", 405: "MethodNotAllowed", 401: "Unauthorized", 403: "Forbidden"}


def service_headers(exc: ServiceError) -> dict[str, str]:
    headers = {}
    if exc.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="starboard"'
    if "retry_after" in exc.extra:  # 429 (a rate) and 503 (Busy: a bound of this process)
        headers["Retry-After"] = str(exc.extra["retry_after"])
    return headers


log = logging.getLogger(__name__)

UNAVAILABLE_REASON = "the battle database is unavailable for a moment; try again shortly"


def unavailable_exceptions() -> tuple[type[BaseException], ...]:
    kinds: list[type[BaseException]] = [
        OperationalError,
        SAInterfaceError,
        PoolTimeout,
        ConnectionError,
        TimeoutError,
    ]
    try:
        import asyncpg

        kinds += [asyncpg.PostgresConnectionError, asyncpg.InterfaceError, asyncpg.CannotConnectNowError]
    except ImportError:  # pragma: no cover
        pass
    return tuple(kinds)


UNAVAILABLE = unavailable_exceptions()


# PostgreSQL's own words for "not now": the connection classes (08…), the server starting up,
# shutting down or crashed (57P01-57P03), too many connections (53300), and a statement cancelled
# by the statement timeout (57014).
UNAVAILABLE_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "53300", "57014"})
# asyncpg's words for a connection left mid-operation by a lost server: it cannot be used again.
_IN_PROGRESS = "another operation"


def _unavailable_one(exc: BaseException) -> bool:
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, UNAVAILABLE):
        return True
    state = getattr(exc, "sqlstate", None) or getattr(exc, "pgcode", None)
    if isinstance(state, str) and (state in UNAVAILABLE_SQLSTATES or state.startswith("08")):
        return True
    name = type(exc).__name__
    if name in ("InternalClientError", "InterfaceError") and _IN_PROGRESS in str(exc):
        return True
    return "QueryCanceled" in name or "canceling statement due to statement timeout" in str(exc)


def is_unavailable(exc: BaseException) -> bool:
    """Whether the error means "the database could not be reached or answer in time": down,
    starting up, shutting down, refusing more connections, the pool handing none out in time, or a
    connection a lost server left mid-operation. SQLAlchemy wraps asyncpg's errors (`orig`, and the
    adapter's own error caused by asyncpg's), so the whole chain is looked at."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen or len(seen) > 8:
            continue
        seen.add(id(current))
        if _unavailable_one(current):
            return True
        todo += [getattr(current, "orig", None), current.__cause__, current.__context__]
    return False


def unavailable_response(request: Request, retry_after: int) -> Response:
    headers = {"Retry-After": str(retry_after), "Cache-Control": "no-store"}
    body = {"error": "Unavailable", "field": None, "reason": UNAVAILABLE_REASON}
    wants_html = (
        not request.url.path.startswith("/api/") and "text/html" in request.headers.get("accept", "")
    ) or request.headers.get("hx-request") == "true"
    if not wants_html:
        return JSONResponse({"detail": body}, status_code=503, headers=headers)
    if request.headers.get("hx-request") == "true":  # a form posted in place: a flash message
        from app.web.drawing.render import render

        message = "The battle database is unavailable for a moment. Try again shortly; this page catches up by itself."
        html = render("partials/flash.html", {"message": message, "level": "error"})
        return HTMLResponse(html, status_code=503, headers=headers)
    from app.web.drawing.render import templates

    return templates.TemplateResponse(
        request,
        "unavailable.html",
        {
            "reason": UNAVAILABLE_REASON,
            "retry_after": retry_after,
            "flash": {
                "message": "The battle database cannot be reached right now. Nothing you did was lost; "
                f"this page tries again in {retry_after} seconds.",
                "level": "error",
            },
        },
        status_code=503,
        headers=headers,
    )


def wants_page(request: Request) -> bool:
    """A browser navigating to a page (not the API, not an htmx or script request)."""
    return (
        request.method == "GET"
        and not request.url.path.startswith("/api/")
        and "text/html" in request.headers.get("accept", "")
        and "hx-request" not in request.headers
    )


# What each status means to a person reading the page (the reason below it says what happened).
TITLES = {
    401: "You are not seated in this battle",
    403: "This is not yours to open",
    404: "There is no such page",
    405: "That is not something this page does",
    409: "The battle moved on",
    413: "That was too much to send",
    422: "The address asks for something this page cannot show",
    429: "Too many requests — wait a moment",
    500: "Something went wrong on the server",
}


def error_page(request: Request, status: int, reason: str, headers: dict[str, str] | None = None) -> Response:
    from app.web.drawing.render import templates

    title = TITLES.get(status, reason)
    return templates.TemplateResponse(
        request,
        "error.html",
        {"status": status, "reason": reason, "title": title},
        status_code=status,
        headers=headers,
    )


def refusal_page(request: Request, exc: ServiceError) -> Response:
    """A page's own answer to a refusal it cannot show in place (the leagues' and the battle
    wizard's): the reason as the heading, with the refusal's own status and headers."""
    from app.web.drawing.render import templates

    return templates.TemplateResponse(
        request,
        "error.html",
        {"reason": exc.message, "status": exc.status, "flash": None},
        status_code=exc.status,
        headers=service_headers(exc),
    )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> Response:
        if wants_page(request):
            return error_page(
                request, exc.status, exc.as_dict().get("reason") or exc.message, service_headers(exc)
            )
        return JSONResponse({"detail": exc.as_dict()}, status_code=exc.status, headers=service_headers(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        errors = exc.errors()
        where, text = humane(errors[0]) if errors else (None, "the request is not valid")
        if wants_page(request):  # a bad query in the address bar (/battles/…/replay?seq=abc)
            return error_page(request, 422, text)
        return JSONResponse({"detail": {"error": "Invalid", "field": where, "reason": text}}, status_code=422)

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> Response:
        """A fault nobody answered (it is logged by the server as it propagates): a page for a
        browser, the error shape for everyone else."""
        reason = "the fault is logged; try again, or go back to your battles"
        if wants_page(request):
            return error_page(request, 500, reason)
        return JSONResponse(
            {"detail": {"error": "ServerError", "field": None, "reason": reason}}, status_code=500
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """Starlette's own answers (unknown path, wrong method) in the same shape as every other error."""
        reason = exc.detail if isinstance(exc.detail, str) else "request refused"
        if wants_page(request):
            return error_page(request, exc.status_code, reason, dict(exc.headers or {}))
        return JSONResponse(
            {"detail": {"error": REASONS.get(exc.status_code, "Error"), "field": None, "reason": reason}},
            status_code=exc.status_code,
            headers=exc.headers,
        )

    async def database_unavailable(request: Request, exc: Exception) -> Response:
        if not is_unavailable(exc):
            raise exc
        log.warning("database unavailable for %s %s: %r", request.method, request.url.path, exc)
        return unavailable_response(request, app.state.settings.retry_after_seconds)

    for kind in (DBAPIError, PoolTimeout, ConnectionError, TimeoutError, *UNAVAILABLE):
        app.add_exception_handler(kind, database_unavailable)
