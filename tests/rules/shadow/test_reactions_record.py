"""What a reaction records beyond its first sentence: the direction each move is owed in, whose
roll the panic HET is, the reason and turn written on every obligation a reaction, a reduction or
death ends, and the data the log reads (SH-07 … SH-15).

test_reactions.py and test_reduction.py pin the sentences; these pin the rest of each record, so that
an obligation ended with no turn, a HET with no direction or a Shadow Cutter attack owed to nobody
cannot pass unseen. Every number is the seed's (seed 000): the damage bands and their 1d6 chances,
the reaction chart (5–6 ONE, 7–8 TWO, 9–11 THREE, 12–13 FOUR, 14–15 FIVE, 16 DEATH), FOUR's speed
+5 and FIVE's +8 (maximum 50), DEATH's speed 1 at most, FIVE's D6 HET direction.
"""

from __future__ import annotations

from typing import Any

from app.rules.shadow.track import When
from app.rules.state import BattleState

from .support import (
    EXCALIBUR,
    KER,
    PLAYER,
    YORKTOWN,
    act,
    active,
    at_impulse,
    end_impulse,
    hit,
    of_kind,
    pain,
    until_step,
)

# 250+ damage: rise on 1–6 (roll 6), amount 1d6 + 1 (roll 1) = +2, reaction on 1–6 (roll 6).
RISE_TWO_AND_REACT = [6, 1, 6]


def _reduce(state: BattleState, roll: int) -> tuple[BattleState, list[Any]]:
    return act(state, "shadow.reduce_pain", {"ship": KER}, [roll], actor=PLAYER)


def _reacted_in_turn_1(level: int, source: str = EXCALIBUR, het: list[int] | None = None) -> BattleState:
    """From pain `level` − 2, 250 damage from `source` in turn 1 impulse 1: pain `level`, reacting."""
    state = at_impulse(level=level - 2)
    state, _ = hit(state, 250, source=source)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT + (het or []))
    assert pain(state).level == level
    return state


def test_SH_08_a_flinch_from_damage_of_no_recorded_direction_names_none() -> None:
    """SH-08: the flinch is "1 hex away from the direction that damage was taken from"; when no
    direction was entered, the words name none (and the obligation records none)."""
    state = at_impulse(level=3)
    state, _ = hit(state, 250, direction=None)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)  # pain 5: ONE
    (flinch,) = pain(state).active()
    assert (flinch.kind, flinch.direction, flinch.text) == (
        "flinch",
        None,
        "must move 1 hex away from the damage, keeping facing",
    )


def test_SH_08_SH_11_the_flinch_and_the_fearful_het_record_the_damage_direction() -> None:
    """SH-08: the flinch moves away from the direction of the damage (port); SH-11: FOUR's HET is
    "directly away from the damage" (aft) — each obligation keeps its direction for the sheet."""
    state = at_impulse(level=3)
    state, _ = hit(state, 250, direction="port")
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)  # pain 5: ONE
    assert [(o.kind, o.direction) for o in pain(state).active()] == [("flinch", "port")]
    state = at_impulse(level=10)
    state, _ = hit(state, 250, direction="aft")
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)  # pain 12: FOUR
    assert [(o.kind, o.direction) for o in pain(state).active()] == [("het_away", "aft"), ("evasion", None)]


def test_SH_11_the_fearful_reaction_lists_both_duties_and_the_speed() -> None:
    """SH-11: FOUR — a HET directly away (always succeeds), evasion plotting until the end of the
    turn, speed +5: pain 10 → 12 at speed 20 goes to 25; the log says all three, in that order."""
    state = at_impulse(level=10, speed=20)
    state, _ = hit(state, 250, direction="aft")
    state, events = end_impulse(state, RISE_TWO_AND_REACT)
    (reaction,) = of_kind(events, "pain_reaction")
    assert reaction.text == (
        "Ker is fearful — reaction FOUR: must HET directly away from the damage (damage from aft) at once; it always "
        "succeeds; evasion plotting: must increase the range from every enemy ship, using an allotted HET only when "
        "its movement would not take it further away (until the end of turn 1); speed 20 → 25."
    )


