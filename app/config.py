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
    # At the table (issue 11): chat limits, notifications
    chat_max_chars: int = 500
    chat_rate_count: int = 5  # messages per seat …
    chat_rate_seconds: float = 10.0  # … in this many seconds
    webhook_allow_private: bool = False  # allow webhooks to loopback / private-network hosts (SSRF guard)
    webhook_timeout_seconds: float = 5.0
    webhook_retries: int = 3  # attempts after the first
    webhook_backoff_seconds: float = 1.0  # doubled after each failed attempt
    notify_idle_seconds: float = 180.0  # nobody seen on the page this recently is notified
    public_url: str = ""  # e.g. https://starboard.example; notifications then link to the battle
    deadline_check_seconds: float = 30.0  # how often step deadlines are checked

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
