"""Traveller High Guard rules driven through the REST door, one test per catalogue rule that no
test above the rules core named before: GEN-05, TR-01, TR-01a, TR-03a, TR-07a, TR-09, TR-12,
TR-16, TR-17, TR-20, TR-22, TR-23, TR-24, TR-25, TR-26a, TR-26b.

Every battle is made over `/api/v1` as a bot referee would, with physical dice: each die is entered
with the action, in the order the rule asks, so every number in the log is worked out by hand in
the comments from the seed (002) and tables.md — never read back from the code under test.
SQLite only: these are rule outcomes, not database behaviour.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.helpers import Table, act, session_cookie, set_table, ship_def


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


# --- doors ------------------------------------------------------------------------------------


async def battle(c: httpx.AsyncClient, ships: dict[str, tuple[dict[str, Any], str]], **options: Any) -> Table:
    """A physical-dice High Guard battle with Ann and Bob; `options` are battle options (orders…)."""
    return await set_table(
        c,
        system="traveller",
        dice_mode="physical",
        players=("ann", "bob"),
        ships=ships,
        options={"players_advance_clock": "always", **options},
    )


async def ok(
    c: httpx.AsyncClient,
    t: Table,
    who: str,
    kind: str,
    payload: dict[str, Any],
    dice: list[int] | None = None,
) -> list[str]:
    extra = {"dice": dice} if dice is not None else {}
    r = await act(c, t, who, kind, payload, **extra)
    assert r.status_code == 200, r.text
    return [e["text"] for e in r.json()["events"]]


async def refused(
    c: httpx.AsyncClient,
    t: Table,
    who: str,
    kind: str,
    payload: dict[str, Any],
    dice: list[int] | None = None,
) -> tuple[str, str]:
    """(field, reason) of a 422 refusal."""
    extra = {"dice": dice} if dice is not None else {}
    r = await act(c, t, who, kind, payload, **extra)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    return detail["field"], detail["reason"]


async def advance(c: httpx.AsyncClient, t: Table, times: int = 1, dice: list[int] | None = None) -> list[str]:
    texts: list[str] = []
    for _ in range(times):
        texts += await ok(c, t, "ref", "clock.advance", {}, dice)
    return texts


async def state(c: httpx.AsyncClient, t: Table, who: str = "ref") -> dict[str, Any]:
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth(who))
    assert r.status_code == 200, r.text
    return r.json()["state"]


async def unit(c: httpx.AsyncClient, t: Table, ship: str, part: str = "hg_ship") -> dict[str, Any]:
    return (await state(c, t))["ships"][ship]["parts"][part]


async def section(c: httpx.AsyncClient, t: Table, ship: str, name: str) -> dict[str, Any]:
    return next(s for s in (await unit(c, t, ship))["sections"] if s["name"] == name)


def craft(name: str, side: str, kind: str = "spacecraft", **hg: Any) -> dict[str, Any]:
    """A non-capital High Guard ship (starship or small craft): one section of Hull and Structure."""
    hull = hg.pop("hull", 4)
    structure = hg.pop("structure", 4)
    return {
        "name": name,
        "klass": "test craft",
        "system": "traveller",
        "side": side,
        "parts": {
            "hg_ship": {
                "kind": kind,
                "displacement": hg.pop("displacement", 400),
                "sections": [{"name": "Hull", "hull_max": hull, "structure_max": structure}],
                **hg,
            }
        },
    }


def blue_flight(side: str = "Zhodani") -> dict[str, Any]:
    """Ten fighters, 2 Hull + 2 Structure each; skills average 2 (20 / 10), lowest Thrust 5."""
    return {
        "name": "Blue Flight",
        "klass": "test flight",
        "system": "traveller",
        "side": side,
        "parts": {
            "flight": {
                "craft_type": "Fighter",
                "craft": 10,
                "craft_hull": 2,
                "craft_structure": 2,
                "craft_skills": [1, 3, 2, 2, 2, 2, 2, 2, 2, 2],
                "craft_thrusts": [6, 6, 6, 5, 6, 6, 6, 6, 6, 6],
                "fire_control": 1,
                "batteries": [{"id": "pulse-lasers", "weapon": "pulse_laser", "mounts": 1}],
            }
        },
    }


def pair() -> dict[str, tuple[dict[str, Any], str]]:
    return {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
    }


PULSE = {"ship": "dauntless", "battery": "pulse-lasers", "target": "arbellatra", "range": "short"}


async def crew_hits_to_half(c: httpx.AsyncClient, t: Table) -> list[str]:
    """Dauntless's 70 pulse lasers at Arbellatra, 140 damage split Main / Engineering, both sections
    left without Hull so both system rolls read the Internal column, and both roll Crew."""
    # Sand 1d6 4 − 2 (40 sandcasters ≤ 90% of 70 lasers) = 2.
    # 2D 6+6 = 12 + range (Short row, Short) 0 + FC +4 + Gunner (Crew Skill 3) +3 + pulse laser −2
    # + (2 per mount − armour 6 − sand 2) = 11 → 200% → ⌊70 × 2⌋ = 140.
    # Location 1d6 3 on CF → Main; 70 / 70 with Engineering (chosen): Hull 66 → 0, Structure 66 → 62.
    # Net 11 ≥ 8: one roll per struck section, Internal (no Hull left): 2D 2 → Crew, twice.
    return await ok(
        c,
        t,
        "bob",
        "traveller.barrage",
        {**PULSE, "mounts": 70, "adjacent": "Engineering"},
        dice=[4, 6, 6, 3, 1, 1, 1, 1],
    )


CREW_TO_HALF = [
    "barrage 70–Pulse Laser–Short–2 at Arbellatra: 2D 12 + range 0 + FC +4 + Gunner +3 + weapon −2"
    " + (2 − armour 6 − sand 2) = 11 → 200% → 140 damage → location 1d6 3: Main;"
    " 70 to Main Hull 66→0, Structure 66→62; 70 to Engineering Hull 66→0, Structure 66→62",
    "Arbellatra Main section hit (Internal, 2D 2): Crew — crew Full → Weakened.",
    "Arbellatra Engineering section hit (Internal, 2D 2): Crew — crew Weakened → Half.",
]


# --- TR-01, TR-01a --------------------------------------------------------------------------------


async def test_TR_01_individual_missiles_take_their_to_hit_number_from_the_accuracy_effect(
    client: httpx.AsyncClient,
) -> None:
    """TR-01: a starship's missiles each roll the Gunner accuracy check, and its Effect picks the
    Missile To Hit row; every row of the table is driven once."""
    c = client
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "bob"),
        "rook": (
            craft(
                "Rook",
                "Zhodani",
                crew_skill=0,
                fire_control=0,
                thrust=2,
                batteries=[{"id": "missiles", "weapon": "missile_turret", "mounts": 5}],
            ),
            "ann",
        ),
        "ace": (
            craft(
                "Ace",
                "Zhodani",
                crew_skill=4,
                fire_control=2,
                thrust=2,
                batteries=[{"id": "missiles", "weapon": "missile_turret", "mounts": 1}],
            ),
            "ann",
        ),
    }
    t = await battle(c, ships, orders=False)
    await advance(c, t, 2)  # orders → manoeuvre → combat
    shot = {"ship": "rook", "battery": "missiles", "target": "arbellatra", "range": "long"}
    assert await refused(c, t, "ann", "traveller.missile", {**shot, "missiles": 6}) == (
        "missiles",
        "Rook has 5 Missile launchers ready",
    )
    # Rook: Gunner (Crew Skill 0) +0, Missile row at Long +0, FC 0: accuracy = 2D, Effect = 2D − 8.
    #   2D 2 → Effect −6 → 11+; to hit 2D 11 → hit.      2D 4 → Effect −4 → 10+; 2D 9 → miss.
    #   2D 7 → Effect −1 → 9+;  2D 9 → hit.              2D 8 → Effect 0 → 8+;   2D 7 → miss.
    #   2D 11 → Effect +3 → 7+; 2D 7 → hit.
    dice = [1, 1, 6, 5, 2, 2, 5, 4, 3, 4, 4, 5, 4, 4, 3, 4, 5, 6, 3, 4]
    texts = await ok(c, t, "ann", "traveller.missile", {**shot, "missiles": 5}, dice)
    dms = "+ Gunner 0 + range 0 + FC 0"
    assert texts == [
        "Rook fires 5 Missiles at Arbellatra at Long (individual attacks, TR-01): "
        f"missile 1: accuracy 2D 2 {dms} = 2 vs 8+ → failure (Effect −6) → to hit 11+: 2D 11 → hit; "
        f"missile 2: accuracy 2D 4 {dms} = 4 vs 8+ → failure (Effect −4) → to hit 10+: 2D 9 → miss; "
        f"missile 3: accuracy 2D 7 {dms} = 7 vs 8+ → failure (Effect −1) → to hit 9+: 2D 9 → hit; "
        f"missile 4: accuracy 2D 8 {dms} = 8 vs 8+ → success (Effect 0) → to hit 8+: 2D 7 → miss; "
        f"missile 5: accuracy 2D 11 {dms} = 11 vs 8+ → success (Effect +3) → to hit 7+: 2D 7 → hit. "
        "3 hits: resolve the damage by the core rules and enter it (GEN-03)."
    ]
    # Ace: Gunner (Crew Skill 4) +4, range 0, FC +2: 2D 8 + 6 = 14 → Effect +6 → 6+; 2D 6 → hit.
    texts = await ok(
        c,
        t,
        "ann",
        "traveller.missile",
        {"ship": "ace", "battery": "missiles", "target": "arbellatra", "range": "long"},
        [4, 4, 3, 3],
    )
    assert texts == [
        "Ace fires 1 Missile at Arbellatra at Long (individual attacks, TR-01): missile 1: accuracy 2D 8"
        " + Gunner +4 + range 0 + FC +2 = 14 vs 8+ → success (Effect +6) → to hit 6+: 2D 6 → hit."
        " 1 hit: resolve the damage by the core rules and enter it (GEN-03)."
    ]
    # TR-02 with it: missiles cannot engage at Close.
    assert await refused(c, t, "ann", "traveller.missile", {**shot, "range": "close"}) == (
        "range",
        "Missile cannot engage at Close range (TR-02)",
    )


async def test_TR_01a_capital_missiles_are_a_barrage_with_no_accuracy_check(
    client: httpx.AsyncClient,
) -> None:
    """TR-01a: a capital ship may not fire individual missiles, and its missile barrage rolls no
    accuracy check: sand, the barrage attack and the location are its only dice."""
    c = client
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "vigilant": (ship_def("tr-vigilant-escort"), "bob"),
    }
    t = await battle(c, ships, orders=False)
    await advance(c, t, 2)
    shot = {"ship": "vigilant", "battery": "missiles", "target": "arbellatra", "range": "long"}
    assert await refused(c, t, "bob", "traveller.missile", shot) == (
        "ship",
        "a capital ship fires its missiles as a barrage: the accuracy check serves individual missile"
        " attacks only (TR-01a)",
    )
    # Sand works against missiles from Medium on: 1d6 3 + 2 (40 sandcasters ≥ 110% of 10 missiles) = 5.
    # 2D 6+6 = 12 + Missile row at Long 0 + FC +2 + Gunner (Crew Skill 2) +2 + (1 per missile − armour 6
    # − sand 5) = 6 → 75% → ⌊10 × 0.75⌋ = 7; location 1d6 4 on CF → Main; 4 / 3 toward Forward.
    r = await act(
        c, t, "bob", "traveller.barrage", {**shot, "mounts": 10, "adjacent": "fore"}, dice=[3, 6, 6, 4]
    )
    assert r.status_code == 200, r.text
    [event] = r.json()["events"]
    assert event["text"] == (
        "barrage 10–Missile–Long–1 at Arbellatra: 2D 12 + range 0 + FC +2 + Gunner +2"
        " + (1 − armour 6 − sand 5) = 6 → 75% → 7 damage → location 1d6 4: Main;"
        " 4 to Main Hull 66→62; 3 to Forward Hull 66→63"
    )
    assert [roll["purpose"] for roll in event["rolls"]] == ["sand", "barrage attack", "location"]


# --- TR-03a -----------------------------------------------------------------------------------------


async def test_TR_03a_non_capital_ships_roll_2d_plus_one_for_the_faster(client: httpx.AsyncClient) -> None:
    """TR-03a: a flight and a starship roll 2D (no Crew Skill), +1 for the faster vessel, plus the
    fleet Tactics Effect; capital ships beside them roll 1d6 + Crew Skill (TR-03)."""
    c = client
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "blue": (blue_flight(side="Imperial"), "ann"),
        "leviathan": (ship_def("tr-leviathan-superdreadnought"), "bob"),
        "rook": (craft("Rook", "Zhodani", crew_skill=1, thrust=2), "bob"),
    }
    t = await battle(c, ships)
    assert t.ships["blue"] == "blue-flight"
    # Fleet (Imperial) Tactics 2D 4+4 + 1 = 9 → Effect +1. Then by ship id:
    # Arbellatra 1D 3 + Crew Skill +2 + fleet +1 = 6; Blue Flight 2D 4+5 = 9 + faster (Thrust 5 beats the
    # Zhodani's 3 and 2) +1 + fleet +1 = 11; Leviathan 1D 2 + Crew Skill +2 = 4; Rook 2D 3+3 = 6 (slower).
    texts = await ok(
        c, t, "ref", "traveller.initiative", {"fleet_tactics": {"Imperial": 1}}, [4, 4, 3, 4, 5, 2, 3, 3]
    )
    assert texts == [
        "Fleet commander (Imperial) Tactics: 2D 8 + Tactics +1 = 9 vs 8+ → success (Effect +1).",
        "Arbellatra initiative: 1D 3 + Crew Skill +2 + fleet Tactics +1 = 6 → reactions 2.",
        "Blue Flight initiative: 2D 9 + faster +1 + fleet Tactics +1 = 11 → reactions 3.",
        "Leviathan initiative: 1D 2 + Crew Skill +2 = 4 → reactions 1.",
        "Rook initiative: 2D 6 = 6 → reactions 2.",
    ]
    assert (await unit(c, t, "blue-flight", "flight"))["initiative_base"] == 11
    assert (await unit(c, t, "rook"))["initiative_base"] == 6


# --- TR-07a -----------------------------------------------------------------------------------------


async def test_TR_07a_configuration_protects_against_meson_barrages(client: httpx.AsyncClient) -> None:
    """TR-07a: against meson barrages the target's configuration adds protection: dispersed +4,
    standard +2, sphere +0 — each subtracted from the per-mount damage with armour and screens."""
    c = client
    ships = {
        "tigress": (ship_def("tr-tigress-dreadnought"), "ann"),
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "leviathan": (ship_def("tr-leviathan-superdreadnought"), "bob"),
    }
    t = await battle(c, ships, orders=False)
    await advance(c, t, 2)
    # Tigress's 100 t meson bays (8 per mount) at Leviathan (dispersed, armour 10, 9 meson screens × 2 = 18):
    # 2D 12 + Long row at Long 0 + FC +5 + Gunner (Crew Skill 3) +3 + (8 − 10 − 18 − 4) = −4 → 0% → 0.
    texts = await ok(
        c,
        t,
        "ann",
        "traveller.barrage",
        {"ship": "tigress", "battery": "meson-bays", "mounts": 10, "target": "leviathan", "range": "long"},
        [6, 6, 5],
    )
    assert texts == [
        "barrage 10–Meson Gun Bay–Long–8 at Leviathan: 2D 12 + range 0 + FC +5 + Gunner +3"
        " + (8 − armour 10 − screens 18 − configuration 4) = −4 → 0% → 0 damage → location 1d6 5: Main"
    ]
    # Leviathan's meson bays at Tigress (sphere, armour 12, 5 meson screens × 2 = 10):
    # 2D 12 + 0 + FC +4 + Gunner +2 + (8 − 12 − 10 − 0) = 4 → 25% → ⌊10 × 0.25⌋ = 2; location 1d6 1 on
    # CS → Engineering; 1 / 1 toward Aft, mesons straight to Structure. Radiation 10 × 1 × 25% = 2 →
    # band 1, lowered by the 10 screen points → nothing.
    texts = await ok(
        c,
        t,
        "bob",
        "traveller.barrage",
        {"ship": "leviathan", "battery": "meson-bays", "mounts": 10, "target": "tigress", "range": "long"},
        [6, 6, 1],
    )
    assert texts == [
        "barrage 10–Meson Gun Bay–Long–8 at Tigress: 2D 12 + range 0 + FC +4 + Gunner +2"
        " + (8 − armour 12 − screens 10 − configuration 0) = 4 → 25% → 2 damage → location 1d6 1: Engineering;"
        " 1 to Engineering Structure 1200→1199; 1 to Aft Structure 1200→1199",
        "Tigress radiation 2: band 1 − screens 10 = −9 → no effect.",
    ]
    # At Arbellatra (standard, armour 6, no meson screen) at Distant: 2D 2 + Long row at Distant −4 + FC +4
    # + Gunner +2 + (8 − 6 − 2) = 4 → 25% → 2; location 1d6 1 → Engineering, 1 / 1 toward Main.
    # Radiation 2 → band 1, no screen to lower it: crew 6+, 2D 2 → no hit.
    texts = await ok(
        c,
        t,
        "bob",
        "traveller.barrage",
        {
            "ship": "leviathan",
            "battery": "meson-bays",
            "mounts": 10,
            "target": "arbellatra",
            "range": "distant",
        },
        [1, 1, 1, 1, 1],
    )
    assert texts == [
        "barrage 10–Meson Gun Bay–Distant–8 at Arbellatra: 2D 2 + range −4 + FC +4 + Gunner +2"
        " + (8 − armour 6 − configuration 2) = 4 → 25% → 2 damage → location 1d6 1: Engineering;"
        " 1 to Engineering Structure 66→65; 1 to Main Structure 66→65",
        "Arbellatra radiation 2: band 1; crew 2D 2 vs 6+: no hit.",
    ]
    assert (await section(c, t, "arbellatra", "Engineering"))["structure"] == 65


# --- TR-16, TR-17 ----------------------------------------------------------------------------------


async def tigress_under_fire(c: httpx.AsyncClient) -> Table:
    """Leviathan (Bob) and Tigress (Ann), at Combat; Ann's Tigress has fired its meson bays (to no
    effect, as in TR-07a), so it is Leviathan's turn. Tigress is a CS hull: Engineering – Aft –
    Amidships – Main – Forward, aft to fore (TR-15's CR–CV column)."""
    ships = {
        "tigress": (ship_def("tr-tigress-dreadnought"), "ann"),
        "leviathan": (ship_def("tr-leviathan-superdreadnought"), "bob"),
    }
    t = await battle(c, ships, orders=False)
    await advance(c, t, 2)
    await ok(c, t, "ann", "traveller.barrage", {**TIGRESS_MESONS, "target": "leviathan"}, [6, 6, 5])
    return t


TIGRESS_MESONS = {"ship": "tigress", "battery": "meson-bays", "mounts": 10, "range": "long"}
LEVIATHAN_MESONS = {
    "ship": "leviathan",
    "battery": "meson-bays",
    "mounts": 10,
    "target": "tigress",
    "range": "long",
}
# Leviathan's meson bays at Tigress (as in TR-07a): 2D 6+6 = 12 + 0 + FC +4 + Gunner +2
# + (8 − armour 12 − screens 10 − configuration 0) = 4 → 25% → ⌊10 × 25%⌋ = 2; location 1d6 4 on
# CR–CV → Main; 1 / 1 with the section the attacker chose, mesons straight to Structure. Radiation
# 10 × 1 × 25% = 2 → band 1, lowered by the 10 screen points → nothing.
AT_MAIN = [6, 6, 4]
SHOT = "barrage 10–Meson Gun Bay–Long–8 at Tigress: 2D 12 + range 0 + FC +4 + Gunner +2 + (8 − armour 12 − screens 10 − configuration 0) = 4 → 25% → 2 damage → location 1d6 4: Main; "
NO_RADIATION = "Tigress radiation 2: band 1 − screens 10 = −9 → no effect."


async def test_TR_16_a_section_named_is_that_section_and_refused_when_not_adjacent(
    client: httpx.AsyncClient,
) -> None:
    """TR-16: the other half goes to "any one adjacent section chosen by the attacker". Tigress has
    a section called Aft, two sections aft of Main: naming it is naming that section, refused (not
    read as "toward aft"), and nothing changes; "toward aft" is the standing preference, which from
    Main means Amidships."""
    c = client
    t = await tigress_under_fire(c)
    before = await unit(c, t, "tigress")
    field, reason = await refused(
        c, t, "bob", "traveller.barrage", {**LEVIATHAN_MESONS, "adjacent": "Aft"}, AT_MAIN
    )
    assert (field, reason) == (
        "adjacent",
        "Aft is not adjacent to Main, the section hit: the other half goes to Amidships or Forward (TR-16)",
    )
    assert await unit(c, t, "tigress") == before
    # The same in lower case: a section's name, whatever its case.
    field, _ = await refused(
        c, t, "bob", "traveller.barrage", {**LEVIATHAN_MESONS, "adjacent": "aft"}, AT_MAIN
    )
    assert field == "adjacent"
    texts = await ok(
        c, t, "bob", "traveller.barrage", {**LEVIATHAN_MESONS, "adjacent": "toward aft"}, AT_MAIN
    )
    assert texts == [SHOT + "1 to Main Structure 1200→1199; 1 to Amidships Structure 1200→1199", NO_RADIATION]


async def test_TR_17_damage_sent_to_a_destroyed_section_is_lost(client: httpx.AsyncClient) -> None:
    """TR-17: "damage beyond 0 Structure is lost" — a section already destroyed has no Structure
    left, so the share the location die sends it is lost; it goes to no other section, and the other
    half still goes to the section the attacker chose (adjacency runs along the location order, the
    destroyed section included). The referee first enters a hit that destroys Tigress's Main."""
    c = client
    t = await tigress_under_fire(c)
    # 1200 Hull then 1200 Structure: Main is destroyed, the ship crippled until the referee rules.
    await ok(
        c, t, "ref", "traveller.entered_hit", {"target": "tigress", "section": "Main", "hull_damage": 2400}
    )
    assert (await section(c, t, "tigress", "Main"))["destroyed"] is True
    texts = await ok(c, t, "bob", "traveller.barrage", {**LEVIATHAN_MESONS, "adjacent": "Forward"}, AT_MAIN)
    assert texts == [
        SHOT + "1 lost: Main is destroyed already (TR-17); 1 to Forward Structure 1200→1199",
        NO_RADIATION,
    ]
    assert (
        (await section(c, t, "tigress", "Main"))["structure"],
        (await section(c, t, "tigress", "Forward"))["structure"],
    ) == (0, 1199)


# --- TR-09 -----------------------------------------------------------------------------------------


async def test_TR_09_barrage_on_small_craft_annihilates_or_triples(client: httpx.AsyncClient) -> None:
    """TR-09: the barrage total (before ×3) against Hull + Structure left: greater annihilates;
    equal or less is ×3 damage for the core rules (GEN-03), and the craft is untouched."""
    c = client
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "gig": (craft("Gig", "Zhodani", kind="small_craft", displacement=20, hull=4, structure=4), "bob"),
        "cutter": (
            craft("Cutter", "Zhodani", kind="small_craft", displacement=50, hull=6, structure=6),
            "bob",
        ),
    }
    t = await battle(c, ships, orders=False)
    await advance(c, t, 2)
    shot = {"ship": "arbellatra", "battery": "beam-lasers", "mounts": 10, "range": "short"}
    # 2D 4 + Medium row at Short 0 + FC +3 + Gunner +2 + (1 − armour 0) = 10 → 175% → ⌊17.5⌋ = 17 > 4 + 4.
    texts = await ok(c, t, "ann", "traveller.barrage", {**shot, "target": "gig"}, [2, 2])
    assert texts == [
        "barrage 10–Beam Laser–Short–1 at Gig: 2D 4 + range 0 + FC +3 + Gunner +2 + (1 − armour 0) = 10"
        " → 175% → 17 damage > 8 Hull+Structure left → Gig is annihilated (TR-09)"
    ]
    assert (await state(c, t))["ships"]["gig"]["destroyed"] is True
    # The Cutter, with the rest of the beam lasers this round:
    # 2D 2 + 0 + 3 + 2 + 1 = 8 → 125% → ⌊12.5⌋ = 12, not greater than 6 + 6: ×3 = 36 for the core rules.
    r = await act(c, t, "ann", "traveller.barrage", {**shot, "target": "cutter"}, dice=[1, 1])
    assert r.status_code == 200, r.text
    [event] = r.json()["events"]
    assert event["text"] == (
        "barrage 10–Beam Laser–Short–1 at Cutter: 2D 2 + range 0 + FC +3 + Gunner +2 + (1 − armour 0) = 8"
        " → 125% → 12 damage × 3 = 36 damage to resolve as hits by the core rules (GEN-03)"
    )
    assert event["data"]["core_damage"] == 36
    cutter = (await state(c, t))["ships"]["cutter"]
    assert cutter["destroyed"] is False
    assert [(s["hull"], s["structure"]) for s in cutter["parts"]["hg_ship"]["sections"]] == [(6, 6)]


