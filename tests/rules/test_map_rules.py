"""The map feeds the rules: where ships stand on hexes with facings, damage takes its
direction from the map (GEN-03, ST-05, ST-06, ST-10), a panicked Shadow's range to the nearest enemy
is measured (SH-12) and so is a detection's range to the cloaked ship's last known position (ST-23).
Without positions every rule works as entered."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.rules import new_battle
from app.rules.core import REFEREE, RuleError
from app.rules.geometry import arcs_containing, bearing, on_boundary, parse_hex
from tests.rules.shadow import support as sh
from tests.rules.startrek.helpers import act, add, advance_to, definition, hit, player, values

BOP = player("kor-vaq")
EXCELSIOR = player("excelsior")


def sfb_pair(target_at=None, source_at=None):
    """A Federation heavy cruiser fired on by the Shadow cruiser, in an SFB battle."""
    state = new_battle("sfb")
    state = add(state, definition("federation-heavy-cruiser"), target_at)
    state = add(state, definition("shadow-cruiser"), source_at)
    return state


def sfb_ids(state):
    return [s.id for s in state.ships.values()]


# --- GEN-03: a sheet's arcs by quadrant ---------------------------------------------------------


def test_GEN_03_the_map_gives_the_arc_of_the_target_by_quadrant():
    state = sfb_pair({"hex": "0505", "facing": 1}, {"hex": "0305"})  # abeam to port
    target, source = sfb_ids(state)
    state, events = act(state, "damage.apply", {"target": target, "amount": 4, "source": source})
    assert events[0].text.startswith(
        f"{state.ships[source].name} hits {state.ships[target].name} for 4 (port, from the map):"
    )
    assert "Port Warp Engine" in events[0].text
    assert events[0].data["direction"] == "port" and events[0].data["from_map"] is True
    assert events[0].data["bearing"] == 270


def test_GEN_03_the_facing_turns_the_arc():
    state = sfb_pair({"hex": "0505", "facing": 4}, {"hex": "0305"})  # facing down the map: port is starboard
    target, source = sfb_ids(state)
    state, events = act(state, "damage.apply", {"target": target, "amount": 4, "source": source})
    assert "(starboard, from the map)" in events[0].text and "Starboard Warp Engine" in events[0].text


def test_GEN_03_an_entered_direction_wins_over_the_map():
    state = sfb_pair({"hex": "0505", "facing": 1}, {"hex": "0305"})
    target, source = sfb_ids(state)
    state, events = act(
        state, "damage.apply", {"target": target, "amount": 4, "source": source, "direction": "fore"}
    )
    assert "for 4 (fore):" in events[0].text and "from the map" not in events[0].text


@pytest.mark.parametrize(
    ("target_at", "source_at"),
    [
        (None, None),
        ({"hex": "0505"}, {"hex": "0305"}),  # no facing: the map cannot say which side
        ({"hex": "0505", "facing": 1}, None),
        ({"hex": "0505", "facing": 1}, {"hex": "0505", "facing": 2}),  # same hex: no bearing
    ],
)
def test_GEN_03_without_both_positions_the_hit_is_as_entered(target_at, source_at):
    state = sfb_pair(target_at, source_at)
    target, source = sfb_ids(state)
    state, events = act(state, "damage.apply", {"target": target, "amount": 4, "source": source})
    assert "from the map" not in events[0].text and events[0].data["direction"] is None
    assert "to Hull" in events[0].text  # no direction: the primary section


# --- ST-05 / ST-06 / ST-10: the shield projection the bearing falls in -------------------------


def st_pair(target: str, target_at, source_at):
    state = new_battle("b5wars")
    state = add(state, definition(target), target_at)
    state = add(state, definition("excelsior" if target != "excelsior" else "galaxy-class"), source_at)
    return advance_to(state, "combat")


def test_ST_05_fire_from_the_map_fills_the_projection_its_bearing_falls_in():
    state = st_pair("new-orleans", {"hex": "0505", "facing": 1}, {"hex": "0306"})  # 240°: the aft half
    target, source = list(state.ships)
    state, events = hit(state, target, 10, source=source)
    assert values(state, target) == {"Fore": 36, "Aft": 20}
    assert events[0].text == "Excelsior hits Thomas Paine for 10 (Aft, from the map): 10 absorbed by shields."
    assert events[1].text == (
        "Thomas Paine: Aft shield absorbs all 10 (30/30 → 20/30); nothing reaches the ship."
    )


def test_ST_06_quadrant_projections_by_bearing_and_facing():
    state = st_pair(
        "excelsior", {"hex": "0505", "facing": 4}, {"hex": "0502"}
    )  # ahead on the map, astern of her
    target, source = list(state.ships)
    state, events = hit(state, target, 5, source=source)
    assert values(state, target)["Aft"] == 25
    assert "(Aft, from the map)" in events[0].text


def test_ST_10_fire_from_the_map_on_a_spline_asks_the_defender():
    state = st_pair("new-orleans", {"hex": "0505", "facing": 1}, {"hex": "0705"})  # 90°: between the halves
    target, source = list(state.ships)
    with pytest.raises(RuleError) as err:
        hit(state, target, 10, source=source)
    assert err.value.field == "direction"
    assert err.value.message == (
        "fire from the map at 90° off Thomas Paine's nose is on a shield spline: the defender names one "
        "projection (Fore or Aft) as the direction; one unit's fire is never split (ST-10)"
    )
    state, events = hit(state, target, 10, source=source, direction="Fore")  # the defender's pick
    assert values(state, target) == {"Fore": 26, "Aft": 30}


def test_ST_05_projections_without_degrees_fall_back_to_the_quadrant():
    data = definition("excelsior")
    for projection in data["parts"]["shields"]["projections"]:
        projection.pop("degrees")
    state = new_battle("b5wars")
    state = add(state, data, {"hex": "0505", "facing": 1})
    state = add(state, definition("galaxy-class"), {"hex": "0305"})
    state = advance_to(state, "combat")
    target, source = list(state.ships)
    state, events = hit(state, target, 5, source=source)
    assert values(state, target)["Port"] == 25 and "(port, from the map)" in events[0].text


# --- SH-12: the range to the nearest enemy -----------------------------------------------------


def panicked_on_the_map(ker: str | None, excalibur: str | None, yorktown: str | None):
    """Ker at FIVE in turn 2's Energy Allocation (as the pain tests reach it), the ships placed."""
    state = sh.at_impulse(level=12)
    state, _ = sh.hit(state, 250)
    state, _ = sh.end_impulse(state, [6, 1, 6, 2])
    state = sh.until_step(state, "energy_allocation")
    for ship, where in ((sh.KER, ker), (sh.EXCALIBUR, excalibur), (sh.YORKTOWN, yorktown)):
        if where:
            state, _ = sh.act(state, "ship.move", {"ship": ship, "position": {"hex": where, "facing": 1}})
    return state


