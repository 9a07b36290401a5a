"""What a High Guard ship keeps between the battles of a campaign and its repairs there (TR-22,
TR-19, TR-23), driven through the part's own `carry` and `mend` declarations as a campaign calls
them. Expected values from catalogue.md (TR-19 penalties, TR-22 repairs, GEN-05 checks) and
tables.md (Crew Skill and Crew Strength DMs)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.rules import STANDARD
from app.rules.core import RuleError
from app.rules.dice import ScriptedDice
from app.rules.ruleset import Mend
from tests.rules.traveller.helpers import battle, capital, hg

MESON = {"type": "meson", "damage": 280, "name": "Meson Spinal"}


def kestrel(**changes: Any) -> dict[str, Any]:
    """Kestrel's part as the battle left it (crew skill 2: Experienced, +2 DM)."""
    state = battle(capital("Kestrel", spinal=MESON))
    part = copy.deepcopy(hg(state, "kestrel"))
    part.update(changes)
    return part


def engineering(part: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in part["sections"] if s["name"] == "Engineering")


def carry(part: dict[str, Any]) -> dict[str, Any]:
    spec = STANDARD.game("traveller").parts["hg_ship"]
    assert spec.carry is not None
    return spec.carry(copy.deepcopy(part), {})


def mend() -> Mend:
    spec = STANDARD.game("traveller").parts["hg_ship"]
    assert spec.mend is not None
    return spec.mend


def test_TR_19_the_next_battle_keeps_the_damage_and_forgets_the_rounds() -> None:
    """Damage penalties last until repaired (TR-19); the round's orders, the range board, fires,
    breaches, the bridge's one-round grounding, shots fired and one-more-shot do not outlive it."""
    part = kestrel(thrust=3, power=9, initiative_base=7, jumped=2, abandon_round=3, section_lost_round=2)
    part["systems"].update(m_drive=1, power_plant=1, bridge_round=4)
    part["ranges"] = {"kestrel|tigress": {"band": "long"}}
    part["round"]["turn"] = 5
    eng = engineering(part)
    eng.update(hull=eng["hull_max"] - 12, fire={"target": 9, "started": 2}, offline_round=4, breach_round=3)
    part["batteries"][0].update(hits=1, fired={"4": 10}, one_more_shot=4)
    part["spinal"].update(hits=1, one_more_shot=4)

    out = carry(part)

    assert out["systems"]["m_drive"] == 1 and out["thrust"] == 3  # −1 Thrust per M-Drive hit
    assert out["systems"]["power_plant"] == 1 and out["power"] == 9  # first power-plant hit: −1
    assert out["batteries"][0]["hits"] == 1 and out["spinal"]["hits"] == 1
    assert engineering(out)["hull"] == engineering(out)["hull_max"] - 12
    assert engineering(out)["fire"] is None  # put out once the battle is over
    assert engineering(out)["offline_round"] is None and engineering(out)["breach_round"] is None
    assert out["batteries"][0]["fired"] == {} and out["batteries"][0]["one_more_shot"] is None
    assert out["spinal"]["one_more_shot"] is None
    assert out["systems"]["bridge_round"] is None
    assert out["ranges"] == {} and out["round"]["turn"] == 0
    assert (out["initiative_base"], out["jumped"], out["abandon_round"], out["section_lost_round"]) == (
        None,
        None,
        None,
        None,
    )


def test_TR_19_a_ship_without_a_spinal_mount_carries_too() -> None:
    state = battle(capital("Tigress"))
    out = carry(hg(state, "tigress"))
    assert out["spinal"] is None and out["round"]["turn"] == 0


@pytest.mark.parametrize(
    ("hits", "power", "back"),
    [(1, 9, 10), (2, 7, 9)],  # TR-19: Power −1 for the first hit, then −2 more
)
def test_TR_22_a_power_plant_repair_gives_back_what_its_last_hit_took(
    hits: int, power: int, back: int
) -> None:
    part = kestrel(power=power)
    part["systems"]["power_plant"] = hits
    # GEN-05: 2D 8 + Crew Skill +2 (Experienced) = 10 vs 8+: success.
    fixed, text, rolls = mend()(part, "Engineering", "power_plant", ScriptedDice([4, 4]))
    assert fixed["systems"]["power_plant"] == hits - 1 and fixed["power"] == back
    assert text.startswith("repairs ") and "(TR-22)" in text and "success" in text
    assert f"power plant hits {hits - 1}, Power {back}" in text
    assert [r.total for r in rolls] == [10]  # the check's total, DMs included


