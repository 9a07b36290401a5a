"""Fast-forward (GEN-01): quiet SFB impulses pass at once, every hook still firing on the way; the
skip stops after an impulse where something happened (SH-03/SH-04 pain check), and the log gets one
line for the quiet run instead of one per impulse."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError

from .shadow.support import act, at_impulse, hit, pain


def test_GEN_01_SH_03_skip_stops_where_the_pain_check_ran() -> None:
    state = at_impulse(level=0)
    state, _ = hit(state, 217)
    state, events = act(state, "clock.skip", {}, [3, 3, 2])
    assert state.clock.impulse == 2  # impulse 1 ended with a pain check: the skip stops there
    assert pain(state).level == 3
    assert [e.kind for e in events if e.kind == "pain_check"]
    state, events = act(state, "clock.skip", {"to": 10})
    assert [e.text for e in events] == ["Impulses 2–9 pass quietly; Turn 1 · Impulse 10/32 begins."]
    state, events = act(state, "clock.skip", {})
    assert [e.text for e in events] == ["Impulses 10–32 pass quietly; Turn 1 · End of turn begins."]
    assert (state.clock.step, state.clock.impulse) == ("end_of_turn", None)


def test_GEN_01_skip_only_where_a_step_repeats_and_forward() -> None:
    state = at_impulse(level=0)
    with pytest.raises(RuleError) as err:
        act(state, "clock.skip", {"to": 1})
    assert (err.value.field, err.value.message) == ("to", "stop at a later impulse: 2 to 32")
    b5 = at_impulse("b5wars", level=0)
    with pytest.raises(RuleError) as err:
        act(b5, "clock.skip", {})
    assert err.value.message == "Combat has no numbered repeats to skip"
