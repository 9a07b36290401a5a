"""Fires as the log keeps them (TR-20): each later round the crew's Discipline check (a standard
check with crew DMs, GEN-05, and the computer's TR-19 DM) against the fire's target; success puts it
out, failure costs another section hit, +1 to the target, and at 12+ the fire spreads to a
neighbouring section (1d6: 1–3 aft, 4–6 fore) starting at 8+ there. Tigress is the tests' CF ship:
Engineering – Main – Forward, Crew Skill +2 (Experienced)."""

from __future__ import annotations

from typing import Any

from app.rules.dice import ScriptedDice
from app.rules.state import BattleState
from app.rules.traveller.criticals import fight_fires
from tests.rules.traveller.helpers import battle, capital, hg, section


def burning(target: int, *, turn: int = 3, **tigress: Any) -> BattleState:
    """Round `turn`; Tigress's Main has burned since round 1 at Discipline `target`+; Alpha, first by
    ship id, was destroyed earlier."""
    state = battle(capital("Alpha"), capital("Tigress", **tigress))
    state.ships["alpha"].destroyed = True
    state.clock.turn = turn
    section(state, "tigress", "Main")["fire"] = {"target": target, "started": 1}
    return state


def fight(state: BattleState, dice: list[int]) -> list[tuple]:
    source = ScriptedDice(dice)
    events = fight_fires(state, source)
    assert not source.values, f"unused scripted dice: {source.values}"
    return [
        (e.kind, e.ship, e.text, e.data, [(r.purpose, r.ship, r.dice, r.outcome, r.target) for r in e.rolls])
        for e in events
    ]


def test_TR_20_a_discipline_check_at_the_fires_target_puts_it_out() -> None:
    state = burning(9)
    assert fight(state, [3, 4]) == [
        (
            "fire",
            "tigress",
            "Tigress puts out the fire in Main: 2D 7 + Crew Skill +2 = 9 vs 9+ → success (Effect 0).",
            {},
            [("Discipline against fire in Main", "tigress", [3, 4], "success, Effect 0", "9+")],
        )
    ]
    assert section(state, "tigress", "Main")["fire"] is None


def test_TR_20_a_failed_check_costs_a_section_hit_with_no_barrage_damage_behind_it() -> None:
    # 2D 2 + 2 = 4 vs 9+ fails; Main still has Hull: External 2D 8 = Hull, half of no damage.
    state = burning(9)
    record = fight(state, [1, 1, 4, 4])
    assert record[0] == (
        "fire",
        "tigress",
        "The fire in Tigress's Main rages on: 2D 2 + Crew Skill +2 = 4 vs 9+ → failure (Effect −5).",
        {},
        [("Discipline against fire in Main", "tigress", [1, 1], "failure, Effect −5", "9+")],
    )
    kind, ship, text, data, rolls = record[1]
    assert (kind, ship, data) == ("system_hit", "tigress", {"section": "Main", "slot": "hull"})
    assert text.startswith("Tigress Main section hit (External, 2D 8): Hull — +0 Hull damage")
    assert rolls == [("fire section hit: Main (External)", "tigress", [4, 4], "Hull", None)]
    assert section(state, "tigress", "Main")["fire"]["target"] == 10


def test_TR_19_TR_20_a_second_computer_hit_rolls_its_d6_against_the_discipline_check() -> None:
    # Computer −1d6 (3): 2D 10 + 2 − 3 = 9 vs 9+ puts it out; the die is the event's first roll.
    state = burning(9, systems={"computer": 2})
    assert fight(state, [3, 5, 5]) == [
        (
            "fire",
            "tigress",
            "Tigress puts out the fire in Main: 2D 10 + Crew Skill +2 + computer −3 = 9 vs 9+ → success (Effect 0).",
            {},
            [
                ("computer damage DM", "tigress", [3], "−3", None),
                ("Discipline against fire in Main", "tigress", [5, 5], "success, Effect 0", "9+"),
            ],
        )
    ]


def test_TR_19_a_first_computer_hit_is_minus_1_on_the_discipline_check() -> None:
    # 2D 8 + 2 − 1 = 9 vs 9+.
    state = burning(9, systems={"computer": 1})
    assert fight(state, [4, 4])[0][2] == (
        "Tigress puts out the fire in Main: 2D 8 + Crew Skill +2 + computer −1 = 9 vs 9+ → success (Effect 0)."
    )


def spread(dice: list[int], **state_changes: Any) -> tuple[BattleState, list[tuple]]:
    """Main at 11+ fails (2D 2), its section hit is External 2D 7 = Armour, and the target reaches 12."""
    state = burning(11)
    for name, changes in state_changes.items():
        section(state, "tigress", name).update(changes)
    return state, fight(state, [1, 1, 3, 4, *dice])


def test_TR_20_at_12_the_fire_spreads_aft_on_1_to_3() -> None:
    state, record = spread([3])
    assert record[-1] == (
        "fire",
        "tigress",
        "The fire in Tigress's Main reaches Discipline 12+ and spreads to Engineering (Discipline 8+ there).",
        {"section": "Engineering"},
        [("fire spreads (1–3 aft, 4–6 fore)", "tigress", [3], "Engineering", None)],
    )
    assert section(state, "tigress", "Engineering")["fire"] == {"target": 8, "started": 3}
    assert section(state, "tigress", "Forward")["fire"] is None


def test_TR_20_at_12_the_fire_spreads_fore_on_4_to_6() -> None:
    state, record = spread([4])
    assert record[-1][3:] == (
        {"section": "Forward"},
        [("fire spreads (1–3 aft, 4–6 fore)", "tigress", [4], "Forward", None)],
    )
    assert section(state, "tigress", "Forward")["fire"] == {"target": 8, "started": 3}


def test_TR_20_a_fire_spreads_only_to_a_working_neighbour_without_a_roll() -> None:
    state, record = spread([], Engineering={"destroyed": True})
    assert record[-1][2:] == (
        "The fire in Tigress's Main reaches Discipline 12+ and spreads to Forward (Discipline 8+ there).",
        {"section": "Forward"},
        [],
    )
    assert hg(state, "tigress")["sections"][0]["fire"] is None
