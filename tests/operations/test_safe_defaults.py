"""Safe defaults: in production the app refuses to start with the example secret, a short one or
none, and says so in one line; compose takes its passwords from .env (no password in the file)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from tests.conftest import ROOT, Server, free_port

GOOD = "k" * 20 + "-a-long-enough-random-secret"


def started(env: dict[str, str], *command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a serving command that must refuse to start (it would otherwise serve until killed), from
    a directory with no .env (an operator's own .env in the checkout must not answer for the test)."""
    base = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ENVIRONMENT")}
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), base.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, *command], cwd=cwd, env={**base, **env}, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("secret", "named"),
    [
        ({"SECRET_KEY": "change-me-in-production"}, "example value"),
        ({"SECRET_KEY": "short-but-not-example"}, "at least 32"),
        ({}, "not set"),
    ],
)
def test_production_refuses_a_weak_secret_in_one_line(
    sqlite_url: str, secret: dict[str, str], named: str, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": sqlite_url, "ENVIRONMENT": "production", **secret}
    serve = ["-m", "app.cli", "serve", "--no-demo", "--no-migrate", "--port", str(free_port())]
    factory = ["-m", "uvicorn", "app.main:create_app", "--factory", "--port", str(free_port())]
    for command in (serve, factory):
        done = started(env, *command, cwd=tmp_path)
        assert done.returncode != 0
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        refusals = [line for line in lines if line.startswith("starboard: refusing to start in production")]
        assert len(refusals) == 1 and named in refusals[0] and "SECRET_KEY" in refusals[0], done.stderr
        assert "Traceback" not in done.stderr, done.stderr


def test_production_serves_with_a_real_secret_and_development_with_anything(sqlite_url: str) -> None:
    srv = Server(sqlite_url, env={"ENVIRONMENT": "production", "SECRET_KEY": GOOD})
    try:
        assert httpx.get(f"{srv.url}/healthz", timeout=10).status_code == 200
    finally:
        srv.stop()
    assert Settings(environment="development", secret_key="x").refusal() is None


def test_the_shipped_example_env_is_refused_and_compose_holds_no_password() -> None:
    example = Settings(_env_file=ROOT / ".env.example")  # type: ignore[call-arg]
    assert example.environment == "production" and example.refusal() is not None
    compose = (ROOT / "docker-compose.yml").read_text()
    assert re.search(r"POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?", compose)
    assert re.search(r"SECRET_KEY: \$\{SECRET_KEY:\?", compose)
    assert "change-me" not in compose and "starboard:starboard@" not in compose
    assert (
        ".env" in (ROOT / ".gitignore").read_text().split()
        and ".env" in (ROOT / ".dockerignore").read_text().split()
    )


@pytest.mark.parametrize(
    ("public", "rp_id", "refused"),
    [
        ("https://starboard.example.org", "localhost", True),  # the default left behind
        ("https://starboard.example.org", "other.org", True),
        ("https://starboard.example.org", "starboard.example.org", False),
        ("https://starboard.example.org", "example.org", False),  # a domain above the host
        ("https://starboard.example.org:8443/", "Example.org", False),
        ("http://localhost:8000", "localhost", False),  # a trial on this machine (compose's default)
        ("http://127.0.0.1:8000", "localhost", False),  # an address: no name a passkey could hold
    ],
)
def test_production_refuses_a_passkey_host_its_public_address_cannot_use(
    public: str, rp_id: str, refused: bool
) -> None:
    """Served at a public name with WEBAUTHN_RP_ID left at `localhost`, no player could make a
    profile's passkey (the browser refuses one for another host); production says so at start-up."""
    settings = Settings(
        environment="production", secret_key=GOOD, public_base_url=public, webauthn_rp_id=rp_id
    )
    refusal = settings.refusal()
    if refused:
        assert refusal is not None and "WEBAUTHN_RP_ID" in refusal and "starboard.example.org" in refusal
    else:
        assert refusal is None
    development = Settings(
        environment="development", secret_key=GOOD, public_base_url=public, webauthn_rp_id=rp_id
    )
    assert development.refusal() is None
