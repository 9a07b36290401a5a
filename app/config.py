"""Settings from the environment (and an optional .env file)."""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


def _default_secret() -> str:
    """A development secret kept in var/ so restarts and several local processes agree."""
    path = ROOT / "var" / "secret_key"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    path.write_text(key)
    return key


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(default=f"sqlite+aiosqlite:///{ROOT / 'var' / 'starboard.db'}")
    broadcast_url: str = Field(default="memory://", description="memory://, postgresql://… or redis://…")
    secret_key: str = Field(default_factory=_default_secret)
    allowed_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_body_bytes: int = 64 * 1024
    max_ws_frame_bytes: int = 16 * 1024
    secure_cookies: bool = False

    # The database: how long to wait before answering 503 instead of hanging.
    db_connect_timeout: float = 5.0  # seconds to open a connection
    db_statement_timeout: float = 15.0  # seconds per statement (PostgreSQL statement_timeout)
    db_pool_size: int = 10
    db_max_overflow: int = 10
    db_pool_timeout: float = 5.0  # seconds to wait for a free pooled connection
    retry_after_seconds: int = 5  # Retry-After on a 503

    # The live path (docs/architecture.md, "The live path under faults").
    broker_publish_timeout: float = 2.0  # seconds per wake-up sent to the other processes
    broker_retry_max: float = 5.0  # longest backoff between reconnects / publish retries
    ws_heartbeat_seconds: float = 5.0  # heartbeat frame with the battle's seq (0: none)
    ws_hello_timeout: float = 10.0  # a socket that has not said hello by then is closed (1008)
    ws_max_sockets_per_seat: int = 20  # open sockets per participant per process (then 1008)
    ws_max_frames_per_second: float = 20.0  # client frames per second, bursts of twice that (then 1008)
    ws_send_timeout: float = 10.0  # a frame the client does not take within this closes it (1011)

    # History: a copy of the state every N actions, so the state at any seq replays < N actions.
    checkpoint_every: int = 50

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        """ALLOWED_ORIGINS is comma-separated in the environment."""
        if isinstance(value, str):
            return [o.strip().rstrip("/") for o in value.split(",") if o.strip()]
        return value


@lru_cache
def get_settings() -> Settings:
    return Settings()