# --- TR-12 -----------------------------------------------------------------------------------------


async def test_TR_12_particle_spinal_loses_30_per_armour_point_and_leaves_a_residual(
    client: httpx.AsyncClient,
) -> None:
    """TR-12: a particle spinal loses 30 per armour point (not below 0); 10% of what the armour took
    hits the same section even when nothing else got through, and rolls no system hit. A meson
    spinal leaves no residual."""
    c = client
    ships = {
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
        "tigress": (ship_def("tr-tigress-dreadnought"), "ann"),
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
    }
    t = await battle(c, ships, orders=False)
    await advance(c, t, 2)
    spinal = {"ship": "dauntless", "range": "long"}
    # 2D 11 − 6 (Formidable) + FC +4 + Gunner (Crew Skill 3) +3 + Long 0 + size (300,000 t) 0 = 12 → hit.
    # Location 1d6 3 on CS → Amidships. Armour 12 × 30 = 360 ≥ 300: all 300 absorbed, 0 dealt;
    # residual ⌊300 × 10%⌋ = 30 on Amidships Hull 1200 → 1170; no system roll (only 3 dice entered).
    # Radiation ⌊30 ÷ 6⌋ = 5, halved by radiation shielding = 2; armour 12 ≥ 8 stops it (TR-21).
    texts = await ok(c, t, "bob", "traveller.spinal", {**spinal, "target": "tigress"}, [6, 5, 3])
    assert texts == [
        "spinal Particle Accelerator Spinal at Tigress: 2D 11 + Formidable −6 + FC +4 + Gunner +3 + range 0"
        " + size 0 = 12 vs 8+ → success (Effect +4) → hit → location 1d6 3: Amidships → 300 − armour 12×30"
        " = 0 damage; residual 30 (10% of 300): Amidships Hull 1200→1170",
        "Tigress shrugs off 2 radiation: armour 12 (TR-21).",
    ]
    amidships = await section(c, t, "tigress", "Amidships")
    assert (amidships["hull"], amidships["structure"]) == (1170, 1200)

    await advance(c, t, 5)  # round 2, combat
    # At Arbellatra (10,000 t: not under 10,000, size 0): location 1d6 6 → Forward. 300 − 6 × 30 = 120 dealt:
    # Hull 66 → 0, Structure 66 → 12; residual ⌊180 × 10%⌋ = 18: Structure 12 → 0, the section is destroyed
    # (its two system rolls for 120 find nothing left). Radiation ⌊138 ÷ 6⌋ = 23 → band 4 (21–30),
    # armour 6 does not stop it: crew 3+ (2D 8: hit), computer 5+ (2D 8: hit).
    texts = await ok(
        c, t, "bob", "traveller.spinal", {**spinal, "target": "arbellatra"}, [6, 5, 6, 4, 4, 4, 4]
    )
    assert texts == [
        "spinal Particle Accelerator Spinal at Arbellatra: 2D 11 + Formidable −6 + FC +4 + Gunner +3 + range 0"
        " + size 0 = 12 vs 8+ → success (Effect +4) → hit → location 1d6 6: Forward → 300 − armour 6×30"
        " = 120 damage: Forward Hull 66→0, Structure 66→12; residual 18 (10% of 180): Forward Structure 12→0",
        "Arbellatra's Forward section is destroyed: Arbellatra is crippled until the referee rules whether it"
        " is destroyed (TR-17).",
        "Arbellatra radiation 23: band 4; crew 2D 8 vs 3+: crew Full → Weakened; computer 2D 8 vs 5+:"
        " computer hit 1: −1 DM to all rolls.",
    ]

    # Tigress's meson spinal (460, rating V) at Dauntless (cone, 2 meson screens = 4 points: automatic
    # penetration): 2D 10 − 6 + FC +5 + Gunner +3 + 0 + 0 = 12; location 1d6 1 → Engineering; 460 straight
    # to Structure 250 → 0, no residual. Radiation ⌊460 ÷ 6⌋ = 76, halved = 38 → band 5: crew 2+ (2D 2: hit),
    # computer 4+ (2D 2: no), sensors 6+ (2D 2: no).
    texts = await ok(
        c,
        t,
        "ann",
        "traveller.spinal",
        {"ship": "tigress", "target": "dauntless", "range": "long"},
        [5, 5, 1, 1, 1, 1, 1, 1, 1],
    )
    assert texts[0] == (
        "spinal Meson Spinal Mount at Dauntless: 2D 10 + Formidable −6 + FC +5 + Gunner +3 + range 0 + size 0"
        " = 12 vs 8+ → success (Effect +4) → hit → location 1d6 1: Engineering; penetration V vs 4 screen"
        " points: automatic → 460 damage: Engineering Structure 250→0"
    )
    assert "residual" not in " ".join(texts)
    assert texts[-1] == (
        "Dauntless radiation 38: band 5; crew 2D 2 vs 2+: crew Full → Weakened; computer 2D 2 vs 4+: no hit;"
        " sensors 2D 2 vs 6+: no hit."
    )


