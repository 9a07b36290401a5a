"""What the turn's hooks record (SH-07, SH-16): an obligation ended by the turn is logged against the
Shadow, and the sheet keeps ended obligations for this turn and the last, then lets them go.

Every number is the seed's (seed 000): 250+ damage rises on 1–6 by 1d6 + 1 and reacts on 1–6; the
chart reads 5–6 ONE and 7–8 TWO; TWO "targets the ship that did the most damage for the next turn".
"""

from __future__ import annotations

from app.rules.core import Event
from app.rules.state import BattleState

from .support import advance, at_impulse, end_impulse, hit, of_kind, pain

# 250+ damage: rise on 1–6 (roll 6), amount 1d6 + 1 (roll 1) = +2, reaction on 1–6 (roll 6).
RISE_TWO_AND_REACT = [6, 1, 6]


def _to_turn(state: BattleState, turn: int) -> tuple[BattleState, list[Event]]:
    """Advance (no damage pending) until `turn` begins, keeping every event on the way."""
    events: list[Event] = []
    while state.clock.turn < turn:
        state, new = advance(state)
        events.extend(new)
    return state, events


def test_SH_07_SH_09_the_angered_target_ending_with_its_turn_is_logged_for_the_shadow() -> None:
    """SH-09: TWO (pain 5 → 7) targets Excalibur "for the next turn", turn 2; as turn 3 begins the
    log says Ker is no longer bound, against Ker."""
    state = at_impulse(level=5)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)
    state, events = _to_turn(state, 3)
    (ended,) = of_kind(events, "pain_obligation_expired")
    assert (ended.ship, ended.text) == (
        "ker",
        "Ker is no longer bound: must target Excalibur next turn (turn 2).",
    )


def test_SH_16_an_ended_obligation_stays_on_the_sheet_through_the_next_turn_only() -> None:
    """SH-16: the sheet shows which obligations have expired. The flinch (pain 3 → 5, ONE) ends in
    turn 1; it is still listed in turn 2, and gone from the track in turn 3."""
    state = at_impulse(level=3)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)
    state, _ = advance(state)  # the movement after the flinch's impulse: it ends in turn 1
    assert [(o.kind, o.expired, o.ended_turn) for o in pain(state).obligations] == [("flinch", True, 1)]
    state, _ = _to_turn(state, 2)
    assert [o.kind for o in pain(state).obligations] == ["flinch"]
    state, _ = _to_turn(state, 3)
    assert pain(state).obligations == []
