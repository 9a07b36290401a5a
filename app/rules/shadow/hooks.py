"""Where the Shadow rules meet the turn clock (GEN-01): the pain check at the end of each impulse
(an SFB impulse, or a B5 Wars combat step), obligations ending with movement and with the turn
(SH-07), and the reminder that the reduction roll is available (SH-14)."""

from __future__ import annotations

from app.rules.core import Event
from app.rules.dice import DiceSource
from app.rules.ruleset import hook, mark
from app.rules.shadow.actions import allocation_name
from app.rules.shadow.reactions import expire
from app.rules.shadow.track import PainTrack, living_shadows, now, save
from app.rules.state import BattleState
from app.rules.system import ALLOCATION, MOVEMENT

KEEP_ENDED_TURNS = 1


def _expire_all(state: BattleState, moment: str) -> list[Event]:
    when = now(state)
    events: list[Event] = []
    for ship, track in living_shadows(state):
        for text in expire(state, track, when, moment):
            events.append(
                Event.about(ship, "pain_obligation_expired", f"{ship.name} is no longer bound: {text}.")
            )
        _forget_old(track, when.turn)
        save(ship, track)
    return events


def _forget_old(track: PainTrack, turn: int) -> None:
    """Keep ended obligations for the sheet only while they are recent (this turn and the last)."""
    track.obligations = [
        o for o in track.obligations if not o.expired or (o.ended_turn or turn) >= turn - KEEP_ENDED_TURNS
    ]


def new_turn(state: BattleState, dice: DiceSource) -> list[Event]:
    """SH-07: end-of-turn restrictions and TWO's next-turn target end when their turn is over."""
    return _expire_all(state, "turn")


mark(new_turn, hook("enter", "turn"))


def after_movement(state: BattleState, dice: DiceSource) -> list[Event]:
    """B5 Wars: a flinch or HET owed from the combat step is made in the next movement step."""
    return _expire_all(state, "movement")


mark(after_movement, hook("leave", MOVEMENT))


def offer_reduction(state: BattleState, dice: DiceSource) -> list[Event]:
    """SH-14: tell each commander their pain-reduction roll is available (and any phase-out to plot)."""
    step = allocation_name(state)
    events: list[Event] = []
    for ship, track in living_shadows(state):
        if track.level > 0 and track.reduced_turn != state.clock.turn:
            events.append(
                Event.about(
                    ship,
                    "pain_reminder",
                    f"{ship.name} may roll pain reduction this {step} (pain {track.level}, "
                    f"reaction {track.reaction}).",
                    visibility="owner",
                )
            )
        if any(o.kind == "plot_phase_out" for o in track.active()):
            events.append(
                Event.about(
                    ship,
                    "pain_reminder",
                    f"{ship.name} must plot phasing out this {step} (SH-12).",
                    visibility="owner",
                )
            )
    return events


mark(offer_reduction, hook("enter", ALLOCATION))
