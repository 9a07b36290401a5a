"""A finished battle's result for its fleets, walked from its log: each ship's damage taken and
dealt and the ships it destroyed, as the referee's battle report counts them (what damage can
still take off a ship is what its parts report as `points`; its fall is damage taken, credited to
the ship the action names as acting). Pure but for the log read by the caller."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from app.models import Battle
from app.rules import Rules
from app.rules.state import BattleState
from app.services.history.replay import LogRow, replay, stacks
from app.services.reading.report import _acting_ship


@dataclass
class Result:
    """What the battle did to and by each of its ships (by battle ship id), and its last state."""

    state: BattleState
    taken: Counter[str] = field(default_factory=Counter)
    dealt: Counter[str] = field(default_factory=Counter)
    kills: dict[str, list[str]] = field(default_factory=dict)  # ship → names of ships it destroyed
    winner: str | None = None


def points(state: BattleState) -> dict[str, int]:
    """What damage can still take off each ship, from its parts' own report declarations."""
    out: dict[str, int] = {}
    for sid, ship in state.ships.items():
        total = 0
        for name, part in ship.parts.items():
            spec = state.game.parts.get(name)
            if spec is not None and spec.report is not None and isinstance(part, dict):
                told = spec.report(part).points
                total += told or 0
        out[sid] = total
    return out


def walk(rules: Rules, battle: Battle, rows: list[LogRow], events: dict[int, list[dict[str, Any]]]) -> Result:
    """Replay the actions in effect one at a time, counting each ship's loss and who caused it."""
    by_seq = {r.seq: r for r in rows}
    state = rules.new_battle(battle.system, dict(battle.options))
    result = Result(state)
    before = points(state)
    prev = 0
    for seq in stacks(rows).in_effect:
        row = by_seq[seq]
        acting = _acting_ship(state, row)  # as the battle report credits damage
        was_destroyed = {sid for sid, s in state.ships.items() if s.destroyed}
        state = replay(rules, battle, [row], start=state, start_seq=prev)
        prev = seq
        after = points(state)
        for sid, now in after.items():
            lost = before.get(sid, now) - now
            if lost > 0:
                result.taken[sid] += lost
                if acting and acting != sid:
                    result.dealt[acting] += lost
        for sid, ship in state.ships.items():
            if ship.destroyed and sid not in was_destroyed and acting and acting != sid:
                result.kills.setdefault(acting, []).append(ship.name)
        for event in events.get(seq, []):
            if event.get("kind") == "battle_end":
                data = event.get("data") or {}
                result.winner = data.get("winner") if isinstance(data.get("winner"), str) else None
        before = after
    result.state = state
    return result
