"""Barrage clauses the mutation run left unpinned (TR-05 to TR-08, TR-16, TR-18, TR-19, TR-27): the
fire limits a second barrage meets in a round, the reasons a refusal gives, which order-givers
count as escorts or screens, the defences' labels when an escort is there, a strafing run at
Adjacent and none beyond Close, a Target That Section barrage's armour, ortillery torpedoes against
point defence, a one-die barrage's system roll, All Hands' action count, server dice where no split
is needed, shockwave missiles' record, and a blasted flight's dodge. Figures are from the seed
(orders, barrage rules), tables.md (Barrage Damage percentages, Section Hit Table, orders §4) and
the catalogue's decisions."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import Action, apply_action
from app.rules.core import Actor, RuleError
from app.rules.dice import SeededDice
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, beam_shot, capital, hg
from tests.rules.traveller.test_order_effects import FLIGHT_ACTOR, carrier_in_combat, flight, give, on_side

BLUE_ACTOR = Actor("p-blue", "player", frozenset({"blue-flight"}))
BEAM = {"id": "beam", "weapon": "beam_laser", "mounts": 25, "tons": 25, "sections": ["Main"]}


def sides(*definitions: dict[str, Any], kestrel: dict[str, Any] | None = None) -> BattleState:
    """Kestrel (side A) against Tigress and the others (side B unless set), in the combat step."""
    ships = [on_side(kestrel or capital("Kestrel"), "A"), on_side(capital("Tigress"), "B")]
    ships += [d if d.get("side") else on_side(d, "B") for d in definitions]
    owners = tuple(f"p-{d['name'].lower().replace(' ', '-')}" for d in ships)
    return advance_to(battle(*ships, owners=owners, enforce_loop=False), "combat").state


def refusal(state: BattleState, body: dict[str, Any], actor: Actor = KESTREL_ACTOR) -> tuple[str, str | None]:
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.barrage", body, actor)
    return str(refused.value), refused.value.field


# --- TR-05, TR-19, TR-27: the fire limits of a round -------------------------------------------------


def test_TR_05_TR_19_TR_27_limits_count_what_fired_this_round_and_name_every_tied_reason() -> None:
    """Power 5 of 10 lets 25 × 5 ÷ 10 = 12 energy mounts fire a round (TR-19 Decision); Maximum
    Speed half the turrets, 12 (TR-27). Both cap the first barrage at 12, and once 12 have fired
    both are spent: nothing more may fire at another target this round."""
    state = sides(capital("Guard"))
    state = give(state, "kestrel", "maximum_speed")
    hg(state, "kestrel")["power"] = 5
    both = "Maximum Speed: half the turrets and bays; Power 5/10: 12 energy mounts a round"
    assert refusal(state, beam_shot(mounts=13)) == (
        f"only 12 of 25 Turret: Beam Laser mounts may fire at this target ({both})",
        "mounts",
    )
    # 2D 1+1 = 2 + 0 + 2 + 2 + (1 − 6) = 1 → 0%: nothing lands (location 1d6 3).
    state = act(state, "traveller.barrage", beam_shot(mounts=12), KESTREL_ACTOR, [1, 1, 3]).state
    assert refusal(state, beam_shot(mounts=10, target="guard")) == (
        f"only 0 of 25 Turret: Beam Laser mounts may fire at this target ({both})",
        "mounts",
    )


# --- TR-27 Fighter Screen, Escort Defence, Fast Strafing Run ------------------------------------------


def gig(**part: Any) -> dict[str, Any]:
    """A lone small craft (one section), not a flight."""
    hg_ship = {
        "kind": "small_craft",
        "displacement": 20,
        "crew_skill": 2,
        "sections": [{"name": "Hull", "hull_max": 4, "structure_max": 4}],
        **part,
    }
    return {"name": "Gig", "system": "traveller", "parts": {"hg_ship": hg_ship}}


def test_TR_27_a_lone_small_craft_giving_fighter_screen_neither_screens_nor_escorts() -> None:
    """Fighter Screen is "only performed by a small craft flight" (seed): a lone small craft on
    Tigress's side that gives it lends Tigress no sand and does not stop a strafing run."""
    state = sides(gig(sandcasters=30), flight("Blue Flight", "A"))
    state = give(state, "gig", ("fighter_screen", "tigress"))
    state = give(state, "blue-flight", "fast_strafing_run")
    # No sand die: 2D 1+1 = 2 + 0 + 2 + 2 + (1 − armour 6) = 1; location 1d6 3.
    done = act(state, "traveller.barrage", beam_shot(mounts=10), KESTREL_ACTOR, [1, 1, 3])
    assert "+ (1 − armour 6) = 1 → 0%" in done.texts[0]
    assert "Fast Strafing Run +2" in strafe(state, "close")


