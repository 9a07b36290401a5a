"""Per-client rate limits (in this process's memory: with N replicas a client gets N times the limit,
which still bounds a flood; see docs/security.md)."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from app.services.errors import RateLimited
from app.services.window import SlidingWindow

__all__ = ["SlidingWindow", "check_battle_creation", "client_address"]


def client_address(conn: HTTPConnection) -> str:
    """The client's address (behind the proxy, uvicorn --proxy-headers puts X-Forwarded-For here)."""
    return conn.client.host if conn.client else "unknown"


def check_battle_creation(conn: HTTPConnection) -> None:
    limiter: SlidingWindow = conn.app.state.create_limiter
    wait = limiter.retry_after(client_address(conn))
    if wait is not None:
        raise RateLimited(
            f"too many new battles from your address: at most {limiter.limit} every "
            f"{int(limiter.window)} s; try again in {wait} s",
            None,
            retry_after=wait,
        )
