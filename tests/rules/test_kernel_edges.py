"""Kernel clauses not met elsewhere: the dice sources and the physical-dice plan (GEN-02), the clock
and its steps (GEN-01), the server's catalogue of systems and actions, who a step waits on, and
input errors told in the user's words (the REST door's 422, GEN-03's entered outcomes)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from app.rules import STANDARD, new_battle
from app.rules.core import NeedRoll, RuleError
from app.rules.dice import EnteredDice, ScriptedDice, SeatedDice, SeededDice, dice_plan, verify_rolls
from app.rules.game import REFEREE_SEAT
from app.rules.impulses import movement_chart
from app.rules.messages import explain, field_of, first_error, humane
from app.rules.state import Clock
from tests.rules.traveller.helpers import battle, capital

SEED = b"0123456789abcdef0123456789abcdef"


# --- dice (GEN-02) ------------------------------------------------------------------------------------


def test_GEN_02_a_recorded_roll_the_revealed_seed_does_not_give_is_named():
    honest = SeededDice(SEED, "b-1", 4)
    first, second = honest.die(6, "to hit"), honest.die(20, "damage")
    rolls = [
        {"seq": 4, "index": 0, "sides": 6, "value": first},
        {"seq": 4, "index": 1, "sides": 20, "value": second},
    ]
    assert verify_rolls(SEED, "b-1", rolls) == []
    forged = {"seq": 4, "index": 0, "sides": 6, "value": first % 6 + 1}
    assert verify_rolls(SEED, "b-1", [*rolls, forged]) == [forged]


def test_GEN_02_dice_entered_earlier_for_a_steps_end_come_first():
    seated = SeatedDice(ScriptedDice([6]), may_roll=lambda ship: False, stored=[3])
    assert seated.die(6, "reaction", "ker") == 3  # the stored die, whoever it is for
    assert seated.die(6, "reaction") == 6  # no ship: the source's
    assert seated.drawn == [3, 6]


def d6_then_maybe_another(dice: Any) -> None:
    """A rule that asks one d6, and a second only when the first shows 6; a 1 is refused."""
    first = dice.die(6, "first")
    if first == 1:
        raise RuleError("a 1 is refused", "dice")
    if first == 6:
        dice.die(6, "second")


def test_GEN_02_the_plan_marks_a_die_only_some_faces_call_for():
    plan = dice_plan(d6_then_maybe_another, [])
    assert plan == [
        {"index": 0, "sides": 6, "purpose": "first", "ship": None, "always": True},
        {"index": 1, "sides": 6, "purpose": "second", "ship": None, "always": False},
    ]


def test_GEN_02_the_plan_stops_at_its_budget():
    assert dice_plan(d6_then_maybe_another, [], budget=1) == [
        {"index": 0, "sides": 6, "purpose": "first", "ship": None, "always": True}
    ]


def test_GEN_02_entered_dice_say_which_die_is_missing():
    with pytest.raises(NeedRoll) as need:
        EnteredDice([]).die(6, "damage", "ker")
    assert need.value.as_dict() == {"sides": 6, "purpose": "damage", "ship": "ker", "index": 0}


# --- the clock and the catalogue (GEN-01) -------------------------------------------------------------


def test_GEN_01_a_clock_at_a_step_the_system_lacks_is_named():
    system = STANDARD.game("b5wars").system
    with pytest.raises(RuleError) as err:
        system.step(Clock(turn=1, step="impulse"))
    assert (err.value.field, err.value.message) == ("clock.step", "Babylon 5 Wars has no step 'impulse'")
    assert err.value.as_dict() == {"field": "clock.step", "reason": "Babylon 5 Wars has no step 'impulse'"}


def test_GEN_01_a_turn_has_at_least_one_impulse():
    with pytest.raises(ValueError, match="a turn of 0 impulses"):
        movement_chart(4, 0)
    with pytest.raises(ValueError, match="speed -1 is below 0"):
        movement_chart(-1)


def test_GEN_01_an_unknown_game_system_is_refused_naming_the_known_ones():
    with pytest.raises(RuleError) as err:
        new_battle("chess")
    assert err.value.field == "system"
    assert err.value.message == "unknown game system 'chess'; choose one of sfb, b5wars, traveller"


def test_GEN_01_the_server_names_its_systems_and_loads_a_stored_battle():
    assert STANDARD.names() == {
        "sfb": "Star Fleet Battles (impulses)",
        "b5wars": "Babylon 5 Wars",
        "traveller": "Traveller High Guard",
    }
    stored = new_battle("sfb").model_dump(mode="json")
    assert STANDARD.load(stored).game.system.key == "sfb"


def test_GEN_01_the_catalogue_lists_each_action_with_the_systems_that_play_it():
    catalogue = STANDARD.all_actions()
    assert catalogue["clock.advance"][1] == ["sfb", "b5wars", "traveller"]  # the generic ruleset's
    assert catalogue["startrek.cloak"][1] == ["b5wars"]  # ST-21: Star Trek ships play in B5 Wars


# --- who a step waits on ------------------------------------------------------------------------------


def test_GEN_01_the_referees_seat_is_each_referee_once():
    game = STANDARD.game("b5wars")
    assert game.seats([REFEREE_SEAT, "p-kirk", "r-2", "p-kirk"], ["r-1", "r-2"]) == ["r-1", "r-2", "p-kirk"]


def test_GEN_01_a_change_to_a_ship_not_in_the_battle_does_not_commute():
    game = STANDARD.game("b5wars")
    commuting = [name for name, spec in game.actions.items() if spec.commutes]
    assert commuting, "some action commutes"
    assert game.commute(new_battle("b5wars"), commuting[0], commuting[0], ["nobody"]) is False


# --- input errors in words ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "words"),
    [
        ({"type": "greater_than_equal", "ctx": {"ge": 1}, "input": "0"}, "must be at least 1 (you sent 0)"),
        ({"type": "less_than", "ctx": {"lt": 7}, "input": 7}, "must be less than 7 (you sent 7)"),
        ({"type": "int_parsing", "input": "x" * 45}, "must be a whole number (you sent “" + "x" * 40 + "…”)"),
        (
            {"type": "float_type", "input": [1] * 30},
            "must be a number (you sent [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,…)",
        ),
        ({"type": "string_type", "input": {1, 2}}, "must be text (you sent {1, 2})"),
        ({"type": "string_too_short", "ctx": {"min_length": 1}}, "must not be empty"),
        (
            {"type": "string_too_short", "ctx": {"min_length": 3}, "input": "ab"},
            "needs at least 3 characters (you sent “ab”)",
        ),
        ({"type": "string_too_long", "ctx": {"max_length": 1}}, "may have at most 1 character"),
        (
            {"type": "string_pattern_mismatch", "loc": ("position", "hex"), "input": "55"},
            "must be four digits, column then row, e.g. 0405 (you sent “55”)",
        ),
        (
            {"type": "string_pattern_mismatch", "loc": ("code",), "input": "?"},
            "is not in the expected form (you sent “?”)",
        ),
        (
            {"type": "literal_error", "ctx": {"expected": "'fore' or 'aft'"}, "input": "up"},
            "must be one of 'fore' or 'aft' (you sent “up”)",
        ),
        ({"type": "model_type", "input": 3}, "must be an object ({…}) (you sent 3)"),
        ({"type": "too_short", "ctx": {"min_length": 1}}, "needs at least 1 item"),
        ({"type": "too_long", "ctx": {"max_length": 2}}, "may have at most 2 items"),
        ({"type": "extra_forbidden", "input": 1}, "is not a field this takes"),
        (
            {"type": "value_error", "msg": "Value error, arc degrees run from 0 to 360"},
            "arc degrees run from 0 to 360",
        ),
        ({"type": "assertion_error", "msg": "Assertion failed, no"}, "no"),
        ({"type": "url_parsing", "msg": "Input should be a valid URL"}, "input should be a valid url"),
    ],
)
def test_GEN_03_an_input_error_reads_as_a_sentence(error: dict[str, Any], words: str):
    assert explain(error) == words


def test_GEN_03_a_missing_field_says_what_it_is_for():
    assert humane({"type": "missing", "loc": ("body", "reason")}) == (
        "reason",
        "reason: say why (it goes in the log)",
    )
    assert humane({"type": "missing", "loc": ("speed",)}, "position") == (
        "position.speed",
        "position.speed: is required",
    )
    assert humane({"type": "missing", "loc": ()}) == (None, "is required")


def test_GEN_03_further_problems_are_counted():
    class Entry(BaseModel):
        amount: int
        target: str
        section: str

    with pytest.raises(ValidationError) as err:
        Entry.model_validate({"amount": "x"})
    assert first_error(err.value) == (
        "amount",
        "amount: must be a whole number (you sent “x”) (and 2 more problems)",
    )
    with pytest.raises(ValidationError) as err:
        Entry.model_validate({"amount": 1, "section": "Core"})
    assert first_error(err.value) == ("target", "target: name the target ship")


def test_GEN_01_the_step_waits_on_a_referee_only_as_a_referee():
    """TR-03: before the first orders of an engagement the referee rolls initiative: the orders step
    waits on the referee's seat, so on a referee and on no commander."""
    game = STANDARD.game("traveller")
    state = battle(capital("Kestrel"), owners=("p-kirk",))
    assert REFEREE_SEAT in game.awaited(state)
    assert game.waits_on(state, "r-1", referee=True) is True
    assert game.waits_on(state, "p-kirk", referee=False) is False


