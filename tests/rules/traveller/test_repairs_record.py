"""What a repair attempt records and gives back (TR-22, TR-19, TR-27, GEN-05): the event's kind, ship
and words, the roll's purpose, each system's hit taken off with what it took, the round's count of
attempts per section, and every refusal with the field it names. Figures from tables.md: Crew Skill
2 → +2, a check is 8+, a computer's first hit −1, an M-Drive hit −1 Thrust, a power plant's first hit
−1 Power and its second −2 more, Get Those Engines Back On-Line!* two extra rolls in Engineering."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, capital, hg
from tests.rules.traveller.test_branches_movement import FLIGHT_ACTOR, flight, give
from tests.rules.traveller.test_branches_repairs import kestrel, repair


def refusal(state: BattleState, section: str, system: str) -> tuple[str, str | None]:
    with pytest.raises(RuleError) as err:
        repair(state, section, system)
    return err.value.message, err.value.field


def test_TR_22_a_repair_is_logged_with_its_roll_and_counted_for_the_section() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"]["m_drive"] = 2
    hg(state, "kestrel")["thrust"] = 2
    done = repair(state, "Engineering", "m_drive", [4, 2])
    (event,) = done.events
    assert (event.kind, event.ship) == ("repair", "kestrel")
    assert event.text == (
        "Kestrel repairs M-Drive in Engineering: 2D 6 + Crew Skill +2 = 8 vs 8+ → success (Effect 0):"
        " M-Drive hits 1, Thrust 3."
    )
    (roll,) = event.rolls
    assert (roll.purpose, roll.ship, roll.dice) == ("repair M-Drive in Engineering", "kestrel", [4, 2])
    part = hg(done.state, "kestrel")
    assert (part["systems"]["m_drive"], part["thrust"]) == (1, 3)
    assert part["round"]["repairs"] == {"Engineering": 1}
    assert refusal(done.state, "Engineering", "m_drive") == (
        "Engineering has had its repair attempt this round (TR-22)",
        "section",
    )


def test_TR_22_a_failed_repair_uses_the_attempt_and_changes_nothing() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"]["computer"] = 1
    done = repair(state, "Main", "computer", [1, 2])
    assert done.texts == [
        "Kestrel repairs computer in Main: 2D 3 + Crew Skill +2 + computer −1 = 4 vs 8+ → failure (Effect −4):"
        " no progress."
    ]
    part = hg(done.state, "kestrel")
    assert part["systems"]["computer"] == 1
    assert part["round"]["repairs"] == {"Main": 1}


def test_TR_22_a_repaired_computer_hit_is_taken_off() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"]["computer"] = 1
    done = repair(state, "Main", "computer", [5, 2])
    assert done.texts[0].endswith("= 8 vs 8+ → success (Effect 0): computer hits 0.")
    assert hg(done.state, "kestrel")["systems"]["computer"] == 0


def test_TR_22_power_plant_hits_give_back_1_then_2_power() -> None:
    """Power 10: the first hit left 9, the second 7; repairing gives back what each took."""
    state = kestrel()
    hg(state, "kestrel")["systems"]["power_plant"] = 2
    hg(state, "kestrel")["power"] = 7
    done = repair(state, "Engineering", "power_plant", [4, 2])
    assert done.texts[0].endswith(": power plant hits 1, Power 9.")
    state = advance_to(done.state, "ship_action", turn=2).state
    done = repair(state, "Engineering", "power_plant", [4, 2])
    assert done.texts[0].endswith(": power plant hits 0, Power 10.")
    assert hg(done.state, "kestrel")["power"] == 10


def test_TR_22_a_battery_is_repaired_under_its_id() -> None:
    state = kestrel()
    hg(state, "kestrel")["batteries"][0]["hits"] = 2
    done = repair(state, "Forward", "beam", [4, 2])
    assert done.texts == [
        "Kestrel repairs beam in Forward: 2D 6 + Crew Skill +2 = 8 vs 8+ → success (Effect 0): Turret: Beam Laser hits 1."
    ]
    assert hg(done.state, "kestrel")["batteries"][0]["hits"] == 1


def test_TR_22_sensors_are_repaired_in_their_section() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"].update(sensors=2, sensors_dm=-4)
    done = repair(state, "Forward", "sensors", [4, 2])
    assert done.texts[0].endswith(": sensors hits 1.")
    assert hg(done.state, "kestrel")["systems"]["sensors_dm"] == -4


def test_TR_27_get_those_engines_back_on_line_gives_engineering_two_more_attempts() -> None:
    state = give(kestrel(), "kestrel", "engines_back_online")
    hg(state, "kestrel")["systems"].update(m_drive=3, computer=1)
    hg(state, "kestrel")["thrust"] = 1
    for _ in range(3):
        state = repair(state, "Engineering", "m_drive", [1, 1]).state
    assert hg(state, "kestrel")["round"]["repairs"] == {"Engineering": 3}
    assert refusal(state, "Engineering", "m_drive") == (
        "Engineering has had its repair attempt this round (TR-22)",
        "section",
    )
    # Only in Engineering: Main keeps its one attempt.
    state = repair(state, "Main", "computer", [1, 1]).state
    assert refusal(state, "Main", "computer")[1] == "section"


def test_TR_22_refusals_name_their_fields() -> None:
    state = kestrel()
    assert refusal(state, "Bridge", "computer") == ("Kestrel has no working section 'Bridge'", "section")
    assert refusal(state, "Main", "hull") == ("no repairable system 'hull'", "system")
    assert refusal(state, "Main", "computer") == ("computer is not damaged", "system")
    hg(state, "kestrel")["systems"]["m_drive"] = 1
    assert refusal(state, "Forward", "m_drive") == ("m_drive is not in Forward", "system")
    hg(state, "kestrel")["sections"][1]["breach_round"] = 1
    assert refusal(state, "Main", "computer") == (
        "a hull breach stops repairs in Main this round (TR-20)",
        "section",
    )


def test_TR_20_a_breach_of_an_earlier_round_no_longer_stops_repairs() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"]["computer"] = 1
    hg(state, "kestrel")["sections"][1]["breach_round"] = 2
    assert repair(state, "Main", "computer", [5, 2]).texts[0].endswith(": computer hits 0.")


def test_TR_23_a_dead_crew_is_refused_on_ship() -> None:
    state = battle(capital("Kestrel", crew_strength="dead"), owners=("p-kestrel",))
    state = advance_to(state, "ship_action").state
    with pytest.raises(RuleError) as err:
        act(
            state,
            "traveller.repair",
            {"ship": "kestrel", "section": "Main", "system": "computer"},
            KESTREL_ACTOR,
        )
    assert (err.value.message, err.value.field) == ("Kestrel cannot make repairs", "ship")


def test_TR_22_a_spinal_mounts_last_hit_is_repaired_to_0() -> None:
    state = kestrel()
    hg(state, "kestrel")["spinal"]["hits"] = 1
    done = repair(state, "Main", "spinal", [4, 2])
    assert done.texts[0].endswith(": spinal mount hits 0.")
    assert hg(done.state, "kestrel")["spinal"]["hits"] == 0


def test_TR_19_the_computers_1d6_against_a_repair_is_the_ships_own_die() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"]["computer"] = 2
    done = repair(state, "Main", "computer", [3, 4, 2])
    die, check = done.events[0].rolls
    assert (die.purpose, die.ship, die.dice) == ("computer damage DM", "kestrel", [3])
    assert (check.purpose, check.ship) == ("repair computer in Main", "kestrel")


def test_TR_22_a_flight_is_refused_repairs_on_ship() -> None:
    state = battle(capital("Kestrel"), flight(), owners=("p-kestrel", "p-flight"), orders=False)
    state = advance_to(state, "ship_action").state
    payload = {"ship": "red-flight", "section": "Main", "system": "computer"}
    with pytest.raises(RuleError) as err:
        act(state, "traveller.repair", payload, FLIGHT_ACTOR)
    assert (err.value.message, err.value.field) == ("flights are not repaired in battle", "ship")
