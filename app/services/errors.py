"""Service errors each door turns into its own answer (HTTP status, page message, ws frame)."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A refusal or fault a door answers in its own way; `status` is its HTTP status, given where a
    kind is declared (`class NotFound(ServiceError, status=404)`)."""

    status = 400

    def __init_subclass__(cls, status: int | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status

    def __init__(self, message: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        return {"error": type(self).__name__, "field": self.field, "reason": self.message, **self.extra}


class NotFound(ServiceError, status=404):
    """No such battle, seat or thing here."""


class Forbidden(ServiceError, status=403):
    """Known, but not this caller's to do."""


class Invalid(ServiceError, status=422):
    """The input or the rules refuse it: nothing changed."""


class RollNeeded(ServiceError, status=422):
    """Physical dice: the rule needs a value the player has not entered yet."""


class Stale(ServiceError, status=409):
    """The action was made against an older seq; the state has moved on."""


class Conflict(ServiceError, status=409):
    """It clashes with what is there now (an action id already used, concurrent writes)."""


class RuleFault(ServiceError, status=422):
    """A rule, hook or render raised where it should have answered: logged, nothing changed."""


class Unauthorized(ServiceError, status=401):
    """No credentials were sent (the REST door answers 401 with WWW-Authenticate: Bearer)."""


class RateLimited(ServiceError, status=429):
    """Too many requests of one kind from one client; `retry_after` says when to try again."""


class Busy(ServiceError, status=503):
    """A bounded resource of this process (outbound sends, open feeds) is full for now: nothing
    changed; `retry_after` says when to try again (503 with Retry-After)."""