@pytest.mark.parametrize(
    ("error", "words"),
    [
        # the pydantic kinds each sentence covers, one by one
        ({"type": "greater_than", "ctx": {"gt": 0}, "input": 0}, "must be more than 0 (you sent 0)"),
        ({"type": "less_than_equal", "ctx": {"le": 6}, "input": "7"}, "must be at most 6 (you sent 7)"),
        (
            {"type": "int_type", "input": "3"},
            "must be a whole number (you sent 3)",
        ),  # a typed number reads bare
        ({"type": "int_from_float", "input": 2.5}, "must be a whole number (you sent 2.5)"),
        ({"type": "float_parsing", "input": "-1.5"}, "must be a number (you sent -1.5)"),
        ({"type": "bool_type", "input": 2}, "must be true or false (you sent 2)"),
        ({"type": "bool_parsing", "input": "maybe"}, "must be true or false (you sent “maybe”)"),
        ({"type": "string_type", "input": "5"}, "must be text (you sent “5”)"),  # not a number field: quoted
        ({"type": "enum", "ctx": {"expected": "'a'"}, "input": "b"}, "must be one of 'a' (you sent “b”)"),
        ({"type": "literal_error", "input": "b"}, "must be one of … (you sent “b”)"),
        ({"type": "dict_type", "input": []}, "must be an object ({…}) (you sent [])"),
        ({"type": "model_attributes_type", "input": 1}, "must be an object ({…}) (you sent 1)"),
        ({"type": "tuple_type", "input": 1}, "must be a list ([…]) (you sent 1)"),
        ({"type": "set_type", "input": 1}, "must be a list ([…]) (you sent 1)"),
        ({"type": "string_too_short", "input": ""}, "must not be empty"),  # no length given: 1
        (
            {"type": "string_too_short", "ctx": {"min_length": 2}, "input": "a"},
            "needs at least 2 characters (you sent “a”)",
        ),
        ({"type": "value_error"}, ""),
        ({"type": "missing"}, "is required"),
        ({"type": "url_parsing"}, "is not valid"),
        ({}, "is not valid"),
        # what was sent, cut at 40 characters
        ({"type": "string_type", "input": "y" * 40}, "must be text (you sent “" + "y" * 40 + "”)"),
        ({"type": "string_type", "input": "y" * 41}, "must be text (you sent “" + "y" * 40 + "…”)"),
        (
            {"type": "bool_type", "input": [10**37]},  # 40 characters of JSON: shown whole
            "must be true or false (you sent [" + "1" + "0" * 37 + "])",
        ),
        (
            {"type": "bool_type", "input": [10**38]},  # 41: cut to 39 and "…"
            "must be true or false (you sent [" + "1" + "0" * 37 + "…)",
        ),
    ],
)
def test_GEN_03_every_kind_of_input_error_has_its_sentence(error: dict[str, Any], words: str):
    assert explain(error) == words