def test_SH_12_the_panic_het_is_the_shadows_roll_and_its_direction_is_recorded() -> None:
    """SH-12: FIVE HETs "in a random direction (D6)": a 4 is direction D, rolled for the Shadow;
    speed +8, "maximum 50": 20 → 28."""
    state = at_impulse(level=12, speed=20)
    state, _ = hit(state, 250)
    state, events = end_impulse(state, RISE_TWO_AND_REACT + [4])  # pain 14: FIVE; HET die 4
    track = pain(state)
    assert (track.level, track.reaction, track.speed) == (14, "FIVE", 28)
    (reaction,) = of_kind(events, "pain_reaction")
    het_roll = reaction.rolls[1]
    assert (het_roll.ship, het_roll.total, het_roll.outcome) == (KER, 4, "direction D")
    het = track.active()[0]
    assert (het.kind, het.direction, het.text) == (
        "het_random",
        "D",
        "must HET in direction D (rolled) at once",
    )


def test_SH_09_the_reaction_records_its_level_and_the_ship_that_did_most_damage() -> None:
    """SH-09: TWO targets the ship that did the most damage; the event's data name both, and the
    track notes when the reaction took effect (turn 1 impulse 1)."""
    state = at_impulse(level=5)
    state, _ = hit(state, 250, source=YORKTOWN)
    state, events = end_impulse(state, RISE_TWO_AND_REACT)  # pain 7: TWO
    (reaction,) = of_kind(events, "pain_reaction")
    assert (reaction.ship, reaction.data) == (KER, {"reaction": "TWO", "most_damage": YORKTOWN})
    assert pain(state).reaction_since == When(turn=1, impulse=1)


def test_SH_07_a_superseded_obligation_is_ended_in_the_turn_of_the_new_reaction() -> None:
    """SH-07/SH-11: FOUR lifts THREE's target; the old obligation says by what, and in which turn."""
    state = _reacted_in_turn_1(9)  # THREE on Excalibur; the clock is now at impulse 2
    state, _ = hit(state, 250, direction="aft")
    state, _ = end_impulse(state, [6, 2, 6])  # 1d6 + 1 = 3 → pain 12: FOUR
    target = pain(state).obligations[0]
    assert (target.kind, target.ended, target.ended_turn) == (
        "target",
        "superseded by FOUR (turn 1 impulse 2)",
        1,
    )
    assert pain(state).reaction_since == When(turn=1, impulse=2)


def test_SH_02_SH_13_death_by_shock_ends_even_the_phase_out_and_cuts_speed_2_to_1() -> None:
    """SH-02/SH-13: at pain 16 the ship is dead: "out of the game for all purposes", so even FIVE's
    phase-out duty ends, with the reason and the turn; it "drops ... to a maximum of speed 1" (2 → 1),
    and the death is logged against the Shadow in the seed's terms."""
    bound = {
        "kind": "phase_out",
        "level": "FIVE",
        "text": "must attempt to phase out now (12 hexes from the nearest enemy)",
        "since": {"turn": 1, "impulse": 1},
        "until": "met",
    }
    state = at_impulse(level=14, reaction="FIVE", speed=2, obligations=[bound])
    state, _ = hit(state, 250)
    state, events = end_impulse(state, [6, 1])  # rise on 1–6; 1d6 + 1 = 2 → pain 16
    track = pain(state)
    assert (track.level, track.reaction, track.speed, track.reaction_since) == (
        16,
        "DEATH",
        1,
        When(turn=1, impulse=1),
    )
    (duty,) = track.obligations
    assert (duty.expired, duty.ended, duty.ended_turn) == (True, "the ship is dead", 1)
    (death,) = of_kind(events, "pain_death")
    assert (death.ship, death.text) == (
        KER,
        "Ker dies of shock at pain 16 and is destroyed: it drops to speed 1 at most, its carcass drifts in its "
        "last direction, out of the game for every purpose but left in play to be recovered.",
    )


