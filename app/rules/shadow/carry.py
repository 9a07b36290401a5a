"""What a Shadow's pain track keeps between the battles of a campaign (SH-01).

The track starts at zero when a scenario begins "unless otherwise stated in the setup rules": a
campaign's set-up may say the pain carries (`pain_carries`). Then the next battle starts at the
level the last one left; the impulse's bookkeeping, the reaction and its obligations belong to the
battle they happened in and start afresh. Without that option the track starts at zero."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PAIN_CARRIES = "pain_carries"


def pain_carry(pain: dict[str, Any], setup: Mapping[str, Any]) -> dict[str, Any]:
    """The track as the next battle starts it: the level the last left where the set-up says so,
    else zero (SH-01). A ship dead of shock never fights again (the fleet marks it destroyed)."""
    level = int(pain.get("level") or 0) if setup.get(PAIN_CARRIES) else 0
    out: dict[str, Any] = {"level": level}
    if pain.get("speed") is not None:
        out["speed"] = pain["speed"]
    if pain.get("dead"):
        out = {"level": 16, "dead": True}
    return out