def test_GEN_03_the_field_leaves_out_where_in_the_request_it_was():
    for where in ("body", "query", "path", "header"):
        assert field_of({"loc": (where, "amount")}, "") == "amount"
    assert field_of({"loc": ("sections", 0, "name")}, "definition") == "definition.sections.0.name"
    assert field_of({}, "") is None
    assert humane({"type": "missing"}) == (None, "is required")


def test_GEN_03_one_more_problem_is_counted_in_the_singular():
    class Pair(BaseModel):
        amount: int
        ship: str

    with pytest.raises(ValidationError) as err:
        Pair.model_validate({"amount": "x", "ship": 1})
    assert first_error(err.value) == (
        "amount",
        "amount: must be a whole number (you sent “x”) (and 1 more problem)",
    )


def test_TR_03_GEN_02_who_the_step_waits_on_now_and_later_and_for_what():
    """Before the engagement's initiative the orders step waits on the referee (TR-03) and every
    commander of a ship still fighting comes later, once each, in ship order, less those done; a
    step's end waiting for a die waits on that ship's commander (GEN-02), or the referee where the
    ship is gone, and on nobody later."""
    from app.rules.state import PendingRoll

    game = STANDARD.game("traveller")
    kite = capital("Kite")
    state = battle(
        capital("Kestrel"), capital("Tigress"), kite, capital("Wreck"), owners=("p-k", "p-t", "p-k", "p-w")
    )
    state.ships["wreck"].destroyed = True
    assert game.awaited(state) == [REFEREE_SEAT]
    assert game.later(state) == ["p-k", "p-t"]
    assert game.waiting_for(state) == "roll initiative for the engagement (TR-03)"
    state.ready = ["p-t"]
    assert game.later(state) == ["p-k"]
    state.rolling = PendingRoll(ship="tigress", sides=6, purpose="reaction")
    assert (game.awaited(state), game.later(state)) == (["p-t"], [])
    assert game.waiting_for(state) == "dice for Tigress: 1d6 for reaction"
    state.rolling = PendingRoll(ship="gone", sides=20, purpose="damage")
    assert (game.awaited(state), game.waiting_for(state)) == (
        [REFEREE_SEAT],
        "dice for gone: 1d20 for damage",
    )
