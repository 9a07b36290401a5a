"""The end-of-impulse pain check: bands, rise, amount, reaction chart (SH-01, SH-03 … SH-06), GEN-02."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.rules.attack import DamageContext
from app.rules.core import NeedRoll
from app.rules.dice import EnteredDice
from app.rules.registry import RULESETS, Rules
from app.rules.ruleset import Ruleset
from app.rules.shadow.track import reaction_for
from app.rules.systems.sfb import SFB

from .support import EXCALIBUR, KER, YORKTOWN, act, at_impulse, end_impulse, hit, of_kind, pain, sentences


def test_SH_01_track_starts_at_zero_or_the_scenario_level() -> None:
    assert pain(at_impulse()).level == 0
    assert pain(at_impulse(level=6)).level == 6
    assert pain(at_impulse()).reaction == "ZERO"


def test_SH_05_SH_06_seed_worked_example() -> None:
    """SH-05, SH-06: pain 0, 217 damage: rise on 1–5, roll 3 rises, amount 3 → pain 3; reaction succeeds → ZERO."""
    state = at_impulse()
    state, _ = hit(state, 217)
    state, events = end_impulse(state, [3, 3, 2])
    assert sentences(events) == [
        "pain rise chance, band 200–249: 1d6 = 3, needs ≤ 5 → rises",
        "rise amount: 1d6 = 3 → pain 3",
        "reaction chance, band 200–249: 1d6 = 2, needs ≤ 5 → pain 3 reads ZERO: no reaction",
    ]
    track = pain(state)
    assert (track.level, track.reaction, track.obligations) == (3, "ZERO", [])
    assert of_kind(events, "pain_check")[0].text == (
        "Ker took 217 damage to armour and internals in turn 1 impulse 1 (most from Excalibur, 217): pain rises 0 → 3."
    )
    assert (
        of_kind(events, "pain_reaction")[0].text
        == "Ker grins and bears it: pain 3 reads ZERO, which is no reaction (nothing changes, SH-06)."
    )


def test_SH_05_modifier_reads_as_in_the_log_style() -> None:
    """150–199: amount 1d6 − 1; a roll of 3 rises by 2."""
    state = at_impulse(level=3)
    state, _ = hit(state, 150)
    state, events = end_impulse(state, [4, 3, 5])
    assert sentences(events)[:2] == [
        "pain rise chance, band 150–199: 1d6 = 4, needs ≤ 4 → rises",
        "rise amount: 1d6 − 1 = 2 → pain 5",
    ]
    assert sentences(events)[2] == "reaction chance, band 150–199: 1d6 = 5, needs ≤ 4 → no reaction"
    assert pain(state).reaction == "ZERO"


def test_SH_03_under_25_no_check_at_all() -> None:
    state = at_impulse()
    state, _ = hit(state, 24)
    state, events = end_impulse(state, [])
    assert sentences(events) == []
    assert of_kind(events, "pain_check")[0].text == (
        "Ker took 24 damage to armour and internals in turn 1 impulse 1: under 25, no pain check."
    )
    assert pain(state).damage_total == 0


def test_SH_03_damage_from_all_sources_adds_up_and_is_cleared() -> None:
    state = at_impulse()
    state, _ = hit(state, 12, source=EXCALIBUR, direction="fore")
    state, _ = hit(state, 13, source=YORKTOWN, direction="port")
    track = pain(state)
    assert (track.damage_total, track.damage_by_source, track.damage_by_direction) == (
        25,
        {EXCALIBUR: 12, YORKTOWN: 13},
        {"fore": 12, "port": 13},
    )
    state, events = end_impulse(state, [2])
    assert sentences(events) == ["pain rise chance, band 25–49: 1d6 = 2, needs ≤ 1 → no rise"]
    track = pain(state)
    assert (track.damage_total, track.damage_by_source, track.level) == (0, {}, 0)
    assert (track.last_check.total, track.last_check.most_damage) == (25, YORKTOWN)


BAND_EDGES = [
    (25, "25–49", 1, -4),
    (49, "25–49", 1, -4),
    (50, "50–99", 2, -3),
    (99, "50–99", 2, -3),
    (100, "100–149", 3, -2),
    (149, "100–149", 3, -2),
    (150, "150–199", 4, -1),
    (199, "150–199", 4, -1),
    (200, "200–249", 5, 0),
    (249, "200–249", 5, 0),
    (250, "250+", 6, 1),
]


@pytest.mark.parametrize(("amount", "label", "chance", "modifier"), BAND_EDGES)
def test_SH_04_SH_05_band_edges_rise_on_the_chance(
    amount: int, label: str, chance: int, modifier: int
) -> None:
    state = at_impulse()
    state, _ = hit(state, amount)
    state, events = end_impulse(state, [chance, 6, 6])
    expected_rise = max(6 + modifier, 1)
    level = reaction_for(expected_rise)
    reads = (
        f"pain {expected_rise} reads ZERO: no reaction"
        if level == "ZERO"
        else f"reacts at pain {expected_rise}: {level}"
    )
    reacts = "no reaction" if chance < 6 else reads
    sign = {1: " + 1", 0: ""}.get(modifier, f" − {-modifier}")
    assert sentences(events)[0] == f"pain rise chance, band {label}: 1d6 = {chance}, needs ≤ {chance} → rises"
    assert sentences(events)[1] == f"rise amount: 1d6{sign} = {6 + modifier} → pain {expected_rise}"
    assert sentences(events)[2] == f"reaction chance, band {label}: 1d6 = 6, needs ≤ {chance} → {reacts}"
    assert pain(state).level == expected_rise


@pytest.mark.parametrize(("amount", "chance"), [(a, c) for a, _, c, _ in BAND_EDGES if c < 6])
def test_SH_04_band_edges_no_rise_above_the_chance(amount: int, chance: int) -> None:
    state = at_impulse()
    state, _ = hit(state, amount)
    state, events = end_impulse(state, [chance + 1])
    assert sentences(events)[0].endswith(f"1d6 = {chance + 1}, needs ≤ {chance} → no rise")
    assert pain(state).level == 0


def test_SH_05_rise_is_at_least_one() -> None:
    state = at_impulse(level=2)
    state, _ = hit(state, 30)
    state, events = end_impulse(state, [1, 2, 2])
    assert sentences(events)[1] == "rise amount: 1d6 − 4 = -2 → at least 1 → pain 3"
    assert pain(state).level == 3


@pytest.mark.parametrize(
    ("level", "reaction"),
    [(4, "ZERO"), (5, "ONE"), (6, "ONE"), (7, "TWO"), (8, "TWO"), (9, "THREE"), (11, "THREE")]
    + [(12, "FOUR"), (13, "FOUR"), (14, "FIVE"), (15, "FIVE"), (16, "DEATH")],
)
def test_SH_06_chart_edges_on_the_new_level(level: int, reaction: str) -> None:
    """250+ damage: amount 1d6 + 1; a roll of 1 adds 2, so the ship starts 2 below the level tested."""
    assert reaction_for(level) == reaction
    state = at_impulse(level=level - 2)
    state, _ = hit(state, 250)
    dice = [6, 1] if level == 16 else [6, 1, 6] + ([4] if reaction == "FIVE" else [])
    state, events = end_impulse(state, dice)
    track = pain(state)
    assert (track.level, track.reaction) == (level, reaction)


def test_SH_06_whole_chart() -> None:
    assert [reaction_for(level) for level in range(17)] == (
        ["ZERO"] * 5 + ["ONE"] * 2 + ["TWO"] * 2 + ["THREE"] * 3 + ["FOUR"] * 2 + ["FIVE"] * 2 + ["DEATH"]
    )


def test_SH_06_no_reaction_roll_without_a_rise() -> None:
    state = at_impulse(level=6)
    state, _ = hit(state, 100)
    state, events = end_impulse(state, [4])
    assert len(sentences(events)) == 1
    assert pain(state).reaction == "ZERO"


def test_SH_03_shield_absorbed_points_do_not_hurt() -> None:
    def shield(ctx: DamageContext) -> None:
        ctx.absorbed += 30
        ctx.remaining -= 30

    # A battle whose system adds a ruleset with one shield stage before the sheet.
    shields = Ruleset("test-shields", "Test shields", damage_filters=(shield,))
    system = replace(SFB, rulesets=(*SFB.rulesets, shields.key))
    state = Rules([system], [*RULESETS, shields]).game("sfb").bind(at_impulse())
    state, events = hit(state, 54)
    assert events[0].data["absorbed"] == 30
    assert pain(state).damage_total == 24
    state, events = end_impulse(state, [])
    assert pain(state).level == 0
    assert "under 25, no pain check" in of_kind(events, "pain_check")[0].text


def test_GEN_02_SH_05_physical_dice_ask_for_the_missing_roll() -> None:
    state = at_impulse()
    state, _ = hit(state, 217)
    with pytest.raises(NeedRoll) as need:
        act(state, "clock.advance", {}, EnteredDice([3]))
    assert need.value.as_dict() == {"sides": 6, "purpose": "rise amount", "ship": KER, "index": 1}
    state, events = act(state, "clock.advance", {}, EnteredDice([3, 3, 2]))
    assert pain(state).level == 3


def test_SH_03_b5wars_combat_step_counts_as_one_impulse() -> None:
    state = at_impulse("b5wars")
    assert state.clock.step == "combat"
    state, _ = hit(state, 120)
    state, _ = hit(state, 97, source=YORKTOWN)
    state, events = end_impulse(state, [3, 3, 2])
    assert sentences(events)[:2] == [
        "pain rise chance, band 200–249: 1d6 = 3, needs ≤ 5 → rises",
        "rise amount: 1d6 = 3 → pain 3",
    ]
    assert of_kind(events, "pain_check")[0].text.startswith(
        "Ker took 217 damage to armour and internals in turn 1 ("
    )
    assert pain(state).level == 3
