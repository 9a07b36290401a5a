"""apply_action (app/rules/engine.py) on the toy system of `test_game_record.py`: the handler works
on a copy unless the state is handed over, an ordered step (TR-04's loop) ends by itself when the
action done by its last awaited ship leaves nobody to wait on, and an owner-only event records who
commanded its ship then."""

from __future__ import annotations

from typing import Any

from app.rules.core import Action, Event
from app.rules.dice import ScriptedDice
from app.rules.engine import apply_action
from app.rules.game import Game
from app.rules.ruleset import ActionSpec, Hook, Ruleset
from app.rules.state import BattleState, Clock
from app.rules.system import Step
from tests.rules.test_game_record import P_A, P_B, TOY, Shot, at_impulse, battle, texts


def passes(state: BattleState) -> list[str]:
    return list(state.options.get("passed", []))


def pass_ship(state: BattleState, payload: Shot, actor: Any, dice: Any) -> list[Event]:
    """The acting ship passes its turn (a new options dict: nothing is changed in place)."""
    state.options = {**state.options, "passed": [*passes(state), payload.ship]}
    return [
        Event(kind="passed", ship=payload.ship, text=f"{payload.ship} passes.", visibility="owner"),
        Event(kind="note", ship=payload.ship, text="A public line."),
        Event(kind="note", ship="ghost", text="A ship gone.", visibility="owner"),
    ]


def jump(state: BattleState, payload: Shot, actor: Any, dice: Any) -> list[Event]:
    """Every ship passes and the clock moves on to the next impulse, changed in place."""
    state.options = {**state.options, "passed": list(state.ships)}
    state.clock.impulse = (state.clock.impulse or 0) + 1
    return [Event(kind="jump", text="All jump ahead.")]


def stand_by(state: BattleState, payload: Shot, actor: Any, dice: Any) -> list[Event]:
    """The actor is marked done by the action's own rule, outside any order."""
    state.ready = [*state.ready, actor.participant_id]
    return [Event(kind="ready", text="Standing by.")]


def acting(state: BattleState, step: Step) -> frozenset[str] | None:
    """TR-04: in an impulse, every ship that has not passed acts; elsewhere no order."""
    if step.key != "impulse":
        return None
    return frozenset(sid for sid in state.ships if sid not in passes(state))


def new_impulse(state: BattleState, dice: Any) -> list[Event]:
    state.options = {**state.options, "passed": []}
    return []


LOOP = Game(
    TOY,
    [
        Ruleset(
            "toy",
            "Toy",
            actions=(
                ActionSpec("pass", Shot, pass_ship, "Pass", ship="ship"),
                ActionSpec("jump", Shot, jump, "Jump ahead", ship="ship"),
                ActionSpec("stand_by", Shot, stand_by, "Stand by", ship="ship"),
            ),
            acting=acting,
            hooks=(Hook("enter", "fire", new_impulse),),
        )
    ],
)


def test_TR_04_the_last_ship_passing_ends_the_ordered_step_by_itself():
    state = battle(LOOP, "p-a", "p-b", at=at_impulse(1))
    first = apply_action(state, Action("pass", {"ship": "alpha"}, P_A), ScriptedDice([]))
    assert texts(first.events) == ["alpha passes.", "A public line.", "A ship gone."]
    assert [e.data for e in first.events] == [{"commander": "p-a"}, {}, {}]
    assert (first.state.clock, passes(first.state), passes(state)) == (at_impulse(1), ["alpha"], [])
    second = apply_action(first.state, Action("pass", {"ship": "bravo"}, P_B), ScriptedDice([]))
    assert texts(second.events)[3:] == [
        "Everyone is done with Impulse 1/3.",
        "Turn 1 · Impulse 1/3 ends; Turn 1 · Impulse 2/3 begins.",
    ]
    assert (second.state.clock, passes(second.state)) == (at_impulse(2), [])


def test_TR_04_a_state_handed_over_is_changed_in_place_and_its_step_ends_the_same():
    state = battle(LOOP, "p-a", "p-b", at=at_impulse(1))
    state.options = {"passed": ["alpha"]}
    out = apply_action(state, Action("pass", {"ship": "bravo"}, P_B), ScriptedDice([]), owned=True)
    assert out.state is state
    assert texts(out.events)[-1] == "Turn 1 · Impulse 1/3 ends; Turn 1 · Impulse 2/3 begins."
    assert state.clock == at_impulse(2)


def test_GEN_01_outside_an_ordered_step_an_action_ends_nothing():
    """Power has no order: the step waits for every commander's "Done", not for their actions."""
    state = battle(LOOP, "p-a", at=Clock(turn=1, step="power"))
    out = apply_action(state, Action("pass", {"ship": "alpha"}, P_A), ScriptedDice([]))
    assert (texts(out.events), out.state.clock) == (
        ["alpha passes.", "A public line.", "A ship gone."],
        Clock(turn=1, step="power"),
    )


def test_TR_04_an_action_that_moves_the_clock_itself_is_not_followed_by_the_steps_end():
    """The step it ended is not the step it was taken in: nothing more ends, handed over or not."""
    for owned in (False, True):
        state = battle(LOOP, "p-a", "p-b", at=at_impulse(1))
        out = apply_action(state, Action("jump", {"ship": "alpha"}, P_A), ScriptedDice([]), owned=owned)
        assert (texts(out.events), out.state.clock) == (["All jump ahead."], at_impulse(2)), owned
        assert LOOP.awaited(out.state) == []


def test_GEN_01_an_action_leaving_nobody_awaited_outside_an_ordered_step_ends_nothing():
    state = battle(LOOP, "p-a", at=Clock(turn=1, step="power"))
    out = apply_action(state, Action("stand_by", {"ship": "alpha"}, P_A), ScriptedDice([]))
    assert (texts(out.events), out.state.clock, out.state.ready) == (
        ["Standing by."],
        Clock(turn=1, step="power"),
        ["p-a"],
    )
