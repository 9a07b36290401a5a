"""The Star Trek part templates show the numbers seed 001 gives (ST-03, ST-07, ST-14, ST-17 … ST-25)
for the library's ships. Expected values are worked out here from the seed and the ship data and
written as numbers, never taken from the rules' own functions or constants, so a rule bug that the
display passes on fails these tests."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.helpers import part_context
from tests.rules.startrek.helpers import act, advance_to, battle, player, set_value
from tests.rules.startrek.test_templates import commander, render

ME = player("excelsior")


def shown(state, ship_id: str, part: str) -> dict:
    return part_context(state, ship_id, part, commander(ship_id))["display"][ship_id][part]


def extended(ship: str = "excelsior", deflector: str = "Fore Deflector", projection: str = "Port"):
    state = battle(ship)
    state = set_value(state, f"ships.{ship}.parts.power.output", 100)
    state, _ = act(
        state,
        "startrek.extend_arc",
        {"ship": ship, "deflector": deflector, "projection": projection},
        player(ship),
    )
    return state


def test_ST_14_deflector_value_and_power_after_extension_are_the_rules():
    state = extended()
    values = shown(state, "excelsior", "shields")
    # Excelsior's Fore Deflector is value 4, power 2 (excelsior.json). One 90° extension (seed 001,
    # Arc Extensions): power + twice the current 2 = 6, regeneration 4 − 1 = 3. The others are as built.
    assert [(d["name"], d["value"], d["power"]) for d in values["deflectors"]] == [
        ("Fore Deflector", 3, 6),
        ("Starboard Deflector", 3, 2),
        ("Aft Deflector", 3, 2),
        ("Port Deflector", 3, 2),
    ]
    html, _ = render(state, "excelsior", "shields", commander("excelsior"))
    assert "Fore Deflector +3 → Port" in html


def test_ST_14_extension_button_names_the_step_and_its_cost():
    # Seed 001, Arc Extensions: each 90° raises power by twice the current (p → 3p) and lowers the
    # regeneration by 1; a medium ship (two projections, New Orleans) must buy 180°: ×9, −2 (ST-14).
    for slug, ship, label in (
        ("excelsior", "excelsior", "Extend 90° (power ×3, regeneration −1)"),
        ("new-orleans", "thomas-paine", "Extend 180° (power ×9, regeneration −2)"),
    ):
        state = battle(slug)
        html, _ = render(state, ship, "shields", commander(ship))
        assert label in html, slug


def test_ST_08_ST_15a_the_segment_decides_which_transfer_the_form_offers():
    state = battle("excelsior")
    assert shown(state, "excelsior", "shields")["shore_up"] is True
    state = advance_to(state, "adjust_systems")
    assert shown(state, "excelsior", "shields")["shore_up"] is False
    html, found = render(state, "excelsior", "shields", commander("excelsior"))
    assert found.actions == ["startrek.transfer_shields"] and "ST-08" in html


def test_ST_07_power_left_is_the_budget_the_rules_charge():
    state = extended()  # output set to 100, Fore Deflector extended once
    values = shown(state, "excelsior", "power")
    # excelsior.json: systems 8 + 2 + 4 = 14; deflectors 6 (extended, ST-14) + 2 + 2 + 2 = 12.
    assert values["systems"] == 14 and values["deflectors"] == 12
    assert values["left"] == 100 - 14 - 12 == 74
    _, found = render(state, "excelsior", "power", commander("excelsior"))
    assert found.by_id["power-excelsior-left"]["data-left"] == "74"


def test_ST_03_costs_and_initiative_once_every_thruster_is_lost():
    values = shown(battle("excelsior"), "excelsior", "impulse")
    # excelsior.json: accel/decel 3, pivot 6, roll 4, initiative 2.
    assert (values["accel_decel"], values["pivot"], values["roll"], values["initiative"]) == (3, 6, 4, 2)
    state = set_value(battle("excelsior"), "ships.excelsior.parts.impulse.all_thrusters_lost", True)
    values = shown(state, "excelsior", "impulse")
    # Seed 001: "all thrust costs are DOUBLED and the ship suffers -10 initiative"; its example:
    # "Normally the accel/decel cost of the Excelsior would be 3 thrust; to do so now requires 6".
    assert values["accel_decel"] == 6
    assert values["pivot"] == 12 and values["roll"] == 8
    assert values["initiative"] == 2 - 10


def test_ST_17_ST_19_full_delay_and_working_nacelles_are_the_rules():
    values = shown(battle("excelsior"), "excelsior", "warp")
    assert values["full_delay"] == 3 and values["working"] == 2  # excelsior.json: delay 3, two nacelles
    state = set_value(battle("excelsior"), "ships.excelsior.parts.warp.shut_down", ["Port Nacelle"])
    values = shown(state, "excelsior", "warp")
    # ST-20: each shut-down nacelle adds 1 turn to the delay (3 + 1); it no longer counts as working.
    assert values["full_delay"] == 4
    assert values["working"] == 1
    html, _ = render(state, "excelsior", "warp", commander("excelsior"))
    assert "Delay 4 ·" in html


def test_ST_19_the_card_offers_warp_only_when_the_rules_would_take_it():
    """ST-19: "a ship built with more than one nacelle cannot warp once only one remains" (and a
    shut-down nacelle does not remain, catalogue ST-19): Excelsior with both nacelles offers Declare
    warp at Ship Power; with the port one shut down the card offers none, as the rules refuse it."""
    html, _ = render(battle("excelsior"), "excelsior", "warp", commander("excelsior"))
    assert "Declare warp" in html
    state = set_value(battle("excelsior"), "ships.excelsior.parts.warp.shut_down", ["Port Nacelle"])
    html, _ = render(state, "excelsior", "warp", commander("excelsior"))
    assert "Declare warp" not in html
    with pytest.raises(RuleError, match="has 1 working nacelle and needs 2 to go to warp"):
        act(state, "startrek.declare_warp", {"ship": "excelsior"}, player("excelsior"))


def test_ST_25_volley_penalties_are_the_to_hit_modifier():
    state = advance_to(battle("new-orleans", "excelsior"), "combat")
    values = shown(state, "thomas-paine", "photon_launcher")
    # ST-25: the launcher holds up to 3; firing N at once gives each −(N−1) to hit.
    assert values["volleys"] == [(1, "±0"), (2, "−1"), (3, "−2")]