def test_SH_15_five_to_four_ends_the_old_duties_with_the_step_and_the_turn() -> None:
    """SH-15: "If shift is from FIVE to FOUR, ship is now under level 4 restrictions": FIVE's
    duties end, named by the step, in turn 2 where the reduction was rolled; the reaction is dated then."""
    state = _reacted_in_turn_1(14, het=[2])
    state = until_step(state, "energy_allocation")
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)
    state, _ = _reduce(state, 1)  # pain 13: FOUR
    track = pain(state)
    phase = next(o for o in track.obligations if o.kind == "phase_out")
    assert (phase.ended, phase.ended_turn) == ("reaction fell from FIVE to FOUR", 2)
    assert track.reaction_since == When(turn=2, impulse=None)


def test_SH_15_three_to_two_ends_the_target_and_owes_its_ship_a_cutter_attack() -> None:
    """SH-15: "If the shift is from THREE to TWO, and the target ship is still alive, it is targetted
    for 1 more Shadow Cutter attack": THREE's duty ends (step and turn on it) and the new one is owed
    to Excalibur — so it ends, like THREE's, once Excalibur is destroyed (SH-10)."""
    state = _reacted_in_turn_1(9)
    state = until_step(state, "energy_allocation")
    state, _ = _reduce(state, 2)  # pain 7: TWO
    old, owed = pain(state).obligations
    assert (old.kind, old.ended, old.ended_turn) == ("target", "reaction fell from THREE to TWO", 2)
    assert (owed.kind, owed.target, owed.until) == ("cutter_attack", EXCALIBUR, "met")
    state = until_step(state, "impulse", 1)
    state, _ = hit(state, 5000, source=YORKTOWN, target=EXCALIBUR)
    assert state.ships[EXCALIBUR].destroyed is True
    owed = pain(state).obligations[1]
    assert (owed.expired, owed.ended, owed.ended_turn) == (True, "Excalibur is destroyed", 2)
    assert active(state) == []


def test_SH_15_two_to_one_ends_the_target_with_the_step_and_the_turn() -> None:
    """SH-15: "If the shift is from TWO to ONE, the ship is no longer under restrictions": TWO's
    target (turn 2) ends, named by the step, in turn 2."""
    state = _reacted_in_turn_1(7)
    state = until_step(state, "energy_allocation")
    state, _ = _reduce(state, 1)  # pain 6: ONE
    (old,) = pain(state).obligations
    assert (old.kind, old.ended, old.ended_turn) == ("target", "reaction fell from TWO to ONE", 2)


def test_SH_09_a_referee_moving_the_owed_cutter_attack_rewrites_its_words() -> None:
    """SH-09 decision (the referee may override the target) on SH-15's owed Shadow Cutter attack:
    the obligation keeps its own words, now naming Yorktown."""
    state = _reacted_in_turn_1(9)
    state = until_step(state, "energy_allocation")
    state, _ = _reduce(state, 2)  # pain 7: TWO, one more Cutter attack on Excalibur
    state, _ = act(state, "shadow.set_target", {"ship": KER, "target": YORKTOWN, "reason": "Excalibur fled"})
    assert [(o.kind, o.target, o.text) for o in pain(state).active()] == [
        ("cutter_attack", YORKTOWN, "must target Yorktown for one more Shadow Cutter attack")
    ]


def test_SH_07_an_obligation_ended_by_time_records_its_turn() -> None:
    """SH-07: TWO's target lasts through the next turn; it ends as turn 3 begins, dated turn 3."""
    state = _reacted_in_turn_1(7)
    state = until_step(until_step(state, "energy_allocation"), "impulse", 1)
    state = until_step(state, "energy_allocation")
    assert state.clock.turn == 3
    (old,) = pain(state).obligations
    assert (old.ended, old.ended_turn) == ("end of turn 2", 3)
