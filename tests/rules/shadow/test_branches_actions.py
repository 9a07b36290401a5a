"""Shadow actions' refusals and quiet paths (SH-02, SH-09, SH-10, SH-12, SH-13, SH-14, SH-15) not
met elsewhere."""

from __future__ import annotations

import pytest

from app.rules.core import REFEREE, RuleError

from .support import (
    EXCALIBUR,
    KER,
    PLAYER,
    YORKTOWN,
    act,
    active,
    at_impulse,
    battle,
    end_impulse,
    hit,
    pain,
    until_step,
)


def with_reaction(level: int, source: str = EXCALIBUR):
    """Ker reacts at the chart level of `level` in turn 1 impulse 1 (250 damage: amount roll 1 → +2),
    then the clock runs to turn 2's Energy Allocation."""
    state = at_impulse(level=level - 2)
    state, _ = hit(state, 250, source=source)
    state, _ = end_impulse(state, [6, 1, 6] + ([2] if level in (14, 15) else []))
    return until_step(state, "energy_allocation")


def refused(state, kind, payload, actor=PLAYER) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor=actor)
    return err.value.message


def test_SH_01_only_a_living_ship_has_pain_to_reduce():
    assert refused(battle(), "shadow.reduce_pain", {"ship": EXCALIBUR}, REFEREE) == (
        "Excalibur is not a living ship: it has no pain track"
    )


def test_SH_12_a_ship_already_bound_to_phase_out_reports_no_more_ranges():
    state = with_reaction(14)
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)
    assert refused(state, "shadow.report_range", {"ship": KER, "range": 15}) == "Ker already has to phase out"


def test_SH_12_there_is_no_phase_out_to_resolve_before_one_is_owed():
    state = with_reaction(14)
    assert refused(state, "shadow.phase_out", {"ship": KER, "result": "phased_out"}) == (
        "Ker has no phase-out to resolve"
    )


def test_SH_12_a_plotted_phase_out_is_resolved_in_energy_allocation():
    state = with_reaction(14)
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)
    state, _ = act(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    state = until_step(state, "end_of_turn")
    assert refused(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}) == (
        "phasing out is plotted during Energy Allocation"
    )


def test_SH_12_SH_14_still_impossible_after_this_turns_reduction_rolls_no_second_one():
    """SH-14 gives one reduction roll a turn; used already, the still-impossible phase-out rolls none."""
    state = with_reaction(15)
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)
    state, _ = act(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    state = until_step(until_step(state, "end_of_turn"), "energy_allocation")
    state, _ = act(state, "shadow.reduce_pain", {"ship": KER}, [1], actor=PLAYER)
    assert (pain(state).level, pain(state).reaction) == (14, "FIVE")
    state, events = act(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    assert [e.kind for e in events] == ["pain_phase_out"]
    assert pain(state).level == 14
    assert ("plot_phase_out", "FIVE") not in active(state)


def test_SH_07_only_an_existing_standing_obligation_is_marked_done():
    state = with_reaction(9)
    assert refused(state, "shadow.obligation_done", {"ship": KER, "obligation": 99}) == (
        "Ker owes no move or attack to mark done: each obligation it has is a restriction that ends by itself"
    )


def test_SH_08_a_flinch_whose_movement_has_passed_is_not_marked_done():
    """The flinch is due in the movement after the impulse it happened in; by turn 2 it has ended."""
    state = with_reaction(5)
    assert refused(state, "shadow.obligation_done", {"ship": KER, "obligation": 1}) == (
        "Ker has no obligation to mark done"
    )


def test_SH_09_the_referee_sets_no_target_that_is_destroyed():
    state = with_reaction(9)
    state, _ = act(
        state, "override.set", {"path": "ships.yorktown.destroyed", "value": True, "reason": "test"}
    )
    payload = {"ship": KER, "target": YORKTOWN, "reason": "it fired the torpedo"}
    assert refused(state, "shadow.set_target", payload, REFEREE) == "Yorktown is destroyed"


def test_SH_15_the_referee_moves_an_owed_cutter_attack_to_another_ship():
    """THREE → TWO with its target alive owes one more Shadow Cutter attack (SH-15); the referee may
    name the ship (SH-09 decision)."""
    state = with_reaction(11)
    state, _ = act(state, "shadow.reduce_pain", {"ship": KER}, [6], actor=PLAYER)
    assert active(state) == [("cutter_attack", "TWO")]
    payload = {"ship": KER, "target": YORKTOWN, "reason": "Yorktown fired the torpedo"}
    state, _ = act(state, "shadow.set_target", payload)
    assert [o.text for o in pain(state).active()] == [
        "must target Yorktown for one more Shadow Cutter attack"
    ]


def test_SH_13_a_ship_already_at_speed_1_or_less_keeps_its_speed_when_it_dies():
    """DEATH: "drops out of warp speed to a maximum of speed 1"; a ship plotted at 0 stays at 0."""
    state = at_impulse(level=14)
    state.ships[KER].parts["pain"]["speed"] = 0
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 6])
    assert pain(state).dead is True and pain(state).speed == 0


def destroy(state, ship: str):
    state, _ = act(
        state, "override.set", {"path": f"ships.{ship}.destroyed", "value": True, "reason": "test"}
    )
    return state


def test_SH_12_with_no_enemy_left_on_the_board_the_range_is_entered():
    state = with_reaction(14)
    state.ships[KER].position = {"hex": "0101"}
    state = destroy(destroy(state, EXCALIBUR), YORKTOWN)
    assert refused(state, "shadow.report_range", {"ship": KER}) == (
        "range: there is no enemy ship on the board; enter the range"
    )


def test_SH_02_SH_13_a_ship_dead_of_shock_acts_no_more_even_if_marked_undestroyed():
    """The corpse stays in play (SH-13) but is out of the game for every purpose (GEN-04)."""
    state = at_impulse(level=14)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 6])
    state, _ = act(
        state, "override.set", {"path": "ships.ker.destroyed", "value": False, "reason": "recovered hulk"}
    )
    assert refused(state, "shadow.plot_speed", {"ship": KER, "speed": 0}) == (
        "Ker is destroyed and takes no further actions (GEN-04)"
    )


def test_SH_14_a_ship_at_pain_0_has_nothing_to_reduce():
    assert (
        refused(battle(), "shadow.reduce_pain", {"ship": KER})
        == "Ker feels no pain: there is nothing to reduce"
    )


def test_SH_07_an_obligation_that_ended_last_turn_is_not_marked_done():
    """Turn 1's FOUR (pain 12) owed a HET away, ended with that turn's movement; in turn 2, 250 more
    damage (+2, pain 14) brings FIVE (SH-06: 14–15) with its own HET. The old HET, still listed on
    the sheet, is refused on its number with the reason it ended."""
    state = with_reaction(12)
    state = until_step(state, "impulse")
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6, 2])
    assert (pain(state).level, pain(state).reaction) == (14, "FIVE")
    with pytest.raises(RuleError) as err:
        act(state, "shadow.obligation_done", {"ship": KER, "obligation": 1}, actor=PLAYER)
    assert (err.value.field, err.value.message) == (
        "obligation",
        "that obligation has already ended (due in the movement after turn 1 impulse 1)",
    )
