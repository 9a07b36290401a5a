"""Reactions, their obligations and when those end (SH-07 … SH-13, SH-09 decision)."""

from __future__ import annotations

from app.rules.state import BattleState

from .support import (
    EXCALIBUR,
    YORKTOWN,
    active,
    advance,
    at_impulse,
    end_impulse,
    hit,
    of_kind,
    pain,
    until_step,
)


def react_to(state: BattleState, level: int, source: str = EXCALIBUR, direction: str = "fore") -> BattleState:
    """From pain level − 2, take 250 from `source` and react: amount roll 1 (+1) = 2."""
    state, _ = hit(state, 250, source=source, direction=direction)
    dice = [6, 1, 6] + ([3] if level in (14, 15) else [])
    state, events = end_impulse(state, dice)
    assert pain(state).level == level
    return state


def test_SH_08_flinch_away_from_the_damage_keeping_facing() -> None:
    state = react_to(at_impulse(level=3), 5, direction="port")
    track = pain(state)
    assert track.reaction == "ONE"
    assert [o.text for o in track.active()] == [
        "must move 1 hex away from the damage (damage from port), keeping facing"
    ]


def test_SH_08_SH_07_flinch_is_owed_in_the_next_movement_then_ends() -> None:
    state = react_to(at_impulse(level=3), 5)  # reacts as impulse 1 ends
    assert (state.clock.impulse, active(state)) == (2, [("flinch", "ONE")])
    state, events = advance(state)  # impulse 2, where the flinch was owed, ends
    assert active(state) == []
    assert of_kind(events, "pain_obligation_expired")[0].text == (
        "Ker is no longer bound: must move 1 hex away from the damage (damage from fore), keeping facing."
    )
    assert pain(state).reaction == "ONE"  # the level persists (SH-07)


def test_SH_09_most_damage_is_the_largest_single_source_of_that_impulse() -> None:
    state = at_impulse(level=5)
    state, _ = hit(state, 100, source=EXCALIBUR)
    state, _ = hit(state, 90, source=YORKTOWN)
    state, _ = hit(state, 60, source=YORKTOWN)
    state, events = end_impulse(state, [6, 1, 6])
    track = pain(state)
    assert (track.reaction, track.most_damage, track.most_damage_amount) == ("TWO", YORKTOWN, 150)
    assert [o.text for o in track.active()] == ["must target Yorktown next turn (turn 2)"]
    assert (
        of_kind(events, "pain_reaction")[0].text
        == "Ker is angered — reaction TWO: must target Yorktown next turn (turn 2)."
    )


def test_SH_07_SH_09_angered_target_lasts_through_the_next_turn() -> None:
    state = react_to(at_impulse(level=5), 7)
    state = until_step(state, "energy_allocation")
    assert state.clock.turn == 2
    assert active(state) == [("target", "TWO")]
    state = until_step(until_step(state, "impulse", 1), "energy_allocation")
    assert state.clock.turn == 3
    track = pain(state)
    assert active(state) == []
    assert (track.obligations[0].ended, track.reaction) == ("end of turn 2", "TWO")


def test_SH_10_enraged_until_the_target_is_destroyed() -> None:
    state = react_to(at_impulse(level=7), 9)
    assert [o.text for o in pain(state).active()] == ["must target Excalibur until it is destroyed"]
    state = until_step(until_step(state, "energy_allocation"), "impulse", 5)
    assert state.clock.turn == 2 and active(state) == [("target", "THREE")]
    state, _ = hit(state, 5000, source=YORKTOWN, target=EXCALIBUR)
    assert state.ships[EXCALIBUR].destroyed
    assert active(state) == []
    assert pain(state).obligations[0].ended == "Excalibur is destroyed"


def test_SH_11_fearful_het_away_speed_and_evasion_lifting_the_target() -> None:
    """SH-11: FOUR — a HET directly away from the damage, speed +5, evasion plotting, target lifted."""
    state = react_to(at_impulse(level=8, speed=20), 10)
    state, _ = hit(state, 250, direction="aft")
    state, events = end_impulse(state, [6, 1, 6])
    track = pain(state)
    assert (track.level, track.reaction, track.speed) == (12, "FOUR", 25)
    assert active(state) == [("het_away", "FOUR"), ("evasion", "FOUR")]
    assert track.obligations[0].ended == "superseded by FOUR (turn 1 impulse 2)"
    assert (
        track.active()[0].text
        == "must HET directly away from the damage (damage from aft) at once; it always succeeds"
    )
    assert "speed 20 → 25" in of_kind(events, "pain_reaction")[0].text


