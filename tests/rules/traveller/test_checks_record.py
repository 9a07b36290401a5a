"""The Traveller standard check as the log records it (GEN-05): 2D + DMs against 8+ (or the target a
rule names), Effect = total − 8, and the roll's outcome written for the log's readers."""

from __future__ import annotations

from app.rules.dice import ScriptedDice
from app.rules.traveller.checks import standard_check


def test_GEN_05_a_failed_check_records_failure_and_its_negative_effect() -> None:
    # 2D 3 + 3 = 6, Crew Skill +1 = 7 vs 8+: failure, Effect −1.
    check = standard_check(
        ScriptedDice([3, 3]), "repair Sensors in Forward", [("Crew Skill", 1)], ship="kestrel"
    )
    roll = check.roll
    assert (roll.purpose, roll.ship, roll.dice, roll.modifier, roll.target) == (
        "repair Sensors in Forward",
        "kestrel",
        [3, 3],
        1,
        "8+",
    )
    assert roll.outcome == "failure, Effect −1"
    assert check.sentence() == "2D 6 + Crew Skill +1 = 7 vs 8+ → failure (Effect −1)"


def test_GEN_05_a_check_at_exactly_its_target_succeeds_with_effect_0() -> None:
    # TR-20: a fire's Discipline check at 9+; 2D 4 + 4 = 8, Crew Skill +1 = 9.
    check = standard_check(
        ScriptedDice([4, 4]), "Discipline against fire in Main", [("Crew Skill", 1)], target=9
    )
    assert (check.roll.target, check.roll.outcome) == ("9+", "success, Effect 0")
    assert check.sentence() == "2D 8 + Crew Skill +1 = 9 vs 9+ → success (Effect 0)"
