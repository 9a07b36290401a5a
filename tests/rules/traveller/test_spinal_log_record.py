"""A spinal shot's refusals on their fields (TR-10, GEN-03): a target without High Guard data, and
a flight, which spinal mounts do not fire at."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, capital
from tests.rules.traveller.test_branches_actions import HULK
from tests.rules.traveller.test_branches_movement import flight


def refused_at(target: dict) -> tuple[str, str | None]:
    state = battle(
        capital("Kestrel", spinal={"type": "particle", "damage": 100}),
        target,
        owners=("p-kestrel",),
        orders=False,
        enforce_loop=False,
    )
    state = advance_to(state, "combat").state
    target_id = next(s for s in state.ships if s != "kestrel")
    with pytest.raises(RuleError) as err:
        act(
            state,
            "traveller.spinal",
            {"ship": "kestrel", "target": target_id, "range": "long"},
            KESTREL_ACTOR,
        )
    return err.value.message, err.value.field


def test_GEN_03_a_target_without_high_guard_data_is_refused_on_target() -> None:
    assert refused_at(HULK) == ("Hulk is not a High Guard ship or flight", "target")


def test_TR_10_spinal_mounts_fire_at_ships_not_at_flights() -> None:
    assert refused_at(flight()) == ("spinal mounts fire at ships, not at flights", "target")
