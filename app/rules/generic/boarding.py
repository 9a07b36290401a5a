"""Boarding actions and hit-and-run raids, in any game system (GEN-03): the seeds do not say how they
resolve, so the players enter the outcome and the tracker records it. Rulesets can forbid a target:
each function in a ruleset's `boarding_refusals` returns the reason a ship may not be boarded, or
None (the Shadow living ship has one, SH-17)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark
from app.rules.state import BattleState

BoardingKind = Literal["boarding", "hit_and_run"]

KIND_WORDS: dict[str, str] = {"boarding": "a boarding action", "hit_and_run": "a hit-and-run raid"}


class DeclareBoarding(BaseModel):
    """A boarding action or hit-and-run raid declared by `attacker` against `target`."""

    kind: BoardingKind
    attacker: str = Field(description="id of the ship sending the boarding parties")
    target: str = Field(description="id of the ship boarded or raided")
    outcome: str = Field(min_length=1, max_length=300, description="the result from the table (GEN-03)")


def declare_boarding(
    state: BattleState, payload: DeclareBoarding, actor: Actor, dice: DiceSource
) -> list[Event]:
    """GEN-03: the outcome of a boarding action or hit-and-run raid is entered, not rolled; a ruleset
    may refuse the target (a Shadow ship, SH-17)."""
    attacker = state.ship(payload.attacker, "attacker")
    target = state.ship(payload.target, "target")
    if attacker.id == target.id:
        raise RuleError("a ship cannot board itself", "target")
    reason = state.game.boarding_refusal(target, payload.kind)
    if reason:
        raise RuleError(reason, "target")
    words = KIND_WORDS[payload.kind]
    return [
        Event.about(
            target,
            "boarding",
            f"{attacker.name} makes {words} against {target.name}: {payload.outcome}",
            data={
                "kind": payload.kind,
                "attacker": attacker.id,
                "target": target.id,
                "outcome": payload.outcome,
            },
        )
    ]


mark(
    declare_boarding,
    action("boarding.declare", DeclareBoarding, "Declare boarding or a hit-and-run raid", ship="attacker"),
)
