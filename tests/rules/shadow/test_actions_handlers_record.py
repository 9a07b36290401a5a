"""Everything the Shadow commander's actions write down (SH-09, SH-11, SH-12, SH-14, SH-16): the whole
event each one logs, and the obligation each one opens or closes with its reason and turn, now that
mutation testing reaches the handlers' bodies.

Every number is the seed's (seed 000): 250+ damage rises and reacts on any 1d6 and rises by D6+1;
FIVE must try to phase out "as soon as ship is 10 hexes from the nearest enemy ship", and if that is
impossible "MUST phase out by plotting so in the next Energy Allocation Phase".
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import REFEREE, Event, RuleError

from .support import (
    EXCALIBUR,
    KER,
    PLAYER,
    YORKTOWN,
    act,
    advance,
    at_impulse,
    end_impulse,
    hit,
    pain,
    until_step,
)
from .test_branches_actions import with_reaction
from .test_hooks_handlers_record import owing_plotted_phase_out


def _reacted(level: int) -> Any:
    """Ker at `level` takes 250 from Excalibur in turn 1 impulse 1: rise on 6, amount 1 + 1 = 2,
    reaction on 6 — the chart level of `level + 2`."""
    state = at_impulse(level=level)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6])
    return state


def _owed_phase_out(rng: int = 12, level: int = 14) -> Any:
    """Ker panicked (pain `level`, FIVE) in turn 2's Energy Allocation, reporting `rng` hexes."""
    state, _ = act(with_reaction(level), "shadow.report_range", {"ship": KER, "range": rng}, actor=PLAYER)
    return state


def _dump(state: Any, obligation_id: int) -> dict[str, Any]:
    duty = pain(state).find(obligation_id)
    assert duty is not None
    return duty.model_dump()


def test_SH_11_the_speed_plotted_is_logged_against_the_shadow() -> None:
    state, events = act(with_reaction(14), "shadow.plot_speed", {"ship": KER, "speed": 24}, actor=PLAYER)
    assert events == [Event(kind="pain_speed", ship=KER, text="Ker is plotted at speed 24.")]


def test_SH_12_under_ten_hexes_is_logged_with_the_range_only() -> None:
    state, events = act(with_reaction(14), "shadow.report_range", {"ship": KER, "range": 9}, actor=PLAYER)
    assert events == [
        Event(
            kind="pain_range",
            ship=KER,
            text="Ker is 9 hexes from the nearest enemy: under 10, it keeps evading.",
            data={"range": 9},
        )
    ]


def _open_duty(number: int, kind: str, text: str) -> dict[str, Any]:
    """A FIVE-level duty as the part dumps it while open: dated turn 2, until met (SH-12)."""
    return {
        "id": number,
        "kind": kind,
        "level": "FIVE",
        "text": text,
        "target": None,
        "direction": None,
        "since": {"turn": 2, "impulse": None},
        "until": "met",
        "until_turn": None,
        "expired": False,
        "ended": None,
        "ended_turn": None,
    }


def test_SH_12_ten_hexes_opens_the_phase_out_duty_dated_now_until_met() -> None:
    state = _owed_phase_out(10)
    # id 4: after FIVE's HET, fire ban and evasion of turn 1
    assert _dump(state, 4) == _open_duty(
        4, "phase_out", "must attempt to phase out now (10 hexes from the nearest enemy)"
    )


def test_SH_12_an_impossible_phase_out_ends_the_duty_and_owes_a_plotted_one() -> None:
    state, events = act(
        _owed_phase_out(), "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER
    )
    assert events == [
        Event(
            kind="pain_phase_out",
            ship=KER,
            text="Ker cannot phase out now and must plot it at the next Energy Allocation.",
        )
    ]
    ended = _dump(state, 4)
    assert (ended["expired"], ended["ended"], ended["ended_turn"]) == (
        True,
        "phasing out was not possible",
        2,
    )
    assert _dump(state, 5) == _open_duty(
        5, "plot_phase_out", "must plot phasing out at the next Energy Allocation"
    )


def test_SH_12_a_phase_out_met_is_logged_and_ends_the_duty_in_its_turn() -> None:
    state, events = act(
        _owed_phase_out(), "shadow.phase_out", {"ship": KER, "result": "phased_out"}, actor=PLAYER
    )
    assert events == [Event(kind="pain_phase_out", ship=KER, text="Ker phases out and leaves the battle.")]
    ended = _dump(state, 4)
    assert (ended["expired"], ended["ended"], ended["ended_turn"]) == (True, "met: phased out (turn 2)", 2)


