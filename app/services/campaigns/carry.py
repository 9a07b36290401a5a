"""What each fleet ship keeps when its battle ends, read from its parts' own declarations.

A part says what of it outlives the battle (`PartSpec.carry`: the sheet's boxes, a High Guard
ship's damage and crew step, the Shadow's pain where the campaign's set-up says so); a part that
declares nothing starts the next battle as the fleet had it (shields regenerate, reactors refill).
Nothing here names a ruleset, a part or a system: a fifth ruleset's part carries by declaring it."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from app.rules.state import BattleState


def carried_parts(
    state: BattleState, ship_id: str, before: Mapping[str, Any], setup: Mapping[str, Any]
) -> dict[str, Any]:
    """The ship's parts as its next battle starts them: each part that declares a carry as it
    declares; every other part as the fleet had it (`before`)."""
    ship = state.ships.get(ship_id)
    parts = copy.deepcopy(dict(before))
    if ship is None:  # removed from the battle by the referee: it comes home as it went
        return parts
    for name, part in ship.parts.items():
        spec = state.game.parts.get(name)
        if spec is not None and spec.carry is not None and isinstance(part, dict):
            parts[name] = spec.carry(copy.deepcopy(part), setup)
    return parts


def destroyed(state: BattleState, ship_id: str) -> bool:
    """GEN-04: a ship the battle destroyed (by damage, or dead of pain, SH-02) is lost to its fleet."""
    ship = state.ships.get(ship_id)
    return bool(ship is not None and ship.destroyed)
