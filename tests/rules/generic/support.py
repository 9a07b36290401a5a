"""Driving the generic rules through `apply_action`, as the service does: plain ships, an action,
and a refusal's kind, field and words."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import Action, apply_action
from app.rules.core import REFEREE, Actor, Event, RuleError
from app.rules.dice import DiceSource, ScriptedDice
from app.rules.state import BattleState


def ship(name: str, side: str = "", system: str = "b5wars") -> dict[str, Any]:
    """A ship with one 20-box hull section and nothing else."""
    return {
        "name": name,
        "klass": "Frigate",
        "system": system,
        "side": side,
        "parts": {"sheet": {"sections": [{"name": "Hull", "structure_max": 20}]}},
    }


def act(
    state: BattleState,
    kind: str,
    payload: dict[str, Any],
    actor: Actor = REFEREE,
    dice: DiceSource | None = None,
) -> tuple[BattleState, list[Event]]:
    out = apply_action(state, Action(kind, payload, actor), dice or ScriptedDice([]))
    return out.state, out.events


def refused(state: BattleState, kind: str, payload: dict[str, Any], *by: Any) -> tuple[type, str | None, str]:
    """The refusal's class (RuleError, or NotAllowed for who may act), field and sentence; `by`: the
    actor and dice, as `act` takes them."""
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, *by)
    return type(err.value), err.value.field, err.value.message
