"""Service errors each door turns into its own answer (HTTP status, page message, ws frame)."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    status = 400

    def __init__(self, message: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        return {"error": type(self).__name__, "field": self.field, "reason": self.message, **self.extra}


class NotFound(ServiceError):
    status = 404


class Forbidden(ServiceError):
    status = 403


class Invalid(ServiceError):
    """The input or the rules refuse it: nothing changed."""

    status = 422


class RollNeeded(ServiceError):
    """Physical dice: the rule needs a value the player has not entered yet."""

    status = 422


class Stale(ServiceError):
    """The action was made against an older seq; the state has moved on."""

    status = 409


class Conflict(ServiceError):
    status = 409


class RuleFault(ServiceError):
    """A rule, hook or render raised where it should have answered: logged, nothing changed."""

    status = 422


class Unauthorized(ServiceError):
    """No credentials were sent (the REST door answers 401 with WWW-Authenticate: Bearer)."""

    status = 401


class RateLimited(ServiceError):
    """Too many requests of one kind from one client; `retry_after` says when to try again."""

    status = 429


class Busy(ServiceError):
    """A bounded resource of this process (outbound sends, open feeds) is full for now: nothing
    changed; `retry_after` says when to try again (503 with Retry-After)."""

    status = 503
