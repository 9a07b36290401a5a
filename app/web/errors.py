"""Service errors become JSON for the API (`{"detail": {"error", "field", "reason"}}` with the right
status and headers) and messages for pages; a browser opening a page that fails gets the same reason
as an HTML page (templates/error.html: a title, a heading and a way home, issue 17)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.rules.messages import humane
from app.services.errors import ServiceError

REASONS = {404: "NotFound", 405: "MethodNotAllowed", 401: "Unauthorized", 403: "Forbidden"}


def service_headers(exc: ServiceError) -> dict[str, str]:
    headers = {}
    if exc.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="starboard"'
    if exc.status == 429 and "retry_after" in exc.extra:
        headers["Retry-After"] = str(exc.extra["retry_after"])
    return headers


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
    from app.web.render import templates

    title = TITLES.get(status, reason)
    return templates.TemplateResponse(
        request,
        "error.html",
        {"status": status, "reason": reason, "title": title},
        status_code=status,
        headers=headers,
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
