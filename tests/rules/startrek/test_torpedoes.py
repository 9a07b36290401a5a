"""Advanced photon torpedo launcher: ST-25."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import act, advance_to, battle, player

ME = player("thomas-paine")
LAUNCHER = "Advanced Photon Launcher"


def fire(state, count: int, target: str | None = None):
    payload = {"ship": "thomas-paine", "launcher": LAUNCHER, "count": count}
    if target:
        payload["target"] = target
    return act(state, "startrek.fire_torpedoes", payload, ME)


@pytest.mark.parametrize(("count", "modifier"), [(1, 0), (2, -1), (3, -2)])
def test_ST_25_each_torpedo_of_a_volley_of_n_is_at_minus_n_minus_1(count, modifier):
    state = advance_to(battle("new-orleans", "excelsior"), "combat")
    state, events = fire(state, count, target="excelsior")
    assert events[0].data == {"count": count, "to_hit_modifier": modifier, "target": "excelsior"}
    launcher = state.ships["thomas-paine"].parts["photon_launcher"]["launchers"][0]
    assert launcher["loaded"] == 3 - count


def test_ST_25_three_torpedoes_read_as_a_sentence():
    state = advance_to(battle("new-orleans", "excelsior"), "combat")
    state, events = fire(state, 3, target="excelsior")
    assert events[0].text == (
        "Thomas Paine fires 3 photon torpedoes from Advanced Photon Launcher at Excelsior: each −2 to hit (ST-25); "
        "0 left loaded."
    )


def test_ST_25_holds_at_most_three_and_fires_only_what_is_loaded():
    state = battle("new-orleans")
    with pytest.raises(RuleError) as err:
        act(state, "startrek.load_torpedoes", {"ship": "thomas-paine", "launcher": LAUNCHER}, ME)
    assert err.value.message == "Advanced Photon Launcher holds 3 of 3: room for 0 (ST-25)"
    state = advance_to(state, "combat")
    state, _ = fire(state, 2)
    with pytest.raises(RuleError):
        fire(state, 2)
    state, events = act(
        state, "startrek.load_torpedoes", {"ship": "thomas-paine", "launcher": LAUNCHER, "count": 2}, ME
    )
    assert (
        events[0].text == "Thomas Paine loads 2 photon torpedoes into Advanced Photon Launcher: 3 of 3 ready."
    )


def test_ST_25_fire_only_in_combat_and_not_from_a_destroyed_launcher():
    state = battle("new-orleans")
    with pytest.raises(RuleError):
        fire(state, 1)
    state = advance_to(state, "combat")
    state, _ = act(
        state,
        "override.set",
        {"path": "ships.thomas-paine.parts.sheet.sections.0.systems.0.damage", "value": 6, "reason": "test"},
    )
    with pytest.raises(RuleError) as err:
        fire(state, 1)
    assert err.value.message == "Advanced Photon Launcher is destroyed"
