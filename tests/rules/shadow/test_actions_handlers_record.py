"""What the Shadow actions record beside their sentences (SH-09, SH-12, SH-14, SH-16): each event
filed under the Shadow, the reason and turn written on a phase-out duty that ends, and the referee's
retargeting refused and recorded on its fields.

Seed 000's chart: pain 14 is FIVE (panicked: phase out once 10+ hexes from the nearest enemy), 9 is
THREE (enraged: target the ship that did the most damage, here Excalibur).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import REFEREE, RuleError
from app.rules.state import BattleState

from .support import EXCALIBUR, KER, PLAYER, YORKTOWN, act, pain, until_step
from .test_branches_actions import with_reaction


def refusal(
    state: BattleState, kind: str, payload: dict[str, Any], actor: Any = PLAYER
) -> tuple[str | None, str]:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor=actor)
    return err.value.field, err.value.message


def owed_phase_out() -> BattleState:
    """Ker at FIVE in turn 2's Energy Allocation, 12 hexes from the nearest enemy: it must phase out."""
    state, _ = act(with_reaction(14), "shadow.report_range", {"ship": KER, "range": 12}, actor=PLAYER)
    return state


def phase_out(
    state: BattleState, result: str, dice: list[int] | None = None
) -> tuple[BattleState, list[Any]]:
    return act(state, "shadow.phase_out", {"ship": KER, "result": result}, dice or [], actor=PLAYER)


def duty(state: BattleState, kind: str) -> Any:
    return next(o for o in pain(state).obligations if o.kind == kind)


def test_SH_12_phasing_out_ends_the_duty_and_is_filed_under_the_shadow() -> None:
    state, (event,) = phase_out(owed_phase_out(), "phased_out")
    assert (event.kind, event.ship) == ("pain_phase_out", KER)
    assert (duty(state, "phase_out").ended, duty(state, "phase_out").ended_turn) == (
        "met: phased out (turn 2)",
        2,
    )


def test_SH_12_a_phase_out_not_possible_is_plotted_then_still_impossible_plays_on() -> None:
    state, (event,) = phase_out(owed_phase_out(), "impossible")
    assert (event.kind, event.ship) == ("pain_phase_out", KER)
    assert (duty(state, "phase_out").ended, duty(state, "phase_out").ended_turn) == (
        "phasing out was not possible",
        2,
    )
    state = until_step(state, "end_of_turn")
    assert refusal(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}) == (
        "result",
        "phasing out is plotted during Energy Allocation",
    )
    state = until_step(state, "energy_allocation")
    state, events = phase_out(state, "impossible", [1])
    assert (events[0].kind, events[0].ship) == ("pain_phase_out", KER)
    assert (duty(state, "plot_phase_out").ended, duty(state, "plot_phase_out").ended_turn) == (
        "still impossible through damage",
        3,
    )


def test_SH_09_the_referees_retarget_is_an_override_on_the_shadow() -> None:
    payload = {"ship": KER, "target": YORKTOWN, "reason": "Yorktown fired the torpedo"}
    state, (event,) = act(with_reaction(9), "shadow.set_target", payload)
    assert (event.kind, event.ship) == ("override", KER)
    assert event.text == (
        "⚠ OVERRIDE (Referee): Ker must now target Yorktown instead of Excalibur — “Yorktown fired the torpedo”"
    )
    assert event.data == {
        "path": "ships.ker.parts.pain.target",
        "old": EXCALIBUR,
        "new": YORKTOWN,
        "reason": "Yorktown fired the torpedo",
    }
    assert (pain(state).most_damage, pain(state).most_damage_amount) == (YORKTOWN, 0)


@pytest.mark.parametrize(
    ("target", "message"),
    [("nobody", "no ship 'nobody' in this battle"), (KER, "a ship cannot be obliged to target itself")],
)
def test_SH_09_the_referee_names_another_ship_in_the_battle(target: str, message: str) -> None:
    payload = {"ship": KER, "target": target, "reason": "a ruling"}
    assert refusal(with_reaction(9), "shadow.set_target", payload, REFEREE) == ("target", message)


def test_SH_16_an_unknown_number_is_refused_on_the_obligation() -> None:
    """THREE → TWO with Excalibur alive owes one Shadow Cutter attack (SH-15): a deed to mark done;
    number 99 is none of Ker's."""
    state, _ = act(with_reaction(11), "shadow.reduce_pain", {"ship": KER}, [6], actor=PLAYER)
    assert refusal(state, "shadow.obligation_done", {"ship": KER, "obligation": 99}) == (
        "obligation",
        "Ker has no obligation number 99",
    )


def test_SH_14_a_plotted_speed_is_filed_under_the_shadow() -> None:
    state = until_step(with_reaction(9), "energy_allocation")
    _, (event,) = act(state, "shadow.plot_speed", {"ship": KER, "speed": 12}, actor=PLAYER)
    assert (event.kind, event.ship, event.text) == ("pain_speed", KER, "Ker is plotted at speed 12.")


@pytest.mark.parametrize(("rng", "kind"), [(9, "pain_range"), (12, "pain_phase_out")])
def test_SH_12_a_range_report_is_filed_under_the_shadow(rng: int, kind: str) -> None:
    """Under 10 hexes FIVE keeps evading; at 10 or more it must phase out."""
    _, (event,) = act(with_reaction(14), "shadow.report_range", {"ship": KER, "range": rng}, actor=PLAYER)
    assert (event.kind, event.ship, event.data) == (kind, KER, {"range": rng})


def test_SH_09_a_destroyed_ship_is_refused_on_the_target() -> None:
    state, _ = act(
        with_reaction(9),
        "override.set",
        {"path": "ships.yorktown.destroyed", "value": True, "reason": "test"},
    )
    payload = {"ship": KER, "target": YORKTOWN, "reason": "a ruling"}
    assert refusal(state, "shadow.set_target", payload, REFEREE) == ("target", "Yorktown is destroyed")


def test_SH_16_the_owed_cutter_attack_marked_done_is_filed_under_the_shadow() -> None:
    state, _ = act(with_reaction(11), "shadow.reduce_pain", {"ship": KER}, [6], actor=PLAYER)
    number = duty(state, "cutter_attack").id
    _, (event,) = act(state, "shadow.obligation_done", {"ship": KER, "obligation": number}, actor=PLAYER)
    assert (event.kind, event.ship) == ("pain_obligation_done", KER)
