"""ST-05 with the map: shield projections that give their arcs in degrees cover 360° once each;
ship data whose arcs overlap or leave a gap is refused, naming the field."""

from __future__ import annotations

import copy

import pytest

from app.rules import new_battle
from app.rules.core import RuleError
from tests.rules.startrek.helpers import ST_SHIPS, act, definition


@pytest.mark.parametrize("slug", ST_SHIPS)
def test_ST_05_library_ships_load_with_their_arcs(slug):
    state, _ = act(new_battle("b5wars"), "ship.add", {"definition": definition(slug)})
    projections = next(iter(state.ships.values())).parts["shields"]["projections"]
    assert all(p["degrees"] is not None for p in projections)


def refusal(change) -> RuleError:
    data = copy.deepcopy(definition("new-orleans"))
    change(data["parts"]["shields"]["projections"])
    with pytest.raises(RuleError) as caught:
        act(new_battle("b5wars"), "ship.add", {"definition": data})
    return caught.value


def test_ST_05_overlapping_arcs_are_refused_naming_the_field():
    error = refusal(lambda ps: ps[0].update(degrees=[260, 90]))
    assert error.field == "definition.parts.shields.projections.1.degrees"
    assert str(error) == (
        "definition.parts.shields.projections.1.degrees: shield projections cover each direction once, with no "
        "overlap and no gap (ST-05): Aft's arc (90°–270°) overlaps Fore's by 10°"
    )


def test_ST_05_a_gap_is_refused_naming_the_field():
    error = refusal(lambda ps: ps[1].update(degrees=[90, 250]))
    assert error.field == "definition.parts.shields.projections.1.degrees"
    assert str(error).endswith("Aft's arc (90°–250°) leaves a gap of 20° before Fore's")


def test_ST_05_arcs_for_some_projections_only_are_refused():
    error = refusal(lambda ps: ps[1].pop("degrees"))
    assert error.field == "definition.parts.shields.projections.1.degrees"
    assert "give every projection its degrees, or none: Aft has none" in str(error)


def test_ST_05_degrees_past_360_are_refused():
    error = refusal(lambda ps: ps[0].update(degrees=[270, 450]))
    assert error.field is not None and error.field.startswith("definition.parts.shields.projections.0")
    assert "degrees run from 0 to 360" in str(error)


def test_ST_05_projections_without_degrees_still_load():
    def strip(ps):
        for p in ps:
            p.pop("degrees")

    data = copy.deepcopy(definition("new-orleans"))
    strip(data["parts"]["shields"]["projections"])
    state, _ = act(new_battle("b5wars"), "ship.add", {"definition": data})
    ship = next(iter(state.ships.values()))
    assert [p["degrees"] for p in ship.parts["shields"]["projections"]] == [None, None]
