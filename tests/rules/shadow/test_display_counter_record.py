"""What a Shadow's pain puts on its map counter (SH-01, SH-08, SH-16): the pain level as a badge
while the ship hurts, and each flinch still owed, with the quadrant the damage came from (or none
when none was entered).

Every number is the seed's (seed 000): 250+ damage rises on 1–6 by 1d6 + 1 and reacts on 1–6; the
chart reads 5–6 ONE, "Shadow 'flinches' by moving 1 hex away from the direction that damage was
taken from".
"""

from __future__ import annotations

from app.rules.counters import Away, Counter
from app.rules.shadow.display import pain_counter
from app.rules.state import BattleState

from .support import KER, at_impulse, battle, end_impulse, hit


def _counter(state: BattleState) -> Counter:
    part = state.ships[KER].part("pain")
    assert part is not None
    return pain_counter(part)


def _flinched(direction: str | None) -> Counter:
    """Ker at pain 3 takes 250 (rise on 6, amount 1 + 1 = 2, reaction on 6): pain 5, ONE."""
    state = at_impulse(level=3)
    state, _ = hit(state, 250, direction=direction)
    state, _ = end_impulse(state, [6, 1, 6])
    return _counter(state)


def test_SH_01_no_pain_puts_nothing_on_the_counter() -> None:
    assert _counter(battle(level=0)) == Counter()


def test_SH_01_pain_1_shows_on_the_counter() -> None:
    counter = _counter(battle(level=1))
    assert counter.badge is not None
    assert (counter.badge.shown(), counter.away) == ({"text": "P1", "title": "pain 1", "kind": "pain"}, ())


def test_SH_08_a_flinch_owed_is_drawn_away_from_the_damage_quadrant() -> None:
    counter = _flinched("aft")
    assert counter.badge is not None and counter.badge.text == "P5"
    assert counter.away == (
        Away("aft", "must move 1 hex away from the damage (damage from aft), keeping facing"),
    )


def test_SH_08_a_flinch_from_no_entered_direction_names_no_quadrant() -> None:
    assert _flinched(None).away == (Away("", "must move 1 hex away from the damage, keeping facing"),)
