"""The sheet's systems block and crew ladder (TR-19, TR-23): each system's hits, how many it takes and
what they cost now, in TR-19's words — a battery −1d6, then −(1d6+1), then cannot fire; a spinal −2,
then disabled; a screen −2 protection per hit; an M-Drive −1 Thrust per hit; the J-Drive and sensors'
rolled DM, then disabled; the power plant Power −1, then −3 in all, then the ship disabled; the
computer −1, then −1d6, then no jump and no fire beyond Close; the bridge grounded a round, then
destroyed — and the Crew Strength table's steps."""

from __future__ import annotations

from typing import Any

from app.rules.traveller import tables as T
from app.rules.traveller.display import (
    _first_unit,
    _order_forms,
    crew_ladder,
    panel,
    repairable,
    systems,
    unmet,
)
from app.rules.traveller.flights import load_flight
from app.rules.traveller.ship import load
from tests.rules.traveller.helpers import act, battle, capital
from tests.rules.traveller.test_branches_actions import HULK, gig
from tests.rules.traveller.test_clauses import red_flight


def sheet(**kestrel: Any) -> list[dict[str, Any]]:
    state = battle(capital("Kestrel", **kestrel))
    return systems(load(state.ships["kestrel"]))


SCREEN = [{"id": "screen", "kind": "meson", "count": 2, "sections": ["Main"], "hits": 1}]
SPINAL = {"type": "particle", "damage": 100, "name": "Particle Spinal", "hits": 1}


def test_TR_19_an_undamaged_ship_shows_no_penalty() -> None:
    rows = sheet(thrust_max=4, spinal={"type": "particle", "damage": 100, "name": "Particle Spinal"})
    labels = ["Turret: Beam Laser ×25", "Particle Spinal", "M-Drive", "J-Drive", "Power plant", "Sensors"]
    assert [r["label"] for r in rows] == [*labels, "Computer", "Bridge"]
    assert [r["most"] for r in rows] == [3, 2, 4, 2, 3, 2, 3, 2]
    assert {(r["hits"], r["penalty"]) for r in rows} == {(0, "")}


def test_TR_19_first_hits_and_their_costs() -> None:
    systems_hit = {
        "m_drive": 1,
        "j_drive": 1,
        "jump_dm": -4,
        "power_plant": 1,
        "sensors": 1,
        "sensors_dm": -3,
        "computer": 1,
        "bridge": 1,
        "bridge_round": 2,
    }
    batteries = [
        {"id": "beam", "weapon": "beam_laser", "mounts": 25, "tons": 25, "sections": ["Main"], "hits": 1}
    ]
    rows = sheet(
        thrust=3, thrust_max=4, spinal=SPINAL, screens=SCREEN, systems=systems_hit, batteries=batteries
    )
    assert [(r["label"], r["hits"], r["most"], r["penalty"]) for r in rows] == [
        ("Turret: Beam Laser ×25", 1, 3, "−1d6"),
        ("Particle Spinal", 1, 2, "−2"),
        ("Screen: Meson Screen ×2", 1, 2, "−2 protection"),
        ("M-Drive", 1, 4, "Thrust 3"),
        ("J-Drive", 1, 2, "−4 to jumps"),  # a real minus sign, as every DM on the sheet
        ("Power plant", 1, 3, "Power −1"),
        ("Sensors", 1, 2, "−3 DM"),
        ("Computer", 1, 3, "−1 to all rolls"),
        ("Bridge", 1, 2, "no manoeuvre round 2"),
    ]


def test_TR_19_later_hits_and_their_costs() -> None:
    systems_hit = {"m_drive": 5, "j_drive": 2, "power_plant": 2, "sensors": 2, "computer": 2, "bridge": 2}
    batteries = [
        {"id": "beam", "weapon": "beam_laser", "mounts": 25, "tons": 25, "sections": ["Main"], "hits": 2}
    ]
    rows = sheet(
        thrust=0, thrust_max=4, spinal={**SPINAL, "hits": 2}, systems=systems_hit, batteries=batteries
    )
    assert [(r["label"], r["hits"], r["most"], r["penalty"]) for r in rows] == [
        ("Turret: Beam Laser ×25", 2, 3, "−(1d6+1)"),
        ("Particle Spinal", 2, 2, "disabled"),
        ("M-Drive", 5, 5, "Thrust 0"),  # more hits than the design's Thrust: the row grows
        ("J-Drive", 2, 2, "disabled"),
        ("Power plant", 2, 3, "Power −3"),
        ("Sensors", 2, 2, "disabled"),
        ("Computer", 2, 3, "−1d6 to all rolls"),
        ("Bridge", 2, 2, "destroyed: initiative halved"),
    ]


