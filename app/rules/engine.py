"""apply_action: the one entry to the rules. The game's gate checks everything that is not the
action's own rule, then the handler runs on a private copy of the state."""

from __future__ import annotations

from app.rules.core import Action, Outcome
from app.rules.dice import DiceSource
from app.rules.parsed import copy_for_handler, parse_once
from app.rules.state import BattleState


def apply_action(state: BattleState, action: Action, dice: DiceSource, *, owned: bool = False) -> Outcome:
    """Returns the new state and events, or raises RuleError/NotAllowed/NeedRoll (nothing changed).

    `owned`: the caller hands `state` over and will not read it again (a replay that keeps no
    earlier state), so the handler changes it in place instead of a copy. A refusal after the
    gate may then leave it half changed, which a replay gives up on anyway."""
    with parse_once():  # each part is parsed once for the whole action (app/rules/parsed.py)
        return _apply(state, action, dice, owned)


def _apply(state: BattleState, action: Action, dice: DiceSource, owned: bool) -> Outcome:
    game = state.game
    spec = game.spec(action.type)
    game.admit(state, spec, action.actor)
    payload = game.parse(spec, action.payload)
    ship_id = getattr(payload, spec.ship) if spec.ship else None
    game.gate(state, spec, action.actor, ship_id, payload)
    if spec.authorise:
        spec.authorise(state, payload, action.actor)
    ordered = game.acting(state) is not None and bool(game.awaited(state))
    clock = state.clock.model_copy() if owned else state.clock
    new_state = state
    if not owned:
        new_state = copy_for_handler(state)  # the parts the gate parsed are shared, with their models
    events = spec.handler(new_state, payload, action.actor, dice)
    if ordered and new_state.clock == clock and not game.awaited(new_state):
        # In a step a ruleset orders (secret orders, TR-04's loop), the last one it waited on is
        # done by this action itself (orders committed, the loop's last ship passed): the step ends
        # by itself, as on "Done".
        events += game.settle(new_state, dice, action.actor)
    for event in events:
        # Who may read a ship's owner-only event is who commanded it when it happened: a later
        # change of command hands nobody the ship's hidden past.
        if event.visibility == "owner" and event.ship in new_state.ships:
            event.data.setdefault("commander", new_state.ships[event.ship].owner)
    return Outcome(new_state, events)
