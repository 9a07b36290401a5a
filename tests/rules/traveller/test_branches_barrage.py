"""Barrage clauses (TR-05 … TR-09, TR-17 … TR-19, TR-21, TR-25, TR-27) not met elsewhere, through
apply_action with scripted dice and every number worked from the tables."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import Actor, RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, beam_shot, capital, hg
from tests.rules.traveller.test_order_effects import flight, give, on_side

FLIGHT_ACTOR = Actor("p-flight", "player", frozenset({"red-flight"}))


def duel(kestrel: dict[str, Any] | None = None, *more: dict[str, Any], **options: Any) -> BattleState:
    ships = [kestrel or on_side(capital("Kestrel"), "A"), on_side(capital("Tigress"), "B"), *more]
    owners = ("p-kestrel", "p-tigress", "p-flight")[: len(ships)]
    state = battle(*ships, owners=owners, orders=False, enforce_loop=False, **options)
    return advance_to(state, "combat").state


def test_TR_27_a_ship_running_silent_does_not_fire():
    state = give(duel(), "kestrel", "run_silent")
    with pytest.raises(RuleError) as err:
        act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR)
    assert err.value.message == "Kestrel runs silent this round and may not fire"


def test_TR_27_roll_the_ship_gives_minus_2_to_an_attack_aimed_at_one_section():
    """Forward armour 2; 2D 3+3 = 6 + FC 2 + Gunner 2 − 2 + (1 − 2) = 7 → 100% of 20 = 20 → 10 Forward,
    10 Main; net 7 < 8: no system roll."""
    state = duel()
    hg(state, "tigress")["sections"][2]["armour"] = 2
    state = give(give(state, "kestrel", "target_section"), "tigress", "roll_ship")
    done = act(state, "traveller.barrage", beam_shot(target_section="Forward"), KESTREL_ACTOR, [3, 3])
    assert done.texts == [
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 6 + range 0 + FC +2 + Gunner +2 + Roll The Ship! −2"
        " + (1 − armour 2) = 7 → 100% → 20 damage → location Forward (Target That Section); 10 to Forward Hull"
        " 66→56; 10 to Main Hull 66→56"
    ]


def test_TR_27_a_strafing_flight_is_harder_to_hit_at_close_range():
    """Fast Strafing Run: shooting at the flight is at −2. 10 beam lasers at Close (−1): 2D 6 − 1 + 2 + 2
    − 4 (flight) − 2 + 1 = 4 → 25% → 2 damage, less than a craft's 4 Hull + Structure."""
    state = battle(
        on_side(capital("Kestrel"), "A"),
        flight("Red Flight", "B"),
        owners=("p-kestrel", "p-flight"),
        orders=False,
        enforce_loop=False,
    )
    state = give(advance_to(state, "combat").state, "red-flight", "fast_strafing_run")
    done = act(
        state,
        "traveller.barrage",
        beam_shot(target="red-flight", range="close", mounts=10),
        KESTREL_ACTOR,
        [3, 3],
    )
    assert done.texts == [
        "barrage 10–Beam Laser–Close–1 at Red Flight: 2D 6 + range −1 + FC +2 + Gunner +2 + flight −4"
        " + target Fast Strafing Run −2 + (1 − armour 0) = 4 → 25% → 2 damage → Red Flight loses 0 craft"
        " (4 Hull+Structure each, at most 10); 12 of 12 left; 2 excess damage to resolve as normal hits (GEN-03)"
    ]


def test_TR_07_nuclear_missiles_meet_no_screen_where_no_damper_is_fitted():
    """12 Nuclear Missiles (2 damage each, radiation 1): 2D 6 + 2 + 2 + (2 − armour 6) = 6 → 75% → 9;
    radiation 12 × 1 × 75% = 9, band 1, lowered by armour 6 to nothing (TR-21)."""
    kestrel = on_side(capital("Kestrel"), "A")
    kestrel["parts"]["hg_ship"]["batteries"] = [
        {"id": "nukes", "weapon": "missile_turret", "ammo": "nuclear", "mounts": 15, "sections": ["Main"]}
    ]
    done = act(
        duel(kestrel), "traveller.barrage", beam_shot(battery="nukes", mounts=12), KESTREL_ACTOR, [3, 3, 3]
    )
    assert done.texts == [
        "barrage 12–Nuclear Missile–Medium–2 at Tigress: 2D 6 + range 0 + FC +2 + Gunner +2 + (2 − armour 6) = 6"
        " → 75% → 9 damage → location 1d6 3: Main; 5 to Main Hull 66→61; 4 to Forward Hull 66→62",
        "Tigress radiation 9: band 1 − armour 6 = −5 → no effect.",
    ]


