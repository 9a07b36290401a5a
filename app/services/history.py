"""The battle's history: rebuilding a state from the append-only log, the state at any seq, and the
two actions that reach back into the log — rewind and undo — which are logged like any other.

Rebuilding never rolls: every die is read back from the log (ReplayDice)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle
from app.rules import Action, Rules
from app.rules.core import Event, RuleError
from app.rules.dice import ReplayDice
from app.rules.engine import apply_action
from app.rules.ruleset import ActionSpec
from app.rules.state import BattleState
from app.rules.views import viewer_for
from app.services.battles import get_battle
from app.services.errors import Invalid
from app.services.platform import Platform

REWIND = "battle.rewind"
UNDO = "battle.undo"


class RewindPayload(BaseModel):
    to_seq: int = Field(ge=0, le=2**62, description="the action number to return to (0: the start)")
    reason: str = Field(min_length=3, max_length=300)


class UndoPayload(BaseModel):
    reason: str = Field(min_length=3, max_length=300)


def _not_replayed(*_: Any) -> list[Event]:
    raise RuntimeError("history actions are resolved by the service from the log")


# Declared like the rules' actions, so the engine's gate (referee only, not after the end) and the
# catalogue treat them alike; their effect needs the log, so the service resolves them.
HISTORY_ACTIONS: dict[str, ActionSpec] = {
    REWIND: ActionSpec(
        REWIND, RewindPayload, _not_replayed, "Rewind the battle to an earlier action", referee_only=True
    ),
    UNDO: ActionSpec(UNDO, UndoPayload, _not_replayed, "Undo the last action", referee_only=True),
}


def _rewind_target(row: ActionLog) -> int:
    return int(row.payload["to_seq"] if row.action_type == REWIND else row.payload["_to_seq"])


def replay(rules: Rules, battle: Battle, rows: list[ActionLog]) -> BattleState:
    """Rebuild the state from the log alone. Only the states a later rewind or undo returns to are
    kept in memory."""
    needed = {_rewind_target(r) for r in rows if r.action_type in HISTORY_ACTIONS}
    state = rules.new_battle(battle.system, battle.options)
    kept: dict[int, BattleState] = {0: state}
    for row in rows:
        if row.action_type in HISTORY_ACTIONS:
            state = kept[_rewind_target(row)]
        else:
            actor = viewer_for(row.actor_id or "system", row.actor_role, state)
            state = apply_action(
                state, Action(row.action_type, row.payload, actor), ReplayDice(row.dice)
            ).state
        if row.seq in needed:
            kept[row.seq] = state
    return state


async def log_rows(session: AsyncSession, battle_id: str, until: int | None = None) -> list[ActionLog]:
    query = select(ActionLog).where(ActionLog.battle_id == battle_id)
    if until is not None:
        query = query.where(ActionLog.seq <= until)
    return list(await session.scalars(query.order_by(ActionLog.seq)))


async def rebuild(platform: Platform, battle_id: str) -> BattleState:
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        rows = await log_rows(session, battle_id)
    return replay(platform.rules, battle, rows)


async def state_at(session: AsyncSession, battle: Battle, seq: int, rules: Rules) -> BattleState:
    """The state right after action `seq`, rebuilt from the log (replay, undo and rewind use it)."""
    return replay(rules, battle, await log_rows(session, battle.id, seq))


async def resolve(
    session: AsyncSession, rules: Rules, battle: Battle, action_type: str, payload: BaseModel, seq: int
) -> tuple[BattleState, list[Event], dict[str, Any]]:
    """A rewind or undo: the state it returns to, its event, and the payload the log keeps."""
    if isinstance(payload, UndoPayload):
        if seq == 0:
            raise Invalid("there is nothing to undo", "battle")
        last = await session.scalar(
            select(ActionLog).where(ActionLog.battle_id == battle.id, ActionLog.seq == seq)
        )
        target = seq - 1
        text = f"⚠ UNDO (Referee): action {seq} ({last.action_type}) is undone — “{payload.reason}”"  # type: ignore[union-attr]
        stored: dict[str, Any] = {"reason": payload.reason, "_to_seq": target}
    else:
        assert isinstance(payload, RewindPayload)
        if payload.to_seq >= seq:
            raise Invalid(f"rewind to an earlier action than the current {seq}", "to_seq")
        target = payload.to_seq
        text = f"⚠ REWIND (Referee): back to action {target} — “{payload.reason}”"
        stored = {"to_seq": target, "reason": payload.reason}
    try:
        state = await state_at(session, battle, target, rules)
    except RuleError as exc:  # the log no longer replays under these rules
        raise Invalid(f"the log does not replay to action {target}: {exc.message}", "battle") from None
    return state, [Event(kind="rewind", text=text, data={"to_seq": target})], stored
