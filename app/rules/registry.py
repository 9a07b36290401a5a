"""Where rulesets plug in: actions, turn-step hooks, damage filters and listeners, part schemas,
and the public views of parts. Each ruleset package registers itself on import."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.state import BattleState, Ship

Handler = Callable[[BattleState, Any, Actor, DiceSource], list[Event]]
Authoriser = Callable[[BattleState, Any, Actor], None]
StepHook = Callable[[BattleState, DiceSource], list[Event]]


@dataclass(frozen=True)
class ActionSpec:
    name: str
    payload: type[BaseModel]
    handler: Handler
    summary: str
    referee_only: bool = False
    ship_field: str | None = None  # payload field naming a ship the actor must command
    authorise: Authoriser | None = None  # for rules finer than one ship field
    systems: frozenset[str] | None = None  # game systems that allow it (None: all)
    tags: frozenset[str] = field(default_factory=frozenset)


ACTIONS: dict[str, ActionSpec] = {}
STEP_HOOKS: dict[str, list[StepHook]] = {}
PART_SCHEMAS: dict[str, type[BaseModel]] = {}
PART_PUBLIC_VIEWS: dict[str, Callable[[dict[str, Any], Ship], dict[str, Any] | None]] = {}
POSITION_HIDERS: list[Callable[[Ship], bool]] = []


def action(
    name: str,
    payload: type[BaseModel],
    summary: str,
    *,
    referee_only: bool = False,
    ship_field: str | None = None,
    authorise: Authoriser | None = None,
    systems: set[str] | None = None,
) -> Callable[[Handler], Handler]:
    """Register an action handler. The handler receives a private copy of the state to change."""

    def register(handler: Handler) -> Handler:
        if name in ACTIONS:
            raise RuntimeError(f"action {name} registered twice")
        ACTIONS[name] = ActionSpec(
            name=name,
            payload=payload,
            handler=handler,
            summary=summary,
            referee_only=referee_only,
            ship_field=ship_field,
            authorise=authorise,
            systems=frozenset(systems) if systems else None,
        )
        return handler

    return register


def on_step(key: str) -> Callable[[StepHook], StepHook]:
    """Run a hook at a turn step: key is "<system>:enter:<step>" or "<system>:leave:<step>"."""

    def register(hook: StepHook) -> StepHook:
        STEP_HOOKS.setdefault(key, []).append(hook)
        return hook

    return register


def part_schema(
    name: str, public_view: Callable[[dict[str, Any], Ship], dict[str, Any] | None] | None = None
):
    """Register the model that validates a ship part, and optionally what non-commanders see of it."""

    def register(model: type[BaseModel]) -> type[BaseModel]:
        PART_SCHEMAS[name] = model
        if public_view is not None:
            PART_PUBLIC_VIEWS[name] = public_view
        return model

    return register


def validate_parts(parts: dict[str, Any]) -> dict[str, Any]:
    """Check every part of a ship definition against its registered schema; unknown parts are errors."""
    clean: dict[str, Any] = {}
    for name, data in parts.items():
        model = PART_SCHEMAS.get(name)
        if model is None:
            raise RuleError(
                f"unknown ship part {name!r}; known: {', '.join(sorted(PART_SCHEMAS))}", f"parts.{name}"
            )
        clean[name] = model.model_validate(data).model_dump(mode="json")
    return clean