def test_SH_12_SH_14_a_plotted_phase_out_still_impossible_after_the_roll_is_only_ended() -> None:
    """SH-12: still impossible through damage, the ship "rolls reaction reduction and continues"; a
    ship that has already rolled (SH-14, once a turn) only ends the duty, and it stays ended. Pain 15
    less 1 is 14, still FIVE, so the plotted duty stands until then."""
    state, _ = act(
        _owed_phase_out(level=15), "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER
    )
    state, _ = act(state, "shadow.reduce_pain", {"ship": KER}, [1], actor=PLAYER)  # pain 15 → 14
    state, events = act(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    assert events == [
        Event(
            kind="pain_phase_out",
            ship=KER,
            text="Ker still cannot phase out through damage; it rolls pain reduction and plays on.",
        )
    ]
    ended = _dump(state, 5)
    assert (ended["expired"], ended["ended"], ended["ended_turn"]) == (
        True,
        "still impossible through damage",
        2,
    )
    assert (pain(state).level, pain(state).active()) == (14, [])


def test_SH_16_a_flinch_marked_done_is_logged_and_dated() -> None:
    """SH-08: pain 3 + 2 = 5 is ONE, a flinch owed away from the fore; marked done in impulse 2."""
    state, events = act(_reacted(3), "shadow.obligation_done", {"ship": KER, "obligation": 1}, actor=PLAYER)
    assert events == [
        Event(
            kind="pain_obligation_done",
            ship=KER,
            text="Ker has done what it must: must move 1 hex away from the damage (damage from fore), "
            "keeping facing.",
        )
    ]
    ended = _dump(state, 1)
    assert (ended["expired"], ended["ended"], ended["ended_turn"]) == (True, "done (turn 1 impulse 2)", 1)


def test_SH_09_the_referee_retargets_and_the_recorded_most_damage_follows() -> None:
    """SH-09 Decision: pain 5 + 2 = 7 is TWO on Excalibur (250 points); the referee names Yorktown,
    and the sheet's most-damaging ship becomes Yorktown with no amount of its own."""
    state, events = act(
        _reacted(5), "shadow.set_target", {"ship": KER, "target": YORKTOWN, "reason": "Excalibur fled"}
    )
    assert events == [
        Event(
            kind="override",
            ship=KER,
            text="⚠ OVERRIDE (Referee): Ker must now target Yorktown instead of Excalibur — “Excalibur fled”",
            data={
                "path": "ships.ker.parts.pain.target",
                "old": EXCALIBUR,
                "new": YORKTOWN,
                "reason": "Excalibur fled",
            },
        )
    ]
    assert (pain(state).most_damage, pain(state).most_damage_amount) == (YORKTOWN, 0)


def _refusal(state: Any, kind: str, payload: dict[str, Any], actor: Any = PLAYER) -> dict[str, Any]:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor=actor)
    return err.value.as_dict()


def test_SH_12_ten_hexes_is_logged_as_the_phase_out_with_its_range() -> None:
    state, events = act(with_reaction(14), "shadow.report_range", {"ship": KER, "range": 10}, actor=PLAYER)
    assert events == [
        Event(
            kind="pain_phase_out",
            ship=KER,
            text="Ker is 10 hexes from the nearest enemy and must attempt to phase out (SH-12).",
            data={"range": 10},
        )
    ]


def test_SH_12_a_plotted_phase_out_owed_takes_no_more_ranges() -> None:
    state, _ = act(_owed_phase_out(), "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    assert _refusal(state, "shadow.report_range", {"ship": KER, "range": 15}) == {
        "field": "ship",
        "reason": "Ker already has to phase out",
    }


def test_SH_12_a_plotted_phase_out_is_refused_outside_energy_allocation_on_its_result() -> None:
    state, _ = act(_owed_phase_out(), "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER)
    state = until_step(state, "end_of_turn")
    assert _refusal(state, "shadow.phase_out", {"ship": KER, "result": "impossible"}) == {
        "field": "result",
        "reason": "phasing out is plotted during Energy Allocation",
    }


def _plotted_at(level: int) -> Any:
    """Ker panicked at pain `level`, owing the plotted phase-out, in turn 2's Energy Allocation."""
    return until_step(advance(owing_plotted_phase_out(level))[0], "energy_allocation")


def test_SH_12_SH_14_still_impossible_at_pain_1_rolls_the_reduction() -> None:
    state, events = act(
        _plotted_at(1), "shadow.phase_out", {"ship": KER, "result": "impossible"}, [1], actor=PLAYER
    )
    assert [e.kind for e in events] == ["pain_phase_out", "pain_reduction"]
    assert pain(state).level == 0


def test_SH_12_SH_14_still_impossible_at_pain_0_has_nothing_to_reduce() -> None:
    state, events = act(
        _plotted_at(0), "shadow.phase_out", {"ship": KER, "result": "impossible"}, actor=PLAYER
    )
    assert [e.kind for e in events] == ["pain_phase_out"]
    assert pain(state).active() == []


def test_SH_16_marking_done_is_refused_on_the_obligation_number() -> None:
    """SH-16: no obligation 9 on the track; FIVE's fire ban (number 2) is a restriction."""
    state = at_impulse(level=12)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6, 2])  # pain 14: FIVE's HET (1) to B, fire ban (2), evasion (3)
    assert _refusal(state, "shadow.obligation_done", {"ship": KER, "obligation": 9}) == {
        "field": "obligation",
        "reason": "Ker has no obligation number 9",
    }
    assert _refusal(state, "shadow.obligation_done", {"ship": KER, "obligation": 2}) == {
        "field": "obligation",
        "reason": "that obligation is a restriction that ends by itself, not a deed to mark done",
    }


def test_SH_09_the_referee_is_refused_on_the_target_field() -> None:
    state = _reacted(5)
    yorktown = {"ship": KER, "target": YORKTOWN, "reason": "Yorktown is closer"}
    assert _refusal(state, "shadow.set_target", {**yorktown, "target": "nobody"}, REFEREE) == {
        "field": "target",
        "reason": "no ship 'nobody' in this battle",
    }
    assert _refusal(state, "shadow.set_target", {**yorktown, "target": KER}, REFEREE) == {
        "field": "target",
        "reason": "a ship cannot be obliged to target itself",
    }
    state, _ = hit(state, 10, source=None, target=YORKTOWN)  # Yorktown's 10 structure boxes gone
    assert _refusal(state, "shadow.set_target", yorktown, REFEREE) == {
        "field": "target",
        "reason": "Yorktown is destroyed",
    }
