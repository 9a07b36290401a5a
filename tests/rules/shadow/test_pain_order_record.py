"""The impulse's pain check walks every ship (SH-03): a ship with no pain track, added before the
Shadow, does not stop the Shadow's check.

Seed 000's figures: at 25–49 damage the level rises on a 1 only; a 2 leaves the pain where it was.
"""

from __future__ import annotations

from app.rules import new_battle

from .support import KER, act, advance, end_impulse, federation, hit, of_kind, pain, tough_shadow


def test_SH_03_a_ship_without_a_pain_track_first_does_not_stop_the_shadows_check() -> None:
    state = new_battle("sfb")
    for definition, owner in ((federation("Excalibur"), "p-fed"), (tough_shadow(3), "p-shadow")):
        state, _ = act(state, "ship.add", {"definition": definition, "owner": owner})
    state, _ = advance(state)  # impulse 1
    state, _ = hit(state, 30)
    state, events = end_impulse(state, [2])
    (check,) = of_kind(events, "pain_check")
    assert (check.ship, check.data["band"], check.data["new"]) == (KER, "25–49", 3)
    assert pain(state).level == 3
