"""Clauses of the generic ruleset not met elsewhere: who may move the clock (GEN-01), which ships a
battle takes and how many (GEN-04), the referee's override keeping the battle playable and saying
in the log what changed (GEN-03, ux §6), and the referee's end naming a winner (GEN-04)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import ValidationError

from app.rules import Action, apply_action, new_battle
from app.rules.core import REFEREE, Actor, RuleError
from app.rules.dice import ScriptedDice
from app.rules.generic.actions import MAX_SHIPS_PER_BATTLE
from app.rules.generic.ending import winner
from app.rules.generic.sheet import SystemBoxes
from app.rules.state import BattleState
from tests.rules.startrek.helpers import add, definition

HULK = {
    "name": "Hulk",
    "klass": "test",
    "system": "b5wars",
    "parts": {"sheet": {"sections": [{"name": "Hull", "structure_max": 20}]}},
}
KIRK = Actor("p-kirk", "player", frozenset({"hulk"}))
GUEST = Actor("p-guest", "player", frozenset())


def act(state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = REFEREE):
    out = apply_action(state, Action(kind, payload, actor), ScriptedDice([]))
    return out.state, out.events


def refused(state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = REFEREE):
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.field, err.value.message


def battle(system: str = "b5wars", **options: Any) -> BattleState:
    state = new_battle(system, options)
    state, _ = act(state, "ship.add", {"definition": HULK | {"system": "sfb"}, "owner": "p-kirk"})
    return state


def override(state: BattleState, path: str, value: Any, **more: Any):
    return act(state, "override.set", {"path": path, "value": value, "reason": "table ruling"} | more)


# --- the clock (GEN-01) -------------------------------------------------------------------------------


def test_GEN_01_an_option_of_true_lets_commanders_always_advance():
    state, events = act(battle(players_advance_clock=True), "clock.advance", {}, KIRK)
    assert state.clock.step == "movement"


def test_GEN_01_an_option_of_false_keeps_the_clock_the_referees():
    field, message = refused(battle(players_advance_clock=False), "clock.advance", {}, KIRK)
    assert message == "only the referee advances the turn clock in this battle"


def test_GEN_01_a_player_with_no_ship_does_not_advance_the_clock():
    field, message = refused(battle(players_advance_clock="always"), "clock.advance", {}, GUEST)
    assert message == "only the referee or a ship's commander may advance the clock"


# --- which ships (GEN-04) -----------------------------------------------------------------------------


def test_GEN_04_an_sfb_battle_takes_only_sfb_ships():
    state = new_battle("sfb")
    assert refused(state, "ship.add", {"definition": HULK}) == (
        "definition.system",
        "definition.system: a Star Fleet Battles (impulses) battle takes ships written for “sfb”; "
        "this one is for “b5wars”",
    )


def test_GEN_04_a_battle_holds_at_most_100_ships():
    state = new_battle("b5wars")
    for _ in range(MAX_SHIPS_PER_BATTLE):
        state, _ = act(state, "ship.add", {"definition": HULK})
    assert len(state.ships) == 100
    assert refused(state, "ship.add", {"definition": HULK}) == (
        "definition",
        "a battle holds at most 100 ships",
    )


# --- the referee's override (GEN-03, ux §6) -----------------------------------------------------------


def test_GEN_03_a_named_override_says_the_ship_and_the_value_in_words():
    state, events = override(battle(), "ships.hulk.parts.sheet.sections.0.structure", 12, named=True)
    assert events[0].text == (
        "⚠ OVERRIDE (Referee): Hulk — Hull structure: 20 → 12 — “table ruling” "
        "(ships.hulk.parts.sheet.sections.0.structure)"
    )
    state, events = override(state, "ships.hulk.destroyed", True, named=True)
    assert events[0].text.startswith("⚠ OVERRIDE (Referee): Hulk — Destroyed: no → yes")


def test_GEN_03_a_named_override_of_a_value_the_picker_does_not_offer_keeps_the_path():
    state, events = override(battle(), "ships.hulk.name", "Wreck", named=True)
    assert events[0].text == '⚠ OVERRIDE (Referee): ships.hulk.name "Hulk"→"Wreck" — “table ruling”'


def test_GEN_03_a_list_index_is_written_in_ascii_digits():
    path = "ships.hulk.parts.sheet.sections.\uff10.structure"  # a fullwidth 0
    assert refused(battle(), "override.set", {"path": path, "value": 1, "reason": "table"}) == (
        "path",
        f"no value at {path!r}",
    )


def test_GEN_03_an_override_outside_the_ships_is_public():
    state, events = override(battle(), "clock.turn", 3)
    assert (state.clock.turn, events[0].visibility) == (3, "public")


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("system", "sfb", "a battle's game system cannot be changed; create a new battle"),
        (
            "clock.step",
            "impulse",
            "Babylon 5 Wars has no step 'impulse'; its steps are ship_power, movement, combat, adjust_systems",
        ),
        ("clock.impulse", 1, "Ship Power has no numbered repeats"),
        ("clock.turn", 0, "turns are counted from 1"),
    ],
)
def test_GEN_01_an_override_keeps_the_clock_at_a_step_the_system_has(path, value, message):
    assert refused(battle(), "override.set", {"path": path, "value": value, "reason": "table"}) == (
        "value",
        message,
    )


def test_GEN_01_an_impulse_runs_from_1_to_32():
    state = battle("sfb")
    state, _ = act(state, "clock.advance", {})  # Energy Allocation → Impulse 1
    assert (state.clock.step, state.clock.impulse) == ("impulse", 1)
    for impulse in (0, 33):
        assert refused(
            state, "override.set", {"path": "clock.impulse", "value": impulse, "reason": "table"}
        ) == ("value", "Impulse runs from 1 to 32")


# --- the referee's end (GEN-04) -----------------------------------------------------------------------


def test_GEN_04_a_winner_must_be_a_side_and_a_battle_without_sides_has_none():
    assert refused(battle(), "battle.end", {"winner": "Federation"}) == (
        "winner",
        'winner: one of the battle\'s sides (none: no ship has a side) or "draw"',
    )


def test_ST_07_an_override_of_every_ship_is_the_referees_when_a_ship_keeps_a_secret():
    """The Excelsior's power budget is hidden from other players (ST-07): replacing the whole ship
    list shows only the hidden text to them."""
    state = add(new_battle("b5wars"), definition("excelsior"))
    ships = state.model_dump(mode="json")["ships"]
    state, events = override(state, "ships", ships)
    assert (events[0].visibility, events[0].ship) == ("referee", None)
    assert events[0].hidden_text == "⚠ OVERRIDE (Referee): a value hidden from you was corrected."
    assert events[0].data["reveal_at_end"] is True


# --- who won, as the end records it (GEN-04) ----------------------------------------------------------


def test_GEN_04_the_winner_is_the_side_named_or_the_one_still_fighting():
    ships = {"ex": {"side": "Federation"}, "yk": {"side": "Federation"}, "ker": {"side": "Shadows"}, "x": {}}
    assert winner({"data": {"winner": "Shadows"}}, ships) == "Shadows"
    assert winner({"data": {"winner": None}}, ships) is None  # a referee's end without a winner
    assert winner({"data": {"reason": "turn_limit"}}, ships) == "draw"
    assert winner({"data": {"reason": "one_side_left", "fighting": []}}, ships) == "draw"
    assert winner({"data": {"reason": "one_side_left", "fighting": ["ex", "yk"]}}, ships) == "Federation"
    assert winner({"data": {"reason": "one_side_left", "fighting": ["x"]}}, ships) is None  # no side
    assert winner({"data": {"reason": "one_side_left", "fighting": ["ex", "gone"]}}, ships) is None
    assert winner({"data": {"reason": "one_side_left", "fighting": ["ex", "ker"]}}, ships) is None
    assert winner({"data": {}}, ships) is None
    assert winner({}, ships) is None


# --- a weapon's own arc (GEN-03 sheets, ST-05 degrees) ------------------------------------------------


@pytest.mark.parametrize(
    ("arc", "message"),
    [
        ([0, 400], "system 'Gun': arc degrees run from 0 to 360 (you sent [0.0, 400.0])"),
        ([-10, 90], "system 'Gun': arc degrees run from 0 to 360 (you sent [-10.0, 90.0])"),
        ([90, 90], "system 'Gun': an arc needs two different ends ([0, 360] for all round)"),
        ([0, 720], "system 'Gun': arc degrees run from 0 to 360 (you sent [0.0, 720.0])"),
        ([360, 0], "system 'Gun': an arc needs two different ends ([0, 360] for all round)"),
    ],
)
def test_GEN_03_a_weapons_arc_runs_between_two_different_bearings(arc, message):
    with pytest.raises(ValidationError, match=re.escape(message)):
        SystemBoxes.model_validate({"name": "Gun", "kind": "weapon", "boxes": 4, "arc": arc})
    assert SystemBoxes.model_validate({"name": "Gun", "kind": "weapon", "boxes": 4, "arc": [0, 360]}).arc == (
        0,
        360,
    )


def test_SH_02_with_the_last_excess_box_gone_the_next_point_destroys_wherever_it_lands():
    """SH-02 / GEN-04: the ship is destroyed when the last Excess Damage box is gone and one more
    point lands. With 0 of 10 Excess Damage boxes left, 5 damage on a Core with 3 armour: 1 point
    is taken by the armour (3 → 2), the ship is destroyed, and 4 are beyond destruction."""
    hulk = HULK | {
        "parts": {
            "sheet": {
                "sections": [{"name": "Core", "armour_max": 3, "structure_max": 20}],
                "excess_damage_max": 10,
                "excess_damage": 0,
            }
        }
    }
    state, _ = act(new_battle("b5wars"), "ship.add", {"definition": hulk})
    state, events = act(state, "damage.apply", {"target": "hulk", "amount": 5})
    assert [e.kind for e in events] == ["damage", "ship_destroyed"]
    assert events[0].text == "An unknown attacker hits Hulk for 5: 1 to armour, 4 beyond destruction."
    assert (
        events[1].text == "Hulk is destroyed (the last Excess Damage box is gone and one more point landed)."
    )
    sheet = state.ships["hulk"].parts["sheet"]
    assert (sheet["sections"][0]["armour"], sheet["sections"][0]["structure"], sheet["excess_overflow"]) == (
        2,
        20,
        True,
    )
    assert state.ships["hulk"].destroyed is True


# --- apply_action's two ways with the state (GEN-01) --------------------------------------------------


def test_GEN_01_an_action_changes_a_copy_unless_the_caller_hands_the_state_over():
    state = battle()
    out = apply_action(state, Action("clock.advance", {}, REFEREE), ScriptedDice([]))
    assert (out.state is state, state.clock.step, out.state.clock.step) == (False, "ship_power", "movement")
    owned = apply_action(state, Action("clock.advance", {}, REFEREE), ScriptedDice([]), owned=True)
    assert (owned.state is state, state.clock.step) == (True, "movement")


def test_GEN_01_the_last_commander_done_ends_the_step_once():
    """One commander in a B5 Wars battle says Done in Ship Power: the step ends, to Movement, and
    no further."""
    state, events = act(battle(), "step.ready", {}, KIRK)
    assert state.clock.step == "movement"


def test_GEN_01_a_commanders_skip_folds_the_quiet_impulses_into_one_line():
    """The only commander of an SFB battle is done until impulse 5: impulses 1–4 pass at once, as
    one log line counting 4; done to the end of the impulses, 5–32 pass (28); a skip of one
    impulse is its own ordinary clock line."""
    state, _ = act(battle("sfb"), "clock.advance", {})  # Energy Allocation → Impulse 1
    state, events = act(state, "clock.skip", {"to": 5}, KIRK)
    assert [(e.kind, e.text, e.data) for e in events] == [
        ("ready", "Done until impulse 5.", {"participant": "p-kirk", "until": 5}),
        ("ready", "Everyone is done with Impulse 1/32.", {}),
        (
            "clock",
            "Turn 1 · Impulse 1/32 to Impulse 4/32 pass quietly; Turn 1 · Impulse 5/32 begins.",
            {"skipped": 4},
        ),
    ]
    assert (state.clock.impulse, state.ready, state.ready_until) == (5, [], {})
    state, events = act(state, "clock.skip", {"to": 6}, KIRK)
    assert events[-1].text == "Turn 1 · Impulse 5/32 ends; Turn 1 · Impulse 6/32 begins."
    state, events = act(state, "clock.skip", {}, KIRK)
    assert events[0].text == "Done until the end of impulses."
    assert (
        events[-1].text == "Turn 1 · Impulse 6/32 to Impulse 32/32 pass quietly; Turn 1 · End of turn begins."
    )
    assert events[-1].data == {"skipped": 27}
    assert (state.clock.step, state.clock.impulse) == ("end_of_turn", None)
