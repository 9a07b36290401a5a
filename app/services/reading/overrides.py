"""Overridden values on the pages: the ⚑ marker. A value a referee override set carries
the marker on every page that shows it — player, spectator, referee — until that value changes
again (damage, another override, an undo of the override).

The marks are read from the log, not kept in the state: the overrides still in effect (undo and
rewind honoured, as `history.stacks` walks them), the latest per path, each shown while the value
the viewer sees there is still the one it set. A viewer who may not read the override's event (a
hidden value corrected) gets no mark, so the marker never tells what the log does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog
from app.rules.core import Event
from app.rules.generic.actions import value_at
from app.rules.overrides import choice_at
from app.rules.state import BattleState
from app.rules.views import Viewer, event_for
from app.services.history.replay import HISTORY_ACTIONS, stacks, taken_back

OVERRIDE = "override.set"


@dataclass(frozen=True)
class Mark:
    """An override still in effect: the path it set, to what, from what, why, at which seq."""

    seq: int
    path: str
    value: Any
    old: Any
    reason: str
    event: dict[str, Any]


@dataclass(frozen=True)
class _Row:
    seq: int
    action_type: str
    payload: dict[str, Any]


async def standing(session: AsyncSession, battle_id: str, until: int | None = None) -> list[Mark]:
    """The overrides in effect after `until` (the last seq by default), the latest per path. Reads
    the history and override rows, and the other rows' types only from the first override on (an
    undo or rewind may have taken an override back): a long battle's page does not read its whole
    log for a few markers."""
    special = select(ActionLog.seq, ActionLog.action_type, ActionLog.payload, ActionLog.events).where(
        ActionLog.battle_id == battle_id, ActionLog.action_type.in_([*HISTORY_ACTIONS, OVERRIDE])
    )
    if until is not None:
        special = special.where(ActionLog.seq <= until)
    rows = (await session.execute(special.order_by(ActionLog.seq))).all()
    overrides = [(seq, events) for seq, kind, _, events in rows if kind == OVERRIDE]
    if not overrides:
        return []
    last = until if until is not None else MAX_SEQ
    taken = await taken_back(session, battle_id, last, since=overrides[0][0] - 1)
    latest: dict[str, Mark] = {}
    for seq, events in overrides:
        if seq not in taken and (mark := _mark(seq, events)) is not None:
            latest[mark.path] = mark
    return list(latest.values())


MAX_SEQ = 2**31 - 1  # past any seq (the column is a 32-bit integer)


def _mark(seq: int, events: list[dict[str, Any]]) -> Mark | None:
    event = next((e for e in events if e.get("kind") == "override"), None)
    if event is None or "path" not in event.get("data", {}):
        return None
    data = event["data"]
    return Mark(seq, data["path"], data["new"], data["old"], data["reason"], event)


def is_special(action_type: str) -> bool:
    """The rows whose payload and events `marks_in` reads (history and override rows)."""
    return action_type in HISTORY_ACTIONS or action_type == OVERRIDE


def marks_in(
    kinds: list[tuple[int, str]], details: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]]
) -> list[Mark]:
    """`standing` from what it reads: every row's (seq, type) in order, and the (payload, events) of
    the special rows — so the live path can keep them per battle and read only new rows."""
    rows = [_Row(seq, kind, details.get(seq, ({}, []))[0]) for seq, kind in kinds]
    in_effect = set(stacks(rows).in_effect)
    latest: dict[str, Mark] = {}
    for row in rows:
        if row.action_type != OVERRIDE or row.seq not in in_effect:
            continue
        if (mark := _mark(row.seq, details[row.seq][1])) is not None:
            latest[mark.path] = mark
    return list(latest.values())


def flags(
    marks: list[Mark], state: BattleState, shown: dict[str, Any], viewer: Viewer, finished: bool
) -> dict[str, dict[str, dict[str, Any]]]:
    """ship id → path within the ship ("parts.shields.projections.0.current") → the mark as the
    templates draw it (label, value and old value in words, reason, seq), for this viewer."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for mark in marks:
        keys = mark.path.split(".")
        if len(keys) < 3 or keys[0] != "ships" or keys[1] not in shown.get("ships", {}):
            continue
        readable = event_for(Event.model_validate(mark.event), viewer, finished)
        if readable is None or readable.data.get("path") != mark.path:
            continue  # the viewer may not read this override (a hidden value corrected)
        if value_at(shown["ships"][keys[1]], keys[2:]) != mark.value:
            continue  # the value changed since: the mark is gone
        choice = choice_at(state, mark.path) if keys[1] in state.ships else None
        words = choice.words if choice is not None else str
        out.setdefault(keys[1], {})[".".join(keys[2:])] = {
            "label": choice.label if choice is not None else ".".join(keys[2:]),
            "value": words(mark.value),
            "old": words(mark.old),
            "reason": mark.reason,
            "seq": mark.seq,
        }
    return out
