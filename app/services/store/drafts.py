"""Drafts kept outside the append-only log (TR-26: secret orders saved before the commit).

Saving a draft is checked by the rules like any action, but it writes no log row: no seq, no ETag,
no frame reaches anyone else — only its author and the referee read it (their pages fold it into
the state they are shown). The author's next logged action folds their drafts into the state first
and keeps them in its payload (`_drafts`, which only the referee's log shows), so replaying the log
gives the same state, and the rows are then deleted."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Draft
from app.rules import Action
from app.rules.core import Actor
from app.rules.dice import ReplayDice
from app.rules.engine import apply_action
from app.rules.state import BattleState

FOLDED = "_drafts"


def is_draft(state: BattleState, action_type: str, payload: dict[str, Any]) -> bool:
    spec = state.game.actions.get(action_type)
    if spec is None or spec.draft is None:
        return False
    try:
        return bool(spec.draft(spec.payload.model_validate(payload)))
    except Exception:  # a payload the rules refuse is no draft: the normal path answers it
        return False


def drafts_possible(state: BattleState) -> bool:
    """Whether this battle's game has any action that can be a draft (else no draft row exists)."""
    return any(spec.draft is not None for spec in state.game.actions.values())


def ship_of(state: BattleState, action_type: str, payload: dict[str, Any]) -> str:
    spec = state.game.actions[action_type]
    return str(payload.get(spec.ship or "ship", ""))


async def save(
    session: AsyncSession,
    battle_id: str,
    actor: Actor,
    action_type: str,
    payload: dict[str, Any],
    ship_id: str,
) -> None:
    row = await session.get(Draft, (battle_id, action_type, ship_id))
    if row is None:
        session.add(
            Draft(
                battle_id=battle_id,
                action_type=action_type,
                ship_id=ship_id,
                participant_id=actor.participant_id or "",
                payload=payload,
            )
        )
    else:
        row.payload, row.participant_id = payload, actor.participant_id or ""


async def rows(session: AsyncSession, battle_id: str) -> list[Draft]:
    return list(
        await session.scalars(select(Draft).where(Draft.battle_id == battle_id).order_by(Draft.ship_id))
    )


def fold(state: BattleState, drafts: list[dict[str, Any]], actor: Actor) -> BattleState:
    """The state with these drafts applied (drafts roll no dice); one the rules now refuse — the
    step moved on, the ship was lost — is dropped."""
    for draft in drafts:
        try:
            state = apply_action(state, Action(draft["type"], draft["payload"], actor), ReplayDice([])).state
        except Exception:  # noqa: S112  (a stale draft folds into nothing)
            continue
    return state


def mine(rows_: list[Draft], actor: Actor) -> list[dict[str, Any]]:
    """The drafts this actor may see: their own, or all of them for the referee."""
    return [
        {"type": r.action_type, "payload": r.payload}
        for r in rows_
        if actor.is_referee or r.participant_id == actor.participant_id
    ]


async def clear(session: AsyncSession, battle_id: str, participant_id: str | None) -> None:
    await session.execute(
        delete(Draft).where(Draft.battle_id == battle_id, Draft.participant_id == participant_id)
    )