# --- TR-20 -----------------------------------------------------------------------------------------


async def test_TR_20_GEN_05_fire_and_structural_failure_criticals(client: httpx.AsyncClient) -> None:
    """TR-20: a Critical result rolls 1d6. Structural failure halves the section's remaining
    Structure when it has no Hull; fire is fought with Discipline 8+ the next round (a standard check
    with the crew DMs, GEN-05), costs another section hit when it fails and rises +1 a round."""
    c = client
    t = await battle(c, pair(), orders=False)
    await advance(c, t, 2)
    # As crew_hits_to_half, but both Internal rolls are 2D 12 → Critical:
    # Main 1d6 6 → Fire (Discipline 8+ next round); Engineering 1d6 2 → Structural Failure: no Hull left,
    # so ⌊62 × 50%⌋ = 31 off Structure: 62 → 31.
    texts = await ok(
        c,
        t,
        "bob",
        "traveller.barrage",
        {**PULSE, "mounts": 70, "adjacent": "Engineering"},
        [4, 6, 6, 3, 6, 6, 6, 6, 6, 2],
    )
    assert texts[1:] == [
        "Arbellatra Main: critical 1d6 6: Fire.",
        "Arbellatra Main section hit (Internal, 2D 12): Critical — critical: Fire — fire in Main: Discipline 8+"
        " next round.",
        "Arbellatra Engineering: critical 1d6 2: Structural Failure.",
        "Arbellatra Engineering section hit (Internal, 2D 12): Critical — critical: Structural Failure —"
        " structural failure: Engineering Structure 62→31.",
    ]
    assert (await section(c, t, "arbellatra", "Engineering"))["structure"] == 31
    assert (await section(c, t, "arbellatra", "Main"))["fire"] == {"target": 8, "started": 1}
    # Round 1's ship action: the fire broke out this round, so no check yet (no die asked).
    assert not any("fire" in text for text in await advance(c, t))
    # Round 2's ship action: Discipline 2D 5 + Crew Skill +2 = 7 vs 8+ → fails (Effect −1): another section
    # hit on Main (Internal, 2D 7 → Hold) and the target rises to 9+.
    texts = await advance(c, t, 4)
    texts += await advance(c, t, 1, dice=[2, 3, 3, 4])
    assert texts[-2:] == [
        "The fire in Arbellatra's Main rages on: 2D 5 + Crew Skill +2 = 7 vs 8+ → failure (Effect −1).",
        "Arbellatra Main section hit (Internal, 2D 7): Hold — Hold capacity destroyed.",
    ]
    assert (await section(c, t, "arbellatra", "Main"))["fire"]["target"] == 9
    # Round 3: 2D 7 + 2 = 9 vs 9+ → success (Effect 0): out.
    await advance(c, t, 4)
    texts = await advance(c, t, 1, dice=[4, 3])
    assert (
        texts[-1]
        == "Arbellatra puts out the fire in Main: 2D 7 + Crew Skill +2 = 9 vs 9+ → success (Effect 0)."
    )
    assert (await section(c, t, "arbellatra", "Main"))["fire"] is None


