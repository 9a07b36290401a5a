"""Settings from the environment (and an optional .env file)."""

from __future__ import annotations

import ipaddress
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

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


# Secrets that ship in this repository's files (compose, .env.example, docs): never a real key.
EXAMPLE_SECRETS = frozenset(
    {
        "change-me-in-production",
        "change-me",
        "changeme",
        "secret",
        "starboard",
        "replace-me-with-a-long-random-key",
    }
)
MIN_SECRET_LENGTH = 32


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(default=f"sqlite+aiosqlite:///{ROOT / 'var' / 'starboard.db'}")
    broadcast_url: str = Field(default="memory://", description="memory://, postgresql://… or redis://…")
    secret_key: str = Field(default_factory=_default_secret)
    allowed_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_body_bytes: int = 64 * 1024
    max_ws_frame_bytes: int = 16 * 1024
    secure_cookies: Literal["auto", "true", "false"] = Field(
        default="auto", description="auto: Secure when the request came over HTTPS (X-Forwarded-Proto)"
    )
    public_base_url: str = Field(
        default="http://127.0.0.1:8000", description="where players reach the server; join links use it"
    )
    forwarded_allow_ips: str = Field(
        default="127.0.0.1", description="proxies whose X-Forwarded-For/-Proto uvicorn trusts"
    )
    battle_create_limit: int = Field(
        default=30, ge=0, description="battles one client address may create per window (0: no limit)"
    )
    battle_create_window_seconds: int = Field(default=600, ge=1)
    max_seats_per_battle: int = Field(
        default=32, ge=1, description="participants (all roles) a battle may hold"
    )
    timeout_keep_alive: int = Field(default=5, ge=1, description="seconds an idle connection is kept open")
    header_timeout: float = Field(
        default=10.0, gt=0, description="seconds a client has to send a request's headers"
    )
    max_header_bytes: int = Field(
        default=16 * 1024, ge=1024, description="largest request head (400 past it)"
    )
    # At the table: chat limits, notifications
    chat_max_chars: int = 500
    chat_rate_count: int = 5  # messages per seat …
    chat_rate_seconds: float = 10.0  # … in this many seconds
    public_url: str = ""  # e.g. https://starboard.example; notifications then link to the battle
    webhook_allow_private: bool = False  # allow webhooks to loopback / private-network hosts (SSRF guard)
    webhook_timeout_seconds: float = Field(
        default=5.0, gt=0, description="deadline of one webhook attempt: resolve, connect, send, answer"
    )
    webhook_max_concurrent: int = Field(
        default=8, ge=1, description="webhook calls under way at once in a process (their own threads)"
    )
    webhook_seat_limit: int = Field(
        default=5, ge=0, description="webhook calls one seat's webhook gets per window (0: no limit)"
    )
    webhook_seat_window_seconds: float = Field(default=60.0, gt=0)
    webhook_retries: int = 3  # attempts after the first
    webhook_backoff_seconds: float = 1.0  # doubled after each failed attempt
    notify_idle_seconds: float = 180.0  # nobody seen on the page this recently is notified
    deadline_check_seconds: float = 30.0  # how often step deadlines are checked

    @field_validator("secure_cookies", mode="before")
    @classmethod
    def _cookie_mode(cls, value: object) -> object:
        """SECURE_COOKIES=true/false as before, or auto; also accepts 1/0/yes/no."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            v = value.strip().lower()
            return {
                "1": "true",
                "yes": "true",
                "on": "true",
                "0": "false",
                "no": "false",
                "off": "false",
            }.get(v, v)
        return value

    @field_validator("public_base_url", mode="after")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    # The database: how long to wait before answering 503 instead of hanging.
    db_connect_timeout: float = 5.0  # seconds to open a connection
    db_statement_timeout: float = 15.0  # seconds per statement (PostgreSQL statement_timeout)
    db_pool_size: int = 10
    db_max_overflow: int = 10
    db_pool_timeout: float = 5.0  # seconds to wait for a free pooled connection
    # Test each pooled connection before use (three round trips each time on asyncpg). Off: a
    # connection the database dropped fails its first statement, the pool is renewed at once, and
    # that request answers 503 (an action is retried: its action id keeps it from applying twice).
    db_pre_ping: bool = False
    retry_after_seconds: int = 5  # Retry-After on a 503

    # The live path (docs/architecture.md, "The live path under faults").
    broker_publish_timeout: float = 2.0  # seconds per wake-up sent to the other processes
    broker_retry_max: float = 5.0  # longest backoff between reconnects / publish retries
    ws_heartbeat_seconds: float = 5.0  # heartbeat frame with the battle's seq (0: none)
    ws_hello_timeout: float = 10.0  # a socket that has not said hello by then is closed (1008)
    ws_max_sockets_per_seat: int = 20  # open sockets per participant per process (then 1008)
    ws_max_frames_per_second: float = 20.0  # client frames per second, bursts of twice that (then 1008)
    feed_max_per_seat: int = Field(default=4, ge=1, description="open SSE feeds one seat may hold (then 429)")
    feed_max_per_process: int = Field(
        default=256, ge=1, description="open SSE feeds a process holds (then 503 with Retry-After)"
    )
    ws_send_timeout: float = 10.0  # a frame the client does not take within this closes it (1011)
    # Move the heap built at startup (modules, mappers, templates) out of the collector's sight
    # (gc.freeze): a full collection no longer walks it, so it stalls the loop a third as long.
    freeze_startup_heap: bool = True

    # Operations (docs/operations.md): /metrics is served only when enabled (nginx keeps it internal).
    metrics_enabled: bool = False
    # SIGTERM: seconds the requests in flight get to finish before they are cancelled and the process exits
    shutdown_deadline_seconds: float = Field(default=20.0, gt=0)
    # production: refuse to start with the example secret, a short one, or none set (one line says why)
    environment: Literal["development", "production"] = "development"
    log_format: Literal["text", "json"] = "text"  # json: one JSON object per line
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    # Profiles' passkeys (docs/players.md): the WebAuthn relying party is this host name (the page's
    # origin must be it or a subdomain of it); the name is what the authenticator shows.
    webauthn_rp_id: str = "localhost"
    webauthn_rp_name: str = "Starboard"
    recovery_signin_limit: int = Field(
        default=10, ge=0, description="recovery-code sign-ins one address may try per window (0: no limit)"
    )
    recovery_signin_window_seconds: int = Field(default=600, ge=1)

    # History: a copy of the state every N actions, so the state at any seq replays < N actions.
    checkpoint_every: int = 50

    # The ship library's bounds (docs/security.md, "Bounds"): saved ships one referee seat may keep,
    # and in all; a save past either is refused (422, field `library`) until one is deleted.
    shiplib_max_per_owner: int = 200
    shiplib_max_total: int = 5000

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("environment", mode="before")
    @classmethod
    def _environment_lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    def refusal(self) -> str | None:
        """Why this configuration must not serve in production (None: it may). The session cookies
        are signed with SECRET_KEY: an example or short key lets anyone forge a seat, and a key
        generated per machine differs between replicas, so seats would not survive a request."""
        if self.environment != "production":
            return None
        if "secret_key" not in self.model_fields_set:
            return "SECRET_KEY is not set (ENVIRONMENT=production needs one; see .env.example)"
        if self.secret_key.strip().lower() in EXAMPLE_SECRETS:
            return "SECRET_KEY is the example value; make one with: python -c 'import secrets; print(secrets.token_urlsafe(48))'"
        if len(self.secret_key) < MIN_SECRET_LENGTH:
            return f"SECRET_KEY is {len(self.secret_key)} characters; production needs at least {MIN_SECRET_LENGTH}"
        return self._passkey_refusal()

    def _passkey_refusal(self) -> str | None:
        """A browser makes a passkey only for the page's own host or a domain above it: served at a
        public name with WEBAUTHN_RP_ID left at `localhost`, every profile's sign-up would fail."""
        host = urlsplit(self.public_base_url).hostname or ""
        if host == "localhost" or "." not in host or _is_address(host):
            return None  # a trial on this machine: no name a passkey could belong to
        rp_id = self.webauthn_rp_id.strip().lower()
        if host == rp_id or host.endswith(f".{rp_id}"):
            return None
        return (
            f"WEBAUTHN_RP_ID is {self.webauthn_rp_id!r}, not PUBLIC_BASE_URL's host {host!r} or a domain "
            f"above it, so no passkey could be made there; set WEBAUTHN_RP_ID={host}"
        )

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        """ALLOWED_ORIGINS is comma-separated in the environment."""
        if isinstance(value, str):
            return [o.strip().rstrip("/") for o in value.split(",") if o.strip()]
        return value


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@lru_cache
def get_settings() -> Settings:
    return Settings()
