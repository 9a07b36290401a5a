"""A new battle's initial state for a game system."""

from __future__ import annotations

from typing import Any

from app.rules.clock import SEQUENCES, initial_clock
from app.rules.core import RuleError
from app.rules.state import BattleState

SYSTEM_NAMES = {
    "sfb": "Star Fleet Battles (impulses)",
    "b5wars": "Babylon 5 Wars",
    "traveller": "Traveller High Guard",
}


def new_battle(system: str, options: dict[str, Any] | None = None) -> BattleState:
    if system not in SEQUENCES:
        raise RuleError(f"unknown game system {system!r}; choose one of {', '.join(SEQUENCES)}", "system")
    return BattleState(system=system, clock=initial_clock(system), options=dict(options or {}))
