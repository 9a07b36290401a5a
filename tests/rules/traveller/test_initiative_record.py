"""What the initiative roll (TR-03, TR-03a) and the loop's moves (TR-04, TR-27) record: each event's
kind, ship, words and data, each roll's purpose, owner and outcome, what the round keeps. Figures from
tables.md: Crew Skill 2 → +2, 3 → +3; a check is 8+; reactions 0–4 → 1, 5–8 → 2; task chain
Effect −1 → −1."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, advance_to, battle, capital, hg
from tests.rules.traveller.test_branches_movement import give, sided


def gig(name: str, side: str, thrust: int) -> dict[str, Any]:
    """A small craft (TR-03a: rolls 2D, +1 for the faster)."""
    boat = capital(name)
    boat["side"] = side
    boat["parts"]["hg_ship"] = {
        "kind": "small_craft",
        "displacement": 30,
        "thrust": thrust,
        "sections": [{"name": "Hull", "hull_max": 2, "structure_max": 2}],
    }
    return boat


def sides() -> BattleState:
    return battle(sided(capital("Kestrel"), "A"), sided(capital("Tigress", crew_skill=3), "B"))


def test_TR_03_each_sides_fleet_check_adds_its_effect_even_when_negative() -> None:
    """Fleet A: 2D 3 − 1 = 2 vs 8+, Effect −6; fleet B: 2D 8 + 1 = 9, Effect +1. Kestrel 1D 3 + 2 − 6 = −1;
    Tigress 1D 4 + 3 + 1 = 8."""
    done = act(sides(), "traveller.initiative", {"fleet_tactics": {"B": 1, "A": -1}}, dice=[1, 2, 4, 4, 3, 4])
    fleet_a, fleet_b, kestrel, tigress = done.events
    assert fleet_a.text == "Fleet commander (A) Tactics: 2D 3 + Tactics −1 = 2 vs 8+ → failure (Effect −6)."
    assert fleet_b.text.startswith("Fleet commander (B) Tactics: 2D 8 + Tactics +1 = 9 vs 8+")
    assert (fleet_a.kind, fleet_a.ship, fleet_a.rolls[0].purpose) == ("initiative", None, "fleet Tactics (A)")
    assert kestrel.text == "Kestrel initiative: 1D 3 + Crew Skill +2 + fleet Tactics −6 = -1 → reactions 1."
    assert tigress.text == "Tigress initiative: 1D 4 + Crew Skill +3 + fleet Tactics +1 = 8 → reactions 2."
    assert (kestrel.kind, kestrel.ship, kestrel.data) == ("initiative", "kestrel", {"initiative": -1})
    (roll,) = kestrel.rolls
    assert (roll.purpose, roll.ship, roll.dice, roll.outcome) == (
        "initiative",
        "kestrel",
        [3],
        "initiative -1",
    )
    assert hg(done.state, "tigress")["initiative_base"] == 8
    assert hg(done.state, "tigress")["round"]["initiative"] == 8


def test_TR_03_a_fleet_without_a_side_is_named_so() -> None:
    state = battle(capital("Kestrel"))
    done = act(state, "traveller.initiative", {"fleet_tactics": {"": 0}}, dice=[4, 4, 1])
    assert done.texts[0].startswith(
        "Fleet commander (no side) Tactics: 2D 8 + Tactics 0 = 8 vs 8+ → success (Effect 0)."
    )
    assert done.events[0].rolls[0].purpose == "fleet Tactics (no side)"
    assert done.texts[1] == "Kestrel initiative: 1D 1 + Crew Skill +2 + fleet Tactics 0 = 3 → reactions 1."


def test_TR_03_the_chained_roll_takes_the_captains_own_tactics_dm() -> None:
    """Fleet A: 2D 7 vs 8+, Effect −1 → chain −1. Kestrel's captain (Tactics +3): 2D 10 + 3 − 1 = 12,
    Effect +4; Kestrel 1D 2 + 2 + 4 = 8."""
    done = act(
        sides(),
        "traveller.initiative",
        {"fleet_tactics": {"A": 0}, "chained": True, "captain_tactics": {"kestrel": 3}},
        dice=[3, 4, 2, 5, 5, 6],
    )
    kestrel = done.events[1]
    assert kestrel.text == "Kestrel initiative: 1D 2 + Crew Skill +2 + captain Tactics +4 = 8 → reactions 2."
    initiative, captain = kestrel.rolls
    assert (initiative.purpose, captain.purpose, captain.ship) == (
        "initiative",
        "captain Tactics (Kestrel)",
        "kestrel",
    )
    assert captain.dice == [5, 5]
    # Tigress, on side B with no fleet check, adds nothing: 1D 6 + 3.
    assert done.texts[2] == "Tigress initiative: 1D 6 + Crew Skill +3 = 9 → reactions 3."


def test_TR_03a_faster_only_beats_every_opposing_unit() -> None:
    """Equal Thrust is not faster, a friend's lower Thrust does not count, and a capital ship never adds it."""
    state = battle(
        gig("Gig", "A", 6), gig("Cutter", "B", 6), gig("Launch", "B", 2), sided(capital("Kestrel"), "A")
    )
    done = act(state, "traveller.initiative", {}, dice=[1, 1, 2, 2, 1, 3, 3])
    assert done.texts == [
        "Cutter initiative: 2D 2 = 2 → reactions 1.",
        "Gig initiative: 2D 4 = 4 → reactions 1.",
        "Kestrel initiative: 1D 1 + Crew Skill +2 = 3 → reactions 1.",
        "Launch initiative: 2D 6 = 6 → reactions 2.",
    ]


