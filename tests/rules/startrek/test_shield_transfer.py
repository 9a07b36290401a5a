"""Shield transfers at Adjust Ship Systems (ST-08), ramming with shields (ST-09), and the
invariants of shield absorption (ST-06, ST-16) as properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.core import RuleError
from tests.rules.startrek.helpers import KER, act, advance_to, battle, hit, player, set_value, shields, values

EX = "ships.excelsior.parts.shields"
ME = player("excelsior")


def transfer(state, source: str, target: str, points: int):
    return act(
        state,
        "startrek.transfer_shields",
        {"ship": "excelsior", "source": source, "target": target, "points": points},
        ME,
    )


def at_adjust(fore: int = 40, port: int = 0, starboard: int = 0):
    state = battle("excelsior")
    state = advance_to(state, "combat")
    state = set_value(state, f"{EX}.projections.0.current", fore)
    state = set_value(state, f"{EX}.projections.3.current", port)
    state = set_value(state, f"{EX}.projections.1.current", starboard)
    return advance_to(state, "adjust_systems")


def test_ST_08_half_rounded_down_of_the_opening_value_bounds_all_gifts():
    state = at_adjust(fore=33)
    state, events = transfer(state, "Fore", "Port", 10)
    assert events[0].text == (
        "Excelsior moves 10 shield strength from Fore to Port: Fore 33/40 → 23/40, Port 0/30 → 10/30 (ST-08)."
    )
    state, _ = transfer(state, "Fore", "Starboard", 6)
    assert values(state, "excelsior") == {"Fore": 17, "Starboard": 6, "Aft": 30, "Port": 10}
    with pytest.raises(RuleError) as err:
        transfer(state, "Fore", "Port", 1)
    assert err.value.message == "Fore held 33 when the segment opened: it may give 16 in all, 0 more (ST-08)"


def test_ST_08_only_to_adjacent_projections():
    state = at_adjust()
    with pytest.raises(RuleError) as err:
        transfer(state, "Fore", "Aft", 5)
    assert err.value.message == "Aft is not next to Fore (ST-08)"


def test_ST_08_transfer_larger_than_the_recipients_room_is_refused():
    state = at_adjust(fore=40, port=25)
    with pytest.raises(RuleError) as err:
        transfer(state, "Fore", "Port", 6)
    assert err.value.message == "Port is at 25/30: only 5 more fit (ST-08)"
    state, _ = transfer(state, "Fore", "Port", 5)
    assert values(state, "excelsior")["Port"] == 30


def test_ST_08_not_outside_the_segment_and_not_without_a_generator():
    state = battle("excelsior")
    state = advance_to(state, "combat")
    with pytest.raises(RuleError):
        transfer(state, "Fore", "Port", 1)
    state = at_adjust(fore=40, port=0)
    state = set_value(state, "ships.excelsior.parts.shields.generator_down", True)
    with pytest.raises(RuleError) as err:
        transfer(state, "Fore", "Port", 1)
    assert "generator" in err.value.message


def test_ST_09_ramming_factor_adds_the_in_arc_projection():
    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.0.current", 32)
    state = advance_to(state, "movement")
    state, events = act(
        state, "startrek.ramming_factor", {"ship": "excelsior", "factor": 100, "direction": "fore"}, ME
    )
    assert events[0].data == {"factor": 132}
    assert events[0].text == "Excelsior's ramming factor is 100 + Fore shield 32 = 132 (ST-09)."
    state, events = act(
        state, "startrek.ramming_factor", {"ship": "excelsior", "factor": 100, "direction": "aft"}, ME
    )
    assert events[0].data == {"factor": 130}


hits = st.lists(
    st.tuples(
        st.integers(min_value=1, max_value=120),
        st.sampled_from(["fore", "aft", "port", "starboard"]),
        st.booleans(),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(hits=hits, start=st.integers(min_value=0, max_value=40))
def test_ST_06_ST_16_property_projections_stay_in_bounds_and_damage_is_conserved(hits, start):
    state = battle("excelsior", KER)
    state = set_value(state, f"{EX}.projections.0.current", start)
    for amount, direction, first_one in hits:
        if state.ships["excelsior"].destroyed:
            break
        before = values(state, "excelsior")
        name = direction.capitalize()
        source = {"source": "ker"} if first_one else {}
        state, events = hit(state, "excelsior", amount, direction=direction, **source)
        after = values(state, "excelsior")
        summary = events[0].data
        ratings = {p.name: p.rating for p in shields(state, "excelsior").projections}
        assert all(0 <= after[n] <= ratings[n] for n in after)
        if any(e.kind == "shields_fall" for e in events):
            continue  # the generator went with the primary section (ST-11)
        assert {n: v for n, v in after.items() if n != name} == {n: v for n, v in before.items() if n != name}
        multiplier = 2 if first_one else 1
        used = before[name] - after[name]
        assert used == min(before[name], amount * multiplier)  # in shield terms
        assert summary["absorbed"] == min(amount, math.ceil(before[name] / multiplier))
        reached = summary["armour"] + summary["internal"]
        if state.ships["excelsior"].destroyed:
            assert reached <= amount - summary["absorbed"]
        else:
            assert summary["absorbed"] + reached == amount


ops = st.lists(
    st.tuples(
        st.sampled_from(["hit", "buy", "transfer", "extend", "advance"]),
        st.sampled_from(["Fore", "Starboard", "Aft", "Port"]),
        st.sampled_from(["Fore", "Starboard", "Aft", "Port"]),
        st.integers(min_value=1, max_value=45),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(ops=ops)
def test_ST_07_ST_08_property_regeneration_and_transfers_keep_projections_within_their_ratings(ops):
    state = battle("excelsior")
    state = set_value(state, "ships.excelsior.parts.power.output", 60)
    for op, a, b, n in ops:
        try:
            if op == "hit":
                state, _ = hit(state, "excelsior", n, direction=a)
            elif op == "buy":
                payload = {"ship": "excelsior", "deflector": f"{a} Deflector", "points": n, "projection": b}
                state, _ = act(state, "startrek.buy_regeneration", payload, ME)
            elif op == "transfer":
                state, _ = transfer(state, a, b, n)
            elif op == "extend":
                payload = {"ship": "excelsior", "deflector": f"{a} Deflector", "projection": b}
                state, _ = act(state, "startrek.extend_arc", payload, ME)
            else:
                state, _ = act(state, "clock.advance", {})
        except RuleError:
            continue
        for projection in shields(state, "excelsior").projections:
            assert 0 <= projection.value <= projection.rating
            assert projection.given <= projection.segment_base // 2