def strafe(state: BattleState, band: str) -> str:
    """Blue Flight's 12 pulse lasers at Tigress: the barrage line (2D 1+1, location 1d6 3)."""
    body = {"ship": "blue-flight", "battery": "pulse-lasers", "mounts": 12, "target": "tigress"}
    body.update({"range": band, "adjacent": "fore"})
    return act(state, "traveller.barrage", body, BLUE_ACTOR, [1, 1, 3]).texts[0]


def test_TR_27_a_fast_strafing_run_counts_adjacent_as_within_close() -> None:
    state = give(sides(flight("Blue Flight", "A")), "blue-flight", "fast_strafing_run")
    assert "Fast Strafing Run +2" in strafe(state, "adjacent")


def test_TR_27_a_strafing_flight_beyond_close_is_shot_at_without_its_minus_2() -> None:
    # 10 beams at Medium: 2D 1+1 = 2 + range 0 + FC +2 + Gunner +2 + flight −4 + (1 − armour 0).
    state = give(sides(flight("Red Flight", "B")), "red-flight", "fast_strafing_run")
    done = act(state, "traveller.barrage", beam_shot(mounts=10, target="red-flight"), KESTREL_ACTOR, [1, 1])
    assert done.texts[0].startswith(
        "barrage 10–Beam Laser–Medium–1 at Red Flight: 2D 2 + range 0 + FC +2 + Gunner +2 + flight −4"
        " + (1 − armour 0) = 3 → 10%"
    )


# --- TR-07, TR-27: the defences and their labels ------------------------------------------------------


@pytest.mark.parametrize(
    ("forward", "engineering", "shown"),
    [
        (6, 2, "armour 6"),  # the aimed section's armour, not the weakest (Engineering's 2)
        (0, 6, "armour 0"),  # an aimed section with no armour left has 0
    ],
)
def test_TR_07_TR_27_a_barrage_aimed_at_a_section_meets_that_sections_armour(
    forward: int, engineering: int, shown: str
) -> None:
    state = give(sides(), "kestrel", "target_section")
    engineering_part, _, forward_part = hg(state, "tigress")["sections"]
    forward_part["armour"], engineering_part["armour"] = forward, engineering
    done = act(state, "traveller.barrage", beam_shot(target_section="Forward"), KESTREL_ACTOR, [1, 1])
    assert f"+ (1 − {shown}) = " in done.texts[0]


def test_TR_27_two_escorts_are_both_named_on_the_sand_they_lend() -> None:
    # 15 + 15 sandcasters against 20 lasers: ≥ 110% → +2; 1d6 3 + 2 = 5.
    state = sides(capital("Guard", sandcasters=15), capital("Ward", sandcasters=15))
    state = give(give(state, "guard", ("escort_defence", "tigress")), "ward", ("escort_defence", "tigress"))
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [3, 1, 1, 3])
    assert "(1 − armour 6 − sand (with Guard, Ward) 5)" in done.texts[0]


def screens(kind: str, count: int) -> list[dict[str, Any]]:
    return [{"id": "scr", "kind": kind, "count": count, "sections": ["Main"]}]


FUSION = {"id": "fusion", "weapon": "fusion_bay_50", "mounts": 10, "tons": 500, "sections": ["Main"]}
MESON = {"id": "meson", "weapon": "meson_bay_50", "mounts": 10, "tons": 500, "sections": ["Main"]}


