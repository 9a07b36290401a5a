"""Records anyone may check once a battle ends: the dice record against the revealed seeds.

A battle imported from a file (or forked) holds dice it did not roll: those up to the import were
rolled in the battle the file came from, from that battle's id and seed. The import keeps where they
came from (`IMPORTED_DICE`, in the battle's table settings, outside the rules' state): one source
per earlier battle, each with the last seq it covers, its seed's commitment and the seed itself once
revealed (carried in the file after that battle ended). Every die is checked against the source of
its seq; one whose source's seed is not revealed yet is reported as not checkable, never as wrong.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, TableSettings
from app.rules.dice import derive_roll, seed_commitment
from app.services.errors import Forbidden
from app.services.history.replay import log_rows

IMPORTED_DICE = "imported_dice"  # key in TableSettings.options; the file's battle.imported_dice


def source_of(sources: list[dict[str, Any]], seq: int) -> int:
    """The index of the source that rolled action `seq`: the first earlier battle whose part of the
    log reaches it, else the last (the battle's own)."""
    for i, source in enumerate(sources[:-1]):
        if seq <= source["through_seq"]:
            return i
    return len(sources) - 1


def check_rolls(
    rolls: list[dict[str, Any]], sources: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each roll gets its `source`; returns the rolls its source's seed does not reproduce (with the
    value it makes, `expected`) and those whose source's seed is not revealed (`unchecked`)."""
    keys = [bytes.fromhex(s["seed"]) if s.get("seed") else None for s in sources]
    mismatches: list[dict[str, Any]] = []
    unchecked: list[dict[str, Any]] = []
    for roll in rolls:
        i = roll["source"] = source_of(sources, int(roll["seq"]))
        key = keys[i]
        if key is None:
            unchecked.append(roll)
            continue
        made = derive_roll(
            key, sources[i]["battle"], int(roll["seq"]), int(roll["index"]), int(roll["sides"])
        )
        if made != roll["value"]:
            mismatches.append({**roll, "expected": made})
    return mismatches, unchecked


async def dice_sources(session: AsyncSession, battle: Battle) -> list[dict[str, Any]]:
    """Where this battle's dice came from, oldest first, its own seed last. An earlier battle whose
    seed the file did not carry is looked up here: a what-if fork's original, or a battle imported
    back to this server, once it has ended (its commitment must be the one recorded)."""
    row = await session.get(TableSettings, battle.id)
    sources: list[dict[str, Any]] = []
    for earlier in (row.options.get(IMPORTED_DICE) if row is not None else None) or []:
        seed, where = earlier.get("seed"), "file" if earlier.get("seed") else None
        if seed is None:
            there = await session.get(Battle, earlier["battle"])
            if there is not None and there.status == "finished" and there.seed_hash == earlier["seed_sha256"]:
                seed, where = there.seed, "here"
        sources.append({**earlier, "seed": seed, "revealed": where, "own": False})
    sources.append(
        {
            "battle": battle.id,
            "through_seq": None,
            "seed_sha256": battle.seed_hash,
            "seed": battle.seed,
            "revealed": "here",
            "own": True,
        }
    )
    for source in sources:
        source["seed_matches"] = (
            None
            if not source["seed"]
            else seed_commitment(bytes.fromhex(source["seed"])) == source["seed_sha256"]
        )
    return sources


async def dice_record(session: AsyncSession, battle: Battle) -> dict[str, Any]:
    """Every die with its action's seq, its index and its source, the ones a revealed seed does not
    reproduce, and those that cannot be checked yet (rolled before an import, in a battle whose
    seed is not revealed)."""
    if battle.status != "finished":
        raise Forbidden("the dice record opens when the battle ends (the seed is secret until then)")
    rolls = [
        {"seq": row.seq, "index": i, "sides": d["sides"], "value": d["value"], "purpose": d.get("purpose")}
        for row in await log_rows(session, battle.id)
        for i, d in enumerate(row.dice)
    ]
    seeded = battle.dice_mode == "seeded"
    sources = await dice_sources(session, battle) if seeded else []
    mismatches, unchecked = check_rolls(rolls, sources) if seeded else ([], [])
    return {
        "seed": battle.seed,
        "seed_sha256": battle.seed_hash,
        "dice_mode": battle.dice_mode,
        "sources": sources,
        "rolls": rolls,
        "mismatches": mismatches,
        "unchecked": unchecked,
    }
