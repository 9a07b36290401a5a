"""The proportional impulse rule (the map's impulse chart): a ship of speed S moves in impulse i of
32 when ⌊i·S/32⌋ > ⌊(i−1)·S/32⌋. Worked by hand, then by property."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.impulses import hexes_in_impulse, movement_chart, moves_in_impulse
from app.rules.map_view import impulse_chart

ALL = list(range(1, 33))


def moving(speed: int) -> list[int]:
    return [i for i in ALL if moves_in_impulse(speed, i)]


def test_speed_16_moves_on_every_even_impulse() -> None:
    # ⌊i/2⌋ − ⌊(i−1)/2⌋ is 1 exactly when i is even
    assert moving(16) == list(range(2, 33, 2))


def test_speed_32_moves_every_impulse() -> None:
    assert moving(32) == ALL


def test_speed_1_moves_only_on_impulse_32() -> None:
    assert moving(1) == [32]


def test_speed_31_moves_on_all_but_impulse_1() -> None:
    # ⌊31i/32⌋ = i − 1 for i in 1…32, so impulse 1 adds nothing and every later one adds a hex
    assert moving(31) == list(range(2, 33))


def test_speed_0_never_moves() -> None:
    assert moving(0) == []


def test_speed_8_moves_every_fourth_impulse() -> None:
    assert moving(8) == [4, 8, 12, 16, 20, 24, 28, 32]


def test_speed_12_moves_on_3_6_8_of_every_eight() -> None:
    # ⌊3i/8⌋ for i = 1…8: 0 0 1 1 1 2 2 3 — steps at 3, 6 and 8, then again every 8 impulses
    assert moving(12) == [3, 6, 8, 11, 14, 16, 19, 22, 24, 27, 30, 32]


def test_speed_50_moves_two_hexes_in_some_impulses() -> None:
    # a Shadow at speed 50 (SH-08's cap): ⌊50/32⌋ = 1, ⌊100/32⌋ = 3, ⌊150/32⌋ = 4
    assert [hexes_in_impulse(50, i) for i in (1, 2, 3)] == [1, 2, 1]
    assert sum(movement_chart(50)) == 50


def test_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        hexes_in_impulse(10, 0)
    with pytest.raises(ValueError):
        hexes_in_impulse(10, 33)
    with pytest.raises(ValueError):
        hexes_in_impulse(-1, 5)


@given(st.integers(min_value=0, max_value=99))
def test_a_turn_moves_the_whole_speed_and_ends_on_impulse_32(speed: int) -> None:
    chart = movement_chart(speed)
    assert sum(chart) == speed
    assert (chart[-1] > 0) == (speed > 0)
    assert all(speed // 32 <= n <= speed // 32 + 1 for n in chart)  # as even as whole hexes allow


def _counter(sid: str, speed: int | None, destroyed: bool = False) -> dict[str, Any]:
    return {"id": sid, "name": sid.title(), "code": sid[:2].upper(), "speed": speed, "destroyed": destroyed}


def test_the_map_chart_marks_who_moves_this_impulse() -> None:
    counters = [
        _counter("shadow", 16),
        _counter("feder", 12),
        _counter("hawk", None),
        _counter("wreck", 32, True),
    ]
    chart = impulse_chart(counters, {"step": "impulse", "impulse": 2}, 32)
    assert chart is not None and chart["now"] == 2
    assert [d["id"] for d in chart["due"]] == ["shadow"]
    assert [c.get("due") for c in counters] == [1, 0, None, None]
    assert [r["id"] for r in chart["rows"]] == ["shadow", "feder"]  # no speed, or destroyed: not charted
    assert chart["unset"] == ["Hawk"]


def test_outside_the_impulses_the_chart_has_no_current_impulse() -> None:
    chart = impulse_chart([_counter("shadow", 16)], {"step": "energy_allocation", "impulse": None}, 32)
    assert chart is not None and chart["now"] is None and chart["due"] == []


def test_a_system_without_impulses_has_no_chart() -> None:
    assert impulse_chart([_counter("shadow", 16)], {"step": "movement"}, None) is None