def test_SH_11_speed_is_capped_at_50() -> None:
    state = react_to(at_impulse(level=10, speed=48), 12)
    assert pain(state).speed == 50


def test_SH_07_evasion_ends_with_the_turn() -> None:
    state = react_to(at_impulse(level=10), 12)
    state = until_step(state, "energy_allocation")
    track = pain(state)
    assert active(state) == []
    assert [o.ended for o in track.obligations] == [
        "due in the movement after turn 1 impulse 1",
        "end of turn 1",
    ]


def test_SH_12_panicked_random_het_no_fire_and_evasion() -> None:
    state = at_impulse(level=12, speed=45)
    state, _ = hit(state, 250)
    state, events = end_impulse(state, [6, 1, 6, 3])
    track = pain(state)
    assert (track.level, track.reaction, track.speed) == (14, "FIVE", 50)
    assert [o.text for o in track.active()] == [
        "must HET in direction C (rolled) at once",
        "cannot fire for the rest of turn 1",
        "evasion plotting: must increase the range from every enemy ship, using an allotted HET only when its "
        "movement would not take it further away (until the end of turn 1)",
    ]
    assert [r.sentence() for r in of_kind(events, "pain_reaction")[0].rolls][1] == (
        "panic HET direction: 1d6 = 3 → direction C"
    )


def test_SH_07_higher_reaction_overrides_same_level_does_not_within_a_turn() -> None:
    state = react_to(at_impulse(level=5), 7)
    state, _ = advance(state)
    state, _ = hit(state, 30, source=YORKTOWN)
    state, events = end_impulse(state, [1, 5, 1])
    track = pain(state)
    assert (track.level, track.reaction) == (8, "TWO")
    assert [o.target for o in track.active()] == [EXCALIBUR]
    assert of_kind(events, "pain_reaction")[0].text == (
        "Ker reacts at TWO, which does not override its TWO reaction already taken in turn 1 (SH-07)."
    )


def test_SH_07_first_reaction_of_a_new_turn_takes_effect_at_the_standing_level() -> None:
    state = react_to(at_impulse(level=7), 9)  # THREE on Excalibur in turn 1
    state = until_step(until_step(state, "energy_allocation"), "impulse", 3)
    state, _ = hit(state, 25, source=YORKTOWN)
    state, events = end_impulse(state, [1, 5, 1])  # 1d6 − 4 = 1 → pain 10, still THREE
    track = pain(state)
    assert (track.level, track.reaction, track.last_reaction_turn) == (10, "THREE", 2)
    assert [o.text for o in track.active()] == ["must target Yorktown until it is destroyed"]
    assert track.obligations[0].ended == "superseded by THREE (turn 2 impulse 3)"


def test_SH_07_reaction_persists_from_turn_to_turn() -> None:
    state = react_to(at_impulse(level=10), 12)
    state = until_step(until_step(state, "energy_allocation"), "impulse", 1)
    assert (state.clock.turn, pain(state).reaction) == (2, "FOUR")


def test_SH_07_phase_out_duty_outlasts_a_newer_reaction() -> None:
    from .support import act

    state = at_impulse(level=12)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6, 2])
    state, _ = act(state, "shadow.report_range", {"ship": "ker", "range": 11})
    state, _ = hit(state, 25)
    state, _ = end_impulse(state, [1, 5, 1])  # pain 15, FIVE does not override FIVE this turn
    assert ("phase_out", "FIVE") in active(state)


def test_SH_03_SH_07_b5wars_flinch_is_made_in_the_next_movement_step() -> None:
    state = at_impulse("b5wars", level=3)
    state, _ = hit(state, 250, direction="aft")
    state, events = end_impulse(state, [6, 1, 6])  # leaves combat: pain 5, ONE
    assert (state.clock.step, pain(state).reaction, active(state)) == (
        "adjust_systems",
        "ONE",
        [("flinch", "ONE")],
    )
    state = until_step(state, "movement")
    assert (state.clock.turn, active(state)) == (2, [("flinch", "ONE")])
    state, events = advance(state)
    assert (state.clock.step, active(state)) == ("combat", [])
    assert pain(state).obligations[0].ended == "due in the movement after turn 1"
