"""Cloaking clauses (ST-21 … ST-24) not met elsewhere: the refusals, a device found by its kind, a
decloak with no recorded position, ST-21a shields while not cloaked, a second collateral reveal."""

from __future__ import annotations

import pytest

from app.rules import new_battle
from app.rules.core import REFEREE, RuleError
from app.rules.startrek.cloak import Cloak
from tests.rules.startrek.helpers import (
    RAIDER,
    act,
    add,
    advance_to,
    battle,
    definition,
    hit,
    of_kind,
    player,
    set_value,
    values,
)

BOP = player("kor-vaq")
ENEMY = player("excelsior")


def cloak(state) -> Cloak:
    return Cloak.model_validate(state.ships["kor-vaq"].parts["cloak"])


def on_map(data=None, excelsior_at: dict | None = None):
    state = new_battle("b5wars")
    state = add(state, definition("excelsior"), excelsior_at if excelsior_at is not None else {"hex": "0101"})
    state = add(state, data or definition("klingon-bird-of-prey"), {"hex": "0505", "facing": 3})
    return state


def cloaked(state):
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    return state


def refused(state, kind, payload, actor=BOP) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message


def test_ST_21_a_cloaked_ship_does_not_cloak_again():
    state = cloaked(battle("klingon-bird-of-prey"))
    assert refused(state, "startrek.cloak", {"ship": "kor-vaq"}) == "Kor'vaq is already cloaked"


def test_ST_22_only_a_cloaked_ship_decloaks():
    state = advance_to(battle("klingon-bird-of-prey"), "adjust_systems")
    assert refused(state, "startrek.decloak", {"ship": "kor-vaq"}) == "Kor'vaq is not cloaked"


def test_ST_21_the_device_is_the_sheets_cloaking_device_when_the_data_names_none():
    """Without a named device the sheet's cloaking_device system is the one that must be intact."""
    data = definition("klingon-bird-of-prey")
    del data["parts"]["cloak"]["device"]
    state = advance_to(battle(data), "adjust_systems")
    broken = set_value(state, "ships.kor-vaq.parts.sheet.sections.1.systems.2.damage", 4)
    assert refused(broken, "startrek.cloak", {"ship": "kor-vaq"}) == "Kor'vaq's cloaking device is destroyed"
    state, events = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    assert events[0].kind == "cloak"


def test_ST_22_a_ship_with_no_recorded_position_decloaks_at_an_unrecorded_position():
    state = cloaked(battle("klingon-bird-of-prey"))
    state = advance_to(state, "adjust_systems", turn=2)
    state, events = act(state, "startrek.decloak", {"ship": "kor-vaq"}, BOP)
    assert events[0].text == (
        "Kor'vaq decloaks at an unrecorded position; its weapons and shields return next turn (ST-22)."
    )


def test_ST_21a_a_cloak_that_keeps_shields_leaves_them_up_before_cloaking_too():
    data = definition("klingon-bird-of-prey")
    data["parts"]["cloak"]["keeps_shields"] = True
    state = advance_to(battle(data, RAIDER), "combat")
    state, events = hit(state, "kor-vaq", 8, source="raider")
    assert events[0].data["absorbed"] == 8
    assert values(state, "kor-vaq") == {"Shield": 12}


def test_ST_23_detection_needs_a_cloaked_target_other_than_the_detector():
    state = advance_to(on_map(), "combat")
    attempt = {"detector": "excelsior", "target": "kor-vaq", "ew": 5, "range": 3}
    assert (
        refused(state, "startrek.detect_cloak", attempt, ENEMY)
        == "no other ship is cloaked to look for (ST-23)"
    )
    state = advance_to(cloaked(on_map()), "combat", turn=2)
    own = {"detector": "kor-vaq", "target": "kor-vaq", "ew": 5, "range": 0}
    # the only cloaked ship is the detector itself: nothing else is cloaked to look for
    assert refused(state, "startrek.detect_cloak", own) == "no other ship is cloaked to look for (ST-23)"


def test_ST_23_a_detector_off_the_map_enters_the_range():
    state = advance_to(cloaked(on_map(excelsior_at={})), "combat", turn=2)
    attempt = {"detector": "excelsior", "target": "kor-vaq", "ew": 5}
    with pytest.raises(RuleError) as err:
        act(state, "startrek.detect_cloak", attempt, ENEMY)
    assert (err.value.field, err.value.message) == (
        "range",
        "range: Excelsior has no hex on the map; enter the range",
    )


