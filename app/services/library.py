"""The sample ship library: JSON ship definitions shipped under app/shipdata/library/."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

LIBRARY_DIR = Path(__file__).resolve().parent.parent / "shipdata" / "library"


@lru_cache
def library() -> dict[str, dict[str, Any]]:
    """slug → ship definition, read once."""
    ships: dict[str, dict[str, Any]] = {}
    for path in sorted(LIBRARY_DIR.glob("*.json")):
        ships[path.stem] = json.loads(path.read_text())
    return ships


def ships_for(system: str) -> dict[str, dict[str, Any]]:
    """Library ships that can fight in a battle of this game system.

    B5 Wars battles take B5 ships and SFB-family Shadows (the Star Trek seed has Shadows firing on
    shielded ships); SFB battles take SFB ships; Traveller takes Traveller ships."""
    allowed = {"sfb": {"sfb"}, "b5wars": {"b5wars", "sfb"}, "traveller": {"traveller"}}[system]
    return {slug: ship for slug, ship in library().items() if ship.get("system") in allowed}


def definition(slug: str) -> dict[str, Any]:
    try:
        return library()[slug]
    except KeyError:
        from app.services.errors import Invalid

        raise Invalid(f"no ship {slug!r} in the library", "library") from None