def test_TR_19_the_last_hits_disable_a_battery_the_power_plant_and_the_computer() -> None:
    systems_hit = {"power_plant": 3, "computer": 3}
    batteries = [
        {"id": "beam", "weapon": "beam_laser", "mounts": 25, "tons": 25, "sections": ["Main"], "hits": 3}
    ]
    rows = {r["label"]: r["penalty"] for r in sheet(systems=systems_hit, batteries=batteries)}
    assert rows["Turret: Beam Laser ×25"] == "cannot fire"
    assert rows["Power plant"] == "ship disabled"
    assert rows["Computer"] == "no jump, fire ≤ Close"


def test_TR_23_the_crew_ladder_names_each_step() -> None:
    ladder = crew_ladder("half")
    assert [(s["key"], s["name"], s["label"], s["now"]) for s in ladder] == [
        ("full", "Full", "Full +0", False),
        ("weakened", "Weakened", "Weakened +0", False),
        ("half", "Half", "Half −1, fire 1/2", True),
        ("skeleton", "Skeleton", "Skeleton −2, fire 1/3", False),
        ("survivors", "Survivors", "Survivors −4, fire 1/5", False),
        ("dead", "Dead", "Dead cannot act", False),
    ]


def test_TR_11_a_meson_spinal_shows_its_penetration_rating() -> None:
    # tables.md: a meson spinal of 260–309 damage is rating II.
    rows = sheet(spinal={"type": "meson", "damage": 280, "name": "Meson Spinal"})
    assert rows[1]["label"] == "Meson Spinal (II)"


def test_TR_19_a_ship_built_without_thrust_still_shows_one_m_drive_pip() -> None:
    rows = {r["label"]: r for r in sheet(thrust=0, thrust_max=0)}
    assert (rows["M-Drive"]["hits"], rows["M-Drive"]["most"]) == (0, 1)


# --- the orders form and the battle-wide controls (TR-26b, TR-22, TR-03) -----------------------------


def test_TR_26b_why_a_ship_may_not_give_an_order() -> None:
    # Kestrel: Crew Skill 2, no spinal mount, a capital ship.
    unit = load(battle(capital("Kestrel")).ships["kestrel"])
    assert unmet(unit, T.ORDERS["engines_back_online"]) == "needs Crew Skill 3+"
    assert unmet(unit, T.ORDERS["line_up_spinal"]) == "needs a spinal mount"
    assert unmet(unit, T.ORDERS["fast_strafing_run"]) == "a small craft flight only"
    assert unmet(unit, T.ORDERS["screens_full"]) is None
    # "only performed by a small craft flight" (seed): a lone small craft is not offered it, a flight is.
    boat = gig()
    boat["parts"]["hg_ship"]["kind"] = "small_craft"
    lone = load(battle(boat).ships["gig"])
    assert unmet(lone, T.ORDERS["fast_strafing_run"]) == "a small craft flight only"
    assert unmet(lone, T.ORDERS["fighter_screen"]) == "a small craft flight only"
    flight = load_flight(battle(red_flight()).ships["red-flight"])
    assert unmet(flight, T.ORDERS["fast_strafing_run"]) is None
    assert unmet(flight, T.ORDERS["fighter_screen"]) is None


def test_TR_26b_each_order_form_asks_what_the_order_needs() -> None:
    # Crew Skill 3 allows every order but the spinal's and the small craft's; One More Shot is offered
    # only with something damaged.
    unit = load(battle(capital("Kestrel", crew_skill=3)).ships["kestrel"])
    asked = {f["key"]: f["ask"] for f in _order_forms(unit, [("beam", "Turret: Beam Laser")])}
    assert (
        asked["one_more_shot"],
        asked["focused_fire"],
        asked["evasive_action"],
        asked["screens_full"],
    ) == ("damaged", "target", "repeat", "tick")
    assert "line_up_spinal" not in asked and "fast_strafing_run" not in asked
    assert "one_more_shot" not in {f["key"] for f in _order_forms(unit, [])}


def test_TR_22_a_damaged_spinal_mount_is_repairable_under_spinal() -> None:
    state = battle(capital("Kestrel", spinal=SPINAL))
    assert repairable(load(state.ships["kestrel"])) == [("spinal", "Particle Spinal")]


def test_TR_03_the_referees_controls_sit_on_the_first_high_guard_sheet() -> None:
    state = battle(HULK, capital("Kestrel"), capital("Tigress"))
    # The hulk sorts first by id but has no High Guard part.
    assert _first_unit(state) == "kestrel"
    assert _first_unit(battle(HULK)) is None
    state.ships["kestrel"].side, state.ships["tigress"].side = "Imperial", "Zhodani"
    assert panel(state) == {"unrolled": True, "orders_on": True, "sides": ["Imperial", "Zhodani"]}
    rolled = act(state, "traveller.initiative", {}, dice=[3, 4]).state
    assert panel(rolled)["unrolled"] is False


def test_TR_03_a_flight_alone_carries_the_controls_and_awaits_initiative() -> None:
    state = battle(HULK, red_flight())
    assert _first_unit(state) == "red-flight"
    assert panel(state) == {"unrolled": True, "orders_on": True, "sides": []}
