"""A Traveller unit read fresh for its round (TR-03, TR-23, TR-26c) and the units still in the fight:
what a new round starts from, how many rounds of fire a battery remembers, and which ships the
round's loop and hooks see."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.state import Ship
from app.rules.traveller.ship import RoundState
from app.rules.traveller.units import fresh_round, load_unit, units
from tests.rules.traveller.helpers import battle, capital


def kestrel_unit():
    state = battle(capital("Kestrel"))
    return load_unit(state, state.ships["kestrel"])


def test_TR_03_TR_26c_a_new_round_starts_at_the_engagements_initiative() -> None:
    # Initiative 9 was rolled once for the engagement (TR-03); round 1's orders cost 2 (TR-26c), which
    # lasts that round only: round 2 starts at 9 again, with nothing done.
    unit = kestrel_unit()
    unit.initiative_base = 9
    unit.round = RoundState(turn=1, initiative=7, actions=2)
    fresh_round(unit, 2)
    assert (unit.round.turn, unit.round.initiative, unit.round.actions) == (2, 9, 0)


def test_TR_26c_the_same_round_keeps_its_initiative_after_orders() -> None:
    unit = kestrel_unit()
    unit.initiative_base = 9
    unit.round = RoundState(turn=2, initiative=7, actions=2)
    fresh_round(unit, 2)
    assert (unit.round.turn, unit.round.initiative, unit.round.actions) == (2, 7, 2)


def test_TR_23_a_battery_remembers_the_last_5_rounds_of_fire() -> None:
    # Survivors fire once per 5 rounds (Crew Strength table): at round 6 the fire of rounds 2–6 counts,
    # round 1's is forgotten.
    unit = kestrel_unit()
    unit.batteries[0].fired = {"1": 20, "2": 5, "5": 3}
    unit.round = RoundState(turn=5)
    fresh_round(unit, 6)
    assert unit.batteries[0].fired == {"2": 5, "5": 3}


@pytest.mark.parametrize(("field", "expected"), [(None, "ship"), ("target", "target")])
def test_GEN_03_a_ship_without_a_high_guard_part_is_refused_on_its_field(
    field: str | None, expected: str
) -> None:
    state = battle(capital("Kestrel"))
    buoy = Ship(id="buoy", name="Buoy", system="traveller")
    with pytest.raises(RuleError) as refused:
        load_unit(state, buoy) if field is None else load_unit(state, buoy, field)
    assert (refused.value.message, refused.value.field) == (
        "Buoy is not a High Guard ship or flight",
        expected,
    )


def test_GEN_04_a_destroyed_ship_is_left_out_and_the_ships_after_it_are_not() -> None:
    state = battle(capital("Alpha"), capital("Kestrel"))
    state.ships["alpha"].destroyed = True
    assert [ship.id for ship, _ in units(state)] == ["kestrel"]


def test_TR_04_a_ship_that_jumped_out_has_no_place_in_the_loop_and_the_next_still_has() -> None:
    state = battle(capital("Alpha"), capital("Kestrel"))
    alpha = state.ships["alpha"]
    alpha.parts = {**alpha.parts, "hg_ship": {**alpha.parts["hg_ship"], "jumped": 1}}
    assert [ship.id for ship, _ in units(state)] == ["kestrel"]
