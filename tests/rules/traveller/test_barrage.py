"""Barrages driven through apply_action with scripted dice, checked number by number."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import (
    KESTREL_ACTOR,
    TIGRESS_ACTOR,
    act,
    advance_to,
    battle,
    beam_shot,
    capital,
    hg,
    section,
)


def two_ships(orders: bool = False, **tigress: object):
    state = battle(
        capital("Kestrel"), capital("Tigress", **tigress), owners=("p-kestrel", "p-tigress"), orders=orders
    )
    return advance_to(state, "combat").state


def fire(state, dice, actor=KESTREL_ACTOR, **payload):
    return act(state, "traveller.barrage", beam_shot(**payload), actor, dice)


def test_TR_05_TR_06_TR_08_TR_15_TR_16_whole_barrage_number_by_number() -> None:
    state = two_ships()
    done = fire(state, [3, 4, 4])  # 2D 3+4, location 4
    assert done.texts == [
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 7 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 6"
        " → 75% → 15 damage → location 1d6 4: Main; 8 to Main Hull 66→58; 7 to Forward Hull 66→59"
    ]
    assert section(done.state, "tigress", "Main")["hull"] == 58
    assert section(done.state, "tigress", "Forward")["hull"] == 59
    assert section(done.state, "tigress", "Engineering")["hull"] == 66
    kestrel = hg(done.state, "kestrel")
    assert kestrel["batteries"][0]["fired"] == {"1": 20}
    assert kestrel["round"]["actions"] == 1
    rolls = done.events[0].rolls
    assert [(r.purpose, r.total) for r in rolls] == [("barrage attack", 6), ("location", 4)]


def test_TR_18_TR_19_net_8_rolls_system_hits_on_each_struck_section() -> None:
    state = two_ships()
    # 2D 5+4 = 9 → net 8 → 125% → 25; location 5 Forward; no section fore of Forward, so Main takes 12.
    # Forward still has Hull → External 2D 2+3 = 5: first A slot, the beam laser turrets.
    # Main External 2D 6+6 = 12: Hull → +12 (half of 25) Hull damage to Main.
    done = fire(state, [5, 4, 5, 2, 3, 6, 6], adjacent="fore")
    assert done.texts == [
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 9 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 8"
        " → 125% → 25 damage → location 1d6 5: Forward; 13 to Forward Hull 66→53; 12 to Main Hull 66→54",
        "Tigress Forward section hit (External, 2D 5): Turret: Beam Laser — Turret: Beam Laser hit 1: −1d6 DM.",
        "Tigress Main section hit (External, 2D 12): Hull — +12 Hull damage: Main Hull 54→42.",
    ]
    tigress = hg(done.state, "tigress")
    assert tigress["batteries"][0]["hits"] == 1
    assert section(done.state, "tigress", "Main")["hull"] == 42


def test_TR_17_damage_past_hull_goes_to_structure_and_destroys_the_section() -> None:
    state = two_ships()
    state.ships["tigress"].parts["hg_ship"]["sections"][1]["hull"] = 3
    state.ships["tigress"].parts["hg_ship"]["sections"][1]["structure"] = 4
    done = fire(state, [3, 4, 3])  # 15 damage at Main (location 3), 8 Main / 7 Forward
    assert done.texts[0].endswith("; 8 to Main Hull 3→0, Structure 4→0; 7 to Forward Hull 66→59")
    assert done.texts[1] == (
        "Tigress's Main section is destroyed: Tigress is crippled until the referee rules whether it is destroyed"
        " (TR-17)."
    )
    assert done.state.ships["tigress"].crippled is True
    assert hg(done.state, "tigress")["referee_ruling"] == "pending"


def test_TR_19_damaged_turrets_roll_their_penalty_each_barrage() -> None:
    state = two_ships()
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["hits"] = 2
    done = fire(state, [3, 6, 6, 2])  # DM −(3+1); 2D 12
    assert done.texts[0].startswith(
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 12 + range 0 + FC +2 + Gunner +2 + turret hits −4"
        " + (1 − armour 6) = 7 → 100% → 20 damage → location 1d6 2: Engineering; 10 to Engineering"
    )
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["hits"] = 3
    with pytest.raises(RuleError, match="can no longer fire"):
        fire(state, [])


def test_TR_05_minimum_size_configuration_cap_and_combining() -> None:
    state = two_ships()
    with pytest.raises(RuleError, match=r"only 20 of 25 .*\(configuration 80%\)"):
        fire(state, [], mounts=21)
    with pytest.raises(RuleError, match="at least 10 mounts"):
        fire(state, [], mounts=9)
    done = fire(state, [1, 1, 1], mounts=10)
    assert done.texts[0].endswith("= 1 → 0% → 0 damage → location 1d6 1: Engineering")
    with pytest.raises(RuleError, match="combine them into one barrage"):
        fire(done.state, [], mounts=10)


def test_TR_23_half_crew_fires_each_weapon_once_per_two_rounds() -> None:
    state = two_ships()
    state.ships["kestrel"].parts["hg_ship"]["crew_strength"] = "half"
    done = fire(state, [3, 4, 1], mounts=12)
    assert "Gunner +2 + crew Half −1 + (1 − armour 6) = 5 → 50% → 6 damage" in done.texts[0]
    state = advance_to(done.state, "combat", turn=2).state
    with pytest.raises(RuleError, match=r"only 13 of 25 .* once per 2 rounds"):
        fire(state, [], mounts=14)
    assert fire(state, [3, 3, 1], mounts=13).texts[0].startswith("barrage 13–Beam Laser")


def test_TR_02_TR_02a_range_refusals() -> None:
    state = two_ships()
    with pytest.raises(RuleError, match="cannot engage at Distant"):
        fire(state, [], range="distant")
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["max_range"] = "short"
    with pytest.raises(RuleError, match="no further than Short"):
        fire(state, [], range="medium")


def test_TR_07_sand_screens_and_meson_configuration_are_subtracted() -> None:
    state = battle(
        capital(
            "Kestrel",
            batteries=[
                {"id": "meson", "weapon": "meson_bay_100", "mounts": 12, "tons": 1200, "sections": ["Main"]}
            ],
        ),
        capital(
            "Tigress",
            sandcasters=30,
            screens=[{"id": "ms", "kind": "meson", "count": 1, "sections": ["Main"]}],
        ),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
    )
    state = advance_to(state, "combat").state
    # Meson bays ignore sand; meson screen 2 points, standard configuration +2 → (8 − armour 6 − screens 2
    # − configuration 2) = −2. 2D 6+6 = 12 + 4 − 2 = 14 → 275% → floor(9 × 2.75) = 24. Meson damage goes to
    # Structure. Location 6 Forward, adjacent aft Main: 12 / 12. Net 14 ≥ 8: Internal rolls on both.
    done = act(
        state,
        "traveller.barrage",
        {
            "ship": "kestrel",
            "battery": "meson",
            "mounts": 9,
            "target": "tigress",
            "range": "long",
            "adjacent": "aft",
        },
        KESTREL_ACTOR,
        [6, 6, 6, 3, 4, 3, 4, 3, 3],
    )
    assert done.texts[0] == (
        "barrage 9–Meson Gun Bay–Long–8 at Tigress: 2D 12 + range 0 + FC +2 + Gunner +2"
        " + (8 − armour 6 − screens 2 − configuration 2) = 14 → 275% → 24 damage → location 1d6 6: Forward;"
        " 12 to Forward Structure 66→54; 12 to Main Structure 66→54"
    )
    assert done.texts[1] == "Tigress Forward section hit (Internal, 2D 7): Hold — Hold capacity destroyed."
    assert done.texts[2] == "Tigress Main section hit (Internal, 2D 7): Hold — Hold capacity destroyed."
    # Radiation: 9 bays × 1 × 275% = 24 → band 4, lowered by 2 meson screen points → band 2: crew 5+.
    assert (
        done.texts[3]
        == "Tigress radiation 24: band 4 − screens 2 = 2; crew 2D 6 vs 5+: crew Full → Weakened."
    )
    assert hg(done.state, "tigress")["crew_strength"] == "weakened"


def test_TR_07_sand_against_lasers_rolls_1d6_plus_ratio() -> None:
    state = two_ships(sandcasters=30)
    # sand 1d6 4 + (30 ≥ 110% of 20 → +2) = 6 → (1 − armour 6 − sand 6) = −11
    done = fire(state, [4, 6, 6, 1])
    assert "+ (1 − armour 6 − sand 6) = 5 → 50% → 10 damage" in done.texts[0]


def test_TR_09_small_craft_annihilated_when_total_beats_hull_plus_structure() -> None:
    boat = {
        "name": "Gig",
        "system": "traveller",
        "parts": {
            "hg_ship": {
                "kind": "small_craft",
                "displacement": 20,
                "sections": [{"name": "Hull", "hull_max": 4, "structure_max": 4}],
            }
        },
    }
    state = battle(capital("Kestrel"), boat, owners=("p-kestrel",), orders=False)
    state = advance_to(state, "combat").state
    body = {"ship": "kestrel", "battery": "beam", "mounts": 10, "target": "gig", "range": "short"}
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [4, 4])
    assert done.texts == [
        "barrage 10–Beam Laser–Short–1 at Gig: 2D 8 + range 0 + FC +2 + Gunner +2 + (1 − armour 0) = 13"
        " → 250% → 25 damage > 8 Hull+Structure left → Gig is annihilated (TR-09)"
    ]
    assert done.state.ships["gig"].destroyed is True
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [1, 1])
    assert done.texts[0].endswith(
        "= 7 → 100% → 10 damage > 8 Hull+Structure left → Gig is annihilated (TR-09)"
    )
    state.ships["gig"].parts["hg_ship"]["sections"][0]["structure_max"] = 40
    state.ships["gig"].parts["hg_ship"]["sections"][0]["structure"] = 40
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [1, 1])
    assert done.texts[0].endswith("→ 10 damage × 3 = 30 damage to resolve as hits by the core rules (GEN-03)")
    assert done.state.ships["gig"].destroyed is False


def test_TR_25_flight_barrage_minus_4_and_craft_loss_capped_by_gunners() -> None:
    """TR-25: −4 against a flight; craft lost by Hull + Structure, capped by mounts and gunners."""
    flight = {
        "name": "Red Flight",
        "system": "traveller",
        "parts": {
            "flight": {
                "craft_type": "Fighter",
                "craft": 10,
                "craft_hull": 2,
                "craft_structure": 2,
                "craft_skills": [2, 1, 2],
                "craft_thrusts": [6, 5, 6],
                "batteries": [{"id": "pulse", "weapon": "pulse_laser", "mounts": 1}],
            }
        },
    }
    state = battle(capital("Kestrel"), flight, owners=("p-kestrel",), orders=False)
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["gunners"] = 3
    state = advance_to(state, "combat").state
    body = {"ship": "kestrel", "battery": "beam", "mounts": 20, "target": "red-flight", "range": "short"}
    # 2D 6+6 = 12 + 4 − 4 + 1 = 13 → 250% → 50; 50 // 4 = 12 craft, capped at 3 gunners → 3 lost, 38 excess
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [6, 6])
    assert done.texts == [
        "barrage 20–Beam Laser–Short–1 at Red Flight: 2D 12 + range 0 + FC +2 + Gunner +2 + flight −4"
        " + (1 − armour 0) = 13 → 250% → 50 damage → Red Flight loses 3 craft (4 Hull+Structure each, at most 3);"
        " 7 of 10 left; 38 excess damage to resolve as normal hits (GEN-03)"
    ]
    flight_part = done.state.ships["red-flight"].parts["flight"]
    assert (flight_part["lost"], flight_part["crew_skill"], flight_part["thrust"]) == (3, 2, 5)


def test_TR_25_flight_fires_with_all_its_craft_as_mounts() -> None:
    """TR-25: a flight fights as one unit, every craft a mount."""
    flight = {
        "name": "Red Flight",
        "system": "traveller",
        "parts": {
            "flight": {
                "craft_type": "Fighter",
                "craft": 10,
                "lost": 2,
                "crew_skill": 2,
                "craft_hull": 2,
                "craft_structure": 2,
                "batteries": [{"id": "pulse", "weapon": "pulse_laser", "mounts": 1}],
            }
        },
    }
    state = battle(capital("Tigress"), flight, owners=("p-tigress", "p-red"), orders=False)
    state = advance_to(state, "combat").state
    actor = type(TIGRESS_ACTOR)("p-red", "player", frozenset({"red-flight"}))
    body = {
        "ship": "red-flight",
        "battery": "pulse",
        "mounts": 8,
        "target": "tigress",
        "range": "adjacent",
        "adjacent": "fore",
    }
    done = act(state, "traveller.barrage", body, actor, [4, 4, 1])
    # small craft at Adjacent read the first column: Short row +0; pulse laser −2
    assert done.texts[0].startswith(
        "barrage 8–Pulse Laser–Adjacent–2 at Tigress: 2D 8 + range 0 + FC 0 + Gunner +2 + weapon −2"
        " + (2 − armour 6) = 4 → 25% → 2 damage → location 1d6 1: Engineering"
    )
    with pytest.raises(RuleError, match="already fired at Tigress: combine them"):
        act(done.state, "traveller.barrage", body, actor, [])


def test_TR_08_battle_option_printed_cells_reads_the_printed_column() -> None:
    state = battle(
        capital("Kestrel"),
        capital("Tigress"),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
        printed_cells=True,
    )
    state = advance_to(state, "combat").state
    # net 4 (2D 5): 20 dice at 25% prints 6 where ⌊20 × 25%⌋ = 5
    done = fire(state, [2, 3, 1])
    assert done.texts[0].startswith(
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 5 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 4"
        " → 25% → 6 damage → location 1d6 1: Engineering; 3 to Engineering Hull 66→63; 3 to Main Hull 66→63"
    )
    default = fire(two_ships(), [2, 3, 1])
    assert "= 4 → 25% → 5 damage" in default.texts[0]


def test_TR_08_printed_cells_battle_says_when_floor_replaced_a_printed_cell() -> None:
    """TR-08 Decision: a printed-cells battle has printed cells only for 5, 10, 12, 20 and 50 dice; 13
    beam lasers read ⌊13 × 25%⌋ = 3 and the log says so. A default battle says nothing extra."""
    state = battle(
        capital("Kestrel"),
        capital("Tigress"),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
        printed_cells=True,
    )
    state = advance_to(state, "combat").state
    done = fire(state, [2, 3, 1], mounts=13)
    assert done.texts == [
        "barrage 13–Beam Laser–Medium–1 at Tigress: 2D 5 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 4"
        " → 25% → 3 damage (no printed column for 13 dice: ⌊13 × 25%⌋, TR-08) → location 1d6 1: Engineering;"
        " 2 to Engineering Hull 66→64; 1 to Main Hull 66→65"
    ]
    assert (
        done.events[0]
        .rolls[0]
        .sentence()
        .endswith("→ 25% → 3 damage (no printed column for 13 dice: ⌊13 × 25%⌋, TR-08)")
    )
    assert done.events[0].data["cell"] == "computed"
    printed = fire(state, [2, 3, 1], mounts=20)
    assert "= 4 → 25% → 6 damage → location" in printed.texts[0]
    assert printed.events[0].data["cell"] == "printed"
    default = fire(two_ships(), [2, 3, 1], mounts=13)
    assert "= 4 → 25% → 3 damage → location" in default.texts[0]
    assert "cell" not in default.events[0].data


def test_TR_16_the_adjacent_section_is_asked_for_once_the_location_is_known() -> None:
    """TR-16: 15 damage on Main (CF: Engineering – Main – Forward), which has two neighbours. With no
    choice the barrage is refused after the location die, naming the field; the same dice with the
    attacker's choice split it 8 (the section hit takes the odd point) / 7."""
    state = two_ships()
    with pytest.raises(RuleError) as asked:
        fire(state, [3, 4, 4], adjacent=None)
    assert (asked.value.field, asked.value.message) == (
        "adjacent",
        "the barrage hit Main: choose the adjacent section for the other half, Engineering or Forward (TR-16) — "
        'send it again with the same dice and "adjacent"',
    )
    done = fire(state, [3, 4, 4], adjacent="Engineering")
    assert done.texts == [
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 7 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 6"
        " → 75% → 15 damage → location 1d6 4: Main; 8 to Main Hull 66→58; 7 to Engineering Hull 66→59"
    ]
    assert (done.events[0].data["location"], done.events[0].data["adjacent"]) == ("Main", "Engineering")
    assert (
        section(done.state, "tigress", "Forward")["hull"],
        section(done.state, "tigress", "Main")["hull"],
    ) == (66, 58)


