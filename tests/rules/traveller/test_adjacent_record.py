"""TR-16 / TR-17 adjacency, from tables.md §1b and the catalogue's Decision: sections are adjacent
along the Damage Location order, aft to fore (CW–CZ: Engineering – Aft – Lower Amidships – Upper
Amidships – Main – Forward; CA–CE have two sections, Engineering and Forward)."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from app.rules.traveller.hits import adjacent_sections, choose_adjacent, needs_choice, preference
from app.rules.traveller.ship import HgShip
from tests.rules.traveller.helpers import battle, capital


def hull(code: str, **more) -> HgShip:
    state = battle(capital("Kestrel", hull_code=code, **more))
    return HgShip.model_validate(state.ships["kestrel"].parts["hg_ship"])


def small() -> HgShip:
    """A CA hull: two sections, its fittings in them."""
    return hull(
        "CA",
        batteries=[{"id": "beam", "weapon": "beam_laser", "mounts": 5, "tons": 5, "sections": ["Forward"]}],
        components=[
            {"kind": "sensors", "name": "Sensors", "tons": 5, "sections": ["Forward"]},
            {"kind": "computer", "name": "Computer", "tons": 3, "sections": ["Forward"]},
            {"kind": "command", "name": "Bridge", "tons": 60, "sections": ["Forward"]},
            {"kind": "fuel", "name": "Fuel", "tons": 100, "sections": ["Engineering"]},
        ],
    )


def test_TR_17_neighbours_along_the_damage_location_order():
    big = hull("CW")
    assert adjacent_sections(big, "Lower Amidships") == ["Aft", "Upper Amidships"]
    assert adjacent_sections(big, "Forward") == ["Main"]  # the fore end has one
    assert adjacent_sections(big, "Engineering") == ["Aft"]


def test_TR_16_a_two_section_hull_never_asks_which_neighbour():
    assert [s.name for s in small().sections] == ["Engineering", "Forward"]
    assert needs_choice(small()) is False
    assert needs_choice(hull("CF")) is True


def test_TR_16_a_section_that_is_not_adjacent_is_refused_naming_both_neighbours():
    with pytest.raises(RuleError) as err:
        choose_adjacent(hull("CW"), "Lower Amidships", "Forward", "Kestrel")
    assert (err.value.field, err.value.message) == (
        "adjacent",
        "Forward is not adjacent to Lower Amidships, the section hit: the other half goes to Aft or "
        "Upper Amidships (TR-16)",
    )


def test_TR_16_a_preference_may_be_written_with_underscores_or_spaces():
    big = hull("CW")
    assert (preference(big, "toward_fore"), preference(big, "  Toward   Aft ")) == ("fore", "aft")
    assert choose_adjacent(big, "Lower Amidships", "toward_fore") == "Upper Amidships"
