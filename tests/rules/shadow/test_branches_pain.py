"""Pain check clauses (SH-01, SH-02, SH-03, SH-06, SH-09) not met elsewhere."""

from __future__ import annotations

from app.rules.shadow.track import reaction_for

from .support import EXCALIBUR, act, advance, at_impulse, battle, end_impulse, hit, pain, tough_shadow


def test_SH_01_SH_02_a_scenario_that_starts_the_track_at_16_kills_the_ship_as_the_first_step_ends():
    state = battle(level=16)
    state, events = advance(state)
    assert events[0].text == (
        "Ker dies of shock at pain 16 and is destroyed: it drops to speed 1 at most, its carcass drifts in its last "
        "direction, out of the game for every purpose but left in play to be recovered."
    )
    assert pain(state).dead is True and state.ships["ker"].destroyed is True


def test_SH_03_points_absorbed_before_armour_do_not_count():
    """A Shadow in a mixed battle fitted with Star Trek shields: a hit the shield takes whole reaches no
    armour or internals, so nothing joins the impulse's total."""
    shadow = tough_shadow()
    shadow["system"] = "b5wars"
    shadow["parts"]["shields"] = {
        "projections": [{"name": "Shield", "arcs": ["all"], "rating": 40}],
        "deflectors": [{"name": "Deflector", "value": 2, "covers": ["Shield"], "power": 1}],
    }
    state = battle("b5wars", shadow=shadow)
    state, _ = advance(state, 2)
    state, events = hit(state, 30, direction=None)
    assert events[0].data["absorbed"] == 30
    assert (pain(state).damage_total, pain(state).damage_by_source) == (0, {})


def test_SH_03_SH_09_a_damage_total_entered_without_its_source_names_no_most_damaging_ship():
    """The referee sets the impulse's total at the table: 30 is the 25–49 band (rise on 1, D6−4, at
    least 1), and the most damage is from an unrecorded attacker."""
    state = at_impulse(system="b5wars")
    reason = {"path": "ships.ker.parts.pain.damage_total", "value": 30, "reason": "entered at the table"}
    state, _ = act(state, "override.set", reason)
    state, events = end_impulse(state, [1, 1, 2])
    assert events[0].text == (
        "Ker took 30 damage to armour and internals in turn 1 (most from an unrecorded attacker, 0): pain rises 0 → 1."
    )
    assert pain(state).last_check is not None and pain(state).last_check.most_damage is None


def test_SH_06_the_chart_reads_zero_from_pain_0_to_4():
    assert [reaction_for(level) for level in (0, 4, 5, 16)] == ["ZERO", "ZERO", "ONE", "DEATH"]


def test_SH_03_damage_from_a_named_source_is_recorded_against_it():
    state, _ = hit(at_impulse(), 30)
    assert pain(state).damage_by_source == {EXCALIBUR: 30}
