"""A battle that ends by itself, as the referee chose at its start: when a step ends with ships
fighting on at most one side (GEN-04), or when the turn limit's turn ends (GEN-01); the options
refused when a battle could not play by them."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import new_battle
from app.rules.core import RuleError
from app.rules.generic.ending import side_of, sides_of, winner
from app.rules.state import BattleState, Ship
from tests.rules.generic.support import act, ship

SEED = " The dice seed is revealed."  # the server rolled the dice: its seed is told at the end (GEN-02)
NOT_A_FLAG = ("options.end_when_one_side_left", "options.end_when_one_side_left: true or false")
NOT_A_TURN = (
    "options.turn_limit",
    "options.turn_limit: the last turn, a whole number from 1 to 1000 (or null for none)",
)


def battle(ships: list[tuple[str, str, str | None]], **options: Any) -> BattleState:
    """A B5 Wars battle with the ships given as (name, side, commander)."""
    state = new_battle("b5wars", options)
    for name, side, owner in ships:
        state, _ = act(state, "ship.add", {"definition": ship(name, side), "owner": owner})
    return state


def destroy(state: BattleState, *ship_ids: str) -> BattleState:
    for ship_id in ship_ids:
        state, _ = act(
            state, "override.set", {"path": f"ships.{ship_id}.destroyed", "value": True, "reason": "test"}
        )
    return state


def advance(state: BattleState):
    return act(state, "clock.advance", {})


# --- the options --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        ({"end_when_one_side_left": 1}, NOT_A_FLAG),
        ({"end_when_one_side_left": "yes"}, NOT_A_FLAG),
        ({"turn_limit": 0}, NOT_A_TURN),
        ({"turn_limit": 1001}, NOT_A_TURN),
        ({"turn_limit": True}, NOT_A_TURN),
        ({"turn_limit": 5.0}, NOT_A_TURN),
        ({"turn_limit": "5"}, NOT_A_TURN),
    ],
)
def test_GEN_04_GEN_01_ending_options_a_battle_cannot_play_by_are_refused(
    options: dict[str, Any], refusal: tuple[str, str]
) -> None:
    with pytest.raises(RuleError) as err:
        new_battle("b5wars", options)
    assert (err.value.field, err.value.message) == refusal


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"end_when_one_side_left": True},
        {"end_when_one_side_left": False},
        {"turn_limit": None},
        {"turn_limit": 1},
        {"turn_limit": 1000},
    ],
)
def test_GEN_04_GEN_01_ending_options_a_battle_plays_by(options: dict[str, Any]) -> None:
    assert new_battle("b5wars", options).options == options


# --- sides --------------------------------------------------------------------------------------------


def test_GEN_04_a_ship_fights_for_its_side_else_for_its_commander() -> None:
    def made(**data: Any) -> Ship:
        return Ship.model_validate({"id": "x", "name": "X", "system": "b5wars", **data})

    assert side_of(made(side="Federation", owner="ann")) == "side:Federation"
    assert side_of(made(owner="ann")) == "commander:ann"
    assert side_of(made()) == "commander:"
    state = battle(
        [
            ("Hawk", "Shadows", "ann"),
            ("Crow", "", "bob"),
            ("Kite", "Federation", "cy"),
            ("Wren", "Shadows", "ann"),
        ]
    )
    assert sides_of(state) == ["Shadows", "Federation"]


# --- one side left (GEN-04) ---------------------------------------------------------------------------


def test_GEN_04_the_battle_ends_as_the_step_ends_with_one_side_still_fighting() -> None:
    state = battle(
        [("Hawk", "Federation", "ann"), ("Kite", "Federation", "ann"), ("Crow", "Shadows", "bob")],
        end_when_one_side_left=True,
    )
    state = destroy(state, "crow")
    assert not state.finished  # checked as the step ends, not at the hit
    state, events = advance(state)
    assert [(e.kind, e.text) for e in events] == [
        ("clock", "Turn 1 · Ship Power ends."),
        (
            "battle_end",
            "The battle ends: only the Federation side still fights (Crow out of the battle)." + SEED,
        ),
    ]
    assert events[1].data == {"reason": "one_side_left", "fighting": ["hawk", "kite"], "out": ["crow"]}
    assert (state.finished, state.clock.step) == (True, "ship_power")


def test_GEN_04_ships_without_a_side_fight_for_their_commander_and_are_named() -> None:
    state = battle(
        [
            ("Hawk", "", "ann"),
            ("Crow", "", "bob"),
            ("Kite", "", "ann"),
            ("Owl", "", "bob"),
            ("Wren", "", "ann"),
        ],
        end_when_one_side_left=True,
    )
    state, events = advance(destroy(state, "crow", "owl"))
    assert events[-1].text == (
        "The battle ends: only Hawk, Kite and Wren still fights (Crow and Owl out of the battle)." + SEED
    )
    assert events[-1].data["fighting"] == ["hawk", "kite", "wren"]


def test_GEN_04_one_ship_left_is_named_alone() -> None:
    state = battle([("Hawk", "", "ann"), ("Crow", "", "bob")], end_when_one_side_left=True)
    state, events = advance(destroy(state, "crow"))
    assert events[-1].text == "The battle ends: only Hawk still fights (Crow out of the battle)." + SEED


def test_GEN_04_both_sides_down_together_is_a_draw() -> None:
    state = battle([("Hawk", "Federation", "ann"), ("Crow", "Shadows", "bob")], end_when_one_side_left=True)
    state, events = advance(destroy(state, "hawk", "crow"))
    assert (events[-1].kind, events[-1].text) == (
        "battle_end",
        "The battle ends: no ship is left fighting: a draw." + SEED,
    )
    assert events[-1].data == {"reason": "one_side_left", "fighting": [], "out": ["hawk", "crow"]}


def test_GEN_04_two_sides_still_fighting_play_on() -> None:
    state = battle(
        [("Hawk", "Federation", "ann"), ("Crow", "Shadows", "bob"), ("Kite", "Federation", "ann")],
        end_when_one_side_left=True,
    )
    state, events = advance(destroy(state, "hawk"))
    assert [e.kind for e in events] == ["clock"]
    assert (state.finished, state.clock.step) == (False, "movement")


def test_GEN_04_a_battle_that_never_had_two_sides_does_not_end_this_way() -> None:
    state = battle(
        [("Hawk", "Federation", "ann"), ("Kite", "Federation", "bob")], end_when_one_side_left=True
    )
    state, events = advance(destroy(state, "kite"))
    assert (state.finished, [e.kind for e in events]) == (False, ["clock"])


def test_GEN_04_without_the_option_the_battle_plays_on() -> None:
    for options in ({}, {"end_when_one_side_left": False}):
        state = battle([("Hawk", "Federation", "ann"), ("Crow", "Shadows", "bob")], **options)
        state, events = advance(destroy(state, "crow"))
        assert (state.finished, state.clock.step) == (False, "movement")


# --- the turn limit (GEN-01) --------------------------------------------------------------------------


def test_GEN_01_the_battle_ends_as_the_last_turn_ends() -> None:
    """B5 Wars turn 1: Ship Power, Movement, Combat, Adjust Ship Systems; with a limit of 1 the
    battle ends as Adjust Ship Systems ends, and turn 2 never begins."""
    state = battle([("Hawk", "Federation", "ann")], turn_limit=1)
    for step in ("movement", "combat", "adjust_systems"):
        state, events = advance(state)
        assert (state.clock.step, state.finished) == (step, False)
    state, events = advance(state)
    assert [(e.kind, e.text) for e in events] == [
        ("clock", "Turn 1 · Adjust Ship Systems ends."),
        ("battle_end", "The battle ends: turn 1 was the last (the turn limit)." + SEED),
    ]
    assert events[1].data == {"reason": "turn_limit", "turn": 1}
    assert (state.finished, state.clock.turn) == (True, 1)


def test_GEN_01_a_later_turn_limit_lets_the_turn_end_into_the_next() -> None:
    state = battle([("Hawk", "Federation", "ann")], turn_limit=2)
    for _ in range(4):
        state, events = advance(state)
    assert (state.clock.turn, state.clock.step, state.finished) == (2, "ship_power", False)


def test_GEN_04_a_winner_recorded_as_anything_but_words_is_not_said() -> None:
    ships = {"hawk": {"side": "Federation"}}
    assert winner({"data": {"winner": 1}}, ships) is None
    assert winner({"data": {"winner": ["Federation"]}}, ships) is None
    assert winner({"data": {"winner": "Federation"}}, ships) == "Federation"


def test_GEN_04_the_last_ship_of_a_side_ends_the_battle_for_its_side() -> None:
    state = battle([("Hawk", "Federation", "ann"), ("Crow", "Shadows", "bob")], end_when_one_side_left=True)
    state, events = advance(destroy(state, "crow"))
    assert (
        events[-1].text
        == "The battle ends: only the Federation side still fights (Crow out of the battle)." + SEED
    )
