"""Cloaking devices: ST-21 … ST-24, with the position leak checks at the rules level."""

from __future__ import annotations

import json

import pytest

from app.rules.core import RuleError
from app.rules.startrek.cloak import Cloak
from app.rules.views import Viewer, battle_view, event_for
from tests.rules.startrek.helpers import (
    RAIDER,
    act,
    add,
    advance,
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
SECRET_HEX = "0917"
LATER_HEX = "1012"


def others() -> Viewer:
    return Viewer("p-excelsior", "player", frozenset({"excelsior"}))


def owner() -> Viewer:
    return Viewer("p-kor-vaq", "player", frozenset({"kor-vaq"}))


def cloak(state) -> Cloak:
    return Cloak.model_validate(state.ships["kor-vaq"].parts["cloak"])


def cloaked_battle(data=None):
    """Excelsior and a bird-of-prey; the bird cloaks at the end of turn 1."""
    from app.rules import new_battle

    state = new_battle("b5wars")
    state = add(state, definition("excelsior"), {"hex": "0101", "facing": 1})
    state = add(state, data or definition("klingon-bird-of-prey"), {"hex": "0505", "facing": 3})
    state = advance_to(state, "adjust_systems")
    state, events = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    return state, events


def test_ST_21_cloak_only_at_the_end_of_the_turn_with_an_intact_device():
    state = battle("klingon-bird-of-prey")
    with pytest.raises(RuleError) as err:
        act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    assert err.value.message == "Cloaking happens in the Adjust Ship Systems segment; it is now Ship Power"
    state = advance_to(state, "adjust_systems")
    broken = set_value(state, "ships.kor-vaq.parts.sheet.sections.1.systems.2.damage", 4)
    with pytest.raises(RuleError) as err:
        act(broken, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    assert err.value.message == "Kor'vaq's cloaking device is destroyed"
    state, events = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    assert events[0].text == (
        "Kor'vaq cloaks and leaves the board; it may not fire and its shields absorb nothing while cloaked "
        "(ST-21, ST-22)."
    )
    assert cloak(state).cloaked is True


def test_ST_21_a_cloaked_ship_may_not_fire():
    state, _ = cloaked_battle()
    state = advance_to(state, "combat", turn=2)
    with pytest.raises(RuleError) as err:
        hit(state, "excelsior", 10, source="kor-vaq", direction="fore")
    assert err.value.message == "Kor'vaq is cloaked and may not fire (ST-21)"


def test_ST_21a_ship_data_may_let_it_fire_and_keep_shields():
    data = definition("klingon-bird-of-prey")
    data["parts"]["cloak"].update({"may_fire": True, "keeps_shields": True})
    state, events = cloaked_battle(data)
    assert events[0].text == "Kor'vaq cloaks and leaves the board (ST-21, ST-22)."
    state = advance_to(state, "combat", turn=2)
    state, events = hit(state, "excelsior", 10, source="kor-vaq", direction="fore")
    assert values(state, "excelsior")["Fore"] == 30
    state, _ = act(
        state,
        "startrek.detect_cloak",
        {"detector": "excelsior", "target": "kor-vaq", "ew": 5, "range": 3},
        ENEMY,
    )
    state, _ = act(state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True})
    state, events = hit(state, "kor-vaq", 8, source="excelsior")
    assert events[0].data["absorbed"] == 0  # ST-23a: a detected cloaked ship's shields count as down


def test_ST_22_leak_battle_view_and_events_hide_the_cloaked_position():
    state, _ = cloaked_battle()
    state, move_events = act(
        state, "ship.move", {"ship": "kor-vaq", "position": {"hex": SECRET_HEX, "facing": 2}}, BOP
    )
    state = advance_to(state, "movement", turn=2)
    state, more = act(
        state, "ship.move", {"ship": "kor-vaq", "position": {"hex": LATER_HEX, "facing": 2}}, BOP
    )
    state, thrust = act(state, "startrek.thrust", {"ship": "kor-vaq", "manoeuvre": "accel"}, BOP)
    events = move_events + more + thrust
    seen = json.dumps(battle_view(state, others()))
    assert SECRET_HEX not in seen and LATER_HEX not in seen
    assert json.loads(seen)["ships"]["kor-vaq"]["position"] is None
    assert json.loads(seen)["ships"]["kor-vaq"]["parts"]["cloak"] == {
        "cloaked": True,
        "detected": False,
        "revealed": False,
        "may_fire": False,
        "keeps_shields": False,
    }
    shown = [event_for(e, others()) for e in events]
    dumped = json.dumps([e.model_dump() for e in shown if e is not None])
    assert SECRET_HEX not in dumped and LATER_HEX not in dumped
    assert [e.text for e in shown if e is not None] == [
        "A cloaked ship moves.",
        "A cloaked ship moves.",
        "A cloaked ship manoeuvres.",
    ]
    mine = json.dumps(battle_view(state, owner()))
    assert LATER_HEX in mine
    assert event_for(move_events[0], owner()).text == "Kor'vaq (cloaked) moves: hex 0917, facing 2."


def test_ST_22_decloak_makes_only_the_current_position_public():
    state, _ = cloaked_battle()
    state, early = act(state, "ship.move", {"ship": "kor-vaq", "position": {"hex": SECRET_HEX}}, BOP)
    state = advance_to(state, "movement", turn=2)
    state, _ = act(state, "ship.move", {"ship": "kor-vaq", "position": {"hex": LATER_HEX}}, BOP)
    state = advance_to(state, "adjust_systems")
    state, events = act(state, "startrek.decloak", {"ship": "kor-vaq"}, BOP)
    assert events[0].text == "Kor'vaq decloaks at hex 1012; its weapons and shields return next turn (ST-22)."
    seen = json.dumps(battle_view(state, others()))
    assert LATER_HEX in seen and SECRET_HEX not in seen
    assert event_for(early[0], others()).text == "A cloaked ship moves."


def test_ST_22_weapons_and_shields_return_the_turn_after_decloaking():
    state, _ = cloaked_battle()
    state = advance_to(state, "adjust_systems", turn=2)
    state, _ = act(state, "startrek.decloak", {"ship": "kor-vaq"}, BOP)
    with pytest.raises(RuleError) as err:
        hit(state, "excelsior", 5, source="kor-vaq", direction="fore")
    assert err.value.message == "Kor'vaq decloaked this turn; its weapons return next turn (ST-22)"
    state, events = hit(state, "kor-vaq", 5, source="excelsior")
    assert events[0].data["absorbed"] == 0
    state = advance_to(state, "combat", turn=3)
    state, events = hit(state, "kor-vaq", 5, source="excelsior")
    assert events[0].data["absorbed"] == 5


def test_ST_23_detection_attempt_suggests_and_the_referee_rules():
    state, _ = cloaked_battle()
    state = advance_to(state, "combat", turn=2)
    with pytest.raises(RuleError):
        act(state, "startrek.set_signature", {"ship": "kor-vaq", "signature": 3}, ENEMY)
    state, _ = act(state, "startrek.set_signature", {"ship": "kor-vaq", "signature": 3})
    state, events = act(
        state,
        "startrek.detect_cloak",
        {"detector": "excelsior", "target": "kor-vaq", "ew": 8, "range": 4},
        ENEMY,
    )
    # The detector reads what it did; only the referee reads the suggestion and the signature.
    assert events[0].text == "Excelsior puts 8 EW on detecting Kor'vaq at range 4. The referee rules (ST-23)."
    assert events[0].visibility == "owner" and events[0].ship == "excelsior"
    # The suggestion uses the map's range, 0101 to the bird's hex 0505: 6, not the 4 typed.
    assert events[1].text == (
        "For the referee — attempt 0 by Excelsior: suggested: EW 8 vs range 6 from the map (the detector gave 4)"
        " + signature 3 → not detected (ST-23)."
    )
    assert events[1].visibility == "referee"
    assert [event_for(e, ENEMY) for e in events][1] is None
    # One attempt per detector per turn: repeated tries cannot narrow the signature down.
    with pytest.raises(RuleError) as err:
        act(
            state,
            "startrek.detect_cloak",
            {"detector": "excelsior", "target": "kor-vaq", "ew": 7, "range": 4},
            ENEMY,
        )
    assert (err.value.field, err.value.message) == (
        "detector",
        "Excelsior has already searched for a cloaked ship this turn (ST-23)",
    )
    assert (cloak(state).attempts[0].suggested, cloak(state).attempts[0].map_range) == (False, 6)
    with pytest.raises(RuleError):
        act(state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True}, ENEMY)
    with pytest.raises(RuleError) as err:
        hit(state, "kor-vaq", 10, source="excelsior")
    assert "cloaked and undetected" in err.value.message
    state, events = act(
        state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True}
    )
    assert events[0].text == (
        "Excelsior detects the cloaked Kor'vaq at hex 0505, facing 3: it may be fired at this turn with its shields "
        "down; fire outcomes are entered (ST-23, ST-23a)."
    )
    assert json.loads(json.dumps(battle_view(state, others())))["ships"]["kor-vaq"]["position"] == {
        "hex": "0505",
        "facing": 3,
    }
    state, events = hit(state, "kor-vaq", 10, source="excelsior")
    assert events[0].data["absorbed"] == 0 and values(state, "kor-vaq") == {"Shield": 20}
    state = advance_to(state, "ship_power", turn=3)
    assert cloak(state).detected is False
    assert "0505" not in json.dumps(battle_view(state, others())["ships"]["kor-vaq"]["position"])


def test_ST_24_flash_collateral_reveals_but_only_collateral_reaches_it():
    state, _ = cloaked_battle()
    state = add(state, RAIDER)
    state = advance_to(state, "combat", turn=2)
    with pytest.raises(RuleError):
        hit(state, "kor-vaq", 6, source="raider")
    state, events = hit(state, "kor-vaq", 6, source="raider", effects=["flash"])
    assert of_kind(events, "cloak_revealed")[0].text == (
        "Collateral flash damage reveals the cloaked Kor'vaq at hex 0505, facing 3; it could not be the target of "
        "that fire (ST-24)."
    )
    assert events[0].data["absorbed"] == 0
    view = battle_view(state, others())["ships"]["kor-vaq"]
    assert view["position"] == {"hex": "0505", "facing": 3}
    assert view["parts"]["cloak"]["last_known"] == {"hex": "0505", "facing": 3}
    with pytest.raises(RuleError):
        hit(state, "kor-vaq", 6, source="raider")
    state, _ = advance(state)
    state, _ = advance(state)
    assert battle_view(state, others())["ships"]["kor-vaq"]["position"] is None
