"""Service errors become JSON for the API (422 with field and reason) and messages for pages."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from app.services.errors import ServiceError


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse({"detail": exc.as_dict()}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        loc = [str(p) for p in first["loc"] if p not in ("body", "query", "path")]
        return JSONResponse(
            {"detail": {"error": "Invalid", "field": ".".join(loc) or None, "reason": first["msg"]}},
            status_code=422,
        )