async def test_TR_20_hull_breach_costs_a_crew_hit_and_the_sections_repairs_for_the_round(
    client: httpx.AsyncClient,
) -> None:
    """TR-20 Hull Breach: a crew hit, and no repairs in the section that round; the next round the
    section may be repaired again."""
    c = client
    t = await battle(c, pair(), orders=False)
    await advance(c, t, 2)
    # As crew_hits_to_half, but Main rolls 2D 12 → Critical 1d6 3 → Hull Breach (crew Full → Weakened);
    # Engineering rolls 2D 7 → Hold.
    texts = await ok(
        c,
        t,
        "bob",
        "traveller.barrage",
        {**PULSE, "mounts": 70, "adjacent": "Engineering"},
        [4, 6, 6, 3, 6, 6, 3, 3, 4],
    )
    assert texts[1:3] == [
        "Arbellatra Main: critical 1d6 3: Hull Breach.",
        "Arbellatra Main section hit (Internal, 2D 12): Critical — critical: Hull Breach — hull breach: no"
        " repairs in Main this round; crew Full → Weakened.",
    ]
    assert await ok(
        c,
        t,
        "bob",
        "traveller.entered_hit",
        {"source": "dauntless", "target": "arbellatra", "section": "Main", "system": "computer"},
    ) == ["Dauntless hits Arbellatra (Main): computer hit 1: −1 DM to all rolls."]
    await advance(c, t)  # ship action
    repair = {"ship": "arbellatra", "section": "Main", "system": "computer"}
    assert await refused(c, t, "ann", "traveller.repair", repair, [6, 6]) == (
        "section",
        "a hull breach stops repairs in Main this round (TR-20)",
    )
    await advance(c, t, 5)  # round 2, ship action
    # 2D 12 + Crew Skill +2 (Weakened: +0) + computer −1 = 13 → success (Effect +5).
    assert await ok(c, t, "ann", "traveller.repair", repair, [6, 6]) == [
        "Arbellatra repairs computer in Main: 2D 12 + Crew Skill +2 + computer −1 = 13 vs 8+ → success"
        " (Effect +5): computer hits 0."
    ]


