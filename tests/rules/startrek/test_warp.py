"""Warp drives: ST-17 … ST-20."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.startrek.warp import Warp
from tests.rules.startrek.helpers import (
    RAIDER,
    act,
    advance,
    advance_to,
    battle,
    definition,
    hit,
    of_kind,
    player,
    set_value,
)

ME = player("excelsior")
PORT_DAMAGE = "ships.excelsior.parts.sheet.sections.1.systems.0.damage"
STBD_DAMAGE = "ships.excelsior.parts.sheet.sections.3.systems.0.damage"


def warp(state, ship: str = "excelsior") -> Warp:
    return Warp.model_validate(state.ships[ship].parts["warp"])


def declare(state, dice=(), ship="excelsior"):
    return act(state, "startrek.declare_warp", {"ship": ship}, player(ship), dice)


def test_ST_18_nacelle_with_18_destroyed_boxes_fails_on_18():
    state = set_value(battle("excelsior"), PORT_DAMAGE, 18)
    state, events = declare(state, dice=[18])
    assert events[0].kind == "warp_failed"
    assert events[0].rolls[0].total == 18 and events[0].rolls[0].target == "> 18 to hold"
    assert events[0].rolls[0].outcome == "fails"
    assert warp(state).counter == 3 and warp(state).declared_turn is None
    assert events[0].text == (
        "Excelsior tries to go to warp: Port Nacelle (18% failure) rolls 18: fails; Starboard Nacelle is undamaged "
        "(0% failure). The attempt fails and the warp delay resets to 3 turns (ST-18)."
    )


def test_ST_18_nacelle_with_18_destroyed_boxes_holds_on_19():
    state = set_value(battle("excelsior"), PORT_DAMAGE, 18)
    state, events = declare(state, dice=[19])
    assert events[0].kind == "warp_declared"
    assert events[0].rolls[0].outcome == "holds"
    assert warp(state).declared_turn == 1


def test_ST_18_every_working_nacelle_is_checked_even_after_a_failure():
    state = set_value(battle("excelsior"), PORT_DAMAGE, 5)
    state = set_value(state, STBD_DAMAGE, 7)
    state, events = declare(state, dice=[2, 50])
    assert [r.outcome for r in events[0].rolls] == ["fails", "holds"]


def test_ST_17_declared_warp_blocks_fire_and_the_ship_leaves_at_the_end_of_the_turn():
    state = battle("excelsior", RAIDER)
    state, events = declare(state)
    assert events[0].text == (
        "Excelsior goes to warp: Port Nacelle is undamaged (0% failure); Starboard Nacelle is undamaged (0% "
        "failure). No weapon fires this turn; it leaves at the end of the turn (ST-17)."
    )
    state = advance_to(state, "combat")
    with pytest.raises(RuleError) as err:
        hit(state, "raider", 10, source="excelsior")
    assert err.value.message == "Excelsior is going to warp this turn and may not fire (ST-17)"
    state = advance_to(state, "adjust_systems")
    state, events = advance(state)
    assert [e.text for e in of_kind(events, "warp_departed")] == [
        "Excelsior goes to warp and leaves the battle."
    ]
    assert warp(state).departed is True
    with pytest.raises(RuleError):
        hit(state, "excelsior", 10, direction="fore")


def test_ST_17_warp_is_declared_at_the_start_of_the_turn_and_waits_for_the_delay():
    state = battle("excelsior")
    state = advance_to(state, "movement")
    with pytest.raises(RuleError):
        declare(state)
    state = set_value(state, "ships.excelsior.parts.warp.counter", 2)
    state = advance_to(state, "ship_power", turn=2)
    assert warp(state).counter == 1
    with pytest.raises(RuleError) as err:
        declare(state)
    assert err.value.message == "Excelsior's warp delay has 1 turn to run"
    state = advance_to(state, "ship_power", turn=3)
    assert warp(state).counter == 0
    state, events = declare(state)
    assert events[0].kind == "warp_declared"


def test_ST_18_a_reset_counts_from_the_next_turn():
    state = set_value(battle("excelsior"), PORT_DAMAGE, 18)
    state, _ = declare(state, dice=[3])
    state = advance_to(state, "ship_power", turn=2)
    assert warp(state).counter == 3


def test_ST_19_destroyed_nacelle_adds_two_and_a_paired_ship_cannot_warp_on_one():
    state = battle("excelsior")
    state, events = hit(state, "excelsior", 60, direction="port", section="Port", system="Port Nacelle")
    assert warp(state).counter == 2 and warp(state).destroyed_counted == ["Port Nacelle"]
    assert of_kind(events, "warp_delay")[0].text == (
        "Excelsior's Port Nacelle is destroyed: warp delay +2, 2 turns to wait (ST-19)."
    )
    state = set_value(state, "ships.excelsior.parts.warp.counter", 0)
    with pytest.raises(RuleError) as err:
        declare(state)
    assert err.value.message == "Excelsior has 1 working nacelle and needs 2 to go to warp (ST-19)"


def three_nacelles():
    data = definition("excelsior")
    data["parts"]["sheet"]["sections"][2]["systems"].append(
        {"name": "Ventral Nacelle", "kind": "nacelle", "boxes": 20}
    )
    return data


def test_ST_20_shut_down_one_nacelle_per_turn_plus_one_delay_and_skipped_in_checks():
    state = battle(three_nacelles())
    state = set_value(state, PORT_DAMAGE, 15)
    state, events = act(
        state, "startrek.shutdown_nacelle", {"ship": "excelsior", "nacelle": "port nacelle"}, ME
    )
    assert warp(state).counter == 1 and warp(state).shut_down == ["Port Nacelle"]
    assert events[0].text == (
        "Excelsior shuts down Port Nacelle: warp delay +1, 1 turn to wait; it is skipped in warp checks (ST-20)."
    )
    with pytest.raises(RuleError) as err:
        act(state, "startrek.shutdown_nacelle", {"ship": "excelsior", "nacelle": "Ventral Nacelle"}, ME)
    assert "more than two working nacelles" in err.value.message
    state = advance_to(state, "ship_power", turn=2)
    state, events = declare(state)  # no dice: the shut-down nacelle is not checked, the others are undamaged
    assert events[0].kind == "warp_declared" and events[0].rolls == []


def test_ST_20_one_shutdown_per_turn():
    data = three_nacelles()
    data["parts"]["sheet"]["sections"][2]["systems"].append(
        {"name": "Dorsal Nacelle", "kind": "nacelle", "boxes": 20}
    )
    state = battle(data)
    state, _ = act(state, "startrek.shutdown_nacelle", {"ship": "excelsior", "nacelle": "Port Nacelle"}, ME)
    with pytest.raises(RuleError) as err:
        act(state, "startrek.shutdown_nacelle", {"ship": "excelsior", "nacelle": "Dorsal Nacelle"}, ME)
    assert err.value.message == "Excelsior has already shut down a nacelle this turn; one a turn (ST-20)"
    assert err.value.field == "ship"  # the whole ship's refusal, whichever nacelle is named
