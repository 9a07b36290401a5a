"""What the Energy Allocation hook tells the Shadow's commander (SH-12, SH-14), event by event: the
reduction roll on offer and a plotted phase-out owed, each for the commander's eyes and filed under
the Shadow.

Every number is the seed's (seed 000): the chart reads 14–15 FIVE; the reduction is "D6" (nothing
to reduce at 0); a FIVE that cannot phase out "MUST phase out by plotting so in the next
Energy Allocation Phase".
"""

from __future__ import annotations

from app.rules.core import Event
from app.rules.state import BattleState

from .support import KER, PLAYER, act, advance, battle, of_kind, until_step

OWNER = {"commander": "p-shadow"}  # the engine names the commander of an owner-only event


def test_SH_12_SH_14_the_next_allocation_offers_the_roll_and_asks_for_the_plotted_phase_out() -> None:
    """Ker panicked at pain 14, 12 hexes out in turn 1, could not phase out: turn 2's Energy
    Allocation reminds its commander (only) of both, under Ker."""
    _, events = advance(owing_plotted_phase_out(14))
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


def owing_plotted_phase_out(level: int) -> BattleState:
    """Ker set up panicked at pain `level` (SH-01: a scenario may start the track above 0), 12 hexes
    out in turn 1 and unable to phase out: at turn 1's end, owing the plotted phase-out."""
    state = battle(level=level, reaction="FIVE")
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)
    state, _ = act(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    return until_step(state, "end_of_turn")


def _reminders(level: int) -> list[str]:
    state, events = advance(owing_plotted_phase_out(level))
    return [e.text for e in of_kind(events, "pain_reminder")]


def test_SH_14_pain_1_is_offered_the_reduction_roll() -> None:
    assert _reminders(1) == [
        "Ker may roll pain reduction this Energy Allocation (pain 1, reaction FIVE).",
        "Ker must plot phasing out this Energy Allocation (SH-12).",
    ]


def test_SH_14_pain_0_is_offered_no_reduction_roll() -> None:
    """SH-14: nothing to reduce at 0 (the roll's floor), so only the phase-out is asked for."""
    assert _reminders(0) == ["Ker must plot phasing out this Energy Allocation (SH-12)."]
