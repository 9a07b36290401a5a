"""Damage that waits for the referee. Where the table asks for it (`damage_needs_approval`), a
player's or bot's damage on a ship they do not command is not applied: it becomes a request on the
table, which the referee approves (it is then submitted as entered, `approved`) or refuses. The
write path decides this once, inside the action's own unit of work, for every door alike."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import TableRequest
from app.rules.state import BattleState
from app.services.errors import Invalid
from app.services.store.seats import ASKERS, DAMAGE

if TYPE_CHECKING:
    from app.models import Participant


class Command(Protocol):
    """What of an action's command the question reads (the write path's `Command` has it)."""

    battle_id: str
    action_type: str
    payload: dict[str, Any]
    action_id: str
    dice: list[int] | None
    approved: bool


MAX_PENDING = 10  # damage entries one player may have waiting for the referee


def may_wait(cmd: Command, participant: Participant) -> bool:
    """Whether the entry could wait at all (before the table's options are read): an asker's
    damage the referee has not already approved."""
    return cmd.action_type == DAMAGE and not cmd.approved and participant.role in ASKERS


def waits(cmd: Command, participant: Participant, options: dict[str, Any], state: BattleState) -> bool:
    """Whether this entry waits, under the table's `options` and the battle as it stands: an
    unknown target is refused by the rules as usual, and damage to one's own ship applies at once."""
    if not may_wait(cmd, participant) or state.finished or not options["damage_needs_approval"]:
        return False
    target = state.ships.get(str(cmd.payload.get("target", "")))
    return target is not None and target.owner != participant.id


async def queue(session: AsyncSession, cmd: Command, participant_id: str, seq: int) -> TableRequest:
    """The entry as a pending request, in the caller's unit of work; a repeated action id answers
    the request it made the first time and queues nothing more."""
    waiting = 0
    for earlier in await session.scalars(
        select(TableRequest).where(
            TableRequest.battle_id == cmd.battle_id,
            TableRequest.participant_id == participant_id,
            TableRequest.kind == "damage",
        )
    ):
        if (earlier.payload or {}).get("action_id") == cmd.action_id:
            return earlier
        waiting += earlier.status == "pending"
    if waiting >= MAX_PENDING:
        raise Invalid(f"{MAX_PENDING} of your damage entries already wait for the referee", "target")
    request = TableRequest(
        battle_id=cmd.battle_id,
        participant_id=participant_id,
        kind="damage",
        target_seq=seq,
        payload={"payload": cmd.payload, "dice": cmd.dice, "action_id": cmd.action_id},
        reason="",
        status="pending",
    )
    session.add(request)
    await session.flush()
    return request
