"""Records anyone may check once a battle ends: the dice record against the revealed seed."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle
from app.rules.dice import verify_rolls
from app.services.errors import Forbidden
from app.services.history import log_rows


async def dice_record(session: AsyncSession, battle: Battle) -> dict[str, Any]:
    """Every die with its action's seq and its index, and the ones the seed does not reproduce."""
    if battle.status != "finished":
        raise Forbidden("the dice record opens when the battle ends (the seed is secret until then)")
    rolls = [
        {"seq": row.seq, "index": i, "sides": d["sides"], "value": d["value"], "purpose": d.get("purpose")}
        for row in await log_rows(session, battle.id)
        for i, d in enumerate(row.dice)
    ]
    seeded = battle.dice_mode == "seeded"
    mismatches = verify_rolls(bytes.fromhex(battle.seed), battle.id, rolls) if seeded else []
    return {
        "seed": battle.seed,
        "seed_sha256": battle.seed_hash,
        "dice_mode": battle.dice_mode,
        "rolls": rolls,
        "mismatches": mismatches,
    }
