"""The Ship Power segment: free and bought regeneration (ST-07), arc extensions and switching
systems off (ST-14), collapsed projections starting from 0 (ST-15) and shoring them up (ST-15a)."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.startrek.power import Power, available
from tests.rules.startrek.helpers import (
    act,
    advance,
    advance_to,
    battle,
    hit,
    of_kind,
    player,
    set_value,
    shields,
    values,
)

EX = "ships.excelsior.parts.shields"
ME = player("excelsior")


def power_left(state, ship_id: str) -> int:
    ship = state.ships[ship_id]
    return available(ship, Power.model_validate(ship.parts["power"]))


def next_ship_power(state):
    state = advance_to(state, "adjust_systems")
    state, events = advance(state)
    assert state.clock.step == "ship_power"
    return state, events


def test_ST_07_free_regeneration_when_ship_power_opens_and_none_past_the_rating():
    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.0.current", 20)
    state = set_value(state, f"{EX}.projections.1.current", 28)
    state, events = next_ship_power(state)
    assert values(state, "excelsior") == {"Fore": 24, "Starboard": 30, "Aft": 30, "Port": 30}
    assert of_kind(events, "shield_regeneration")[0].text == (
        "Excelsior's deflectors regenerate its shields: Fore Deflector +4 → Fore 24/40; Starboard Deflector +2 → "
        "Starboard 30/30 (1 lost at the rating); Aft Deflector +0 → Aft 30/30 (3 lost at the rating); "
        "Port Deflector +0 → Port 30/30 (3 lost at the rating) (ST-07)."
    )


def test_ST_07_a_destroyed_deflector_draws_no_power():
    from tests.rules.startrek.test_templates import commander, render

    state = battle("excelsior")
    assert power_left(state, "excelsior") == 8  # 30 − systems 14 − deflectors 4 × 2
    state = set_value(state, "ships.excelsior.parts.sheet.sections.0.systems.2.damage", 4)  # Fore Deflector
    assert power_left(state, "excelsior") == 10
    html, found = render(state, "excelsior", "power", commander("excelsior"))
    assert found.by_id["power-excelsior-left"]["data-left"] == "10" and "deflectors 6" in html


def test_ST_07_extra_regeneration_costs_one_power_a_point_up_to_twice_the_deflector():
    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.0.current", 10)
    assert power_left(state, "excelsior") == 8
    state, events = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 5},
        ME,
    )
    assert values(state, "excelsior")["Fore"] == 15
    assert power_left(state, "excelsior") == 3
    assert events[0].visibility == "owner"
    assert events[0].hidden_text == "Excelsior reinforces its shields: Fore shield 10/40 → 15/40."
    with pytest.raises(RuleError) as err:
        act(
            state,
            "startrek.buy_regeneration",
            {"ship": "excelsior", "deflector": "Fore Deflector", "points": 4},
            ME,
        )
    assert err.value.message == "Fore Deflector (value 4) may add at most 8 extra a turn; 3 left (ST-07)"
    state, _ = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 3},
        ME,
    )
    assert values(state, "excelsior")["Fore"] == 18 and power_left(state, "excelsior") == 0


def test_ST_07_purchase_over_the_rating_or_the_budget_is_refused():
    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.0.current", 37)
    with pytest.raises(RuleError) as err:
        act(
            state,
            "startrek.buy_regeneration",
            {"ship": "excelsior", "deflector": "Fore Deflector", "points": 4},
            ME,
        )
    assert "only 3 more fit under its rating, so no power is spent" in err.value.message
    state = set_value(state, f"{EX}.projections.3.current", 10)
    state = set_value(state, "ships.excelsior.parts.power.output", 24)
    assert power_left(state, "excelsior") == 2
    with pytest.raises(RuleError) as err:
        act(
            state,
            "startrek.buy_regeneration",
            {"ship": "excelsior", "deflector": "Port Deflector", "points": 3},
            ME,
        )
    assert err.value.message == "Port Deflector regeneration needs 3 power; Excelsior has 2 left this turn"


def test_ST_07_purchases_only_in_the_ship_power_segment_and_budget_renews():
    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.0.current", 10)
    state, _ = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 8},
        ME,
    )
    assert power_left(state, "excelsior") == 0
    state, _ = advance(state)
    with pytest.raises(RuleError) as err:
        act(
            state,
            "startrek.buy_regeneration",
            {"ship": "excelsior", "deflector": "Fore Deflector", "points": 1},
            ME,
        )
    assert (
        err.value.message
        == "Buying shield regeneration happens in the Ship Power segment; it is now Movement"
    )
    state, _ = next_ship_power(state)
    assert power_left(state, "excelsior") == 8
    assert values(state, "excelsior")["Fore"] == 22


def test_ST_07_only_the_commander_buys():
    state = battle("excelsior", "galaxy-class")
    with pytest.raises(RuleError):
        act(
            state,
            "startrek.buy_regeneration",
            {"ship": "excelsior", "deflector": "Fore Deflector", "points": 1},
            player("enterprise"),
        )


def test_ST_14_extension_triples_power_and_costs_one_regeneration_per_90_degrees():
    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.3.current", 0)
    state, events = act(
        state,
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Port"},
        ME,
    )
    fore = shields(state, "excelsior").deflectors[0]
    assert fore.extended_to == ["Port"]
    assert power_left(state, "excelsior") == 4  # need 2 → 6
    assert values(state, "excelsior")["Port"] == 3  # the free regeneration follows the new arc, at value 3
    assert events[0].text == (
        "Excelsior extends Fore Deflector by 90° to cover Port: power 2 → 6, regeneration 4 → 3 (4 power left); "
        "free regeneration now Fore Deflector +3 → Port 3/30 (ST-14)."
    )
    state, events = act(
        state,
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Aft Deflector", "projection": "Port"},
        ME,
    )
    assert power_left(state, "excelsior") == 0  # Aft 2 → 6


def test_ST_14_compounding_and_value_below_zero_refused():
    state = battle("excelsior")
    state = set_value(state, "ships.excelsior.parts.power.output", 100)
    act_ext = {"ship": "excelsior", "deflector": "Aft Deflector"}
    state, _ = act(state, "startrek.extend_arc", {**act_ext, "projection": "Port"}, ME)
    state, _ = act(state, "startrek.extend_arc", {**act_ext, "projection": "Fore"}, ME)
    state, _ = act(state, "startrek.extend_arc", {**act_ext, "projection": "Starboard"}, ME)
    aft = shields(state, "excelsior").deflectors[2]
    assert aft.extended_to == ["Port", "Fore", "Starboard"]
    assert power_left(state, "excelsior") == 100 - 14 - 6 - 54  # three steps: 2 → 6 → 18 → 54
    state = set_value(state, "ships.excelsior.parts.shields.deflectors.1.value", 0)
    with pytest.raises(RuleError) as err:
        act(
            state,
            "startrek.extend_arc",
            {"ship": "excelsior", "deflector": "Starboard Deflector", "projection": "Fore"},
            ME,
        )
    assert err.value.message == "Starboard Deflector (value 0) would fall to -1 and shut down (ST-14)"


def test_ST_14_extension_must_reach_an_adjacent_projection():
    state = battle("excelsior")
    with pytest.raises(RuleError) as err:
        act(
            state,
            "startrek.extend_arc",
            {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Aft"},
            ME,
        )
    assert err.value.message == "Aft is not next to Fore Deflector's arc (Fore)"


def test_ST_14_medium_ship_buys_180_degrees_and_switching_systems_off_frees_power():
    state = battle("new-orleans")
    me = player("thomas-paine")
    ext = {"ship": "thomas-paine", "deflector": "Fore Deflector", "projection": "Aft"}
    with pytest.raises(RuleError) as err:
        act(state, "startrek.extend_arc", ext, me)
    assert err.value.message == "extending Fore Deflector needs 5 more power than Thomas Paine has this turn"
    state, events = act(
        state, "startrek.switch_system", {"ship": "thomas-paine", "system": "Phaser Arrays"}, me
    )
    assert events[0].text == "Thomas Paine switches Phaser Arrays off (17 power left)."
    state, events = act(state, "startrek.extend_arc", ext, me)
    assert events[0].text.startswith(
        "Thomas Paine extends Fore Deflector by 180° to cover Aft: power 2 → 18, regeneration 3 → 1 (1 power left)"
    )


def test_ST_14_switching_a_deflector_off_takes_back_its_free_regeneration():
    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.0.current", 20)
    state, _ = next_ship_power(state)
    assert values(state, "excelsior")["Fore"] == 24
    state, events = act(
        state, "startrek.switch_system", {"ship": "excelsior", "system": "Fore Deflector"}, ME
    )
    assert values(state, "excelsior")["Fore"] == 20
    assert power_left(state, "excelsior") == 10
    state, events = act(
        state, "startrek.switch_system", {"ship": "excelsior", "system": "Fore Deflector", "on": True}, ME
    )
    assert values(state, "excelsior")["Fore"] == 24
    assert power_left(state, "excelsior") == 8


def test_ST_12_unguarded_projection_collapses_at_adjust_ship_systems_others_carry_on():
    state = battle("excelsior")
    state, _ = hit(state, "excelsior", 40, direction="port", system="Port Deflector")
    assert values(state, "excelsior")["Port"] == 0
    state = set_value(state, f"{EX}.projections.3.current", 12)
    state = advance_to(state, "adjust_systems")
    assert values(state, "excelsior")["Port"] == 12
    state, events = advance(state)
    assert values(state, "excelsior") == {"Fore": 40, "Starboard": 30, "Aft": 30, "Port": 0}
    port = shields(state, "excelsior").projections[3]
    assert port.collapsed and port.collapsed_turn == 1
    assert of_kind(events, "shield_collapse")[0].text == (
        "Excelsior's Port shield collapses: no working deflector in arc (ST-12)."
    )


def test_ST_15_collapsed_projection_starts_from_zero_and_ST_15a_may_be_shored_up():
    state = battle("excelsior")
    state, _ = hit(state, "excelsior", 40, direction="port", system="Port Deflector")
    state = set_value(state, f"{EX}.projections.3.current", 12)
    state = advance_to(state, "adjust_systems")
    state, _ = advance(state)
    assert values(state, "excelsior")["Port"] == 0  # the 12 it held are gone (ST-15)
    assert state.clock.turn == 2 and state.clock.step == "ship_power"
    state, events = act(
        state,
        "startrek.transfer_shields",
        {"ship": "excelsior", "source": "Fore", "target": "Port", "points": 20},
        ME,
    )
    assert values(state, "excelsior")["Fore"] == 20 and values(state, "excelsior")["Port"] == 20
    assert events[0].text == (
        "Excelsior moves 20 shield strength from Fore to Port: Fore 40/40 → 20/40, Port 0/30 → 20/30 (ST-15a)."
    )
    with pytest.raises(RuleError) as err:
        act(
            state,
            "startrek.transfer_shields",
            {"ship": "excelsior", "source": "Aft", "target": "Starboard", "points": 1},
            ME,
        )
    assert "may only go to a projection that collapsed" in err.value.message


def test_ST_15_extended_deflector_regenerates_a_collapsed_projection_from_zero():
    state = battle("excelsior")
    state, _ = hit(state, "excelsior", 40, direction="port", system="Port Deflector")
    state = advance_to(state, "adjust_systems")
    state, _ = advance(state)
    state, _ = act(
        state,
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Fore Deflector", "projection": "Port"},
        ME,
    )
    # The Fore Deflector gave this Ship Power's free regeneration to the Fore when the segment
    # opened (once per Ship Power, ST-07): the extension does not give it again to the Port.
    port = shields(state, "excelsior").projections[3]
    assert (port.value, port.collapsed) == (0, True)
    state, _ = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 4, "projection": "Port"},
        ME,
    )
    port = shields(state, "excelsior").projections[3]
    assert (port.value, port.collapsed) == (4, False)  # bought at the extended value: up to 2 × 3
    state = advance_to(state, "adjust_systems")
    state, events = advance(state)
    assert not of_kind(events, "shield_collapse")
    assert values(state, "excelsior")["Port"] == 7  # next turn: +3 free from the extended deflector


def test_ST_07_others_see_shield_values_but_not_what_power_bought():
    from app.rules.views import Viewer, battle_view

    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.0.current", 10)
    state, _ = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 5},
        ME,
    )
    other = battle_view(state, Viewer("p-x", "player", frozenset()))["ships"]["excelsior"]["parts"]
    assert other["shields"]["projections"][0]["current"] == 15
    assert "extra_bought" not in other["shields"]["deflectors"][0]
    assert "power" not in other
    mine = battle_view(state, Viewer("p-excelsior", "player", frozenset({"excelsior"})))["ships"]["excelsior"]
    assert mine["parts"]["shields"]["deflectors"][0]["extra_bought"] == 5


def test_ST_12_two_projections_collapse_together():
    state = battle("excelsior")
    state, _ = hit(state, "excelsior", 40, direction="port", system="Port Deflector")
    state, _ = hit(state, "excelsior", 40, direction="aft", system="Aft Deflector")
    state = advance_to(state, "adjust_systems")
    state, events = advance(state)
    assert of_kind(events, "shield_collapse")[0].text == (
        "Excelsior's Aft, Port shields collapse: no working deflector in arc (ST-12)."
    )


def test_ST_07_ST_14_free_regeneration_once_per_ship_power_at_the_extended_value():
    """ST-07 with the demo's Excelsior: 17 on the Fore in turn 1 (40 → 23). Turn 2 Ship Power opens:
    Fore Deflector +4 → Fore 27/40 and Port Deflector +0 → Port 30/30 (3 lost). Extending the Port
    Deflector to the Fore (ST-14: value 3 → 2) re-values that one regeneration where it went, at 2
    (still all lost at the Port's rating): it is not given again to the Fore. Next Ship Power the
    extended deflector gives its 2 to the Fore, the projection in its arc with the most room."""
    state = battle("excelsior")
    state = advance_to(state, "combat", 1)
    state, _ = hit(state, "excelsior", 17, direction="fore")
    state, events = next_ship_power(state)
    assert of_kind(events, "shield_regeneration")[0].text == (
        "Excelsior's deflectors regenerate its shields: Fore Deflector +4 → Fore 27/40; Starboard Deflector +0 → "
        "Starboard 30/30 (3 lost at the rating); Aft Deflector +0 → Aft 30/30 (3 lost at the rating); "
        "Port Deflector +0 → Port 30/30 (3 lost at the rating) (ST-07)."
    )
    extend = {"ship": "excelsior", "deflector": "Port Deflector", "projection": "Fore"}
    state, events = act(state, "startrek.extend_arc", extend, ME)
    assert events[0].text == (
        "Excelsior extends Port Deflector by 90° to cover Fore: power 2 → 6, regeneration 3 → 2 (4 power left); "
        "its free regeneration stays on Port, once per Ship Power, at its value now (ST-07): Port Deflector +0 → "
        "Port 30/30 (2 lost at the rating) (ST-14)."
    )
    assert values(state, "excelsior") == {"Fore": 27, "Starboard": 30, "Aft": 30, "Port": 30}
    # Switching it off and on again, or retracting and extending again, never moves it to the Fore.
    switch = {"ship": "excelsior", "system": "Port Deflector"}
    state, events = act(state, "startrek.switch_system", switch, ME)
    assert events[0].text == (
        "Excelsior switches Port Deflector off (10 power left); its free regeneration is withdrawn from Port "
        "(it is not working; given once per Ship Power, ST-07)."
    )
    state, events = act(state, "startrek.switch_system", {**switch, "on": True}, ME)
    assert events[0].text.endswith(
        "its free regeneration stays on Port, once per Ship Power, at its value now (ST-07): Port Deflector +0 → "
        "Port 30/30 (2 lost at the rating)."
    )
    state, _ = act(state, "startrek.retract_arc", {"ship": "excelsior", "deflector": "Port Deflector"}, ME)
    state, _ = act(state, "startrek.extend_arc", extend, ME)
    assert values(state, "excelsior")["Fore"] == 27
    # Bought regeneration still follows the extended arc, up to 2 × the extended value.
    state, events = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Port Deflector", "points": 4, "projection": "Fore"},
        ME,
    )
    assert values(state, "excelsior")["Fore"] == 31
    state, events = next_ship_power(state)
    assert "Port Deflector +2 → Fore 37/40" in of_kind(events, "shield_regeneration")[0].text


def test_ST_07_ST_14_an_extension_after_the_free_regeneration_takes_its_penalty_off_it():
    """ST-07: the regeneration is at the value after the extension penalty. Port 27/30 at the open:
    Port Deflector +3 → 30/30; extending it then (value 2) leaves Port 29/30; retracting restores 3."""
    state = battle("excelsior")
    state = set_value(state, f"{EX}.projections.3.current", 27)
    state, events = next_ship_power(state)
    assert "Port Deflector +3 → Port 30/30 (ST-07)" in of_kind(events, "shield_regeneration")[0].text
    extend = {"ship": "excelsior", "deflector": "Port Deflector", "projection": "Fore"}
    state, events = act(state, "startrek.extend_arc", extend, ME)
    assert events[0].text.endswith("at its value now (ST-07): Port Deflector +2 → Port 29/30 (ST-14).")
    assert values(state, "excelsior") == {"Fore": 40, "Starboard": 30, "Aft": 30, "Port": 29}
    state, events = act(
        state, "startrek.retract_arc", {"ship": "excelsior", "deflector": "Port Deflector"}, ME
    )
    assert events[0].text.endswith("at its value now (ST-07): Port Deflector +3 → Port 30/30.")