def test_SH_12_the_map_measures_the_range_to_the_nearest_enemy():
    state = panicked_on_the_map("0101", "1101", "0115")  # 10 and 14 hexes
    state, events = sh.act(state, "shadow.report_range", {"ship": sh.KER}, actor=sh.PLAYER)
    assert events[0].text == (
        "Ker is 10 hexes from the nearest enemy (Excalibur, from the map) and must attempt to phase out (SH-12)."
    )
    assert events[0].data == {"range": 10, "nearest": sh.EXCALIBUR, "from_map": True}


def test_SH_12_under_ten_from_the_map_keeps_evading():
    state = panicked_on_the_map("0101", "1101", "0108")
    state, events = sh.act(state, "shadow.report_range", {"ship": sh.KER}, actor=sh.PLAYER)
    assert (
        events[0].text
        == "Ker is 7 hexes from the nearest enemy (Yorktown, from the map): under 10, it keeps evading."
    )


@pytest.mark.parametrize(
    ("ker", "yorktown", "message"),
    [
        (None, "0108", "range: Ker has no hex on the map; enter the range to the nearest enemy"),
        ("0101", None, "range: Yorktown has no hex on the map; enter the range to the nearest enemy"),
    ],
)
def test_SH_12_without_positions_the_range_must_be_entered(ker, yorktown, message):
    state = panicked_on_the_map(ker, "1101", yorktown)
    with pytest.raises(RuleError) as err:
        sh.act(state, "shadow.report_range", {"ship": sh.KER}, actor=sh.PLAYER)
    assert (err.value.field, err.value.message) == ("range", message)
    state, events = sh.act(state, "shadow.report_range", {"ship": sh.KER, "range": 12}, actor=sh.PLAYER)
    assert events[0].text == "Ker is 12 hexes from the nearest enemy and must attempt to phase out (SH-12)."


