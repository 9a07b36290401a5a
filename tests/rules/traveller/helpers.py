"""Building Traveller battles for the tests: ships through ship.add, actions through apply_action."""

from __future__ import annotations

from typing import Any

from app.rules import Action, apply_action, new_battle
from app.rules.core import REFEREE, Actor, Event
from app.rules.dice import ScriptedDice
from app.rules.state import BattleState

KESTREL_ACTOR = Actor("p-kestrel", "player", frozenset({"kestrel"}))
TIGRESS_ACTOR = Actor("p-tigress", "player", frozenset({"tigress"}))


def capital(name: str, **hg: Any) -> dict[str, Any]:
    """A CF (3-section) standard-hull ship with beam lasers and the usual fittings, overridable."""
    part: dict[str, Any] = {
        "hull_code": "CF",
        "configuration": "standard",
        "crew_skill": 2,
        "fire_control": 2,
        "thrust": 4,
        "power": 10,
        "armour": 6,
        "batteries": [
            {"id": "beam", "weapon": "beam_laser", "mounts": 25, "tons": 25, "sections": ["Main", "Forward"]}
        ],
        "components": [
            {"kind": "sensors", "name": "Sensors", "tons": 5, "sections": ["Forward"]},
            {"kind": "computer", "name": "Computer", "tons": 3, "sections": ["Main"]},
            {"kind": "command", "name": "Bridge", "tons": 60, "sections": ["Forward"]},
            {"kind": "fuel", "name": "Fuel", "tons": 1000, "sections": ["Engineering", "Main"]},
        ],
    }
    part.update(hg)
    return {"name": name, "klass": "test", "system": "traveller", "side": "", "parts": {"hg_ship": part}}


def battle(*definitions: dict[str, Any], owners: tuple[str | None, ...] = (), **options: Any) -> BattleState:
    state = new_battle("traveller", options)
    for i, definition in enumerate(definitions):
        owner = owners[i] if i < len(owners) else None
        state = act(state, "ship.add", {"definition": definition, "owner": owner}).state
    return state


def only_d6(source: ScriptedDice) -> None:
    """GEN-05 and every table of tables.md throw six-sided dice (2D, 1d6): a rule asking for any
    other die is wrong, whatever face the script hands it."""
    asked = {(r["sides"], r["purpose"]) for r in source.record if r["sides"] != 6}
    assert not asked, f"dice other than d6 asked for: {sorted(asked)}"


class Done:
    def __init__(self, state: BattleState, events: list[Event]) -> None:
        self.state = state
        self.events = events

    @property
    def texts(self) -> list[str]:
        return [e.text for e in self.events]


def act(
    state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = REFEREE, dice: list[int] = ()
) -> Done:
    source = ScriptedDice(dice)
    outcome = apply_action(state, Action(kind, payload, actor), source)
    assert not source.values, f"unused scripted dice: {source.values}"
    only_d6(source)
    return Done(outcome.state, outcome.events)


def advance_to(state: BattleState, step: str, turn: int | None = None, dice: list[int] = ()) -> Done:
    """Advance the clock to `step` (of round `turn`, default the current one); hooks use the dice."""
    source = ScriptedDice(dice)
    events: list[Event] = []
    want = turn if turn is not None else state.clock.turn
    for _ in range(80):
        if state.clock.step == step and state.clock.turn == want:
            break
        outcome = apply_action(state, Action("clock.advance", {}, REFEREE), source)
        state, events = outcome.state, events + outcome.events
    assert (state.clock.step, state.clock.turn) == (step, want)
    assert not source.values, f"unused scripted dice: {source.values}"
    only_d6(source)
    return Done(state, events)


def hg(state: BattleState, ship: str) -> dict[str, Any]:
    return state.ships[ship].parts["hg_ship"]


def section(state: BattleState, ship: str, name: str) -> dict[str, Any]:
    return next(s for s in hg(state, ship)["sections"] if s["name"] == name)


def beam_shot(**changes: Any) -> dict[str, Any]:
    """The tests' usual barrage: Kestrel's 20 beam lasers at Tigress, medium range, fore section
    adjacent; `changes` override any field."""
    return {
        "ship": "kestrel",
        "battery": "beam",
        "mounts": 20,
        "target": "tigress",
        "range": "medium",
        "adjacent": "fore",
        **changes,
    }
