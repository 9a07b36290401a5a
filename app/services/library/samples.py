"""The sample ship library: JSON ship definitions shipped under app/shipdata/library/."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from app.config import ROOT
from app.rules.system import GameSystem
from app.services.errors import Invalid

LIBRARY_DIR = ROOT / "app" / "shipdata" / "library"


@lru_cache
def library() -> dict[str, dict[str, Any]]:
    """slug → ship definition, read once."""
    ships: dict[str, dict[str, Any]] = {}
    for path in sorted(LIBRARY_DIR.glob("*.json")):
        ships[path.stem] = json.loads(path.read_text())
    return ships


def ships_for(system: GameSystem) -> dict[str, dict[str, Any]]:
    """Library ships of the families this game system takes (its `fleets`: B5 Wars takes B5 ships
    and SFB-family Shadows, as the Star Trek seed has Shadows firing on shielded ships)."""
    return {slug: ship for slug, ship in library().items() if ship.get("system") in system.fleets}


def definition(slug: str) -> dict[str, Any]:
    try:
        return library()[slug]
    except KeyError:
        raise Invalid(f"no ship {slug!r} in the library", "library") from None
