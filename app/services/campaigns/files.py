"""A campaign as one JSON file (`starboard.campaign/1`): its set-up, its seats without tokens, its
whole log, and each battle started from it as a battle file (`starboard.battle/1`) inside. Import
makes a new campaign: new seats (tokens shown once), each battle imported and checked as a battle
file is (history/battlefile.py), and the log appended as it was, with the battle and seat ids it
names moved to the new ones; the fleets are folded from it again, so a file whose log does not
fold is refused naming the entry. Referee only: the file holds every side's roster."""

from __future__ import annotations

import copy
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, CampaignEvent, CampaignSeat
from app.services.campaigns import log
from app.services.campaigns.fleets import check_options
from app.services.campaigns.fold import fold
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.history.battlefile import export_battle, import_battle
from app.services.platform import Platform

FORMAT = "starboard.campaign/1"
MAX_EVENTS = 5000


async def export_campaign(session: AsyncSession, campaign_id: str) -> dict[str, Any]:
    campaign = await log.get_campaign(session, campaign_id)
    rows = await log.events(session, campaign_id)
    battles: dict[str, Any] = {}
    for row in rows:
        if row.kind == "battle_started" and row.battle_id:
            battle = await session.get(Battle, row.battle_id)
            if battle is not None:
                battles[row.battle_id] = await export_battle(session, battle)
    return {
        "format": FORMAT,
        "campaign": {"name": campaign.name, "system": campaign.system, "options": campaign.options},
        "seats": [
            {"id": s.id, "name": s.name, "role": s.role, "side": s.side}
            for s in await log.seats(session, campaign_id)
        ],
        "log": [
            {"seq": r.seq, "kind": r.kind, "actor": r.actor, "battle": r.battle_id, "data": r.data}
            for r in rows
        ],
        "battles": battles,
    }


async def export_for(platform: Platform, campaign_id: str, seat: CampaignSeat) -> dict[str, Any]:
    """The campaign file, for its referee only: it holds every side's roster, secret or not."""
    if seat.role != "referee":
        raise Forbidden("only the campaign's referee may export it")
    async with platform.db.reader() as session:
        return await export_campaign(session, campaign_id)


def _remap(data: Any, ids: dict[str, str]) -> Any:
    """Every string value that is an old battle or seat id, as its new id (keys too: a battle's
    ship map is keyed by fleet ship ids, which stay)."""
    if isinstance(data, dict):
        return {ids.get(k, k) if k in ids else k: _remap(v, ids) for k, v in data.items()}
    if isinstance(data, list):
        return [_remap(v, ids) for v in data]
    if isinstance(data, str):
        return ids.get(data, data)
    return data


def _checked(file: Any) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    if not isinstance(file, dict) or file.get("format") != FORMAT:
        raise Invalid(f"format: a campaign file says format {FORMAT!r}", "format")
    head, seats, rows, battles = (
        file.get("campaign"),
        file.get("seats"),
        file.get("log"),
        file.get("battles", {}),
    )
    if (
        not isinstance(head, dict)
        or not isinstance(head.get("name"), str)
        or not isinstance(head.get("system"), str)
    ):
        raise Invalid("campaign: the campaign's name and system", "campaign")
    if not isinstance(seats, list) or not all(
        isinstance(s, dict) and isinstance(s.get("id"), str) for s in seats
    ):
        raise Invalid("seats: a list of seats, each with its id", "seats")
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_EVENTS:
        raise Invalid(f"log: a list of 1 to {MAX_EVENTS} entries", "log")
    if not isinstance(battles, dict):
        raise Invalid("battles: battle files by their battle id", "battles")
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("seq") != i + 1 or not isinstance(row.get("data"), dict):
            raise Invalid(f"log.{i}: entry {i + 1} with its seq, kind and data", f"log.{i}")
    try:
        fold((r["seq"], r["kind"], r["data"]) for r in rows)
    except (KeyError, ValueError, TypeError, AttributeError, IndexError) as exc:
        raise Invalid(f"log: the log does not fold into a campaign ({exc})", "log") from None
    return head, seats, rows, battles


async def import_campaign(platform: Platform, file: Any) -> dict[str, Any]:
    """A new campaign from a campaign file, in one transaction: nothing is made if any part is refused."""
    head, seats, rows, battles = _checked(file)
    if head["system"] not in platform.rules.systems:
        raise Invalid(f"campaign.system: one of {', '.join(platform.rules.systems)}", "campaign.system")
    options = check_options(head.get("options") or {})
    async with platform.db.transaction() as session:
        campaign = log.new_campaign(str(head["name"])[:120], head["system"], options)
        session.add(campaign)
        await session.flush()
        ids: dict[str, str] = {}
        tokens = []
        for i, seat in enumerate(seats):
            role = seat.get("role") if seat.get("role") in ("referee", "player") else None
            if role is None or not isinstance(seat.get("name"), str):
                raise Invalid(f"seats.{i}: a seat's name and role (referee or player)", f"seats.{i}")
            made = await log.add_seat(
                session, campaign.id, seat["name"][:80], role, str(seat.get("side") or "")[:40]
            )
            ids[seat["id"]] = made.seat.id
            tokens.append(
                {
                    "file_id": seat["id"],
                    "seat": made.seat.id,
                    "name": made.seat.name,
                    "role": role,
                    "token": made.token,
                }
            )
        battle_seats: dict[str, list[dict[str, Any]]] = {}
        for old_id, data in battles.items():
            try:
                battle, made_seats = await import_battle(platform, session, copy.deepcopy(data))
            except ServiceError as exc:
                raise Invalid(f"battles.{old_id}: {exc.message}", f"battles.{old_id}") from None
            ids[old_id] = battle.id
            battle_seats[battle.id] = made_seats
        for row in rows:
            battle = row.get("battle")
            linked = ids.get(battle) if isinstance(battle, str) else None  # only a battle that came with it
            await _append_as_was(session, campaign, row, _remap(row["data"], ids), linked)
    return {"campaign": campaign, "seats": tokens, "battles": battle_seats}


async def _append_as_was(
    session: AsyncSession, campaign: Any, row: dict[str, Any], data: dict[str, Any], battle_id: str | None
) -> CampaignEvent:
    return await log.append(
        session, campaign, str(row["kind"])[:40], data, str(row.get("actor") or "")[:80], battle_id
    )
