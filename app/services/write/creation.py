"""A new battle with its seats and its fleet in one transaction (the wizard's): the battle, the
referee's seat, every other seat, and each ship added by the rules as the referee's `ship.add`
(logged as actions 1, 2, … like any other, so undo, replay and the battle file treat them alike).
If any step is refused — a name too long, one seat past the limit, a ship definition the rules
refuse — nothing is written: there is no half-made battle to clean up."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import existing
from app.models import ActionLog, Battle, Checkpoint, Snapshot
from app.rules import Action, BattleState
from app.rules.views import viewer_for
from app.services.errors import Invalid, ServiceError
from app.services.platform import Platform
from app.services.store.battles import Seat, add_participant, create_battle
from app.services.write.actions import _dice_for, _resolve

SHIP_ADD = "ship.add"


@dataclass(frozen=True)
class SeatWanted:
    """A seat to make: its name, its role, and the form field it was typed in (for refusals)."""

    name: str
    role: str
    field: str


@dataclass(frozen=True)
class ShipWanted:
    """A ship to add: its definition, the index in the seats list of its commander (None: left
    unassigned), the form field it came from and its name there (a refusal names both)."""

    definition: dict[str, Any]
    commander: int | None
    field: str
    label: str


def seat_limit_refusal(wanted: int, limit: int, field: str) -> Invalid | None:
    """Past the platform's seat limit (the referee's seat counts): a refusal that says so in
    numbers, never a silent cut."""
    if wanted + 1 <= limit:
        return None
    return Invalid(
        f"{field}: {wanted} seats asked for, but a battle holds at most {limit} with the referee's — "
        f"remove {wanted + 1 - limit}; nothing was created",
        field,
    )


async def create_prepared(
    platform: Platform,
    *,
    name: str,
    system: str,
    dice_mode: str,
    seats: list[SeatWanted],
    ships: list[ShipWanted],
    options: dict[str, Any] | None = None,
    then: Callable[[AsyncSession, Battle, BattleState], Awaitable[None]] | None = None,
) -> tuple[Battle, Seat, list[Seat]]:
    """The battle, the referee's seat and the others' (each with its token, shown once), all
    committed together or not at all; `then` writes what belongs with it in the same transaction
    (a campaign's record of the battle it started), given the battle and its state as made."""
    limit = platform.settings.max_seats_per_battle
    refused = seat_limit_refusal(len(seats), limit, seats[-1].field if seats else "seats")
    if refused is not None:
        raise refused
    rules = platform.rules
    async with platform.db.transaction() as session:
        battle, referee = await create_battle(
            session, name, system, dice_mode=dice_mode, options=options, rules=rules
        )
        made: list[Seat] = []
        for wanted in seats:
            try:
                made.append(await add_participant(session, battle, wanted.name, wanted.role, max_seats=limit))
            except Invalid as exc:
                raise Invalid(f"{wanted.field}: {wanted.name!r} — {exc.message}", wanted.field) from None
        snap = await existing(session, Snapshot, battle.id)
        state = rules.load(snap.state)
        actor = viewer_for(referee.participant.id, "referee", state)
        every = platform.settings.checkpoint_every
        for seq, ship in enumerate(ships, start=1):
            owner = made[ship.commander].participant.id if ship.commander is not None else None
            payload = {"definition": ship.definition, "owner": owner}
            source = _dice_for(battle, seq, None)
            try:
                outcome = _resolve(state, Action(SHIP_ADD, payload, actor), source, None)
            except ServiceError as exc:
                raise Invalid(f"{ship.field}: {ship.label} — {exc.message}", ship.field) from None
            session.add(
                ActionLog(
                    battle_id=battle.id,
                    seq=seq,
                    action_id=uuid.uuid4().hex,
                    actor_id=referee.participant.id,
                    actor_role="referee",
                    action_type=SHIP_ADD,
                    clock=state.game.system.short(state.clock),
                    payload=payload,
                    dice=source.record,
                    events=[e.model_dump(mode="json") for e in outcome.events],
                )
            )
            state = outcome.state
            if every and seq % every == 0:
                session.add(Checkpoint(battle_id=battle.id, seq=seq, state=state.model_dump(mode="json")))
        snap.seq = len(ships)
        snap.state = state.model_dump(mode="json")
        battle.seq = len(ships)
        await session.flush()
        if then is not None:
            await then(session, battle, state)
    return battle, referee, made