@pytest.mark.parametrize(
    ("weapon", "kind", "own", "guards", "label"),
    [
        # Screens do not add up: the strongest covers the target (TR-27 Decision), 2 points a screen.
        (FUSION, "nuclear_damper", 2, 1, "screens 4"),  # Tigress's own 4 beat the Guard's 2
        (MESON, "meson", 2, 1, "screens 4"),
        (MESON, "meson", 1, 2, "screens (with Guard) 4"),  # the Guard's 4 beat Tigress's 2
    ],
)
def test_TR_07_TR_27_the_strongest_screen_is_named_for_whoever_carries_it(
    weapon: dict[str, Any], kind: str, own: int, guards: int, label: str
) -> None:
    kestrel = capital("Kestrel", batteries=[weapon])
    state = sides(capital("Guard", screens=screens(kind, guards)), kestrel=kestrel)
    hg(state, "tigress")["screens"] = screens(kind, own)
    state = give(state, "guard", ("escort_defence", "tigress"))
    body = beam_shot(battery=weapon["id"], mounts=8, range="medium")
    # 2D 1+1 = 2 and less: 0%, nothing lands (location 1d6 3), no radiation.
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [1, 1, 3])
    assert f" − {label})" in done.texts[0] or f" − {label} −" in done.texts[0]


ARMOUR_TWICE = [3, 4, 3, 4]  # a net 8+ rolls on Main and Forward: External 2D 7, Armour, on each


def test_TR_07_ortillery_torpedoes_give_point_defence_plus_1() -> None:
    """[OPS] ortillery torpedo: +1 to point defence against it. 8 bays (80% of 10, standard
    configuration) × 3 torpedoes = 24 incoming against 20 point defence: ≤ 90% → −1; 1d6 4 − 1 + 1 = 4."""
    torpedoes = {
        "id": "torp",
        "weapon": "torpedo_bay_50",
        "ammo": "ortillery",
        "mounts": 10,
        "sections": ["Main"],
    }
    state = sides(kestrel=capital("Kestrel", batteries=[torpedoes]))
    hg(state, "tigress")["point_defence"] = 20
    done = act(
        state,
        "traveller.barrage",
        beam_shot(battery="torp", mounts=8),
        KESTREL_ACTOR,
        [4, 1, 1, 3, *ARMOUR_TWICE],
    )
    assert "(24 − armour 6 − point defence 4)" in done.texts[0]


def test_TR_27_an_escort_that_lends_no_point_defence_is_not_named_on_it() -> None:
    # 20 missiles against Tigress's own 20 point defence: within 10% → +0; 1d6 4 = 4.
    missiles = {"id": "missiles", "weapon": "missile_turret", "mounts": 25, "sections": ["Main"]}
    state = sides(capital("Guard"), kestrel=capital("Kestrel", batteries=[missiles]))
    hg(state, "tigress")["point_defence"] = 20
    state = give(state, "guard", ("escort_defence", "tigress"))
    done = act(
        state, "traveller.barrage", beam_shot(battery="missiles", mounts=20), KESTREL_ACTOR, [4, 1, 1, 3]
    )
    assert "(1 − armour 6 − point defence 4)" in done.texts[0]


# --- TR-18: a system roll on one point of damage -------------------------------------------------------


def test_TR_18_a_net_8_barrage_of_one_die_rolls_on_the_table_for_its_one_point() -> None:
    """Two beam lasers, 80% of which (standard configuration) is one: 1 die. 2D 4+5 = 9 + 0 + 2 + 2
    + (1 − 6) = 8 → 125% of 1 = 1 damage, to Main (location 4); net 8+ rolls on Main's table:
    External 2D 3+4 = 7, Armour."""
    state = sides(kestrel=capital("Kestrel", batteries=[{**BEAM, "mounts": 2, "tons": 2}]))
    done = act(state, "traveller.barrage", beam_shot(mounts=1), KESTREL_ACTOR, [4, 5, 4, 3, 4])
    assert done.texts == [
        "barrage 1–Beam Laser–Medium–1 at Tigress: 2D 9 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 8"
        " → 125% → 1 damage → location 1d6 4: Main; 1 to Main Hull 66→65",
        "Tigress Main section hit (External, 2D 7): Armour — Main armour 6→5.",
    ]


# --- TR-27 All Hands ------------------------------------------------------------------------------------


