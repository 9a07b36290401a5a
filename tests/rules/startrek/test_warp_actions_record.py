"""What the warp actions and turn hooks record, beside their sentences (ST-17 … ST-20): each event
filed under its ship with its data, a shut-down's refusals on `nacelle`, a shut-down adding to a
running delay, and the hooks walking on past a ship they skip.

Every number is the seed's (seed 001): a nacelle fails "equal to the number of boxes destroyed"
(ST-18); "for each nacelle shutdown increase the warp delay by 1" (ST-20); the delay counts down one
turn at each turn's end (ST-17). The Excelsior and the Enterprise each list a warp delay of 3; the
Enterprise's id sorts before the Excelsior's, so the hooks reach her first.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from app.rules.startrek.warp import Warp
from tests.rules.startrek.helpers import act, advance, advance_to, battle, of_kind, player, set_value
from tests.rules.startrek.test_warp_record import four_nacelles

ME = player("excelsior")
PORT_NACELLE = "ships.excelsior.parts.sheet.sections.1.systems.0.damage"


def warp(state: Any) -> Warp:
    return Warp.model_validate(state.ships["excelsior"].parts["warp"])


def declare(state: Any, dice: list[int]) -> tuple[Any, list[Any]]:
    return act(state, "startrek.declare_warp", {"ship": "excelsior"}, ME, dice)


def shut_down(state: Any, nacelle: str) -> tuple[Any, list[Any]]:
    return act(state, "startrek.shutdown_nacelle", {"ship": "excelsior", "nacelle": nacelle}, ME)


@pytest.mark.parametrize(
    ("roll", "kind", "data"),
    [(19, "warp_declared", {"success": True}), (18, "warp_failed", {"success": False, "counter": 3})],
)
def test_ST_17_ST_18_a_declaration_is_filed_under_the_ship_with_its_outcome(
    roll: int, kind: str, data: dict[str, Any]
) -> None:
    """The Port Nacelle 18 boxes down: a roll of 19 holds (warp declared), 18 fails (delay back to 3)."""
    state = set_value(battle("excelsior"), PORT_NACELLE, 18)
    _, (event,) = declare(state, [roll])
    assert (event.kind, event.ship, event.data) == (kind, "excelsior", data)


def test_ST_20_a_shut_down_adds_one_to_a_running_delay_and_is_filed_under_the_ship() -> None:
    state = set_value(battle(four_nacelles()), "ships.excelsior.parts.warp.counter", 2)
    state, (event,) = shut_down(state, "ventral nacelle")
    assert warp(state).counter == 3
    assert (event.kind, event.ship, event.text) == (
        "nacelle_shutdown",
        "excelsior",
        "Excelsior shuts down Ventral Nacelle: warp delay +1, 3 turns to wait; it is skipped in warp checks (ST-20).",
    )


def test_ST_20_a_shut_down_names_a_working_nacelle_of_the_ship() -> None:
    """Refused on `nacelle`: one the ship lacks (its four named in the sheet's section order: Port, Primary, Starboard), or one shut down in an earlier turn."""
    state = battle(four_nacelles())
    with pytest.raises(RuleError) as err:
        shut_down(state, "Aft Nacelle")
    assert (err.value.field, err.value.message) == (
        "nacelle",
        "Excelsior has no nacelle 'Aft Nacelle' (Port Nacelle, Ventral Nacelle, Dorsal Nacelle, Starboard Nacelle)",
    )
    state, _ = shut_down(state, "Ventral Nacelle")
    state = advance_to(state, "ship_power", turn=2)
    with pytest.raises(RuleError) as err:
        shut_down(state, "Ventral Nacelle")
    assert (err.value.field, err.value.message) == (
        "nacelle",
        "Ventral Nacelle is already shut down or destroyed",
    )


def test_ST_17_a_ship_that_did_not_declare_does_not_stop_the_next_leaving() -> None:
    """The Enterprise stays; the Excelsior, declared, leaves at the end of turn 1, logged against her."""
    state, _ = declare(battle("galaxy-class", "excelsior"), [])
    state = advance_to(state, "adjust_systems")
    state, events = advance(state)
    assert [(e.ship, e.text) for e in of_kind(events, "warp_departed")] == [
        ("excelsior", "Excelsior goes to warp and leaves the battle.")
    ]


def test_ST_17_the_delay_counts_down_past_a_ship_with_none_to_run() -> None:
    """The Enterprise's delay is 0, the Excelsior's 2: at the turn's end hers is 1."""
    state = set_value(battle("galaxy-class", "excelsior"), "ships.excelsior.parts.warp.counter", 2)
    state = advance_to(state, "ship_power", turn=2)
    assert warp(state).counter == 1