# --- ST-23: the range to the cloaked ship's last known position -------------------------------


def searched_once():
    """Excelsior at 0101 finds the bird (cloaked at 0505) in turn 2: its last known hex is 0505."""
    state = new_battle("b5wars")
    state = add(state, definition("excelsior"), {"hex": "0101", "facing": 1})
    state = add(state, definition("klingon-bird-of-prey"), {"hex": "0505", "facing": 3})
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    return state


def test_ST_23_without_a_last_known_position_the_range_must_be_entered():
    state = advance_to(searched_once(), "combat", turn=2)
    detect = {"detector": "excelsior", "target": "kor-vaq", "ew": 9}
    with pytest.raises(RuleError) as err:
        act(state, "startrek.detect_cloak", detect, EXCELSIOR)
    assert (err.value.field, err.value.message) == (
        "range",
        "range: Kor'vaq has no last known hex on the map; enter the range",
    )


def test_ST_23_the_map_measures_the_range_to_the_last_known_position():
    state = advance_to(searched_once(), "combat", turn=2)
    detect = {"detector": "excelsior", "target": "kor-vaq", "ew": 9}
    state, _ = act(state, "startrek.detect_cloak", {**detect, "range": 4}, EXCELSIOR)
    state, _ = act(
        state, "startrek.rule_detection", {"target": "kor-vaq", "attempt": 0, "detected": True}, REFEREE
    )
    state = advance_to(state, "movement", turn=3)  # lost from sight again; it moves in secret
    state, _ = act(state, "ship.move", {"ship": "kor-vaq", "position": {"hex": "0917", "facing": 3}}, BOP)
    state = advance_to(state, "combat", turn=3)
    state, events = act(state, "startrek.detect_cloak", detect, EXCELSIOR)
    # 0101 → 0505 (its last known hex), never the secret 0917
    assert events[0].text == (
        "Excelsior puts 9 EW on detecting Kor'vaq at range 6 (to its last known position, from the map). "
        "The referee rules (ST-23)."
    )
    cloak = state.ships["kor-vaq"].parts["cloak"]
    assert [a["range"] for a in cloak["attempts"]] == [4, 6]


# --- ST-05 / ST-06 as a property: the map's pick is the projection holding the bearing ----------

CLOSE = st.builds(lambda c, r: f"{c:02d}{r:02d}", st.integers(1, 12), st.integers(1, 12))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["excelsior", "new-orleans", "klingon-bird-of-prey"]), CLOSE, st.integers(1, 6), CLOSE)
def test_ST_05_ST_06_fire_from_anywhere_falls_on_the_projection_holding_its_bearing(
    target, at, facing, source_at
):
    assume(at != source_at)
    state = st_pair(target, {"hex": at, "facing": facing}, {"hex": source_at})
    target_id, source_id = list(state.ships)
    arcs = [(p["name"], tuple(p["degrees"])) for p in state.ships[target_id].parts["shields"]["projections"]]
    seen = bearing(parse_hex(at), facing, parse_hex(source_at))
    before = values(state, target_id)
    if on_boundary(seen, arcs):
        with pytest.raises(RuleError, match=r"on a shield spline.*\(ST-10\)"):
            hit(state, target_id, 1, source=source_id)
        return
    state, _ = hit(state, target_id, 1, source=source_id)
    after = values(state, target_id)
    assert [name for name in before if after[name] != before[name]] == arcs_containing(seen, arcs)