def test_TR_16_a_standing_preference_is_used_and_a_section_not_adjacent_is_refused() -> None:
    state = two_ships()
    aft = fire(state, [3, 4, 4], adjacent="aft")  # Main, toward aft: Engineering
    assert aft.texts[0].endswith("location 1d6 4: Main; 8 to Main Hull 66→58; 7 to Engineering Hull 66→59")
    end = fire(state, [3, 4, 6], adjacent="fore")  # Forward has no fore neighbour: its one, Main
    assert end.texts[0].endswith("location 1d6 6: Forward; 8 to Forward Hull 66→58; 7 to Main Hull 66→59")
    alone = fire(state, [3, 4, 1], adjacent=None)  # Engineering's one neighbour: nothing to ask
    assert alone.texts[0].endswith(
        "location 1d6 1: Engineering; 8 to Engineering Hull 66→58; 7 to Main Hull 66→59"
    )
    with pytest.raises(RuleError) as refused:
        fire(state, [3, 4, 1], adjacent="Forward")
    assert (refused.value.field, refused.value.message) == (
        "adjacent",
        "Forward is not adjacent to Engineering, the section hit: the other half goes to Main (TR-16)",
    )
    with pytest.raises(RuleError) as unknown:
        fire(state, [3, 4, 1], adjacent="Bridge")
    assert (unknown.value.field, unknown.value.message) == (
        "adjacent",
        "Tigress has no section 'Bridge' (TR-16)",
    )


def test_TR_16_server_dice_need_the_split_before_the_location_is_rolled() -> None:
    """With server dice a refusal after the location die would show a roll of a barrage that never
    happened, so the split (fore or aft) must come with the barrage; nothing is rolled without it."""
    from app.rules import Action, apply_action
    from app.rules.dice import SeededDice

    state = two_ships()
    body = {"ship": "kestrel", "battery": "beam", "mounts": 20, "target": "tigress", "range": "medium"}
    for choice in (None, "Engineering"):
        dice = SeededDice(b"\x01" * 32, "b-1", 9)
        with pytest.raises(RuleError) as refused:
            apply_action(
                state, Action("traveller.barrage", {**body, "adjacent": choice}, KESTREL_ACTOR), dice
            )
        assert refused.value.field == "adjacent" and "with server dice" in refused.value.message
        assert dice.record == []
    dice = SeededDice(b"\x01" * 32, "b-1", 9)
    done = apply_action(state, Action("traveller.barrage", {**body, "adjacent": "aft"}, KESTREL_ACTOR), dice)
    assert done.events[0].data["adjacent"] in ("Engineering", "Main")