# --- TR-22, GEN-05 -----------------------------------------------------------------------------------


async def test_TR_22_GEN_05_one_repair_per_section_and_a_system_in_two_sections_tried_in_each(
    client: httpx.AsyncClient,
) -> None:
    """TR-22: one repair attempt per section per Ship Action phase; the beam-laser turrets sit in
    Engineering and Main, so each section may try them. GEN-05: each attempt is 2D + Crew Skill DM +
    the other DMs, success on 8+, Effect = total − 8 (8 exactly succeeds with Effect 0)."""
    c = client
    t = await battle(c, pair(), orders=False)
    await advance(c, t, 2)
    # Sand 1d6 4 − 2 = 2; 2D 11 + 0 + 4 + 3 − 2 + (2 − 6 − 2) = 10 → 175% → ⌊70 × 1.75⌋ = 122; location 3 →
    # Main; 61 / 61 with Engineering: Hull 66 → 5 each. Net 10 ≥ 8, both External (Hull left):
    # Main 2D 9 → Turret: Beam Laser (hit 1); Engineering 2D 5 → Turret: Beam Laser (hit 2).
    texts = await ok(
        c,
        t,
        "bob",
        "traveller.barrage",
        {**PULSE, "mounts": 70, "adjacent": "Engineering"},
        [4, 6, 5, 3, 4, 5, 2, 3],
    )
    assert texts == [
        "barrage 70–Pulse Laser–Short–2 at Arbellatra: 2D 11 + range 0 + FC +4 + Gunner +3 + weapon −2"
        " + (2 − armour 6 − sand 2) = 10 → 175% → 122 damage → location 1d6 3: Main; 61 to Main Hull 66→5;"
        " 61 to Engineering Hull 66→5",
        "Arbellatra Main section hit (External, 2D 9): Turret: Beam Laser — Turret: Beam Laser hit 1: −1d6 DM.",
        "Arbellatra Engineering section hit (External, 2D 5): Turret: Beam Laser — Turret: Beam Laser hit 2:"
        " −(1d6+1) DM.",
    ]
    await ok(
        c,
        t,
        "bob",
        "traveller.entered_hit",
        {"source": "dauntless", "target": "arbellatra", "section": "Main", "system": "computer"},
    )
    fix = {"ship": "arbellatra", "system": "beam-lasers"}
    assert await refused(c, t, "ann", "traveller.repair", {**fix, "section": "Main"}, [6, 6]) == (
        "system",
        "repairs happen in the ship action step (TR-22)",
    )
    await advance(c, t)  # ship action
    # Main: 2D 6 + Crew Skill +2 + computer −1 = 7 vs 8+ → failure (Effect −1).
    assert await ok(c, t, "ann", "traveller.repair", {**fix, "section": "Main"}, [3, 3]) == [
        "Arbellatra repairs beam-lasers in Main: 2D 6 + Crew Skill +2 + computer −1 = 7 vs 8+ → failure"
        " (Effect −1): no progress."
    ]
    assert await refused(c, t, "ann", "traveller.repair", {**fix, "section": "Main"}, [6, 6]) == (
        "section",
        "Main has had its repair attempt this round (TR-22)",
    )
    # Engineering holds the same turrets: 2D 7 + 2 − 1 = 8 vs 8+ → success (Effect 0): one hit off.
    assert await ok(c, t, "ann", "traveller.repair", {**fix, "section": "Engineering"}, [4, 3]) == [
        "Arbellatra repairs beam-lasers in Engineering: 2D 7 + Crew Skill +2 + computer −1 = 8 vs 8+ → success"
        " (Effect 0): Turret: Beam Laser hits 1."
    ]
    assert await refused(c, t, "ann", "traveller.repair", {**fix, "section": "Engineering"}, [6, 6]) == (
        "section",
        "Engineering has had its repair attempt this round (TR-22)",
    )
    assert await refused(
        c,
        t,
        "ann",
        "traveller.repair",
        {"ship": "arbellatra", "section": "Forward", "system": "computer"},
        [6, 6],
    ) == ("system", "computer is not in Forward")
    lasers = next(b for b in (await unit(c, t, "arbellatra"))["batteries"] if b["id"] == "beam-lasers")
    assert lasers["hits"] == 1
    await advance(c, t, 5)  # round 2, ship action: Main may try again. 2D 10 + 2 − 1 = 11 → Effect +3.
    assert await ok(c, t, "ann", "traveller.repair", {**fix, "section": "Main"}, [5, 5]) == [
        "Arbellatra repairs beam-lasers in Main: 2D 10 + Crew Skill +2 + computer −1 = 11 vs 8+ → success"
        " (Effect +3): Turret: Beam Laser hits 0."
    ]


