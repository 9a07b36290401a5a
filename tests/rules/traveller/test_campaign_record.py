"""Between a campaign's battles (TR-22, TR-23, TR-24): what a High Guard ship does not carry into the
next battle, and a repair attempt's words, rolls and refusals as the campaign's log keeps them."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.dice import ScriptedDice
from tests.rules.traveller.test_campaign_repairs import carry, engineering, kestrel, mend


def test_TR_24_a_frozen_watch_being_revived_does_not_carry_into_the_next_battle() -> None:
    # The revival counts in the battle's rounds (6 turns); the next battle starts without it.
    out = carry(kestrel(frozen_watch_ready=4))
    assert out["frozen_watch_ready"] is None


def test_TR_23_a_dead_crew_is_refused_in_the_rules_words() -> None:
    part = kestrel(crew_strength="dead")
    part["systems"]["m_drive"] = 1
    with pytest.raises(RuleError) as refused:
        mend()(part, "Engineering", "m_drive", ScriptedDice([]))
    assert (refused.value.message, refused.value.field) == ("the crew cannot make repairs (TR-23)", "ship")


def test_TR_22_a_destroyed_section_is_named_in_the_refusal() -> None:
    part = kestrel()
    part["systems"]["m_drive"] = 1
    engineering(part)["destroyed"] = True
    with pytest.raises(RuleError) as refused:
        mend()(part, "Engineering", "m_drive", ScriptedDice([]))
    assert (refused.value.message, refused.value.field) == ("no working section 'Engineering'", "section")


def test_TR_22_a_battery_is_repaired_under_its_own_id() -> None:
    # Kestrel's beam lasers (battery "beam") sit in Main; 2D 8 + Crew Skill +2 (Experienced) = 10.
    part = kestrel()
    part["batteries"][0]["hits"] = 1
    fixed, text, rolls = mend()(part, "Main", "beam", ScriptedDice([4, 4]))
    assert fixed["batteries"][0]["hits"] == 0
    assert text.startswith(
        "repairs beam in Main (TR-22): 2D 8 + Crew Skill +2 = 10 vs 8+ → success (Effect +2): "
    )
    assert [(r.purpose, r.dice, r.target) for r in rolls] == [("repair beam in Main", [4, 4], "8+")]


def test_TR_19_a_second_computer_hits_die_between_battles_names_no_battle_ship() -> None:
    part = kestrel(thrust=3)
    part["systems"].update(m_drive=1, computer=2)
    _, _, rolls = mend()(part, "Engineering", "m_drive", ScriptedDice([3, 4, 5]))
    assert (rolls[0].purpose, rolls[0].dice, rolls[0].outcome) == ("computer damage DM", [3], "−3")
    assert not rolls[0].ship


def test_TR_22_an_m_drive_repair_is_written_under_the_systems_name() -> None:
    # TR-19: the M-Drive hit took 1 Thrust (4 → 3); the repair gives it back.
    part = kestrel(thrust=3)
    part["systems"]["m_drive"] = 1
    _, text, _ = mend()(part, "Engineering", "m_drive", ScriptedDice([4, 4]))
    assert text == (
        "repairs M-Drive in Engineering (TR-22): 2D 8 + Crew Skill +2 = 10 vs 8+ → success (Effect +2):"
        " M-Drive hits 0, Thrust 4"
    )
