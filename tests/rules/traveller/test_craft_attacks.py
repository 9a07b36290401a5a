"""TR-25a: single craft inside a flight attacked on their own (core rules, outcome entered)."""

from __future__ import annotations

import pytest

from app.rules.core import NotAllowed, RuleError
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, battle, capital

FLIGHT = {
    "name": "Red Flight",
    "system": "traveller",
    "parts": {
        "flight": {
            "craft_type": "Fighter",
            "craft": 4,
            "craft_hull": 2,
            "craft_structure": 2,
            "batteries": [{"id": "pulse", "weapon": "pulse_laser", "mounts": 1}],
        }
    },
}


def test_TR_25a_single_craft_lost_by_the_core_rules_without_the_flight_rules() -> None:
    """TR-25a: no −4 and no craft-loss cap — the entered outcome removes exactly those craft."""
    state = battle(capital("Kestrel"), FLIGHT, owners=("p-kestrel",), orders=False)
    body = {"flight": "red-flight", "source": "kestrel", "craft_destroyed": 3, "outcome": "point-blank laser"}
    done = act(state, "traveller.craft_attack", body, KESTREL_ACTOR)
    assert done.texts == [
        "Kestrel attacks single craft of Red Flight by the core rules (point-blank laser): 3 destroyed; 1 of 4 left (TR-25a)."
    ]
    assert (
        done.state.ships["red-flight"].parts["flight"]["lost"] == 3
        and not done.state.ships["red-flight"].destroyed
    )
    last = act(done.state, "traveller.craft_attack", {"flight": "red-flight", "craft_destroyed": 1})
    assert last.texts[-1] == "Red Flight has no craft left." and last.state.ships["red-flight"].destroyed


def test_TR_25a_refusals() -> None:
    """TR-25a: not more craft than remain; not a flight; only the attacker's commander or the referee."""
    state = battle(capital("Kestrel"), FLIGHT, owners=("p-kestrel",), orders=False)
    with pytest.raises(RuleError, match="only 4 craft left"):
        act(state, "traveller.craft_attack", {"flight": "red-flight", "craft_destroyed": 5})
    with pytest.raises(RuleError, match="not a flight"):
        act(state, "traveller.craft_attack", {"flight": "kestrel", "craft_destroyed": 1})
    with pytest.raises(NotAllowed):
        act(
            state,
            "traveller.craft_attack",
            {"flight": "red-flight", "source": "kestrel", "craft_destroyed": 1},
            TIGRESS_ACTOR,
        )