# --- TR-23, TR-24 -----------------------------------------------------------------------------------


async def test_TR_23_GEN_05_crew_hits_walk_the_ladder_with_its_dm_and_fire_limit_and_dead_stays_dead(
    client: httpx.AsyncClient,
) -> None:
    """TR-23: each crew hit is one step down Full → Weakened → Half → Skeleton → Survivors → Dead;
    the step's skill DM joins the crew's rolls (barrages, and repairs as GEN-05 standard checks) and
    its fire limit caps the mounts; a dead crew cannot act, and a further hit leaves it Dead."""
    c = client
    t = await battle(c, pair(), orders=False)
    await advance(c, t, 2)
    assert await crew_hits_to_half(c, t) == CREW_TO_HALF
    assert (await unit(c, t, "arbellatra"))["crew_strength"] == "half"
    # Arbellatra's beam lasers at Dauntless (armour 8, no sand), Half −1:
    # 2D 12 + Medium row at Medium 0 + FC +3 + Gunner +2 − 1 + (1 − 8) = 9 → 150% → 15; location 1d6 6 on
    # CM → Forward; toward fore from the end: Main. 8 / 7. Net 9: Forward and Main External 2D 7 → Armour.
    texts = await ok(
        c,
        t,
        "ann",
        "traveller.barrage",
        {
            "ship": "arbellatra",
            "battery": "beam-lasers",
            "mounts": 10,
            "target": "dauntless",
            "range": "medium",
            "adjacent": "fore",
        },
        [6, 6, 6, 3, 4, 3, 4],
    )
    assert texts[0] == (
        "barrage 10–Beam Laser–Medium–1 at Dauntless: 2D 12 + range 0 + FC +3 + Gunner +2 + crew Half −1"
        " + (1 − armour 8) = 9 → 150% → 15 damage → location 1d6 6: Forward; 8 to Forward Hull 250→242;"
        " 7 to Main Hull 250→243"
    )
    # GEN-05: a repair is a standard check with the Crew Skill DM and the strength DM.
    await ok(
        c,
        t,
        "bob",
        "traveller.entered_hit",
        {"source": "dauntless", "target": "arbellatra", "section": "Main", "system": "computer"},
    )
    await advance(c, t)  # ship action
    # 2D 8 + Crew Skill +2 + crew Half −1 + computer −1 = 8 vs 8+ → success (Effect 0).
    assert await ok(
        c,
        t,
        "ann",
        "traveller.repair",
        {"ship": "arbellatra", "section": "Main", "system": "computer"},
        [4, 4],
    ) == [
        "Arbellatra repairs computer in Main: 2D 8 + Crew Skill +2 + crew Half −1 + computer −1 = 8 vs 8+"
        " → success (Effect 0): computer hits 0."
    ]

    await advance(c, t, 4)  # round 2, combat
    # Ten pulse lasers: sand 1d6 1 + 2 (40 ≥ 110% of 10) = 3; 2D 10 + 0 + 4 + 3 − 2 + (2 − 6 − 3) = 8 →
    # 125% → ⌊12.5⌋ = 12; Main; 6 / 6 on Structure (no Hull left); both Internal 2D 2 → Crew.
    ten = {**PULSE, "mounts": 10, "adjacent": "Engineering"}
    texts = await ok(c, t, "bob", "traveller.barrage", ten, [1, 5, 5, 3, 1, 1, 1, 1])
    assert texts == [
        "barrage 10–Pulse Laser–Short–2 at Arbellatra: 2D 10 + range 0 + FC +4 + Gunner +3 + weapon −2"
        " + (2 − armour 6 − sand 3) = 8 → 125% → 12 damage → location 1d6 3: Main; 6 to Main Structure 62→56;"
        " 6 to Engineering Structure 62→56",
        "Arbellatra Main section hit (Internal, 2D 2): Crew — crew Half → Skeleton.",
        "Arbellatra Engineering section hit (Internal, 2D 2): Crew — crew Skeleton → Survivors.",
    ]
    # Survivors fire each weapon once per 5 rounds: the 10 beam lasers fired in round 1 are out.
    lasers = {"ship": "arbellatra", "battery": "beam-lasers", "target": "dauntless", "range": "medium"}
    assert await refused(c, t, "ann", "traveller.barrage", {**lasers, "mounts": 31}) == (
        "mounts",
        "only 30 of 40 Turret: Beam Laser mounts may fire at this target (crew Survivors: once per 5 rounds)",
    )
    await advance(c, t, 5)  # round 3, combat: two more crew hits — Survivors → Dead, and Dead stays Dead.
    texts = await ok(c, t, "bob", "traveller.barrage", ten, [1, 5, 5, 3, 1, 1, 1, 1])
    assert texts[1:] == [
        "Arbellatra Main section hit (Internal, 2D 2): Crew — crew Survivors → Dead.",
        "Arbellatra Engineering section hit (Internal, 2D 2): Crew — crew Dead → Dead.",
    ]
    assert (await unit(c, t, "arbellatra"))["crew_strength"] == "dead"
    assert await refused(c, t, "ann", "traveller.barrage", {**lasers, "mounts": 10}) == (
        "ship",
        "Arbellatra's crew is dead and cannot act (TR-23)",
    )


