"""The campaign's audit: every battle result the campaign recorded is made again from the battle's
own log — walked from its start, the ships carried as their parts declare, against the campaign as
it stood just before the result was written — and compared with what the log holds. A result
edited in the database, or written by code that has since changed, shows as a difference; the
fleets themselves are always the log folded, so nothing else can drift."""

from __future__ import annotations

from typing import Any

from app.models import Battle
from app.services.campaigns import log
from app.services.campaigns.fleets import recorded_result, walked_battle
from app.services.campaigns.fold import fold
from app.services.platform import Platform


def _differences(recorded: Any, again: Any, where: str = "") -> list[str]:
    """The paths at which two JSON values differ (at most a handful are worth reading)."""
    if isinstance(recorded, dict) and isinstance(again, dict):
        out: list[str] = []
        for key in sorted(set(recorded) | set(again), key=str):
            out += _differences(recorded.get(key), again.get(key), f"{where}.{key}" if where else str(key))
        return out
    return [] if recorded == again else [where or "(the whole result)"]


async def audit_campaign(platform: Platform, campaign_id: str) -> dict[str, Any]:
    """Each recorded battle: whether its result is the one its battle's log gives (`matches`), and
    where it differs. `ok` when every one matches."""
    async with platform.db.reader() as session:
        rows = await log.events(session, campaign_id)
        checked = []
        for row in rows:
            if row.kind != "battle_recorded" or not row.battle_id:
                continue
            battle = await session.get(Battle, row.battle_id)
            before = fold(((r.seq, r.kind, r.data) for r in rows), upto=row.seq - 1)
            entry = before["battles"].get(row.battle_id)
            if battle is None or entry is None:
                checked.append(
                    {
                        "seq": row.seq,
                        "battle": row.battle_id,
                        "matches": False,
                        "differences": ["the battle is no longer here"],
                    }
                )
                continue
            walked, events = await walked_battle(session, platform.rules, battle)
            again = recorded_result(before, battle, entry["ships"], walked, events)
            differences = _differences(row.data, again)
            checked.append(
                {
                    "seq": row.seq,
                    "battle": row.battle_id,
                    "matches": not differences,
                    "differences": differences[:20],
                }
            )
    return {"campaign": campaign_id, "ok": all(c["matches"] for c in checked), "battles": checked}
