"""Shield projections taking damage: ST-05, ST-06, ST-10, ST-11, ST-13, ST-16."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import KER, RAIDER, battle, hit, of_kind, set_value, shields, values

FORE = "ships.excelsior.parts.shields.projections.0.current"


def test_ST_05_projection_counts_and_ratings_come_from_the_data():
    state = battle("excelsior", "new-orleans", "klingon-bird-of-prey")
    assert [(p.name, p.rating, p.arcs) for p in shields(state, "excelsior").projections] == [
        ("Fore", 40, ["fore"]),
        ("Starboard", 30, ["starboard"]),
        ("Aft", 30, ["aft"]),
        ("Port", 30, ["port"]),
    ]
    assert [p.name for p in shields(state, "thomas-paine").projections] == ["Fore", "Aft"]
    assert [(p.name, p.arcs, p.rating) for p in shields(state, "kor-vaq").projections] == [
        ("Shield", ["all"], 20)
    ]


def test_ST_06_in_arc_projection_fills_first_and_only_overflow_reaches_the_ship():
    state = battle("excelsior", RAIDER)
    state, events = hit(state, "excelsior", 25, source="raider", direction="fore")
    assert values(state, "excelsior") == {"Fore": 15, "Starboard": 30, "Aft": 30, "Port": 30}
    assert events[0].data["absorbed"] == 25 and events[0].data["armour"] == 0
    assert of_kind(events, "shield_absorb")[0].text == (
        "Excelsior: Fore shield absorbs all 25 (40/40 → 15/40); nothing reaches the ship."
    )
    state, events = hit(state, "excelsior", 20, source="raider", direction="fore")
    assert values(state, "excelsior")["Fore"] == 0
    assert events[0].data["absorbed"] == 15
    assert events[0].data["armour"] + events[0].data["internal"] == 5
    assert of_kind(events, "shield_absorb")[0].text == (
        "Excelsior: 15 fill Fore shield (15/40 → 0/40), 5 reach the ship."
    )


def test_ST_06_an_empty_projection_lets_everything_through_and_others_are_not_used():
    state = battle("excelsior")
    state = set_value(state, FORE, 0)
    state, events = hit(state, "excelsior", 12, direction="fore")
    assert events[0].data["absorbed"] == 0
    assert events[0].data["armour"] == 4 and events[0].data["internal"] == 8
    assert values(state, "excelsior") == {"Fore": 0, "Starboard": 30, "Aft": 30, "Port": 30}


def test_ST_06_a_multi_projection_ship_needs_the_direction():
    state = battle("excelsior")
    with pytest.raises(RuleError) as err:
        hit(state, "excelsior", 10)
    assert err.value.field == "direction"
    with pytest.raises(RuleError):
        hit(state, "excelsior", 10, direction="ventral")


def test_ST_05_a_single_360_projection_covers_every_direction():
    state = battle("klingon-bird-of-prey")
    state, _ = hit(state, "kor-vaq", 5)
    state, _ = hit(state, "kor-vaq", 6, direction="aft")
    assert values(state, "kor-vaq") == {"Shield": 9}


def test_ST_10_spline_fire_must_name_one_projection_and_is_never_split():
    state = battle("excelsior")
    with pytest.raises(RuleError) as err:
        hit(state, "excelsior", 50, direction="fore/port")
    assert "spline" in err.value.message and "Fore or Port" in err.value.message
    state, events = hit(state, "excelsior", 50, direction="Port")
    assert values(state, "excelsior") == {"Fore": 40, "Starboard": 30, "Aft": 30, "Port": 0}
    assert events[0].data["absorbed"] == 30


def test_ST_10_medium_ship_beam_directions_are_splines():
    state = battle("new-orleans")
    with pytest.raises(RuleError) as err:
        hit(state, "thomas-paine", 10, direction="port")
    assert err.value.field == "direction"
    state, _ = hit(state, "thomas-paine", 10, direction="Aft", section="Primary")
    assert values(state, "thomas-paine") == {"Fore": 36, "Aft": 20}


def test_ST_16_first_one_80_vs_50_absorbs_25_and_55_go_through():
    state = battle("galaxy-class", KER)
    state, events = hit(state, "enterprise", 80, source="ker", direction="fore")
    assert values(state, "enterprise")["Fore"] == 0
    assert events[0].data["absorbed"] == 25
    assert events[0].data["armour"] + events[0].data["internal"] == 55
    assert of_kind(events, "shield_absorb")[0].text == (
        "Enterprise: First One fire counts double on shields — 25 fill Fore shield "
        "(50/50 → 0/50), 55 reach the ship."
    )


def test_ST_16_odd_remainder_rounds_the_damage_needed_up():
    state = battle("galaxy-class", KER)
    state = set_value(state, "ships.enterprise.parts.shields.projections.0.current", 25)
    state, events = hit(state, "enterprise", 80, source="ker", direction="fore")
    assert events[0].data["absorbed"] == 13
    assert events[0].data["armour"] + events[0].data["internal"] == 67
    assert values(state, "enterprise")["Fore"] == 0


def test_ST_16_first_one_below_the_fill_doubles_what_the_shield_loses():
    state = battle("galaxy-class", KER)
    state, events = hit(state, "enterprise", 20, source="ker", direction="fore")
    assert values(state, "enterprise")["Fore"] == 10
    assert events[0].data["absorbed"] == 20
    assert of_kind(events, "shield_absorb")[0].text == (
        "Enterprise: First One fire counts double on shields — Fore shield takes 40 "
        "(50/50 → 10/50); nothing reaches the ship."
    )


def test_ST_16_first_one_effect_without_a_ship_and_fighters_do_not_double():
    state = battle("galaxy-class")
    state, events = hit(state, "enterprise", 10, direction="fore", effects=["first_one"])
    assert values(state, "enterprise")["Fore"] == 30
    state, events = hit(state, "enterprise", 10, direction="fore", effects=["first_one", "fighter"])
    assert values(state, "enterprise")["Fore"] == 20


def test_ST_13_energy_drain_scores_ten_times_on_the_shield():
    state = battle("excelsior", RAIDER)
    state, events = hit(state, "excelsior", 3, source="raider", direction="fore", effects=["energy_drain"])
    drain = of_kind(events, "shield_drain")[0]
    assert values(state, "excelsior")["Fore"] == 10
    assert drain.data["free_to_hit"] is False
    assert events[0].data["armour"] == 0 and events[0].data["internal"] == 0


def test_ST_13_exactly_filling_is_not_overkill():
    state = battle("excelsior")
    state, events = hit(state, "excelsior", 4, direction="fore", effects=["energy_drain"])
    assert values(state, "excelsior")["Fore"] == 0
    assert of_kind(events, "shield_drain")[0].data["free_to_hit"] is False


def test_ST_13_overkill_bleeds_through_for_a_free_to_hit_roll():
    state = battle("excelsior", RAIDER)
    state, events = hit(state, "excelsior", 5, source="raider", direction="fore", effects=["energy_drain"])
    drain = of_kind(events, "shield_drain")[0]
    assert values(state, "excelsior")["Fore"] == 0
    assert drain.data == {
        "projection": "Fore",
        "before": 40,
        "after": 0,
        "drain": 5,
        "scored": 50,
        "free_to_hit": True,
        "source": "raider",
    }
    assert drain.text == (
        "Excelsior: energy drain scores 10× on shields — 50 overkills Fore shield "
        "(40/40 → 0/40): the weapon bleeds through and may roll to hit again, a free shot (ST-13)."
    )


def test_ST_11_destroying_the_generator_drops_every_projection_at_once():
    state = battle("excelsior")
    state, events = hit(
        state, "excelsior", 50, direction="fore", section="Primary", system="Shield Generator"
    )
    assert values(state, "excelsior") == {"Fore": 0, "Starboard": 0, "Aft": 0, "Port": 0}
    assert all(p.collapsed for p in shields(state, "excelsior").projections)
    assert of_kind(events, "shields_fall")[0].text == (
        "Excelsior's shield generator (Shield Generator) is destroyed: every shield projection falls (ST-11)."
    )
    state, events = hit(state, "excelsior", 5, section="Aft")
    assert events[0].data["absorbed"] == 0 and events[0].data["armour"] == 3
