"""Join tokens and ids. Tokens are shown once and stored only as SHA-256."""

from __future__ import annotations

import hashlib
import secrets


def new_id() -> str:
    return secrets.token_hex(8)


def new_token() -> str:
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
