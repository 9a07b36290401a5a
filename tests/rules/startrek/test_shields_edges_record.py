"""Shield clauses the other shield tests pass over (ST-05, ST-06, ST-08, ST-10, ST-11, ST-16): the
neighbours a ship's data names, the fill at exactly the damage needed, fire from the map at a ship
whose shields are down, and the words of a projection or deflector the ship lacks.

Figures are the seed's and the library ships': the Excelsior's Fore projection is rated 40, the
Thomas Paine (New Orleans class) has Fore and Aft halves split at 90° and 270°; "only 25 damage would
be required to fill" 50 points against First One fire (ST-16), so 25 left needs 13 (catalogue
Decision: the damage needed rounds up).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.rules import STANDARD, new_battle
from app.rules.core import RuleError
from app.rules.startrek.shields import Shields, adjacent, projection_for
from tests.rules.startrek.helpers import (
    KER,
    act,
    add,
    advance,
    advance_to,
    battle,
    definition,
    hit,
    of_kind,
    set_value,
    values,
)

FORE = "ships.enterprise.parts.shields.projections.0.current"


def ring(**adjacent_of: list[str]) -> Shields:
    """Three projections in ring order A, B, C; `adjacent_of` gives some of them the data's neighbours."""
    projections = [
        {"name": name, "arcs": [name.lower()], "rating": 10, "adjacent": adjacent_of.get(name)}
        for name in ("A", "B", "C")
    ]
    return Shields.model_validate({"projections": projections})


def test_ST_08_the_data_names_a_projections_neighbours() -> None:
    """ST-08 "consecutive" projections: where the ship's data lists them, that list and nothing else,
    spelled as the projections are named."""
    assert adjacent(ring(A=["c"]), "a") == ["C"]
    assert adjacent(ring(), "A") == ["C", "B"]  # the ring order: the one before, then the one after


def test_ST_16_exactly_the_damage_needed_fills_the_shield_and_no_more() -> None:
    """ST-16 Decision: 25 left needs 13 of First One fire; 13 fill the Fore to 0, none reach the ship."""
    state = set_value(battle("galaxy-class", KER), FORE, 25)
    state, events = hit(state, "enterprise", 13, source="ker", direction="fore")
    assert values(state, "enterprise")["Fore"] == 0
    (absorb,) = of_kind(events, "shield_absorb")
    figures = ("before", "after", "absorbed", "through", "multiplier")
    assert [absorb.data[k] for k in figures] == [25, 0, 13, 0, 2]


def test_ST_11_ST_10_fire_from_the_map_at_a_ship_without_shields_takes_the_quadrant() -> None:
    """Fire from 90° off the Thomas Paine's nose is on her Fore/Aft spline (ST-10) only while her
    shields stand: with the generator destroyed (ST-11) the quadrant serves, and nothing is asked."""
    state = new_battle("b5wars")
    state = add(state, definition("new-orleans"), {"hex": "0505", "facing": 1})
    state = add(state, definition("excelsior"), {"hex": "0705"})
    state = set_value(state, "ships.thomas-paine.parts.shields.generator_down", True)
    state = advance_to(state, "combat")
    state, events = hit(state, "thomas-paine", 4, source="excelsior")
    assert events[0].data["direction"] == "starboard" and events[0].data["absorbed"] == 0
    (down,) = of_kind(events, "shields_down")
    assert (down.ship, down.text) == (
        "thomas-paine",
        "Thomas Paine's shields absorb nothing: its shield generator is gone (ST-11).",
    )


ASK = "say which arc the fire came from (aft, fore, port, starboard): shields need it (ST-06)"


def probe_without_a_sheet() -> dict[str, object]:
    """The Excelsior's four projections on a ship with no sheet: no section can give an arc."""
    data = definition("excelsior")
    shields = {**data["parts"]["shields"], "generator": None, "deflectors": []}
    return {"name": "Probe", "klass": "Shield test ship", "system": "b5wars", "parts": {"shields": shields}}


@pytest.mark.parametrize(
    ("ship", "entry", "message"),
    [
        (
            "excelsior",
            {"direction": "Fore/Aft"},
            "fire from 'Fore/Aft' is on a shield spline: the defender names one projection (Fore or Aft) as "
            "the direction; one unit's fire is never split (ST-10)",
        ),
        (
            "excelsior",
            {"direction": "dorsal"},
            "no shield projection covers 'dorsal' (arcs: aft, fore, port, starboard)",
        ),
        ("excelsior", {}, ASK),
        ("excelsior", {"section": "Nowhere"}, ASK),  # a section the sheet lacks gives no arc
        ("probe", {"section": "Aft"}, ASK),  # nor does any section of a ship with no sheet
    ],
)
def test_ST_06_ST_10_a_direction_the_shields_cannot_place_is_refused_on_direction(
    ship: str, entry: dict[str, str], message: str
) -> None:
    """ST-06: the in-arc projection needs the arc the fire came from; ST-10: a spline needs one name."""
    state = battle("excelsior", probe_without_a_sheet())
    with pytest.raises(RuleError) as err:
        hit(state, ship, 5, **entry)
    assert (err.value.field, err.value.message) == ("direction", message)


