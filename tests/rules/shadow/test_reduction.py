"""Pain reduction and the reaction shifting down (SH-14, SH-15), and FIVE's phase-out (SH-12)."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.views import event_for

from .support import (
    EXCALIBUR,
    FED_PLAYER,
    KER,
    PLAYER,
    act,
    active,
    advance,
    at_impulse,
    battle,
    end_impulse,
    hit,
    of_kind,
    pain,
    until_step,
)


def reduce(state, roll: int, actor=PLAYER):
    return act(state, "shadow.reduce_pain", {"ship": KER}, [roll], actor=actor)


def with_reaction(level: int, source: str = EXCALIBUR):
    """Ker reacts at the chart level of `level` in turn 1 impulse 1, then the clock runs to turn 2's
    Energy Allocation (250 damage: amount roll 1 → +2)."""
    state = at_impulse(level=level - 2)
    state, _ = hit(state, 250, source=source)
    state, _ = end_impulse(state, [6, 1, 6] + ([2] if level in (14, 15) else []))
    return until_step(state, "energy_allocation")


def test_SH_14_reduction_is_public_and_floors_at_zero() -> None:
    state = battle(level=4)
    state, events = reduce(state, 6)
    assert pain(state).level == 0
    assert events[0].visibility == "public"
    assert events[0].text == "Ker rolls pain reduction: pain 4 → 0; reaction stays ZERO."
    assert [r.sentence() for r in events[0].rolls] == ["pain reduction: 1d6 = 6 → pain 4 → 0"]
    shown = event_for(events[0], FED_PLAYER)
    assert shown is not None and shown.text == events[0].text


def test_SH_14_once_per_turn_only_in_energy_allocation_and_only_by_the_commander() -> None:
    state = battle(level=9)
    with pytest.raises(RuleError, match="you do not command that ship"):
        reduce(state, 3, actor=FED_PLAYER)
    state, _ = reduce(state, 1)
    with pytest.raises(RuleError, match="already rolled pain reduction this turn"):
        reduce(state, 1)
    state, _ = advance(state)
    with pytest.raises(RuleError, match=r"rolled during Energy Allocation \(SH-14\)"):
        reduce(state, 1)
    state = until_step(until_step(state, "end_of_turn"), "energy_allocation")
    state, _ = reduce(state, 1)
    assert (state.clock.turn, pain(state).level) == (2, 7)


def test_SH_14_b5wars_rolls_in_ship_power() -> None:
    state = battle("b5wars", level=5)
    assert state.clock.step == "ship_power"
    state, events = reduce(state, 2)
    assert pain(state).level == 3


def test_SH_14_reminder_goes_to_the_owner_only() -> None:
    state = battle(level=5)
    state = until_step(state, "end_of_turn")
    state, events = advance(state)
    reminder = of_kind(events, "pain_reminder")
    assert [e.text for e in reminder] == [
        "Ker may roll pain reduction this Energy Allocation (pain 5, reaction ZERO)."
    ]
    assert reminder[0].visibility == "owner"
    assert event_for(reminder[0], FED_PLAYER) is None
    assert event_for(reminder[0], PLAYER) is not None


def test_SH_15_reduction_never_raises_the_reaction() -> None:
    state = battle(level=15)
    state, events = reduce(state, 2)
    assert (pain(state).level, pain(state).reaction) == (13, "ZERO")


def test_SH_15_five_to_four_puts_four_restrictions_on() -> None:
    state = with_reaction(14)
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)
    assert ("phase_out", "FIVE") in active(state)
    state, events = reduce(state, 1)
    assert (pain(state).level, pain(state).reaction) == (13, "FOUR")
    assert active(state) == [("evasion", "FOUR")]
    assert events[0].text == (
        "Ker rolls pain reduction: pain 14 → 13; reaction FIVE → FOUR "
        "(FIVE → FOUR: FOUR's restrictions apply (evasion plotting this turn; it may fire))."
    )


def test_SH_15_four_to_three_lifts_restrictions_without_restoring_the_target() -> None:
    state = with_reaction(12)
    state, _ = reduce(state, 1)
    assert (pain(state).reaction, active(state)) == ("THREE", [])


def test_SH_15_three_to_two_owes_one_more_cutter_attack() -> None:
    state = with_reaction(9)
    state, events = reduce(state, 2)
    track = pain(state)
    assert (track.level, track.reaction) == (7, "TWO")
    assert [o.text for o in track.active()] == ["must target Excalibur for one more Shadow Cutter attack"]
    assert "THREE → TWO: Excalibur is still alive and is owed one more Shadow Cutter attack" in events[0].text


def test_SH_15_three_to_two_with_the_target_dead_owes_nothing() -> None:
    state = with_reaction(9)
    state, _ = hit(state, 5000, source=None, target=EXCALIBUR)
    state, events = reduce(state, 2)
    assert (pain(state).reaction, active(state)) == ("TWO", [])
    assert "THREE → TWO: no restrictions" in events[0].text


def test_SH_15_multi_level_drop_applies_each_step() -> None:
    """FIVE → TWO: FOUR's restrictions come and go; THREE's target was already lifted, so no Cutter."""
    state = with_reaction(15)
    state, events = reduce(state, 6)
    track = pain(state)
    assert (track.level, track.reaction, active(state)) == (9, "THREE", [])
    state = with_reaction(14)
    state, events = reduce(state, 6)
    assert (pain(state).level, pain(state).reaction, active(state)) == (8, "TWO", [])
    assert events[0].text == (
        "Ker rolls pain reduction: pain 14 → 8; reaction FIVE → TWO (FIVE → FOUR: FOUR's restrictions apply "
        "(evasion plotting this turn; it may fire); FOUR → THREE: no restrictions; THREE → TWO: no restrictions)."
    )


def test_SH_15_cutter_attack_survives_a_drop_through_two_and_one() -> None:
    state = with_reaction(11)
    state, events = reduce(state, 6)
    assert (pain(state).level, pain(state).reaction) == (5, "ONE")
    assert active(state) == [("cutter_attack", "TWO")]
    duty = pain(state).active()[0]
    state, events = act(state, "shadow.obligation_done", {"ship": KER, "obligation": duty.id}, actor=PLAYER)
    assert active(state) == []
    assert (
        events[0].text
        == "Ker has done what it must: must target Excalibur for one more Shadow Cutter attack."
    )


def test_SH_15_two_to_one_and_one_to_zero_lift_restrictions() -> None:
    state = at_impulse(level=5)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6])  # pain 7, TWO on Excalibur for turn 2
    state = until_step(state, "energy_allocation")
    state, events = reduce(state, 3)
    assert (pain(state).level, pain(state).reaction, active(state)) == (4, "ZERO", [])
    assert "TWO → ONE: no restrictions; ONE → ZERO: no restrictions" in events[0].text


def test_SH_12_range_report_under_ten_keeps_evading() -> None:
    state = with_reaction(14)
    state, events = act(state, "shadow.report_range", {"ship": KER, "range": 9}, actor=PLAYER)
    assert events[0].text == "Ker is 9 hexes from the nearest enemy: under 10, it keeps evading."
    assert [k for k, _ in active(state)] == []


def test_SH_12_range_only_matters_at_five() -> None:
    state = with_reaction(12)
    with pytest.raises(RuleError, match="not panicked"):
        act(state, "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)


def test_SH_12_phase_out_impossible_then_plotted_then_reduction() -> None:
    state = at_impulse(level=12)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6, 5])
    state, events = act(state, "shadow.report_range", {"ship": KER, "range": 10}, actor=PLAYER)
    assert events[0].text == "Ker is 10 hexes from the nearest enemy and must attempt to phase out (SH-12)."
    state, events = act(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    assert [o.text for o in pain(state).active() if o.kind == "plot_phase_out"] == [
        "must plot phasing out at the next Energy Allocation"
    ]
    state = until_step(state, "end_of_turn")
    state, events = advance(state)
    assert [e.text for e in of_kind(events, "pain_reminder")][1] == (
        "Ker must plot phasing out this Energy Allocation (SH-12)."
    )
    assert active(state) == [("plot_phase_out", "FIVE")]  # outlasts the turn, unlike FIVE's fire ban
    state, events = act(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}, [4], actor=PLAYER)
    assert [e.kind for e in events] == ["pain_phase_out", "pain_reduction"]
    assert (pain(state).level, pain(state).reaction, active(state)) == (10, "THREE", [])


def test_SH_12_phase_out_met() -> None:
    state = with_reaction(14)
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 15}, actor=PLAYER)
    state, events = act(state, "shadow.phase_out", {"ship": KER, "result": "phased_out"}, actor=PLAYER)
    assert events[0].text == "Ker phases out and leaves the battle."
    assert (pain(state).phased_out, active(state)) == (True, [])
    assert pain(state).obligations[-1].ended == "met: phased out (turn 2)"


def test_SH_11_SH_12_speed_is_plotted_in_energy_allocation() -> None:
    state = battle()
    state, events = act(state, "shadow.plot_speed", {"ship": KER, "speed": 24}, actor=PLAYER)
    assert (pain(state).speed, events[0].text) == (24, "Ker is plotted at speed 24.")
    with pytest.raises(RuleError):
        act(state, "shadow.plot_speed", {"ship": KER, "speed": 51}, actor=PLAYER)
    state, _ = advance(state)
    with pytest.raises(RuleError, match="plotted during Energy Allocation"):
        act(state, "shadow.plot_speed", {"ship": KER, "speed": 10}, actor=PLAYER)


def test_SH_08_restrictions_cannot_be_marked_done() -> None:
    state = with_reaction(12)
    state, _ = advance(state)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6, 1])  # pain 14, FIVE
    no_fire = next(o for o in pain(state).active() if o.kind == "no_fire")
    with pytest.raises(RuleError, match="restriction that ends by itself"):
        act(state, "shadow.obligation_done", {"ship": KER, "obligation": no_fire.id}, actor=PLAYER)


def test_SH_06_a_successful_roll_reading_ZERO_is_no_reaction_and_ends_no_owed_attack() -> None:
    """SH-06 Decision: pain 9 (THREE on Excalibur) reduced by 6 to 3 owes one more Shadow Cutter attack
    (SH-15); next turn 25 points raise pain 3 → 4 and the reaction roll succeeds, but pain 4 reads
    ZERO: no reaction. Nothing takes effect, and the owed attack stays owed."""
    state = with_reaction(9)
    state, _ = reduce(state, 6)
    assert (pain(state).level, pain(state).reaction, active(state)) == (3, "ZERO", [("cutter_attack", "TWO")])
    before = pain(state).model_dump()
    state = until_step(state, "impulse", 1)
    state, _ = hit(state, 25)
    state, events = end_impulse(state, [1, 5, 1])  # rise 1 ≤ 1; 1d6 − 4 = 1; reaction 1 ≤ 1
    assert [r.sentence() for e in events for r in e.rolls] == [
        "pain rise chance, band 25–49: 1d6 = 1, needs ≤ 1 → rises",
        "rise amount: 1d6 − 4 = 1 → pain 4",
        "reaction chance, band 25–49: 1d6 = 1, needs ≤ 1 → pain 4 reads ZERO: no reaction",
    ]
    assert of_kind(events, "pain_reaction")[0].text == (
        "Ker grins and bears it: pain 4 reads ZERO, which is no reaction (nothing changes, SH-06)."
    )
    track = pain(state)
    assert (track.level, track.reaction, active(state)) == (4, "ZERO", [("cutter_attack", "TWO")])
    assert (track.model_dump()["reaction_since"], track.last_reaction_turn) == (before["reaction_since"], 1)
    assert [o.text for o in track.active()] == ["must target Excalibur for one more Shadow Cutter attack"]
