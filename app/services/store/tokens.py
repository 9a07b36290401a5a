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


def seat_key(token_hash: str) -> str:
    """What a browser's session keeps of the token it joined with: a new token (rotation) gives a
    new key, so sessions seated with the old one no longer hold the seat."""
    return hashlib.sha256(f"seat:{token_hash}".encode()).hexdigest()[:16]