def test_TR_17_TR_18_a_section_the_barrage_destroys_takes_no_system_roll():
    """Every section down to Structure 5: 2D 12 + 2 + 2 − 5 = 11 → 200% → 40: 20 each to Engineering and
    Main, both destroyed; net 11 ≥ 8 would roll on their tables, but destroyed sections have none to roll."""
    state = duel()
    for section in hg(state, "tigress")["sections"]:
        section.update(hull=0, structure=5)
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [6, 6, 1])
    assert done.texts == [
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 12 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 11"
        " → 200% → 40 damage → location 1d6 1: Engineering; 20 to Engineering Structure 5→0; 20 to Main"
        " Structure 5→0",
        "Tigress's Engineering section is destroyed: Tigress is crippled until the referee rules whether it is"
        " destroyed (TR-17).",
        "Tigress's Main section is destroyed: Tigress is crippled until the referee rules whether it is destroyed"
        " (TR-17).",
    ]
    assert hg(done.state, "tigress")["referee_ruling"] == "pending"


def test_TR_27_a_craft_caught_launching_meets_the_barrage_without_a_dodge():
    """Blast Them As They Launch!: with no dodge entered the barrage goes ahead at dodge 0. 10 beam lasers:
    2D 6 + 2 + 2 − 4 + 1 = 7 → 100% → 10 damage → 2 craft of 4 lost, 2 excess."""
    state = duel(None, flight("Red Flight", "B"))
    state = act(state, "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, FLIGHT_ACTOR).state
    state = give(state, "kestrel", ("blast_them", "tigress"))
    done = act(state, "traveller.barrage", beam_shot(target="red-flight", mounts=10), KESTREL_ACTOR, [3, 3])
    assert done.texts == [
        "barrage 10–Beam Laser–Medium–1 at Red Flight: 2D 6 + range 0 + FC +2 + Gunner +2 + flight −4"
        " + (1 − armour 0) = 7 → 100% → 10 damage → Red Flight loses 2 craft (4 Hull+Structure each, at most 10);"
        " 10 of 12 left; 2 excess damage to resolve as normal hits (GEN-03)"
    ]


def nukes_at(**tigress: Any) -> BattleState:
    kestrel = on_side(capital("Kestrel"), "A")
    kestrel["parts"]["hg_ship"]["batteries"] = [
        {"id": "nukes", "weapon": "missile_turret", "ammo": "nuclear", "mounts": 15, "sections": ["Main"]}
    ]
    state = battle(
        kestrel, on_side(capital("Tigress", **tigress), "B"), owners=("p-kestrel", "p-tigress"), orders=False
    )
    return advance_to(state, "combat").state


def test_TR_21_radiation_shielding_stops_nuclear_radiation():
    done = act(
        nukes_at(radiation_shielding=True),
        "traveller.barrage",
        beam_shot(battery="nukes", mounts=12),
        KESTREL_ACTOR,
        [3, 3, 3],
    )
    assert done.texts[1] == "Tigress shrugs off 9 radiation: radiation shielding (TR-21)."


def test_TR_21_TR_07_nuclear_dampers_screen_the_missiles_and_stop_their_radiation():
    """One damper: 2 protection (TR-07): 2D 6 + 4 + (2 − 6 − 2) = 4 → 25% of 12 → 3; radiation 12 × 25% = 3."""
    dampers = [{"id": "nd", "kind": "nuclear_damper", "count": 1, "sections": ["Main"]}]
    done = act(
        nukes_at(screens=dampers),
        "traveller.barrage",
        beam_shot(battery="nukes", mounts=12),
        KESTREL_ACTOR,
        [3, 3, 3],
    )
    assert done.texts == [
        "barrage 12–Nuclear Missile–Medium–2 at Tigress: 2D 6 + range 0 + FC +2 + Gunner +2 + (2 − armour 6 − screens 2)"
        " = 4 → 25% → 3 damage → location 1d6 3: Main; 2 to Main Hull 66→64; 1 to Forward Hull 66→65",
        "Tigress shrugs off 3 radiation: nuclear dampers (TR-21).",
    ]


def test_TR_25_a_flight_cannot_have_lost_more_craft_than_it_has():
    data = flight("Red Flight", "B")
    data["parts"]["flight"]["lost"] = 13
    with pytest.raises(RuleError) as err:
        battle(data)
    assert err.value.message == "definition.parts.flight: a flight cannot lose more craft than it has"
