"""What the Traveller part templates draw that the rules derive: the orders catalogue (names of the
orders a form offers and a sheet lists)."""

from __future__ import annotations

from typing import Any

from app.rules.state import BattleState, Ship
from app.rules.traveller import tables as T


def unit(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    """Display values shared by capital ships and flights."""
    return {"catalogue": T.ORDERS}