def test_TR_03a_the_only_unit_has_no_rival_to_be_faster_than() -> None:
    done = act(battle(gig("Gig", "A", 6)), "traveller.initiative", {}, dice=[3, 3])
    assert done.texts == ["Gig initiative: 2D 6 = 6 → reactions 2."]


def in_combat() -> BattleState:
    state = battle(
        capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"), enforce_loop=False
    )
    state = act(state, "traveller.initiative", {}, dice=[5, 2]).state  # Kestrel 5 + 2 = 7, Tigress 2 + 2 = 4
    return advance_to(state, "combat").state


def test_TR_04_passing_names_the_next_ship_then_says_all_have_finished() -> None:
    done = act(in_combat(), "traveller.pass", {"ship": "kestrel"}, KESTREL_ACTOR)
    (event,) = done.events
    assert (event.kind, event.ship) == ("loop", "kestrel")
    assert event.text == "Kestrel has finished its combat actions this round. Next: Tigress."
    assert hg(done.state, "kestrel")["round"]["passed"] is True
    done = act(done.state, "traveller.pass", {"ship": "tigress"}, TIGRESS_ACTOR)
    assert done.texts == ["Tigress has finished its combat actions this round. Every ship has finished."]


def test_TR_04_another_combat_action_takes_the_ships_turn() -> None:
    payload = {"ship": "kestrel", "description": "swings about the moon"}
    done = act(in_combat(), "traveller.combat_action", payload, KESTREL_ACTOR)
    (event,) = done.events
    assert (event.kind, event.ship, event.text) == (
        "combat_action",
        "kestrel",
        "Kestrel: swings about the moon.",
    )
    assert hg(done.state, "kestrel")["round"]["actions"] == 1
    done = act(done.state, "traveller.combat_action", payload, KESTREL_ACTOR)
    assert hg(done.state, "kestrel")["round"]["actions"] == 2


def test_TR_27_boarding_states_board_them_and_repel_boarders_plus_1() -> None:
    state = give(give(in_combat(), "kestrel", "board_them"), "tigress", "repel_boarders")
    payload = {"ship": "kestrel", "target": "tigress", "outcome": "marines hold the hangar."}
    done = act(state, "traveller.board", payload, KESTREL_ACTOR)
    (event,) = done.events
    assert (event.kind, event.ship) == ("boarding", "tigress")
    assert event.text == (
        "Kestrel boards Tigress: marines hold the hangar — Board Them! ordered;"
        " Boarding Action table: Tigress +1 DM (Prepare to Repel Boarders!)."
    )
    assert event.data == {"attacker": "kestrel", "target": "tigress", "repel_dm": 1}
    assert hg(done.state, "kestrel")["round"]["actions"] == 1


def test_TR_27_board_them_alone_gives_no_repel_dm_and_each_boarding_is_an_action() -> None:
    state = give(in_combat(), "kestrel", "board_them")
    payload = {"ship": "kestrel", "target": "tigress", "outcome": "held deck X."}
    done = act(state, "traveller.board", payload, KESTREL_ACTOR)
    assert done.texts == ["Kestrel boards Tigress: held deck X — Board Them! ordered."]
    assert done.events[0].data["repel_dm"] == 0
    done = act(done.state, "traveller.board", payload, KESTREL_ACTOR)
    assert hg(done.state, "kestrel")["round"]["actions"] == 2


def test_TR_03_initiative_is_rolled_once_per_engagement() -> None:
    state = act(battle(capital("Kestrel")), "traveller.initiative", {}, dice=[3]).state
    with pytest.raises(RuleError) as err:
        act(state, "traveller.initiative", {})
    assert err.value.message == "initiative is rolled once per engagement, and every ship has it (TR-03)"


def test_TR_04_a_ship_without_high_guard_data_is_not_boarded() -> None:
    hulk = {"name": "Hulk", "klass": "drifting wreck", "system": "traveller", "side": "B", "parts": {}}
    state = battle(capital("Kestrel"), hulk, owners=("p-kestrel",), enforce_loop=False)
    state = advance_to(state, "combat").state
    payload = {"ship": "kestrel", "target": "hulk", "outcome": "marines aboard"}
    with pytest.raises(RuleError) as err:
        act(state, "traveller.board", payload, KESTREL_ACTOR)
    assert (err.value.message, err.value.field) == ("Hulk is not a High Guard ship or flight", "target")


def test_TR_19_a_second_computer_hit_rolls_its_1d6_for_the_ships_initiative() -> None:
    """1D 5 + Crew Skill +2 − 1d6 3 = 4; the die is the ship's own."""
    state = battle(capital("Kestrel", systems={"computer": 2}))
    done = act(state, "traveller.initiative", {}, dice=[5, 3])
    initiative, die = done.events[0].rolls
    assert (die.purpose, die.ship, die.dice) == ("computer damage DM", "kestrel", [3])
    assert done.events[0].data == {"initiative": 4}
