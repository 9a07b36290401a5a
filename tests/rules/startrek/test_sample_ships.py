"""The five Star Trek sample ships load through ship.add and carry what the rules need."""

from __future__ import annotations

import pytest

from app.rules.generic.actions import ShipDefinition
from tests.rules.startrek.helpers import ST_SHIPS, battle, definition


@pytest.mark.parametrize("slug", ST_SHIPS)
def test_sample_ship_is_labelled_b5wars_sample_data_with_a_sheet_and_shields(slug):
    data = definition(slug)
    ShipDefinition.model_validate(data)
    assert data["sample"] is True and data["system"] == "b5wars"
    assert data["klass"].endswith("(sample data)")
    kinds = {s["kind"] for sec in data["parts"]["sheet"]["sections"] for s in sec["systems"]}
    assert {"impulse_thruster", "deflector", "shield_generator", "nacelle"} <= kinds
    thrusters = [
        s
        for sec in data["parts"]["sheet"]["sections"]
        for s in sec["systems"]
        if s["kind"] == "impulse_thruster"
    ]
    assert thrusters and all(s["called_shot"] is False for s in thrusters)
    battle(slug)


def test_ST_03_excelsior_sample_has_four_projections_and_accel_3_turn_1x_speed():
    data = definition("excelsior")["parts"]
    assert len(data["shields"]["projections"]) == 4
    assert (data["impulse"]["accel_decel"], data["impulse"]["turn_cost"]) == (3, 1.0)
    assert [s["kind"] for s in data["sheet"]["sections"][4]["systems"]][:2] == ["impulse_thruster"] * 2


def test_ST_25_new_orleans_carries_the_advanced_photon_launcher():
    data = definition("new-orleans")["parts"]
    assert data["photon_launcher"]["launchers"][0]["name"] == "Advanced Photon Launcher"
    assert len(data["shields"]["projections"]) == 2


def test_ST_21_warbird_and_bird_of_prey_cloak_and_the_bird_has_one_360_projection():
    warbird = definition("romulan-warbird")["parts"]
    bird = definition("klingon-bird-of-prey")["parts"]
    assert warbird["cloak"]["device"] == "Cloaking Device" and bird["cloak"]["device"] == "Cloaking Device"
    assert bird["shields"]["projections"] == [
        {"name": "Shield", "arcs": ["all"], "degrees": [0, 360], "rating": 20}
    ]
    assert len(warbird["shields"]["projections"]) == 4
