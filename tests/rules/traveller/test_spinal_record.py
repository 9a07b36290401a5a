"""Spinal mount clauses the mutation run found unpinned (TR-10 to TR-13, TR-19, TR-23, TR-26):
a penetration roll equal to the number needed, the log record of meson and particle hits, and each
refusal's field. Figures come from tables.md (Meson Gun Penetration) and the seed's TR-12 rule."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import act, advance_to
from tests.rules.traveller.test_craft_attacks import FLIGHT
from tests.rules.traveller.test_spinal import MESON, PARTICLE, setup, shoot

SCREENS = [{"id": "ms", "kind": "meson", "count": 3, "sections": ["Main"]}]


def record(event: Any) -> tuple:
    return (
        event.kind,
        event.ship,
        event.data,
        [(r.purpose, r.ship, r.dice, r.outcome, r.target) for r in event.rolls],
    )


def test_TR_11_a_penetration_roll_equal_to_the_number_needed_gets_through() -> None:
    # Penetration II against 6 screen points needs 5+ (tables.md); 2D 2+3 = 5 penetrates.
    state = advance_to(setup(MESON, screens=SCREENS), "combat").state
    done = shoot(state, [5, 5, 4, 2, 3, 1, 1, 3, 4, 1, 2, 2, 2, 6, 5, 1, 1, 3, 2, 4])
    assert done.texts[0].endswith(
        "penetration II vs 6 screen points: 2D 5 vs 5+ → 280 damage: Main Structure 375→95"
    )
    assert record(done.events[0]) == (
        "spinal",
        "kestrel",
        {"damage": 280},
        [
            ("spinal attack", "kestrel", [5, 5], "success, Effect 0", "8+"),
            ("location", "tigress", [4], "Main", None),
            ("meson penetration", "tigress", [2, 3], "penetrates", "5+"),
        ],
    )


def test_TR_11_a_meson_that_decays_outside_is_logged_so() -> None:
    state = advance_to(setup(MESON, screens=SCREENS), "combat").state
    done = shoot(state, [6, 6, 4, 2, 2])
    kind, ship, _, rolls = record(done.events[0])
    assert (kind, ship, rolls[-1]) == (
        "spinal",
        "kestrel",
        ("meson penetration", "tigress", [2, 2], "decays outside the hull", "5+"),
    )
    assert len(done.events) == 1


def test_TR_12_a_particle_hit_records_its_damage_and_residual() -> None:
    # 250 − armour 5 × 30 = 100 through; residual 10% of the 150 absorbed = 15.
    state = advance_to(setup(PARTICLE, armour=5), "combat").state
    done = shoot(state, [6, 4, 5, 6, 1, 3, 2, 1, 1, 2, 2])
    kind, ship, data, _ = record(done.events[0])
    assert (kind, ship, data) == ("spinal", "kestrel", {"damage": 100, "residual": 15})


def _spoil(state: Any, **changes: Any) -> Any:
    part = state.ships["kestrel"].parts["hg_ship"]
    for key, value in changes.items():
        if key == "spinal_hits":
            part["spinal"]["hits"] = value
        elif key == "computer":
            part["systems"]["computer"] = value
        elif key == "orders":
            part["round"] = {
                **part["round"],
                "turn": state.clock.turn,
                "orders": value,
                "committed": True,
                "revealed": True,
            }
        else:
            part[key] = value
    return state


@pytest.mark.parametrize(
    ("changes", "payload", "field", "words"),
    [
        ({"spinal_hits": 2}, {}, "ship", "the spinal mount is disabled"),
        ({"crew_strength": "dead"}, {}, "ship", "Kestrel's crew is dead and cannot act (TR-23)"),
        ({"disabled": True}, {}, "ship", "Kestrel is disabled (power plant out)"),
        (
            {"orders": [{"order": "run_silent"}]},
            {},
            "ship",
            "Kestrel runs silent this round and may not fire",
        ),
        ({}, {"range": "very_distant"}, "range", "the target is out of spinal range (Very Distant)"),
        ({"computer": 3}, {}, "range", "the computer is disabled: no fire beyond Close"),
    ],
)
def test_TR_10_TR_19_TR_23_spinal_refusals_name_their_field(
    changes: dict[str, Any], payload: dict[str, Any], field: str, words: str
) -> None:
    state = _spoil(advance_to(setup(PARTICLE), "combat").state, **changes)
    with pytest.raises(RuleError) as refused:
        shoot(state, [], **payload)
    assert (str(refused.value), refused.value.field) == (words, field)


def test_TR_26_without_line_up_spinal_mount_the_spinal_is_refused_on_ship() -> None:
    state = _spoil(
        advance_to(setup(PARTICLE, orders=True), "combat").state, orders=[{"order": "focused_fire"}]
    )
    with pytest.raises(RuleError) as refused:
        shoot(state, [])
    assert (str(refused.value), refused.value.field) == (
        "the spinal mount fires only in a round with Line up Spinal Mount! (TR-26)",
        "ship",
    )


def test_TR_27_i_only_need_one_more_shot_fires_a_disabled_spinal_mount_this_round() -> None:
    state = advance_to(setup(PARTICLE), "combat").state
    part = state.ships["kestrel"].parts["hg_ship"]
    part["spinal"]["hits"], part["spinal"]["one_more_shot"] = 2, state.clock.turn
    done = shoot(state, [1, 1])  # 2D 2 − 6 + 2 + 2 = 0 vs 8+: a miss, but it fired
    assert done.texts[0].startswith("spinal Particle Spinal at Tigress: 2D 2")


def test_TR_26_with_line_up_spinal_mount_the_spinal_fires() -> None:
    state = _spoil(
        advance_to(setup(PARTICLE, orders=True), "combat").state, orders=[{"order": "line_up_spinal"}]
    )
    done = shoot(state, [1, 1])
    assert done.texts[0].startswith("spinal Particle Spinal at Tigress: 2D 2")


def test_TR_10_a_miss_is_logged_as_a_spinal_event_with_no_hit() -> None:
    # 2D 2 − 6 (Formidable) + FC 2 + Gunner 2 = 0 vs 8+: a miss.
    state = advance_to(setup(PARTICLE), "combat").state
    done = shoot(state, [1, 1])
    [event] = done.events
    assert (event.kind, event.ship, event.data) == ("spinal", "kestrel", {"hit": False})
    assert [(r.purpose, r.dice) for r in event.rolls] == [("spinal attack", [1, 1])]


def test_TR_19_a_second_computer_hit_rolls_the_spinal_attacks_1d6_dm_for_the_shooter() -> None:
    state = advance_to(setup(PARTICLE), "combat").state
    state.ships["kestrel"].parts["hg_ship"]["systems"]["computer"] = 2
    done = shoot(state, [3, 1, 1])
    computer = done.events[0].rolls[0]
    assert (computer.purpose, computer.ship, computer.dice, computer.outcome) == (
        "computer damage DM",
        "kestrel",
        [3],
        "−3",
    )


def test_TR_27_roll_the_ship_does_not_touch_a_spinal_attack_and_focused_fire_binds_it() -> None:
    # Roll The Ship! is −2 against attacks aimed with Target That Section only; a spinal shot is not.
    state = advance_to(setup(PARTICLE), "combat").state
    part = state.ships["tigress"].parts["hg_ship"]
    part["round"] = {
        **part["round"],
        "turn": 1,
        "orders": [{"order": "roll_ship"}],
        "committed": True,
        "revealed": True,
    }
    assert "Roll The Ship!" not in shoot(state, [1, 1]).texts[0]
    kestrel = state.ships["kestrel"].parts["hg_ship"]
    kestrel["round"] = {
        **kestrel["round"],
        "turn": 1,
        "orders": [{"order": "focused_fire", "target": "kestrel"}],
        "committed": True,
        "revealed": True,
    }
    with pytest.raises(RuleError) as refused:
        shoot(state, [])
    assert (str(refused.value), refused.value.field) == (
        "Focused Fire: Kestrel may fire only at Kestrel this round",
        "target",
    )


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("kestrel", "choose another ship still in the fight"),
        ("red-flight", "spinal mounts fire at ships, not at flights"),
        ("nobody", "nobody"),
    ],
)
def test_TR_10_spinal_target_refusals_name_the_target(target: str, words: str) -> None:
    state = setup(PARTICLE)
    state = act(state, "ship.add", {"definition": FLIGHT, "owner": None}).state
    state = advance_to(state, "combat").state
    with pytest.raises(RuleError) as refused:
        shoot(state, [], target=target)
    assert str(refused.value) == words if target != "nobody" else words in str(refused.value)
    assert refused.value.field == "target"


def test_TR_10_a_target_that_jumped_out_is_refused_on_target() -> None:
    state = advance_to(setup(PARTICLE), "combat").state
    state.ships["tigress"].parts["hg_ship"]["jumped"] = 1
    with pytest.raises(RuleError) as refused:
        shoot(state, [])
    assert (str(refused.value), refused.value.field) == ("Tigress has jumped out of the battle", "target")
