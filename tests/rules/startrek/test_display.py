"""The Star Trek part templates draw the rules' own numbers (ST-03, ST-07, ST-14, ST-17 … ST-25):
startrek/display.py reads shields.py, power.py, impulse.py, warp.py and torpedoes.py, and the
templates print what it gives."""

from __future__ import annotations

from app.rules.startrek import impulse, power, shields, torpedoes, warp
from app.rules.startrek.shields import Shields
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
    sh = Shields.model_validate(state.ships["excelsior"].parts["shields"])
    values = shown(state, "excelsior", "shields")
    assert [(d["name"], d["value"], d["power"]) for d in values["deflectors"]] == [
        (d.name, shields.current_value(sh, d), shields.power_requirement(sh, d)) for d in sh.deflectors
    ]
    fore = next(d for d in values["deflectors"] if d["name"] == "Fore Deflector")
    html, _ = render(state, "excelsior", "shields", commander("excelsior"))
    assert f"Fore Deflector +{fore['value']} → Port" in html


def test_ST_14_extension_button_names_the_step_and_its_cost():
    for slug, ship in (("excelsior", "excelsior"), ("new-orleans", "thomas-paine")):
        state = battle(slug)
        sh = Shields.model_validate(state.ships[ship].parts["shields"])
        step = shields.steps_per_projection(sh)
        ext = shown(state, ship, "shields")["extension"]
        assert ext == {
            "degrees": 90 * step,
            "power": shields.EXTENSION_POWER_FACTOR**step,
            "regeneration": step,
        }
        html, _ = render(state, ship, "shields", commander(ship))
        assert (
            f"Extend {90 * step}° (power ×{shields.EXTENSION_POWER_FACTOR**step}, regeneration −{step})"
            in html
        )


def test_ST_08_ST_15a_the_segment_decides_which_transfer_the_form_offers():
    state = battle("excelsior")
    assert shown(state, "excelsior", "shields")["shore_up"] is True
    state = advance_to(state, "adjust_systems")
    assert shown(state, "excelsior", "shields")["shore_up"] is False
    html, found = render(state, "excelsior", "shields", commander("excelsior"))
    assert found.actions == ["startrek.transfer_shields"] and "ST-08" in html


def test_ST_07_power_left_is_the_budget_the_rules_charge():
    state = extended()
    ship = state.ships["excelsior"]
    budget = power.Power.model_validate(ship.parts["power"])
    values = shown(state, "excelsior", "power")
    assert values["left"] == power.available(ship, budget)
    assert values["deflectors"] == power.deflector_need(ship)
    _, found = render(state, "excelsior", "power", commander("excelsior"))
    assert found.by_id["power-excelsior-left"]["data-left"] == str(values["left"])


def test_ST_03_costs_and_initiative_once_every_thruster_is_lost():
    state = set_value(battle("excelsior"), "ships.excelsior.parts.impulse.all_thrusters_lost", True)
    im = impulse.Impulse.model_validate(state.ships["excelsior"].parts["impulse"])
    values = shown(state, "excelsior", "impulse")
    assert values["accel_decel"] == impulse.thrust_cost(im, "accel")
    assert values["pivot"] == impulse.thrust_cost(im, "pivot") and values["roll"] == impulse.thrust_cost(
        im, "roll"
    )
    assert values["initiative"] == im.effective_initiative


def test_ST_17_ST_19_full_delay_and_working_nacelles_are_the_rules():
    state = set_value(battle("excelsior"), "ships.excelsior.parts.warp.shut_down", ["Port Nacelle"])
    ship = state.ships["excelsior"]
    wp = warp.Warp.model_validate(ship.parts["warp"])
    values = shown(state, "excelsior", "warp")
    assert values["full_delay"] == warp.full_delay(wp)
    assert values["working"] == len(warp.working_nacelles(ship, wp))
    html, _ = render(state, "excelsior", "warp", commander("excelsior"))
    assert f"Delay {warp.full_delay(wp)} ·" in html


def test_ST_25_volley_penalties_are_the_to_hit_modifier():
    state = advance_to(battle("new-orleans", "excelsior"), "combat")
    values = shown(state, "thomas-paine", "photon_launcher")
    assert [int(dm.replace("−", "-").replace("±", "")) for _, dm in values["volleys"]] == [
        torpedoes.to_hit_modifier(n) for n in range(1, torpedoes.CAPACITY + 1)
    ]
