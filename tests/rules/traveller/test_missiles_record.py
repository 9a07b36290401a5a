"""Individual missile attacks as the log keeps them (TR-01, TR-01a, TR-02, TR-02a, TR-23): each
missile's Gunner accuracy check (GEN-05: 2D + Gunner + range + FC) and its to-hit roll from the
check's Effect (tables.md: failed −6 or less 11+, −2 to −5 10+, −1 9+; Effect 0 8+, 1–5 7+, 6+ 6+),
with a dodge against it; each refusal on its field. The Gig is the tests' 400 t spacecraft: Crew
Skill 1 (Gunner +1), FC +1, two missile turrets; Long range is +0 for missiles."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import act, advance_to, hg
from tests.rules.traveller.test_branches_actions import GIG_ACTOR, HULK, gig, two
from tests.rules.traveller.test_clauses import red_flight

MISSILES = {"id": "missiles", "weapon": "missile_turret", "mounts": 2}
SHOT = {"ship": "gig", "battery": "missiles", "target": "kestrel", "range": "long"}


def in_combat(*more: dict[str, Any], **gig_part: Any) -> BattleState:
    boat = gig(MISSILES, {"id": "beam", "weapon": "beam_laser", "mounts": 1})
    boat["parts"]["hg_ship"].update(gig_part)
    return advance_to(two(boat, *more, enforce_loop=False), "combat").state


def rolls(done: Any) -> list[tuple]:
    return [
        (r.purpose, r.ship, r.dice, r.modifier, r.target, r.outcome) for e in done.events for r in e.rolls
    ]


def test_TR_01_each_missile_records_its_accuracy_check_and_to_hit_roll() -> None:
    # Missile 1: 2D 8 + 1 + 0 + 1 = 10, Effect +2 → 7+; 2D 6 misses. Missile 2: 2D 3 → 5, Effect −3 → 10+;
    # 2D 11 hits.
    done = act(in_combat(), "traveller.missile", {**SHOT, "missiles": 2}, GIG_ACTOR, [4, 4, 3, 3, 1, 2, 6, 5])
    assert rolls(done) == [
        ("missile 1 accuracy (Gunner)", "gig", [4, 4], 2, "8+", "success, Effect +2"),
        ("missile 1 to hit", "gig", [3, 3], 0, "7+", "miss"),
        ("missile 2 accuracy (Gunner)", "gig", [1, 2], 2, "8+", "failure, Effect −3"),
        ("missile 2 to hit", "gig", [6, 5], 0, "10+", "hit"),
    ]
    assert [(e.kind, e.ship, e.data) for e in done.events] == [("missiles", "gig", {"hits": 1})]
    part = hg(done.state, "gig")
    assert part["batteries"][0]["fired"] == {"1": 2}
    assert part["round"]["targets"] == ["kestrel"] and part["round"]["actions"] == 1


def test_TR_01_a_second_attack_adds_its_missiles_to_the_rounds_count() -> None:
    state = act(in_combat(), "traveller.missile", {**SHOT, "missiles": 1}, GIG_ACTOR, [3, 3, 1, 1]).state
    done = act(state, "traveller.missile", {**SHOT, "missiles": 1}, GIG_ACTOR, [3, 3, 1, 1])
    assert hg(done.state, "gig")["batteries"][0]["fired"] == {"1": 2}


def test_TR_01_a_to_hit_roll_equal_to_the_number_needed_hits() -> None:
    # 2D 6 + 2 = 8 vs 8+: Effect 0 → 8+; 2D 8 hits.
    done = act(in_combat(), "traveller.missile", SHOT, GIG_ACTOR, [3, 3, 4, 4])
    assert rolls(done)[1] == ("missile 1 to hit", "gig", [4, 4], 0, "8+", "hit")
    assert done.texts[0].endswith(
        "→ to hit 8+: 2D 8 → hit. 1 hit: resolve the damage by the core rules and enter it (GEN-03)."
    )


def test_TR_01_an_entered_dodge_counts_against_the_to_hit_roll() -> None:
    # Effect +2 → 7+; 2D 9 − 2 = 7 still hits.
    done = act(in_combat(), "traveller.missile", {**SHOT, "dodge_dm": -2}, GIG_ACTOR, [4, 4, 4, 5])
    assert rolls(done)[1] == ("missile 1 to hit", "gig", [4, 5], -2, "7+", "hit")
    assert "→ to hit 7+: 2D 9 dodge −2 = 7 → hit." in done.texts[0]


def test_TR_01_a_dodge_the_target_made_itself_refuses_an_entered_one() -> None:
    state = in_combat()
    kestrel = state.ships["kestrel"]
    kestrel.parts = {"hg_ship": {**kestrel.parts["hg_ship"], "round": {"turn": 1, "dodge": -1}}}
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.missile", {**SHOT, "dodge_dm": -2}, GIG_ACTOR)
    assert (refused.value.message, refused.value.field) == (
        "Kestrel has dodged: its own Pilot check sets the dodge DM",
        "dodge_dm",
    )


def test_TR_25a_missiles_at_a_flight_launched_in_an_earlier_round_may_be_dodged() -> None:
    flight = red_flight()
    flight["side"] = "A"
    flight["parts"]["flight"].update(carrier="kestrel", launched_round=0)
    state = in_combat(flight)
    shot = {**SHOT, "target": "red-flight", "dodge_dm": -1}
    done = act(state, "traveller.missile", shot, GIG_ACTOR, [4, 4, 4, 4])
    assert rolls(done)[1] == ("missile 1 to hit", "gig", [4, 4], -1, "7+", "hit")


@pytest.mark.parametrize(
    ("change", "message", "field"),
    [
        ({"battery": "tubes"}, "Gig has no battery 'tubes'", "battery"),
        ({"battery": "beam"}, "Turret: Beam Laser fires no missiles", "battery"),
        ({"range": "close"}, "Missile cannot engage at Close range (TR-02)", "range"),
        ({"missiles": 3}, "Gig has 2 Missile launchers ready", "missiles"),
    ],
)
def test_TR_01_TR_02_refusals_name_their_field(change: dict[str, Any], message: str, field: str) -> None:
    with pytest.raises(RuleError) as refused:
        act(in_combat(), "traveller.missile", {**SHOT, **change}, GIG_ACTOR)
    assert (refused.value.message, refused.value.field) == (message, field)


def test_GEN_03_a_target_without_high_guard_data_is_refused_on_the_target() -> None:
    with pytest.raises(RuleError) as refused:
        act(in_combat(HULK), "traveller.missile", {**SHOT, "target": "hulk"}, GIG_ACTOR)
    assert (refused.value.message, refused.value.field) == (
        "Hulk is not a High Guard ship or flight",
        "target",
    )


def test_TR_23_a_dead_crew_fires_no_missiles() -> None:
    with pytest.raises(RuleError) as refused:
        act(in_combat(crew_strength="dead"), "traveller.missile", SHOT, GIG_ACTOR)
    assert (refused.value.message, refused.value.field) == (
        "Gig's crew is dead and cannot act (TR-23)",
        "ship",
    )


def test_TR_02a_a_launcher_with_a_maximum_range_refuses_beyond_it() -> None:
    state = in_combat()
    gig_ship = state.ships["gig"]
    part = gig_ship.parts["hg_ship"]
    batteries = [{**part["batteries"][0], "max_range": "medium"}, *part["batteries"][1:]]
    gig_ship.parts = {"hg_ship": {**part, "batteries": batteries}}
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.missile", SHOT, GIG_ACTOR)
    assert refused.value.field == "range"
    assert refused.value.message.endswith("reaches no further than Medium (TR-02a)")
