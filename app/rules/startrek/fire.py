"""Who may fire and be fired at, read by every Star Trek rule that fires (ST-17, ST-21 … ST-24).

`fire_blocked` says why a ship's weapons are offline (going to warp this turn, cloaked, decloaked
this turn), honouring the ship data's cloak overrides (ST-21a). The damage filter refuses entered
damage from such a ship, and damage aimed at a cloaked ship nobody has detected unless it is flash
or shredder collateral, which reveals it instead (ST-24). A ship gone to warp takes no damage.
"""

from __future__ import annotations

from app.rules.attack import DamageContext
from app.rules.core import RuleError
from app.rules.startrek.cloak import REVEALING_EFFECTS, cloak_of, fire_blocked_by_cloak, reveal_by_collateral
from app.rules.startrek.warp import fire_blocked_by_warp
from app.rules.state import BattleState, Ship


def fire_blocked(state: BattleState, ship: Ship) -> str | None:
    """Why this ship may not fire now, or None."""
    return fire_blocked_by_warp(state, ship) or fire_blocked_by_cloak(state, ship)


def may_be_targeted(ship: Ship) -> str | None:
    """Why this ship cannot be a target of fire now, or None (ST-22, ST-23)."""
    cloak = cloak_of(ship)
    if cloak is not None and cloak.cloaked and not cloak.detected:
        return f"{ship.name} is cloaked and has not been detected (ST-22, ST-23)"
    return None


def check_fire(ctx: DamageContext) -> None:
    """Refuse fire the rules forbid; let flash or shredder collateral reveal a cloaked ship (ST-24)."""
    source = ctx.state.ships.get(ctx.entry.source) if ctx.entry.source else None
    if source is not None:
        blocked = fire_blocked(ctx.state, source)
        if blocked:
            raise RuleError(blocked, "source")
    warp = ctx.target.part("warp")
    if warp is not None and warp.get("departed"):
        raise RuleError(f"{ctx.target.name} has gone to warp and left the battle", "target")
    if may_be_targeted(ctx.target) is None:
        return
    effects = {e.lower() for e in ctx.entry.effects}
    collateral = next((e for e in REVEALING_EFFECTS if e in effects), None)
    if collateral is None:
        raise RuleError(
            f"{ctx.target.name} is cloaked and undetected: only flash or shredder collateral reaches it (ST-24); "
            "detect it first (ST-23)",
            "target",
        )
    event = reveal_by_collateral(ctx.state, ctx.target, collateral)
    if event is not None:
        ctx.events.append(event)
