"""Star Trek shield data, transfers, photon launchers and the power budget (ST-05, ST-08, ST-10,
ST-14, ST-17, ST-22, ST-25): clauses not met elsewhere."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import RAIDER, act, advance_to, battle, definition, hit, player, values

ME = player("excelsior")
PAINE = player("thomas-paine")
LAUNCHER = "Advanced Photon Launcher"


def refused(state, kind, payload, actor=ME) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message


def add_refused(data) -> str:
    with pytest.raises(RuleError) as err:
        battle(data)
    return err.value.message


# --- shield data (ST-05) ----------------------------------------------------------------------------


def test_ST_05_projection_names_are_unique():
    data = definition("excelsior")
    data["parts"]["shields"]["projections"][1]["name"] = "fore"
    assert add_refused(data) == "definition.parts.shields: projection names must be unique"


def test_ST_05_a_deflector_covers_projections_the_ship_has():
    data = definition("excelsior")
    data["parts"]["shields"]["deflectors"][0]["covers"] = ["Dorsal"]
    assert add_refused(data) == (
        "definition.parts.shields: deflector 'Fore Deflector' covers unknown projection 'Dorsal'"
    )


def test_ST_14_an_arc_extends_only_to_a_projection_the_ship_has():
    payload = {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Dorsal"}
    assert refused(battle("excelsior"), "startrek.extend_arc", payload) == (
        "no shield projection 'Dorsal' (projections: Fore, Starboard, Aft, Port)"
    )


def test_ST_08_the_ship_data_may_say_which_projections_are_consecutive():
    """Fore's data lists Aft as its neighbour, so the Fore Deflector may reach Aft (ST-14)."""
    data = definition("excelsior")
    data["parts"]["shields"]["projections"][0]["adjacent"] = ["Aft"]
    payload = {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Aft"}
    state, events = act(battle(data), "startrek.extend_arc", payload, ME)
    assert events[0].text.startswith(
        "Excelsior extends Fore Deflector by 90° to cover Aft: power 2 → 6, regeneration 4 → 3 (4 power left)"
    )


def test_ST_08_a_single_projection_has_no_neighbour_to_give_to():
    state = advance_to(battle("klingon-bird-of-prey"), "adjust_systems")
    payload = {"ship": "kor-vaq", "source": "Shield", "target": "Shield", "points": 1}
    assert refused(state, "startrek.transfer_shields", payload, player("kor-vaq")) == (
        "Shield is not next to Shield (ST-08)"
    )


def test_ST_06_a_direction_listed_in_one_projections_arcs_picks_it():
    """Excelsior's Fore projection lists the arc 'fore'; a direction 'Fore, ' names that arc alone."""
    state = advance_to(battle("excelsior", RAIDER), "combat")
    state, events = hit(state, "excelsior", 10, source="raider", direction="fore, ")
    assert events[0].data["absorbed"] == 10
    assert values(state, "excelsior")["Fore"] == 30


def test_ST_06_a_single_projection_without_an_all_round_arc_takes_every_hit():
    data = definition("klingon-bird-of-prey")
    data["parts"]["shields"]["projections"][0]["arcs"] = ["fore"]
    state = advance_to(battle(data, RAIDER), "combat")
    state, events = hit(state, "kor-vaq", 5, source="raider")
    assert events[0].data["absorbed"] == 5
    assert values(state, "kor-vaq") == {"Shield": 15}


def test_ST_08_a_ship_without_shields_transfers_nothing():
    state = advance_to(battle(RAIDER), "adjust_systems")
    payload = {"ship": "raider", "source": "Fore", "target": "Port", "points": 1}
    assert refused(state, "startrek.transfer_shields", payload, player("raider")) == "Raider has no shields"


def test_ST_08_a_projection_gives_only_what_it_still_holds():
    """Fore opened the segment at 40 (it may give 20), then took 30 in the segment: it holds 10."""
    state = advance_to(battle("excelsior", RAIDER), "adjust_systems")
    state, _ = hit(state, "excelsior", 30, direction="fore")
    assert values(state, "excelsior")["Fore"] == 10
    payload = {"ship": "excelsior", "source": "Fore", "target": "Port", "points": 15}
    assert refused(state, "startrek.transfer_shields", payload) == "Fore holds only 10"


# --- photon launchers (ST-25) -----------------------------------------------------------------------


def test_ST_25_a_launcher_holds_at_most_three():
    data = definition("new-orleans")
    data["parts"]["photon_launcher"]["launchers"][0]["loaded"] = 4
    with pytest.raises(RuleError) as err:
        battle(data)
    assert "launcher 'Advanced Photon Launcher' holds at most 3" in err.value.message


def test_ST_25_launchers_are_named():
    data = definition("new-orleans")
    data["parts"]["photon_launcher"]["launchers"].append({"name": "Aft Launcher", "loaded": 0})
    state = battle(data)
    state, events = act(
        state, "startrek.load_torpedoes", {"ship": "thomas-paine", "launcher": "aft launcher"}, PAINE
    )
    assert events[0].text == "Thomas Paine loads 1 photon torpedo into Aft Launcher: 1 of 3 ready."
    payload = {"ship": "thomas-paine", "launcher": "Dorsal Launcher"}
    assert refused(state, "startrek.load_torpedoes", payload, PAINE) == (
        "no launcher 'Dorsal Launcher' (launchers: Advanced Photon Launcher, Aft Launcher)"
    )


def test_ST_25_a_ship_without_the_launcher_loads_none():
    payload = {"ship": "raider", "launcher": LAUNCHER}
    assert refused(battle(RAIDER), "startrek.load_torpedoes", payload, player("raider")) == (
        "Raider has no advanced photon launcher"
    )


def test_ST_25_a_destroyed_launcher_is_not_loaded():
    data = definition("new-orleans")
    data["parts"]["photon_launcher"]["launchers"][0]["loaded"] = 0
    data["parts"]["sheet"]["sections"][0]["systems"][0]["damage"] = 6
    payload = {"ship": "thomas-paine", "launcher": LAUNCHER}
    assert refused(battle(data), "startrek.load_torpedoes", payload, PAINE) == f"{LAUNCHER} is destroyed"


def test_ST_17_a_ship_going_to_warp_fires_no_torpedoes():
    state, _ = act(
        battle("new-orleans", "excelsior"), "startrek.declare_warp", {"ship": "thomas-paine"}, PAINE
    )
    state = advance_to(state, "combat")
    payload = {"ship": "thomas-paine", "launcher": LAUNCHER, "count": 1}
    assert refused(state, "startrek.fire_torpedoes", payload, PAINE) == (
        "Thomas Paine is going to warp this turn and may not fire (ST-17)"
    )


def test_ST_22_torpedoes_are_not_fired_at_an_undetected_cloaked_ship():
    state = advance_to(battle("new-orleans", "klingon-bird-of-prey"), "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, player("kor-vaq"))
    state = advance_to(state, "combat", turn=2)
    payload = {"ship": "thomas-paine", "launcher": LAUNCHER, "count": 1, "target": "kor-vaq"}
    assert refused(state, "startrek.fire_torpedoes", payload, PAINE) == (
        "Kor'vaq is cloaked and has not been detected (ST-22, ST-23)"
    )


# --- power budget (ST-07, ST-14) --------------------------------------------------------------------


def test_ST_14_a_ship_with_power_but_no_shields_switches_systems_against_its_output():
    data = {
        **RAIDER,
        "parts": {**RAIDER["parts"], "power": {"output": 10, "consumers": [{"name": "Sensors", "power": 4}]}},
    }
    state, events = act(
        battle(data), "startrek.switch_system", {"ship": "raider", "system": "Sensors"}, player("raider")
    )
    assert events[0].text == "Raider switches Sensors off (10 power left)."


def no_power():
    data = definition("excelsior")
    del data["parts"]["power"]
    return battle(data, RAIDER)


def test_ST_07_without_a_power_budget_no_regeneration_is_bought():
    state, _ = hit(no_power(), "excelsior", 10, direction="fore")
    payload = {"ship": "excelsior", "deflector": "Fore Deflector", "points": 2}
    assert refused(state, "startrek.buy_regeneration", payload) == "Excelsior has no power budget to buy with"


def test_ST_14_without_a_power_budget_no_arc_is_extended():
    payload = {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Port"}
    assert refused(no_power(), "startrek.extend_arc", payload) == (
        "Excelsior has no power budget for extending Fore Deflector"
    )
