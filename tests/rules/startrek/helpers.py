"""Building Star Trek battles from the sample library and driving them through apply_action."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from app.rules import Action, Actor, BattleState, apply_action, new_battle
from app.rules.core import REFEREE, Event, RuleError
from app.rules.dice import ScriptedDice
from app.rules.generic.actions import slug
from app.rules.startrek.shields import Shields

LIBRARY = Path(__file__).resolve().parents[3] / "app" / "shipdata" / "library"
ST_SHIPS = ["excelsior", "galaxy-class", "new-orleans", "romulan-warbird", "klingon-bird-of-prey"]

KER = {
    "name": "Ker",
    "klass": "Shadow test ship",
    "system": "sfb",
    "parts": {"sheet": {"sections": [{"name": "Core", "structure_max": 40}]}, "first_one": {}},
}
RAIDER = {
    "name": "Raider",
    "klass": "Plain B5 test ship",
    "system": "b5wars",
    "parts": {"sheet": {"sections": [{"name": "Hull", "structure_max": 40}]}},
}


def definition(slug: str) -> dict[str, Any]:
    return json.loads((LIBRARY / f"{slug}.json").read_text())


def player(ship_id: str) -> Actor:
    return Actor(f"p-{ship_id}", "player", frozenset({ship_id}))


def act(
    state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = REFEREE, dice: Iterable[int] = ()
) -> tuple[BattleState, list[Event]]:
    source = ScriptedDice(list(dice))
    out = apply_action(state, Action(kind, payload, actor), source)
    assert not source.values, f"unused scripted dice: {source.values}"
    return out.state, out.events


def add(state: BattleState, data: dict[str, Any], position: dict[str, Any] | None = None) -> BattleState:
    # The commander's participant id is the one `player(ship id)` acts as.
    owner = f"p-{slug(data['name'])}"
    state, events = act(state, "ship.add", {"definition": data, "owner": owner, "position": position})
    return state


def battle(*ships: str | dict[str, Any]) -> BattleState:
    """A B5 Wars battle at turn 1, Ship Power, with the given library slugs or definitions."""
    state = new_battle("b5wars")
    for ship in ships:
        data = definition(ship) if isinstance(ship, str) else copy.deepcopy(ship)
        state = add(state, data)
    return state


def advance(state: BattleState, dice: Iterable[int] = ()) -> tuple[BattleState, list[Event]]:
    return act(state, "clock.advance", {}, dice=dice)


def advance_to(state: BattleState, step: str, turn: int | None = None) -> BattleState:
    """Advance until the clock is at `step` (of `turn`, if given)."""
    for _ in range(40):
        if state.clock.step == step and (turn is None or state.clock.turn == turn):
            return state
        state, _ = advance(state)
    raise AssertionError(f"never reached {step} (turn {turn})")


def shields(state: BattleState, ship_id: str) -> Shields:
    return Shields.model_validate(state.ships[ship_id].parts["shields"])


def values(state: BattleState, ship_id: str) -> dict[str, int]:
    return {p.name: p.value for p in shields(state, ship_id).projections}


def set_value(state: BattleState, path: str, value: Any) -> BattleState:
    state, _ = act(state, "override.set", {"path": path, "value": value, "reason": "test set-up"})
    return state


def hit(state: BattleState, target: str, amount: int, **entry: Any) -> tuple[BattleState, list[Event]]:
    return act(state, "damage.apply", {"target": target, "amount": amount, **entry})


def texts(events: list[Event]) -> list[str]:
    return [e.text for e in events]


def of_kind(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def commander_act(ship_id: str) -> Callable[..., tuple[BattleState, list[Event]]]:
    """`do(state, "extend_arc", deflector=…)`: the ship's commander taking a Star Trek action on it."""

    def do(state: BattleState, kind: str, **payload: Any) -> tuple[BattleState, list[Event]]:
        return act(state, f"startrek.{kind}", {"ship": ship_id, **payload}, player(ship_id))

    return do


def refusal_of(call: Callable[[], object]) -> tuple[str | None, str]:
    """The field and the words of the RuleError `call` raises."""
    with pytest.raises(RuleError) as err:
        call()
    return err.value.field, err.value.message
