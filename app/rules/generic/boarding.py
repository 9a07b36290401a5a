"""Boarding actions and hit-and-run raids, in any game system (GEN-03): the seeds do not say how they
resolve, so the players enter the outcome and the tracker records it. Rulesets can forbid a target:
each function in BOARDING_REFUSALS returns the reason a ship may not be boarded, or None (the
Shadow living ship registers one, SH-17)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.registry import action
from app.rules.state import BattleState, Ship

BoardingKind = Literal["boarding", "hit_and_run"]
BOARDING_REFUSALS: list[Callable[[Ship, BoardingKind], str | None]] = []

KIND_WORDS: dict[str, str] = {"boarding": "a boarding action", "hit_and_run": "a hit-and-run raid"}


class DeclareBoarding(BaseModel):
    """A boarding action or hit-and-run raid declared by `attacker` against `target`."""

    kind: BoardingKind
    attacker: str = Field(description="id of the ship sending the boarding parties")
    target: str = Field(description="id of the ship boarded or raided")
    outcome: str = Field(min_length=1, max_length=300, description="the result from the table (GEN-03)")


def refusal(target: Ship, kind: BoardingKind) -> str | None:
    for rule in BOARDING_REFUSALS:
        reason = rule(target, kind)
        if reason:
            return reason
    return None


@action("boarding.declare", DeclareBoarding, "Declare boarding or a hit-and-run raid", ship_field="attacker")
def declare_boarding(
    state: BattleState, payload: DeclareBoarding, actor: Actor, dice: DiceSource
) -> list[Event]:
    attacker = state.ship(payload.attacker, "attacker")
    target = state.ship(payload.target, "target")
    if attacker.id == target.id:
        raise RuleError("a ship cannot board itself", "target")
    if attacker.destroyed:
        raise RuleError(f"{attacker.name} is destroyed and takes no further actions (GEN-04)", "attacker")
    reason = refusal(target, payload.kind)
    if reason:
        raise RuleError(reason, "target")
    words = KIND_WORDS[payload.kind]
    return [
        Event(
            kind="boarding",
            ship=target.id,
            text=f"{attacker.name} makes {words} against {target.name}: {payload.outcome}",
            data={
                "kind": payload.kind,
                "attacker": attacker.id,
                "target": target.id,
                "outcome": payload.outcome,
            },
        )
    ]
