"""Warp clauses not met elsewhere: ST-17 … ST-20 refusals, a listed nacelle, a departed ship."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.startrek.warp import Warp
from tests.rules.startrek.helpers import RAIDER, act, advance, advance_to, battle, definition, player

ME = player("excelsior")


def warp(state) -> Warp:
    return Warp.model_validate(state.ships["excelsior"].parts["warp"])


def declare(state, dice=()):
    return act(state, "startrek.declare_warp", {"ship": "excelsior"}, ME, dice)


def shutdown(state, nacelle: str):
    return act(state, "startrek.shutdown_nacelle", {"ship": "excelsior", "nacelle": nacelle}, ME)


def three_nacelles():
    data = definition("excelsior")
    data["parts"]["sheet"]["sections"][2]["systems"].append(
        {"name": "Ventral Nacelle", "kind": "nacelle", "boxes": 20}
    )
    return data


def test_ST_17_a_ship_declares_warp_once_a_turn():
    state, _ = declare(battle("excelsior"))
    with pytest.raises(RuleError) as err:
        declare(state)
    assert err.value.message == "Excelsior has already declared warp this turn"
    assert warp(state).declared_turn == 1


def test_ST_19_a_ship_whose_data_lists_one_nacelle_warps_on_that_one():
    """A ship that normally has a single nacelle is not held to two (ST-19); only the listed one is checked."""
    data = definition("excelsior")
    data["parts"]["warp"]["nacelles"] = ["Port Nacelle"]
    state = battle(data)
    state, events = declare(state)
    assert events[0].kind == "warp_declared"
    assert events[0].text == (
        "Excelsior goes to warp: Port Nacelle is undamaged (0% failure). No weapon fires this turn; it leaves at "
        "the end of the turn (ST-17)."
    )


def test_ST_20_shutting_down_a_nacelle_the_ship_does_not_have_is_refused():
    state = battle(three_nacelles())
    with pytest.raises(RuleError) as err:
        shutdown(state, "Dorsal Nacelle")
    assert err.value.message == (
        "Excelsior has no nacelle 'Dorsal Nacelle' (Port Nacelle, Ventral Nacelle, Starboard Nacelle)"
    )


def test_ST_20_a_shut_down_nacelle_cannot_be_shut_down_again():
    data = three_nacelles()
    data["parts"]["sheet"]["sections"][2]["systems"].append(
        {"name": "Dorsal Nacelle", "kind": "nacelle", "boxes": 20}
    )
    state, _ = shutdown(battle(data), "Port Nacelle")
    state = advance_to(state, "ship_power", turn=2)
    with pytest.raises(RuleError) as err:
        shutdown(state, "Port Nacelle")
    assert err.value.message == "Port Nacelle is already shut down or destroyed"
    assert warp(state).shut_down == ["Port Nacelle"]


def test_ST_17_a_ship_gone_to_warp_takes_no_further_action():
    state, _ = declare(battle("excelsior", RAIDER))
    state = advance_to(state, "adjust_systems")
    state, _ = advance(state)
    assert warp(state).departed is True
    state = advance_to(state, "ship_power", turn=2)
    with pytest.raises(RuleError) as err:
        declare(state)
    assert err.value.message == "Excelsior has gone to warp and left the battle"