async def test_TR_24_frozen_watch_revived_any_time_counts_six_rounds_later(client: httpx.AsyncClient) -> None:
    """TR-24: the frozen watch may be revived at any time (here mid-combat); it takes 6 rounds, so
    revived in round 1 it joins in round 7, restoring the steps its ship data gives (Arbellatra: 1);
    until then the reduced crew's DMs apply."""
    c = client
    t = await battle(c, pair(), orders=False)
    await advance(c, t, 2)
    assert await crew_hits_to_half(c, t) == CREW_TO_HALF
    assert await ok(c, t, "ann", "traveller.revive_frozen_watch", {"ship": "arbellatra"}) == [
        "Arbellatra begins reviving its frozen watch: it joins the crew in round 7 (TR-24)."
    ]
    assert await refused(c, t, "ann", "traveller.revive_frozen_watch", {"ship": "arbellatra"}) == (
        "ship",
        "Arbellatra's frozen watch is already thawing or awake",
    )
    texts: list[str] = []
    while (await state(c, t))["clock"]["turn"] < 7:
        assert (await unit(c, t, "arbellatra"))["crew_strength"] == "half"
        texts = await advance(c, t)
    assert "Arbellatra's frozen watch takes its posts: crew Half → Weakened (TR-24)." in texts
    assert (await unit(c, t, "arbellatra"))["crew_strength"] == "weakened"


# --- TR-25 -----------------------------------------------------------------------------------------


async def test_TR_25_flight_fights_as_one_and_loses_craft_to_barrages(client: httpx.AsyncClient) -> None:
    """TR-25: a flight's skill is its craft's average and its Thrust the lowest; barrages on it take
    −4 and kill craft whose Hull + Structure add up to the total, at most the lower of the mounts
    firing and the battery's gunners; the rest is excess for normal hits."""
    c = client
    arbellatra = ship_def("tr-arbellatra-cruiser")
    beam = next(b for b in arbellatra["parts"]["hg_ship"]["batteries"] if b["id"] == "beam-lasers")
    beam["gunners"] = 3  # a thin gunnery crew on the beam-laser turrets
    ships = {"arbellatra": (arbellatra, "ann"), "blue": (blue_flight(), "bob")}
    t = await battle(c, ships, orders=False)
    flight = await unit(c, t, "blue-flight", "flight")
    assert (flight["crew_skill"], flight["thrust"]) == (2, 5)  # skills 20 / 10 = 2; Thrust min 5
    await advance(c, t, 2)
    shot = {"ship": "arbellatra", "mounts": 10, "target": "blue-flight", "range": "short"}
    # Beam lasers: 2D 12 + 0 + FC +3 + Gunner +2 + flight −4 + (1 − armour 0) = 14 → 275% → ⌊27.5⌋ = 27;
    # ⌊27 ÷ 4⌋ = 6 craft by points, but at most min(10 mounts, 3 gunners) = 3: 3 lost, 27 − 12 = 15 excess.
    assert await ok(c, t, "ann", "traveller.barrage", {**shot, "battery": "beam-lasers"}, [6, 6]) == [
        "barrage 10–Beam Laser–Short–1 at Blue Flight: 2D 12 + range 0 + FC +3 + Gunner +2 + flight −4"
        " + (1 − armour 0) = 14 → 275% → 27 damage → Blue Flight loses 3 craft (4 Hull+Structure each, at"
        " most 3); 7 of 10 left; 15 excess damage to resolve as normal hits (GEN-03)"
    ]
    # Particle barbettes (4 per mount, 40 gunners): 2D 2 + Long row at Short 0 + 3 + 2 − 4 + (4 − 0) = 7 →
    # 100% → 10; ⌊10 ÷ 4⌋ = 2 craft (cap min(10, 40) = 10), 2 excess.
    assert await ok(c, t, "ann", "traveller.barrage", {**shot, "battery": "particle-barbettes"}, [1, 1]) == [
        "barrage 10–Particle Beam Barbette–Short–4 at Blue Flight: 2D 2 + range 0 + FC +3 + Gunner +2"
        " + flight −4 + (4 − armour 0) = 7 → 100% → 10 damage → Blue Flight loses 2 craft (4 Hull+Structure"
        " each, at most 10); 5 of 10 left; 2 excess damage to resolve as normal hits (GEN-03)"
    ]
    assert (await unit(c, t, "blue-flight", "flight"))["lost"] == 5
    # The five left fire together with the average skill: 5 pulse lasers (all of the type, fewer than 10).
    # Sand 1d6 1 + 2 (40 ≥ 110% of 5) = 3; 2D 12 + 0 + FC +1 + Gunner +2 − 2 + (2 − 6 − 3) = 6 → 75% →
    # ⌊3.75⌋ = 3; location 1d6 6 → Forward; the split goes to its one neighbour, Main: 2 / 1.
    assert await ok(
        c,
        t,
        "bob",
        "traveller.barrage",
        {
            "ship": "blue-flight",
            "battery": "pulse-lasers",
            "mounts": 5,
            "target": "arbellatra",
            "range": "short",
            "adjacent": "fore",
        },
        [1, 6, 6, 6],
    ) == [
        "barrage 5–Pulse Laser–Short–2 at Arbellatra: 2D 12 + range 0 + FC +1 + Gunner +2 + weapon −2"
        " + (2 − armour 6 − sand 3) = 6 → 75% → 3 damage → location 1d6 6: Forward; 2 to Forward Hull 66→64;"
        " 1 to Main Hull 66→65"
    ]


# --- TR-26a, TR-26b ----------------------------------------------------------------------------------


async def test_TR_26b_the_small_craft_orders_are_a_flights_not_a_lone_crafts(
    client: httpx.AsyncClient,
) -> None:
    """TR-26b with the seed's words: Fighter Screen is "only performed by a small craft flight", and
    a Fast Strafing Run is made "if the small craft flight is within Close range". A lone small
    craft is refused both (nothing in it could screen or strafe) and its page offers neither; a
    flight gives them."""
    c = client
    gig = craft("Gig", "Zhodani", kind="small_craft", displacement=20, hull=4, structure=4)
    ships = {"arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"), "gig": (gig, "bob")}
    t = await battle(c, {**ships, "blue": (blue_flight(), "bob")})
    await ok(c, t, "ref", "traveller.initiative", {}, [6, 6, 6, 6, 6])
    lone = {"ship": "gig", "commit": True}
    for order, name in (("fast_strafing_run", "Fast Strafing Run"), ("fighter_screen", "Fighter Screen")):
        given = {"order": order, "target": "arbellatra"} if order == "fighter_screen" else {"order": order}
        assert await refused(c, t, "bob", "traveller.orders", {**lone, "orders": [given]}) == (
            "orders",
            f"{name} is only undertaken by a small craft flight",
        )
    flight = {"ship": "blue-flight", "orders": [{"order": "fast_strafing_run"}]}
    assert await ok(c, t, "bob", "traveller.orders", flight) == [
        "Blue Flight saves its draft: Fast Strafing Run."
    ]
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as page:
        page.cookies.set("starboard_session", await session_cookie(c, t.tokens["bob"]))
        html = (await page.get(f"/battles/{t.battle_id}")).text
    gig_orders = html.split("Orders for Gig")[1].split("</form>")[0]
    flight_orders = html.split("Orders for Blue Flight")[1].split("</form>")[0]
    assert "Evasive Action" in gig_orders  # the lone craft's own form, with the orders it may give
    assert "Fast Strafing Run" not in gig_orders and "Fighter Screen" not in gig_orders
    assert "Fast Strafing Run" in flight_orders and "Fighter Screen" in flight_orders


