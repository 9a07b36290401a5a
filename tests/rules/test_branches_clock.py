"""Readiness (GEN-01) when no ship is left fighting (GEN-04): the clock does not run on by itself,
and a commander already done who then skips is done once, until the impulse named."""

from __future__ import annotations

from .shadow.support import PLAYER, act, at_impulse


def test_GEN_01_GEN_04_a_skip_by_a_commander_already_done_lists_them_once_and_the_clock_waits():
    state = at_impulse()
    state, events = act(state, "step.ready", {}, actor=PLAYER)
    assert [e.text for e in events] == ["Done with Impulse 1/32."]
    for ship in ("ker", "excalibur", "yorktown"):
        state, _ = act(
            state, "override.set", {"path": f"ships.{ship}.destroyed", "value": True, "reason": "test"}
        )
    state, events = act(state, "clock.skip", {"to": 5}, actor=PLAYER)
    assert [e.text for e in events] == ["Done until impulse 5."]
    assert (state.ready, state.ready_until, state.clock.impulse) == (["p-shadow"], {"p-shadow": 5}, 1)