def test_TR_22_a_power_plant_third_hit_repaired_brings_the_ship_back() -> None:
    """The third power-plant hit disables the whole ship (TR-19); repairing it lifts that."""
    part = kestrel(power=7, disabled=True)
    part["systems"]["power_plant"] = 3
    fixed, text, _ = mend()(part, "Engineering", "power_plant", ScriptedDice([4, 4]))
    assert fixed["systems"]["power_plant"] == 2 and fixed["disabled"] is False and fixed["power"] == 7


def test_TR_22_a_failed_attempt_changes_nothing() -> None:
    part = kestrel(thrust=3)
    part["systems"]["m_drive"] = 1
    # 2D 5 + 2 = 7 vs 8+: failure.
    after, text, _ = mend()(part, "Engineering", "m_drive", ScriptedDice([2, 3]))
    assert after["systems"]["m_drive"] == 1 and after["thrust"] == 3
    assert text.endswith("no progress")


def test_TR_22_TR_23_crew_strength_and_computer_hits_join_the_check() -> None:
    """GEN-05 adds the crew-strength DM (Skeleton −2, tables.md) and TR-19's computer DM (first
    hit −1): 2D 9 + 2 − 2 − 1 = 8 vs 8+ succeeds; 2D 8 would give 7 and fail."""
    part = kestrel(thrust=3, crew_strength="skeleton")
    part["systems"].update(m_drive=1, computer=1)
    fixed, text, _ = mend()(copy.deepcopy(part), "Engineering", "m_drive", ScriptedDice([4, 5]))
    assert "= 8 vs 8+" in text and fixed["systems"]["m_drive"] == 0 and fixed["thrust"] == 4
    failed, text, _ = mend()(copy.deepcopy(part), "Engineering", "m_drive", ScriptedDice([4, 4]))
    assert "= 7 vs 8+" in text and failed["systems"]["m_drive"] == 1


def test_TR_22_TR_19_a_second_computer_hit_rolls_its_d6_for_the_repair() -> None:
    """Computer's second hit: −1d6, rolled afresh for each roll (TR-19); the die is one of the rolls."""
    part = kestrel(thrust=3)
    part["systems"].update(m_drive=1, computer=2)
    # 1d6 3, then 2D 9 + 2 − 3 = 8 vs 8+ (the check's total).
    fixed, text, rolls = mend()(part, "Engineering", "m_drive", ScriptedDice([3, 4, 5]))
    assert [r.total for r in rolls] == [3, 8] and fixed["systems"]["m_drive"] == 0


def test_TR_23_a_dead_crew_makes_no_repairs() -> None:
    part = kestrel(crew_strength="dead")
    part["systems"]["m_drive"] = 1
    with pytest.raises(RuleError) as refused:
        mend()(part, "Engineering", "m_drive", ScriptedDice([6, 6]))
    assert refused.value.field == "ship" and "TR-23" in str(refused.value)


@pytest.mark.parametrize("name", ["Bridge Deck", "Engineering"])
def test_TR_22_only_a_working_section_is_repaired(name: str) -> None:
    part = kestrel()
    part["systems"]["m_drive"] = 1
    engineering(part)["destroyed"] = True
    with pytest.raises(RuleError) as refused:
        mend()(part, name, "m_drive", ScriptedDice([6, 6]))
    assert refused.value.field == "section"


def test_TR_22_the_system_must_sit_in_the_section() -> None:
    """The M-Drive has no slot in the Main section's hit table (tables.md §section hit tables)."""
    part = kestrel()
    part["systems"]["m_drive"] = 1
    with pytest.raises(RuleError) as refused:
        mend()(part, "Main", "m_drive", ScriptedDice([6, 6]))
    assert refused.value.field == "system" and "not in Main" in str(refused.value)


def test_TR_22_an_undamaged_system_has_nothing_to_repair() -> None:
    with pytest.raises(RuleError) as refused:
        mend()(kestrel(), "Engineering", "power_plant", ScriptedDice([6, 6]))
    assert refused.value.field == "system" and "not damaged" in str(refused.value)
