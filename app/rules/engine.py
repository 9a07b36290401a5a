"""apply_action: validate the payload, check the actor may do it, and run the rule on a copy."""

from __future__ import annotations

from pydantic import ValidationError

from app.rules.core import Action, NotAllowed, Outcome, RuleError
from app.rules.dice import DiceSource
from app.rules.registry import ACTIONS, ActionSpec
from app.rules.state import BattleState


def validation_error(exc: ValidationError) -> RuleError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or None
    return RuleError(first["msg"], where)


def parse_payload(spec: ActionSpec, raw: dict) -> object:
    try:
        return spec.payload.model_validate(raw)
    except ValidationError as exc:
        raise validation_error(exc) from None


def authorise(spec: ActionSpec, state: BattleState, payload: object, action: Action) -> None:
    actor = action.actor
    if actor.role == "spectator":
        raise NotAllowed("spectators cannot act")
    if spec.referee_only and not actor.is_referee:
        raise NotAllowed(f"only the referee may {spec.summary.lower()}")
    if spec.systems is not None and state.system not in spec.systems:
        raise RuleError(f"{spec.name} is not part of a {state.system} battle")
    if spec.ship_field:
        ship_id = getattr(payload, spec.ship_field)
        state.ship(ship_id, spec.ship_field)
        if not actor.commands(ship_id):
            raise NotAllowed("you do not command that ship", spec.ship_field)
    if spec.authorise:
        spec.authorise(state, payload, actor)


def apply_action(state: BattleState, action: Action, dice: DiceSource) -> Outcome:
    """The one entry to the rules: returns the new state and events, or raises RuleError/NeedRoll."""
    spec = ACTIONS.get(action.type)
    if spec is None:
        raise RuleError(f"unknown action {action.type!r}", "type")
    if state.finished:
        raise RuleError("the battle has ended")
    payload = parse_payload(spec, action.payload)
    authorise(spec, state, payload, action)
    new_state = state.copy_deep()
    events = spec.handler(new_state, payload, action.actor, dice)
    return Outcome(new_state, events)
