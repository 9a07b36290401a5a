"""What every door declares the same way: the platform and the hub, the bearer token and the seat
that holds it, the largest seq a path or query may name (and the query parameters that name one),
the error answers an operation documents, and a seat's join link. The REST door, the pages' JSON twins and the bots' feed all use these."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from app.models import Participant
from app.realtime.hub import Hub
from app.services.errors import Forbidden, Unauthorized
from app.services.platform import Platform
from app.services.store.tokens import hash_token


# async: FastAPI runs a plain `def` dependency in its thread pool, a thread hop on every request.
async def get_platform(request: Request) -> Platform:
    return request.app.state.platform


async def get_hub(request: Request) -> Hub:
    return request.app.state.hub


PlatformDep = Annotated[Platform, Depends(get_platform)]
HubDep = Annotated[Hub, Depends(get_hub)]

bearer = HTTPBearer(auto_error=False, description="the participant's token from their join link")
Creds = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


SEQ_MAX = 2**31 - 1  # seq columns are INTEGER (32-bit on PostgreSQL): no seq can be larger
# What a page's query may name: a seq (`since`, `seq`), or how many actions back from one (`back`,
# `behind`), whole and no larger than any seq can be.
SeqQuery = Annotated[int | None, Query(ge=0, le=SEQ_MAX)]
ActionsBack = Annotated[int, Query(ge=0, le=SEQ_MAX)]


class ErrorBody(BaseModel):
    error: str = Field(description="the kind of error: Invalid, Forbidden, Stale, RateLimited, …")
    field: str | None = Field(description="the input field at fault (dotted path), if one is")
    reason: str = Field(description="a sentence saying what is wrong")


class ErrorResponse(BaseModel):
    detail: ErrorBody
    request_id: str | None = Field(
        default=None, description="this request's id (X-Request-ID): quote it when reporting a fault"
    )


_ERROR_TEXT = {
    401: "no bearer token was sent (the answer carries WWW-Authenticate: Bearer)",
    403: "the token is not valid, belongs to another battle, or may not do this",
    404: "no such battle",
    409: "stale seq or an action id reused by someone else",
    413: "the request body is over the size limit",
    422: "invalid input (the field named: body, path, query or header), refused by the rules, or a roll is needed (`needed`)",
    429: "too many requests from this address or seat; see the Retry-After header",
    503: "busy or unavailable for a moment (the database, or a bound of this server); see Retry-After",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The error answers an operation can give, each with the {"detail": {...}} body schema. Every
    operation can answer 413 (a body over the limit) and 422 (input no store can hold, e.g. NUL in
    the path or query), whatever its own parameters: the doors check those before any route."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in sorted({*codes, 413, 422}):
        out[code] = {"model": ErrorResponse, "description": _ERROR_TEXT[code]}
        if code == 401:
            out[code]["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"}}}
        if code in (429, 503):
            out[code]["headers"] = {"Retry-After": {"schema": {"type": "integer"}}}
    return out


async def participant_by_bearer(
    platform: PlatformDep, battle_id: str, creds: HTTPAuthorizationCredentials | None
) -> Participant:
    """The seat holding the bearer token, in one read; a missing, rotated or foreign token is refused."""
    if creds is None:
        raise Unauthorized("send Authorization: Bearer <your token>")
    async with platform.db.reader() as session:
        found = await platform.store.seat_by_token(session, hash_token(creds.credentials))
    if found is None or not found[0].active:
        raise Forbidden("that link or token is not valid")
    if found[0].battle_id != battle_id:
        raise Forbidden("that token belongs to another battle")
    return found[0]


def join_url(request: Request, token: str) -> str:
    """PUBLIC_BASE_URL/join#token: built from the configuration, never from the Host header, and the
    token rides in the fragment, which browsers do not send — so no request line or log holds it."""
    return f"{request.app.state.settings.public_base_url}/join#{token}"
