"""The log's time stamps (GEN-01's sequence, written on each row) and the turn the log's turn
stepper reads back from them, for each game system's own steps."""

from __future__ import annotations

import pytest

from app.rules.registry import SYSTEMS
from app.rules.state import Clock
from app.rules.system import GameSystem


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.key)
def test_GEN_01_each_systems_stamp_names_its_turn_for_the_log_stepper(system: GameSystem) -> None:
    for turn in (1, 7, 12):
        for step in system.steps:
            clock = Clock(turn=turn, step=step.key, impulse=1 if step.repeats else None)
            stamp = system.short(clock)
            assert stamp.startswith(f"T{turn} ")
            assert GameSystem.turn_of(stamp) == turn


def test_a_row_without_a_stamp_has_no_turn() -> None:
    assert GameSystem.turn_of("") is None
    assert GameSystem.turn_of("Turn 3") is None