async def test_TR_26a_with_orders_off_nothing_costs_initiative_and_the_spinal_needs_no_line_up(
    client: httpx.AsyncClient,
) -> None:
    """TR-26a: orders are a per-battle option. Off: orders and emergency orders are refused, the
    round's initiative is the rolled one, and the spinal mount fires without Line up Spinal Mount!.
    On (the default): the same spinal shot is refused without the order."""
    c = client
    t = await battle(c, pair(), orders=False)
    # Arbellatra 1D 6 + 2 = 8; Dauntless 1D 6 + 3 = 9.
    await ok(c, t, "ref", "traveller.initiative", {}, [6, 6])
    assert await refused(
        c,
        t,
        "ann",
        "traveller.orders",
        {"ship": "arbellatra", "orders": [{"order": "screens_full"}], "commit": True},
    ) == ("orders", "orders are not used in this battle (TR-26a)")
    await advance(c, t, 2)  # → combat
    assert await refused(
        c, t, "bob", "traveller.emergency_order", {"ship": "dauntless", "order": {"order": "line_up_spinal"}}
    ) == ("order", "orders are not used in this battle (TR-26a)")
    # Dauntless (9) leads the loop and fires its spinal with no order: 2D 2 − 6 + 4 + 3 + 0 + 0 = 3 → miss.
    assert await ok(
        c,
        t,
        "bob",
        "traveller.spinal",
        {"ship": "dauntless", "target": "arbellatra", "range": "long"},
        [1, 1],
    ) == [
        "spinal Particle Accelerator Spinal at Arbellatra: 2D 2 + Formidable −6 + FC +4 + Gunner +3 + range 0"
        " + size 0 = 3 vs 8+ → failure (Effect −5) → miss"
    ]
    ships = (await state(c, t))["ships"]
    assert [ships[s]["parts"]["hg_ship"]["round"]["initiative"] for s in ("arbellatra", "dauntless")] == [
        8,
        9,
    ]

    on = await battle(c, pair())
    await ok(c, on, "ref", "traveller.initiative", {}, [6, 6])
    await ok(c, on, "ann", "traveller.orders", {"ship": "arbellatra", "orders": [], "commit": True})
    await ok(c, on, "bob", "traveller.orders", {"ship": "dauntless", "orders": [], "commit": True})
    await advance(c, on)  # the orders step ended by itself; manoeuvre → combat
    assert await refused(
        c,
        on,
        "bob",
        "traveller.spinal",
        {"ship": "dauntless", "target": "arbellatra", "range": "long"},
        [6, 6],
    ) == ("ship", "the spinal mount fires only in a round with Line up Spinal Mount! (TR-26)")


async def test_TR_26b_requirements_enforced_and_each_order_acts_in_its_phase(
    client: httpx.AsyncClient,
) -> None:
    """TR-26b: Crew Skill, spinal-mount and small-craft requirements refuse an order; a Combat order
    (Focused Fire, +1) acts in the combat step; a Ship order (Get Those Engines Back On-Line*: two
    extra repair rolls in Engineering) acts in the ship action step."""
    c = client
    t = await battle(c, pair())
    await ok(c, t, "ref", "traveller.initiative", {}, [6, 6])  # Arbellatra 8, Dauntless 9
    ann = {"ship": "arbellatra", "commit": True}
    for order, reason in (
        ("line_up_spinal", "Line up Spinal Mount! needs a spinal mount"),
        ("engines_back_online", "Get Those Engines Back On-Line* needs Crew Skill 3+"),  # Crew Skill 2
        ("fast_strafing_run", "Fast Strafing Run is only undertaken by a small craft flight"),
    ):
        assert await refused(c, t, "ann", "traveller.orders", {**ann, "orders": [{"order": order}]}) == (
            "orders",
            reason,
        )
    # Two M-Drive and two power-plant hits on Dauntless's Engineering, entered from the table (TR-14).
    hit = {"source": "arbellatra", "target": "dauntless", "section": "Engineering"}
    for system in ("m_drive", "m_drive", "power_plant", "power_plant"):
        await ok(c, t, "ann", "traveller.entered_hit", {**hit, "system": system})
    await ok(
        c, t, "ann", "traveller.orders", {**ann, "orders": [{"order": "focused_fire", "target": "dauntless"}]}
    )
    texts = await ok(
        c,
        t,
        "bob",
        "traveller.orders",
        {"ship": "dauntless", "orders": [{"order": "engines_back_online"}], "commit": True},
    )
    assert texts[1] == (
        "Every captain has committed; orders revealed: Arbellatra: Focused Fire → Dauntless — initiative 8 → 2;"
        " Dauntless: Get Those Engines Back On-Line* — initiative 9 → 3."
    )
    await advance(c, t)  # manoeuvre → combat
    engineering = {"ship": "dauntless", "section": "Engineering"}
    assert await refused(c, t, "bob", "traveller.repair", {**engineering, "system": "m_drive"}, [6, 6]) == (
        "system",
        "repairs happen in the ship action step (TR-22)",
    )
    await ok(c, t, "bob", "traveller.pass", {"ship": "dauntless"})  # Dauntless (3) leads, and passes
    # Focused Fire +1 in the combat step: 2D 12 + 0 + FC +3 + Gunner +2 + 1 + (1 − 8) = 11 → 200% → 20;
    # location 1d6 6 → Forward, 10 / 10 with Main; net 11: Forward and Main External 2D 7 → Armour.
    texts = await ok(
        c,
        t,
        "ann",
        "traveller.barrage",
        {
            "ship": "arbellatra",
            "battery": "beam-lasers",
            "mounts": 10,
            "target": "dauntless",
            "range": "medium",
            "adjacent": "fore",
        },
        [6, 6, 6, 3, 4, 3, 4],
    )
    assert texts[0] == (
        "barrage 10–Beam Laser–Medium–1 at Dauntless: 2D 12 + range 0 + FC +3 + Gunner +2 + Focused Fire +1"
        " + (1 − armour 8) = 11 → 200% → 20 damage → location 1d6 6: Forward; 10 to Forward Hull 250→240;"
        " 10 to Main Hull 250→240"
    )
    await ok(c, t, "ann", "traveller.pass", {"ship": "arbellatra"})  # → ship action
    # Three attempts in Engineering this round (1 + 2): 2D 8 + Crew Skill +3 = 11 → success each time.
    for system in ("m_drive", "m_drive", "power_plant"):
        [text] = await ok(c, t, "bob", "traveller.repair", {**engineering, "system": system}, [4, 4])
        assert "2D 8 + Crew Skill +3 = 11 vs 8+ → success (Effect +3)" in text
    assert await refused(
        c, t, "bob", "traveller.repair", {**engineering, "system": "power_plant"}, [4, 4]
    ) == ("section", "Engineering has had its repair attempt this round (TR-22)")
    dauntless = await unit(c, t, "dauntless")
    assert (dauntless["systems"]["m_drive"], dauntless["systems"]["power_plant"]) == (0, 1)