def test_ST_05_an_overlap_is_refused_on_the_projections_degrees_as_sent() -> None:
    """ST-05: the Thomas Paine's Fore widened to 260°–90° overlaps her Aft (90°–270°): the refusal
    belongs to the Shields part and names the Aft's degrees exactly as the data sent them."""
    data = definition("new-orleans")["parts"]["shields"]
    data["projections"][0]["degrees"] = [260, 90]
    with pytest.raises(ValidationError) as err:
        Shields.model_validate(data)
    assert err.value.title == "Shields"
    (error,) = err.value.errors()
    assert (error["loc"], error["input"]) == (("projections", 1, "degrees"), [90, 270])


def test_ST_07_a_ship_with_no_deflectors_says_so() -> None:
    """A deflector named on shields that have none (ST-07): the refusal lists "none", on `deflector`."""
    with pytest.raises(RuleError) as err:
        ring().deflector("Fore Deflector")
    assert (err.value.field, err.value.message) == (
        "deflector",
        "no deflector 'Fore Deflector' (deflectors: none)",
    )


def test_ST_06_a_hit_from_one_point_to_none_is_a_turning_point() -> None:
    """The report marks a projection driven to 0 from any strength, 1 included (ST-06)."""
    emptied = STANDARD.parts()["shields"].turning[2]
    assert emptied.holds({"data": {"before": 1, "after": 0}}) is True


def test_ST_12_a_destroyed_ship_does_not_stop_the_others_collapsing() -> None:
    """ST-12 at Adjust Ship Systems for every ship, in id order: the Enterprise, first, is destroyed;
    the Excelsior's Fore Deflector switched off leaves her Fore with none in arc, so it collapses,
    logged against her."""
    state = battle("excelsior", "galaxy-class")
    state = set_value(state, "ships.enterprise.destroyed", True)
    state = set_value(state, "ships.excelsior.parts.shields.deflectors.0.shut_down", True)
    state = advance_to(state, "adjust_systems")
    state, events = advance(state)
    assert [(e.ship, e.text) for e in of_kind(events, "shield_collapse")] == [
        ("excelsior", "Excelsior's Fore shield collapses: no working deflector in arc (ST-12).")
    ]


def test_ST_10_the_defender_names_the_projection_whatever_its_arcs_are_called() -> None:
    """ST-10: the defender's pick is a projection's name, matched whatever the case, even where the
    data names projections apart from the arcs they cover (Bow over fore, Stern over aft)."""
    halves = Shields.model_validate(
        {
            "projections": [
                {"name": "Bow", "arcs": ["fore", "port"], "rating": 30},
                {"name": "Stern", "arcs": ["aft", "starboard"], "rating": 30},
            ]
        }
    )
    assert projection_for(halves, "bow").name == "Bow"
    assert projection_for(halves, "STERN").name == "Stern"


def test_ST_07_regeneration_bought_for_a_projection_the_ship_lacks_is_refused_on_projection() -> None:
    payload = {"ship": "excelsior", "deflector": "Fore Deflector", "points": 1, "projection": "Dorsal"}
    with pytest.raises(RuleError) as err:
        act(battle("excelsior"), "startrek.buy_regeneration", payload)
    assert (err.value.field, err.value.message) == (
        "projection",
        "no shield projection 'Dorsal' (projections: Fore, Starboard, Aft, Port)",
    )


@pytest.mark.parametrize(("collapsed", "words"), [(False, "is empty"), (True, "is DOWN")])
def test_ST_06_ST_12_a_projection_at_zero_lets_every_point_through(collapsed: bool, words: str) -> None:
    """ST-06: only an unfilled projection holds damage back; at 0 — emptied, or collapsed (ST-12) —
    all 5 reach the ship, and the log says which."""
    state = set_value(battle("excelsior"), "ships.excelsior.parts.shields.projections.0.current", 0)
    state = set_value(state, "ships.excelsior.parts.shields.projections.0.collapsed", collapsed)
    state, events = hit(state, "excelsior", 5, direction="fore")
    (empty,) = of_kind(events, "shield_empty")
    assert (empty.ship, empty.text) == (
        "excelsior",
        f"Excelsior's Fore shield {words}: all 5 reach the ship.",
    )
