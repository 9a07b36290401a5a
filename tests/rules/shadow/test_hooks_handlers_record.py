"""What the Energy Allocation hook tells the Shadow's commander (SH-12, SH-14), event by event: the
reduction roll on offer and a plotted phase-out owed, each for the commander's eyes and filed under
the Shadow.

Every number is the seed's (seed 000): 250+ damage rises on 1–6 by 1d6 + 1 and reacts on 1–6; the
chart reads 14–15 FIVE; a FIVE that cannot phase out "MUST phase out by plotting so in the next
Energy Allocation Phase".
"""

from __future__ import annotations

from app.rules.core import Event

from .support import KER, PLAYER, act, advance, of_kind, until_step
from .test_branches_actions import with_reaction

OWNER = {"commander": "p-shadow"}  # the engine names the commander of an owner-only event


def test_SH_12_SH_14_the_next_allocation_offers_the_roll_and_asks_for_the_plotted_phase_out() -> None:
    """Ker panicked at pain 14 in turn 1, 12 hexes out in turn 2, could not phase out: turn 3's
    Energy Allocation reminds its commander of both, pain and reaction unchanged."""
    state = with_reaction(14)
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)
    state, _ = act(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    state = until_step(state, "end_of_turn")
    state, events = advance(state)
    assert of_kind(events, "pain_reminder") == [
        Event(
            kind="pain_reminder",
            ship=KER,
            visibility="owner",
            data=OWNER,
            text="Ker may roll pain reduction this Energy Allocation (pain 14, reaction FIVE).",
        ),
        Event(
            kind="pain_reminder",
            ship=KER,
            visibility="owner",
            data=OWNER,
            text="Ker must plot phasing out this Energy Allocation (SH-12).",
        ),
    ]