def test_TR_27_all_hands_counts_the_energy_barrages_as_one_action_beside_the_others() -> None:
    missiles = {"id": "missiles", "weapon": "missile_turret", "mounts": 25, "sections": ["Main"]}
    state = sides(kestrel=capital("Kestrel", batteries=[BEAM, missiles]))
    state = give(state, "kestrel", "all_hands")
    state = act(state, "traveller.barrage", beam_shot(battery="missiles"), KESTREL_ACTOR, [1, 1, 3]).state
    assert hg(state, "kestrel")["round"]["actions"] == 1
    state = act(state, "traveller.barrage", beam_shot(target="tigress"), KESTREL_ACTOR, [1, 1, 3]).state
    assert hg(state, "kestrel")["round"]["actions"] == 2


# --- TR-16 with server dice; shockwave missiles (TR-07 rows, TR-08) -----------------------------------

SHOCKWAVE = {
    "id": "shockwave",
    "weapon": "missile_turret",
    "ammo": "shockwave",
    "mounts": 20,
    "sections": ["Main"],
}


def server_dice(state: BattleState, body: dict[str, Any]) -> Any:
    return apply_action(state, Action("traveller.barrage", body, KESTREL_ACTOR), SeededDice(b"seed", "b1", 1))


def test_TR_16_with_server_dice_a_barrage_that_lands_on_no_section_needs_no_split() -> None:
    """The split is asked for only where a capital ship's section is struck: shockwave missiles deal
    no damage, and a flight loses craft, not sections."""
    state = sides(flight("Red Flight", "B"), kestrel=capital("Kestrel", batteries=[BEAM, SHOCKWAVE]))
    shock = server_dice(state, beam_shot(battery="shockwave", mounts=16, adjacent=None))
    at_flight = server_dice(state, beam_shot(mounts=10, target="red-flight", adjacent=None))
    assert [e.kind for e in shock.events] == ["barrage"]
    assert "location" not in shock.events[0].data
    assert at_flight.events[0].kind == "barrage"
    assert "craft_lost" in at_flight.events[0].data


def test_TR_07_TR_08_a_shockwave_barrage_on_printed_cells_is_recorded_without_a_cell() -> None:
    """16 missiles: no printed column, but a shockwave reads no damage cell at all. 2D 5+5 = 10 + 0
    + 2 + 2 + (1 − armour 6) = 9 → 150% ≥ 5%: Tigress's sand is cleared. The event is the target's,
    as a barrage's at a flight or small craft is."""
    kestrel = capital("Kestrel", batteries=[SHOCKWAVE])
    ships = [on_side(kestrel, "A"), on_side(capital("Tigress"), "B")]
    state = battle(*ships, owners=("p-kestrel", "p-tigress"), enforce_loop=False, printed_cells=True)
    state = advance_to(state, "combat").state
    done = act(state, "traveller.barrage", beam_shot(battery="shockwave", mounts=16), KESTREL_ACTOR, [5, 5])
    [event] = done.events
    assert (event.kind, event.ship) == ("barrage", "tigress")
    assert [(r.purpose, r.ship, r.dice, r.outcome) for r in event.rolls] == [
        ("barrage attack", "kestrel", [5, 5], "150% → 0 damage")
    ]
    assert event.data["sand_cleared"] is True


# --- TR-27 Blast Them As They Launch! -------------------------------------------------------------------


def test_TR_27_a_blasted_flights_waiting_dodge_is_used_up_by_the_attack() -> None:
    """Red Flight launched from Tigress and dodged before Kestrel blasted Tigress's launches: the dodge
    is void (it may not dodge this round) and gone once an attack meets it."""
    state = carrier_in_combat()
    state = act(state, "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, FLIGHT_ACTOR).state
    state.ships["red-flight"].parts["flight"]["round"]["dodge"] = -2
    state = give(state, "kestrel", ("blast_them", "tigress"))
    done = act(state, "traveller.barrage", beam_shot(mounts=10, target="red-flight"), KESTREL_ACTOR, [1, 1])
    assert "dodge" not in done.texts[0]
    assert done.state.ships["red-flight"].parts["flight"]["round"]["dodge"] is None
