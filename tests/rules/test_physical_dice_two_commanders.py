"""GEN-02 physical dice at a step's end that needs the dice of two commanders' ships: the first
commander's dice leave the end waiting for the second's, and only the second's end the step."""

from __future__ import annotations

from app.rules import new_battle
from app.rules.core import Actor
from app.rules.dice import EnteredDice
from app.rules.state import BattleState

from .shadow.support import act, advance, federation, hit, pain, tough_shadow

KER = Actor("p-ker", "player", frozenset({"ker"}))
ZHA = Actor("p-zha", "player", frozenset({"zha"}))
FED = Actor("p-fed", "player", frozenset({"excalibur"}))
# SH-03/SH-04/SH-05/SH-06 at 60 damage (band 50–99): rise 1d6 2 (≤ 2) → amount 1d6 6 − 3 = 3 →
# pain 3; reaction 1d6 1 (≤ 2) at pain 3 reads ZERO, which is no reaction.
CHECK = [2, 6, 1]
WAIT = "Turn 1 · Impulse 1/32 ends once {}'s commander (or the referee) enters 1d6 for pain rise chance, band 50–99."


def two_shadows_hit() -> BattleState:
    """Ker and Zha, two Shadows with two commanders, each took 60 in impulse 1; all are done."""
    state = new_battle("sfb")
    zha = {**tough_shadow(), "name": "Zha"}
    for definition, owner in ((tough_shadow(), KER), (zha, ZHA), (federation("Excalibur"), FED)):
        state, _ = act(state, "ship.add", {"definition": definition, "owner": owner.participant_id})
    state, _ = advance(state, 1)
    state, _ = hit(state, 60, target="ker")
    state, _ = hit(state, 60, target="zha")
    for seat in (KER, ZHA):
        state, _ = act(state, "step.ready", {}, EnteredDice([]), seat)
    state, events = act(state, "step.ready", {}, EnteredDice([]), FED)
    assert events[-1].text == WAIT.format("Ker")
    return state


def test_GEN_02_the_first_commanders_dice_leave_the_end_waiting_for_the_second() -> None:
    state = two_shadows_hit()
    state, events = act(state, "step.roll", {}, EnteredDice(CHECK), KER)
    assert [e.text for e in events] == [WAIT.format("Zha")]
    assert state.rolling is not None and (state.rolling.ship, state.rolling.dice) == ("zha", CHECK)
    assert state.clock.impulse == 1 and pain(state, "ker").level == 0  # nothing of the end happened yet
    assert state.game.awaited(state) == ["p-zha"]

    state, events = act(state, "step.roll", {}, EnteredDice(CHECK), ZHA)
    assert state.rolling is None and state.clock.impulse == 2
    assert (pain(state, "ker").level, pain(state, "zha").level) == (3, 3)
    assert events[-1].text == "Turn 1 · Impulse 1/32 ends; Turn 1 · Impulse 2/32 begins."