def test_ST_23_the_referee_rules_an_attempt_that_exists_once_while_the_ship_is_cloaked():
    state = advance_to(cloaked(on_map()), "combat", turn=2)
    attempt = {"detector": "excelsior", "target": "kor-vaq", "ew": 5, "range": 3}
    state, _ = act(state, "startrek.detect_cloak", attempt, ENEMY)
    assert refused(
        state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 1, "detected": True}, REFEREE
    ) == ("no detection attempt 1 on Kor'vaq")
    ruled, _ = act(state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": False})
    assert refused(
        ruled, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True}, REFEREE
    ) == ("that attempt has already been ruled")
    state = advance_to(state, "adjust_systems", turn=2)
    state, _ = act(state, "startrek.decloak", {"ship": "kor-vaq"}, BOP)
    assert refused(
        state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True}, REFEREE
    ) == ("Kor'vaq is no longer cloaked")


def test_ST_24_a_second_collateral_hit_in_the_turn_reveals_nothing_new():
    state = add(cloaked(on_map()), RAIDER)
    state = advance_to(state, "combat", turn=2)
    state, events = hit(state, "kor-vaq", 6, source="raider", effects=["flash"])
    assert len(of_kind(events, "cloak_revealed")) == 1
    state, events = hit(state, "kor-vaq", 6, source="raider", effects=["flash"])
    assert of_kind(events, "cloak_revealed") == []
    assert cloak(state).revealed is True


def test_ST_23_a_ship_the_referee_marks_uncloaked_is_not_lost_from_sight():
    """Detection lasts its turn; a ship no longer cloaked at the next turn is simply not hidden again."""
    state = advance_to(cloaked(on_map()), "combat", turn=2)
    attempt = {"detector": "excelsior", "target": "kor-vaq", "ew": 5, "range": 3}
    state, _ = act(state, "startrek.detect_cloak", attempt, ENEMY)
    state, _ = act(state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True})
    state = set_value(state, "ships.kor-vaq.parts.cloak.cloaked", False)
    state = advance_to(state, "adjust_systems", turn=2)
    events = []
    while state.clock.turn == 2:
        state, more = act(state, "clock.advance", {})
        events += more
    assert of_kind(events, "cloak_hidden") == []
    assert cloak(state).detected is False


def two_birds_one_cloaked():
    """Excelsior, the Kor'vaq cloaked (turn 1's Adjust Ship Systems) and a second Bird of Prey, the
    Kor'vaq II, not cloaked, in turn 2's combat."""
    state = on_map()
    second = definition("klingon-bird-of-prey") | {"name": "Kor'vaq II"}
    state = add(state, second, {"hex": "0909", "facing": 1})
    return advance_to(cloaked(state), "combat", turn=2)


def test_ST_23_a_search_names_a_cloaked_target():
    state = two_birds_one_cloaked()
    attempt = {"detector": "excelsior", "target": "kor-vaq-ii", "ew": 5, "range": 3}
    with pytest.raises(RuleError) as err:
        act(state, "startrek.detect_cloak", attempt, REFEREE)
    assert (err.value.field, err.value.message) == ("target", "Kor'vaq II is not cloaked")


def test_ST_23_a_ship_without_a_cloaking_device_is_not_searched_for():
    state = two_birds_one_cloaked()
    attempt = {"detector": "kor-vaq-ii", "target": "excelsior", "ew": 5, "range": 3}
    with pytest.raises(RuleError) as err:
        act(state, "startrek.detect_cloak", attempt, REFEREE)
    assert (err.value.field, err.value.message) == ("target", "Excelsior has no cloaking device")
    ruling = {"target": "excelsior", "attempt": 0, "detected": True}  # the referee's ruling names it so too
    with pytest.raises(RuleError) as err:
        act(state, "startrek.rule_detection", ruling, REFEREE)
    assert (err.value.field, err.value.message) == ("target", "Excelsior has no cloaking device")


def test_ST_23_a_cloaked_ship_does_not_search_for_itself():
    """With the Kor'vaq II cloaked too there is another ship to look for; the Kor'vaq still may not
    name itself."""
    state = two_birds_one_cloaked()
    state = set_value(state, "ships.kor-vaq-ii.parts.cloak.cloaked", True)
    attempt = {"detector": "kor-vaq", "target": "kor-vaq", "ew": 5, "range": 0}
    with pytest.raises(RuleError) as err:
        act(state, "startrek.detect_cloak", attempt, REFEREE)
    assert (err.value.field, err.value.message) == ("target", "a ship cannot look for itself")
