"""What the warp rules record beyond their sentences (ST-17 … ST-20): the full delay a failure resets
to, nacelles destroyed in any order and on top of a running delay, the d100 check's die, cap and
owner, and a ship whose data lists its own nacelles.

Every number is the seed's (seed 001): a failure chance "equal to the number of boxes destroyed"
(at most 100%, ST-18), "for every warp nacelle destroyed, add '2' to the warp delay. This does not
reset the delay" (ST-19), "for each nacelle shutdown increase the warp delay by 1" (ST-20). The
Excelsior's listed warp delay is 3 (its ship data).
"""

from __future__ import annotations

from typing import Any

from app.rules import STANDARD
from app.rules.startrek.warp import Warp
from tests.rules.startrek.helpers import act, battle, definition, hit, of_kind, player, set_value

ME = player("excelsior")


def warp(state: Any) -> Warp:
    return Warp.model_validate(state.ships["excelsior"].parts["warp"])


def declare(state: Any, dice: list[int]) -> tuple[Any, list[Any]]:
    return act(state, "startrek.declare_warp", {"ship": "excelsior"}, ME, dice)


def four_nacelles() -> dict[str, Any]:
    """The Excelsior with a Ventral and a Dorsal Nacelle added to its Primary section."""
    data = definition("excelsior")
    for name in ("Ventral Nacelle", "Dorsal Nacelle"):
        data["parts"]["sheet"]["sections"][2]["systems"].append(
            {"name": name, "kind": "nacelle", "boxes": 20}
        )
    return data


def test_ST_18_ST_19_ST_20_a_failure_resets_to_the_listed_delay_plus_two_per_destroyed_and_one_per_shut_down() -> (
    None
):
    """ST-18 Decision: "reset" is back to the full current delay. Four nacelles; the Dorsal destroyed
    (+2, ST-19), the Ventral shut down (+1, ST-20), the Port 18 boxes down and rolling 18 (fails,
    ST-18): the delay resets to 3 + 2 + 1 = 6."""
    state = battle(four_nacelles())
    state = set_value(state, "ships.excelsior.parts.sheet.sections.2.systems.5.damage", 20)
    state = set_value(state, "ships.excelsior.parts.warp.destroyed_counted", ["Dorsal Nacelle"])
    state, _ = act(
        state, "startrek.shutdown_nacelle", {"ship": "excelsior", "nacelle": "Ventral Nacelle"}, ME
    )
    state = set_value(state, "ships.excelsior.parts.warp.counter", 0)
    state = set_value(state, "ships.excelsior.parts.sheet.sections.1.systems.0.damage", 18)
    state, events = declare(state, [18])
    assert events[0].kind == "warp_failed"
    assert (warp(state).counter, events[0].data) == (6, {"success": False, "counter": 6})


def test_ST_19_the_second_nacelle_destroyed_counts_as_well_as_the_first() -> None:
    """ST-19: the Starboard Nacelle destroyed (the Port intact) adds 2, logged against the ship."""
    state = battle("excelsior")
    state, events = hit(
        state, "excelsior", 60, direction="starboard", section="Starboard", system="Starboard Nacelle"
    )
    assert (warp(state).counter, warp(state).destroyed_counted) == (2, ["Starboard Nacelle"])
    (delay,) = of_kind(events, "warp_delay")
    assert (delay.ship, delay.text) == (
        "excelsior",
        "Excelsior's Starboard Nacelle is destroyed: warp delay +2, 2 turns to wait (ST-19).",
    )


def test_ST_19_a_destroyed_nacelle_adds_to_a_running_delay_without_resetting_it() -> None:
    """ST-19: "This does not reset the delay, but merely increases the time": a failed attempt leaves
    3 turns to wait; the Port Nacelle then destroyed makes it 3 + 2 = 5."""
    state = set_value(battle("excelsior"), "ships.excelsior.parts.sheet.sections.1.systems.0.damage", 18)
    state, _ = declare(state, [18])
    assert warp(state).counter == 3
    state, _ = hit(state, "excelsior", 60, direction="port", section="Port", system="Port Nacelle")
    assert warp(state).counter == 5


def test_ST_18_the_d100_is_the_ships_and_its_chance_stops_at_100() -> None:
    """ST-18: a nacelle of 150 boxes with 120 destroyed fails at most on every roll, 100%: the check
    is the ship's 1d100, needing more than 100 to hold — a 100 fails."""
    data = definition("excelsior")
    data["parts"]["sheet"]["sections"][1]["systems"][0]["boxes"] = 150
    state = set_value(battle(data), "ships.excelsior.parts.sheet.sections.1.systems.0.damage", 120)
    state, events = declare(state, [100])
    (roll,) = events[0].rolls
    assert (roll.ship, roll.sentence()) == (
        "excelsior",
        "Port Nacelle warp check: 1d100 = 100, needs > 100 to hold → fails",
    )
    assert events[0].text.startswith(
        "Excelsior tries to go to warp: Port Nacelle (100% failure) rolls 100: fails;"
    )


def test_ST_19_a_ship_built_with_one_nacelle_warps_on_it() -> None:
    """ST-19: only a ship that "does not normally have only a single warp nacelle" needs two; a ship
    whose data names one nacelle (the Port) goes to warp on it, and only it is checked."""
    data = definition("excelsior")
    data["parts"]["warp"]["nacelles"] = ["Port Nacelle"]
    state = set_value(battle(data), "ships.excelsior.parts.sheet.sections.1.systems.0.damage", 5)
    state, events = declare(state, [6])
    assert events[0].kind == "warp_declared"
    assert [r.purpose for r in events[0].rolls] == ["Port Nacelle warp check"]


def test_ST_18_a_listed_nacelle_missing_from_the_sheet_has_no_destroyed_boxes() -> None:
    """ST-18: the chance is the destroyed boxes; a nacelle the data lists but the sheet lacks has none,
    so it is checked at 0% with no roll."""
    data = definition("excelsior")
    data["parts"]["warp"]["nacelles"] = ["Port Nacelle", "Spare Nacelle"]
    state, events = declare(battle(data), [])
    assert events[0].kind == "warp_declared"
    assert "Spare Nacelle is undamaged (0% failure)" in events[0].text
    assert events[0].rolls == []


def test_ST_18_the_sheet_lists_only_the_nacelles_the_damage_sheet_has() -> None:
    """Warp data naming a third nacelle the Excelsior's sheet lacks: the sheet shows the two it has,
    each 20 boxes, undamaged (0% failure chance, ST-18)."""
    state = battle("excelsior")
    ship = state.ships["excelsior"]
    part = dict(ship.parts["warp"]) | {"nacelles": ["Port Nacelle", "Ventral Nacelle", "Starboard Nacelle"]}
    shown = STANDARD.parts()["warp"].display(part, ship, state)
    assert [(n["name"], n["boxes"], n["chance"], n["dead"]) for n in shown["nacelles"]] == [
        ("Port Nacelle", 20, 0, False),
        ("Starboard Nacelle", 20, 0, False),
    ]
