"""Builders for Shadow rule tests: a battle with a living ship and two Federation ships, driven only
through `apply_action`, so every test exercises the same path the service uses."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.rules import Action, apply_action, new_battle
from app.rules.core import REFEREE, Actor, Event
from app.rules.dice import DiceSource, ScriptedDice
from app.rules.shadow.track import PainTrack, load
from app.rules.state import BattleState

KER = "ker"
EXCALIBUR = "excalibur"
YORKTOWN = "yorktown"
PLAYER = Actor("p-shadow", "player", frozenset({KER}))
FED_PLAYER = Actor("p-fed", "player", frozenset({EXCALIBUR, YORKTOWN}))


def tough_shadow(level: int = 0, **pain: Any) -> dict[str, Any]:
    """A Shadow whose sheet soaks any test damage, so only the pain track can kill it."""
    return {
        "name": "Ker",
        "klass": "Shadow Cruiser (test)",
        "system": "sfb",
        "side": "Shadows",
        "parts": {
            "sheet": {"sections": [{"name": "Hull", "armour_max": 1000, "structure_max": 5000}]},
            "pain": {"level": level, **pain},
        },
    }


def federation(name: str, structure: int = 5000) -> dict[str, Any]:
    return {
        "name": name,
        "klass": "Federation (test)",
        "system": "sfb",
        "side": "Federation",
        "parts": {"sheet": {"sections": [{"name": "Hull", "structure_max": structure}]}},
    }


def act(
    state: BattleState,
    kind: str,
    payload: dict[str, Any],
    dice: Iterable[int] | DiceSource = (),
    actor: Actor = REFEREE,
) -> tuple[BattleState, list[Event]]:
    source = dice if isinstance(dice, DiceSource) else ScriptedDice(dice)
    outcome = apply_action(state, Action(kind, payload, actor), source)
    if isinstance(source, ScriptedDice):
        assert source.values == [], f"unused dice {source.values}"
    return outcome.state, outcome.events


def battle(
    system: str = "sfb", level: int = 0, shadow: dict[str, Any] | None = None, **pain: Any
) -> BattleState:
    """Ker (owned by PLAYER), Excalibur and Yorktown, with the clock still at the first step."""
    state = new_battle(system)
    definitions = [shadow or tough_shadow(level, **pain), federation("Excalibur"), federation("Yorktown", 10)]
    owners = ["p-shadow", "p-fed", "p-fed"]
    fleets = state.game.system.fleets
    for definition, owner in zip(definitions, owners, strict=True):
        if definition["system"] not in fleets:  # a Traveller battle takes Traveller-family ships only
            definition = {**definition, "system": min(fleets)}
        state, _ = act(state, "ship.add", {"definition": definition, "owner": owner})
    return state


def advance(state: BattleState, times: int = 1, dice: Iterable[int] = ()) -> tuple[BattleState, list[Event]]:
    events: list[Event] = []
    for _ in range(times):
        state, new = act(state, "clock.advance", {}, dice if times == 1 else ())
        events.extend(new)
    return state, events


def at_impulse(system: str = "sfb", level: int = 0, **pain: Any) -> BattleState:
    """The battle at impulse 1 of turn 1 (B5 Wars: the combat step)."""
    state = battle(system, level, **pain)
    state, _ = advance(state, 1 if system == "sfb" else 2)
    return state


def hit(
    state: BattleState,
    amount: int,
    source: str | None = EXCALIBUR,
    direction: str | None = "fore",
    target: str = KER,
) -> tuple[BattleState, list[Event]]:
    payload: dict[str, Any] = {"target": target, "amount": amount}
    if source:
        payload["source"] = source
    if direction:
        payload["direction"] = direction
    return act(state, "damage.apply", payload)


def end_impulse(state: BattleState, dice: Iterable[int]) -> tuple[BattleState, list[Event]]:
    return act(state, "clock.advance", {}, dice)


def until_step(state: BattleState, step: str, impulse: int | None = None) -> BattleState:
    """Advance (no damage pending, so no dice) until the clock reaches `step` (and `impulse`)."""
    for _ in range(200):
        if state.clock.step == step and (impulse is None or state.clock.impulse == impulse):
            return state
        state, _ = act(state, "clock.advance", {})
    raise AssertionError(f"never reached {step}")


def pain(state: BattleState, ship: str = KER) -> PainTrack:
    track = load(state.ships[ship])
    assert track is not None
    return track


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def sentences(events: list[Event]) -> list[str]:
    return [roll.sentence() for e in events for roll in e.rolls]


def of_kind(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def active(state: BattleState, ship: str = KER) -> list[tuple[str, str]]:
    return [(o.kind, o.level) for o in pain(state, ship).active()]
