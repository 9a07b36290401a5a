"""The Shadow living ship's pain rules through the REST door, for the catalogue rules no test above
the rules core named before: SH-05 (rise amount), SH-07 (which reaction overrides), SH-11 (FOUR),
SH-12 (FIVE), SH-13 (DEATH) and SH-02 with GEN-04 (the Excess Damage track).

Physical-dice SFB battles made over `/api/v1`: Kirk's Federation Heavy Cruiser and Hawk escort
against Kosh's Shadow Cruiser. Damage is entered by Kirk, the pain check runs as the impulse ends
(the clock advance carries its dice), and every expected number comes from seed 000's chart, worked
by hand in the comments. The Shadow here is the library cruiser with a deeper Core (1,000) so that
the big bands can be reached without destroying it; the scenario sets its starting pain (SH-01).
SQLite only.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.rules.core import Roll
from tests.helpers import Table, act, set_table, ship_def, simple_ship

SHADOW = "shadow-cruiser"
FED = "federation-heavy-cruiser"
HAWK = "hawk"


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


async def shadow_table(c: httpx.AsyncClient, pain: int = 0) -> Table:
    shadow = ship_def(SHADOW)
    shadow["parts"]["pain"]["level"] = pain
    core = next(s for s in shadow["parts"]["sheet"]["sections"] if s["name"] == "Core")
    core["structure_max"] = 1000
    table = await set_table(
        c,
        system="sfb",
        dice_mode="physical",
        players=("kirk", "kosh"),
        ships={
            "shadow": (shadow, "kosh"),
            "fed": (ship_def(FED), "kirk"),
            "hawk": (simple_ship("Hawk", "sfb"), "kirk"),
        },
    )
    assert (table.ships["shadow"], table.ships["fed"], table.ships["hawk"]) == (SHADOW, FED, HAWK)
    return table


async def send(
    c: httpx.AsyncClient,
    t: Table,
    who: str,
    kind: str,
    payload: dict[str, Any],
    dice: list[int] | None = None,
) -> httpx.Response:
    return await act(c, t, who, kind, payload, **({"dice": dice} if dice is not None else {}))


async def ok(
    c: httpx.AsyncClient,
    t: Table,
    who: str,
    kind: str,
    payload: dict[str, Any],
    dice: list[int] | None = None,
) -> list[dict[str, Any]]:
    r = await send(c, t, who, kind, payload, dice)
    assert r.status_code == 200, r.text
    return r.json()["events"]


async def pain(c: httpx.AsyncClient, t: Table) -> dict[str, Any]:
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth("kirk"))
    assert r.status_code == 200, r.text
    return r.json()["state"]["ships"][SHADOW]["parts"]["pain"]


async def clock(c: httpx.AsyncClient, t: Table) -> dict[str, Any]:
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth("kirk"))
    return r.json()["state"]["clock"]


def sentences(events: list[dict[str, Any]]) -> list[str]:
    return [Roll.model_validate(r).sentence() for e in events for r in e["rolls"]]


def texts(events: list[dict[str, Any]], kind: str) -> list[str]:
    return [e["text"] for e in events if e["kind"] == kind]


async def impulse(
    c: httpx.AsyncClient, t: Table, hits: list[tuple[str, int, str | None]], dice: list[int]
) -> list[dict[str, Any]]:
    """Kirk enters this impulse's hits (source, amount, direction — None: straight to the Core), then
    ends the impulse with the pain check's dice."""
    for source, amount, direction in hits:
        where = {"direction": direction} if direction else {"section": "Core"}
        await ok(
            c, t, "kirk", "damage.apply", {"target": SHADOW, "source": source, "amount": amount, **where}
        )
    return await ok(c, t, "kirk", "clock.advance", {}, dice)


async def to_turn(c: httpx.AsyncClient, t: Table, turn: int, step: str) -> list[dict[str, Any]]:
    """Advance (no damage pending, no dice) to `step` of `turn`."""
    events: list[dict[str, Any]] = []
    for _ in range(80):
        now = await clock(c, t)
        if (now["turn"], now["step"]) == (turn, step):
            return events
        events += await ok(c, t, "ref", "clock.advance", {})
    raise AssertionError(f"never reached {step} of turn {turn}")


# --- SH-05 ------------------------------------------------------------------------------------------


async def test_SH_05_rise_amount_by_band_never_under_one(client: httpx.AsyncClient) -> None:
    """SH-05: the rise is 1d6 + the band's modifier (D6−4, D6−3, D6−2, D6−1, D6, D6+1), at least 1.
    Each impulse's reaction roll fails, so only the rise is at work."""
    c = client
    t = await shadow_table(c)
    await ok(c, t, "kirk", "clock.advance", {})  # Energy Allocation → impulse 1
    steps = [
        # (damage, dice [rise chance, amount, reaction chance], rise sentence, pain)
        # 25–49: rise on 1; 1d6 2 − 4 = −2 → at least 1: pain 0 → 1; reaction 2 > 1.
        # (The roll's sentence prints the negative total with an ASCII hyphen.)
        (30, [1, 2, 2], "rise amount: 1d6 − 4 = -2 → at least 1 → pain 1", 1),
        # 50–99: rise on 1–2; 1d6 1 − 3 = −2 → at least 1: pain 2; reaction 3 > 2.
        (60, [2, 1, 3], "rise amount: 1d6 − 3 = -2 → at least 1 → pain 2", 2),
        # 100–149: rise on 1–3; 1d6 6 − 2 = 4: pain 6; reaction 4 > 3.
        (120, [3, 6, 4], "rise amount: 1d6 − 2 = 4 → pain 6", 6),
        # 150–199: rise on 1–4; 1d6 3 − 1 = 2: pain 8; reaction 5 > 4.
        (160, [4, 3, 5], "rise amount: 1d6 − 1 = 2 → pain 8", 8),
        # 200–249 (the seed's 217): rise on 1–5; 1d6 3 + 0 = 3: pain 11 (the seed: "rolls a 3 … by three");
        # reaction 6 > 5.
        (217, [5, 3, 6], "rise amount: 1d6 = 3 → pain 11", 11),
    ]
    for damage, dice, rise, level in steps:
        events = await impulse(c, t, [(FED, damage, None)], dice)
        assert sentences(events)[1] == rise
        assert texts(events, "pain_reaction") == ["Shadow Cruiser does not react to the pain."]
        assert (await pain(c, t))["level"] == level
    # 250+: rise on 1–6; 1d6 6 + 1 = 7: 11 + 7 = 18, capped at 16 — the shock kills it (SH-02), and no
    # reaction die is asked (only two dice entered).
    events = await impulse(c, t, [(FED, 260, None)], [6, 6])
    assert sentences(events) == [
        "pain rise chance, band 250+: 1d6 = 6, needs ≤ 6 → rises",
        "rise amount: 1d6 + 1 = 7 → pain 16 (the maximum)",
    ]
    assert (await pain(c, t))["level"] == 16


# --- SH-07 ------------------------------------------------------------------------------------------


async def test_SH_07_higher_reactions_override_within_a_turn_and_a_new_turn_takes_the_same_level(
    client: httpx.AsyncClient,
) -> None:
    """SH-07: within a turn a new reaction overrides only if higher (TWO → THREE does; THREE again does
    not); the level persists into the next turn, where the first successful reaction takes effect even
    at the same level (a new THREE with a new target)."""
    c = client
    t = await shadow_table(c, pain=5)
    await ok(c, t, "kirk", "clock.advance", {})  # → impulse 1
    # Impulse 1: Federation 60 from fore, band 50–99: rise 2 (≤ 2), 1d6 6 − 3 = 3 → pain 8; reaction 1 → TWO.
    events = await impulse(c, t, [(FED, 60, "fore")], [2, 6, 1])
    assert texts(events, "pain_reaction") == [
        "Shadow Cruiser is angered — reaction TWO: must target Federation Heavy Cruiser next turn (turn 2)."
    ]
    # Impulse 2: Hawk 30 from port, band 25–49: rise 1, 1d6 5 − 4 = 1 → pain 9; reaction 1 → THREE, higher:
    # it overrides TWO and targets the Hawk, this impulse's largest source.
    events = await impulse(c, t, [(HAWK, 30, "port")], [1, 5, 1])
    assert texts(events, "pain_reaction") == [
        "Shadow Cruiser is enraged — reaction THREE: must target Hawk until it is destroyed."
    ]
    track = await pain(c, t)
    assert (track["level"], track["reaction"], track["most_damage"]) == (9, "THREE", HAWK)
    two, three = track["obligations"]
    assert (two["level"], two["expired"], two["ended"]) == (
        "TWO",
        True,
        "superseded by THREE (turn 1 impulse 2)",
    )
    assert (three["level"], three["target"], three["expired"]) == ("THREE", HAWK, False)
    # Impulse 3: Federation 60, band 50–99: rise 2, 1d6 4 − 3 = 1 → pain 10; reaction 1 → THREE again in
    # the same turn: not higher, so it overrides nothing — the Hawk stays the target.
    events = await impulse(c, t, [(FED, 60, "fore")], [2, 4, 1])
    assert texts(events, "pain_reaction") == [
        "Shadow Cruiser reacts at THREE, which does not override its THREE reaction already taken in turn 1 (SH-07)."
    ]
    track = await pain(c, t)
    assert (track["level"], track["reaction"], track["most_damage"]) == (10, "THREE", HAWK)
    assert [o["target"] for o in track["obligations"] if not o["expired"]] == [HAWK]

    # Turn 2: the reaction persists (no reduction rolled).
    await to_turn(c, t, 2, "energy_allocation")
    assert (await pain(c, t))["reaction"] == "THREE"
    await ok(c, t, "kirk", "clock.advance", {})  # → impulse 1
    # Federation 30, band 25–49: rise 1, 1d6 5 − 4 = 1 → pain 11; reaction 1 → THREE, the first of turn 2:
    # it takes effect at the same level, with the Federation cruiser as the new target.
    events = await impulse(c, t, [(FED, 30, "fore")], [1, 5, 1])
    assert texts(events, "pain_reaction") == [
        "Shadow Cruiser is enraged — reaction THREE: must target Federation Heavy Cruiser until it is destroyed."
    ]
    track = await pain(c, t)
    assert [o["target"] for o in track["obligations"] if not o["expired"]] == [FED]


# --- SH-11 ------------------------------------------------------------------------------------------


async def test_SH_11_fearful_HETs_away_speeds_up_evades_lifts_the_target_and_may_fire(
    client: httpx.AsyncClient,
) -> None:
    """SH-11: FOUR at once HETs directly away from the damage (always succeeds), speed +5 to at most
    50, evasion plotting to the end of the turn; THREE's target is lifted; the ship may still fire."""
    c = client
    t = await shadow_table(c, pain=7)
    await ok(c, t, "kosh", "shadow.plot_speed", {"ship": SHADOW, "speed": 48})
    await ok(c, t, "kirk", "clock.advance", {})  # → impulse 1
    # Federation 60 from fore, band 50–99: rise 2, 1d6 5 − 3 = 2 → pain 9; reaction 1 → THREE (Federation).
    events = await impulse(c, t, [(FED, 60, "fore")], [2, 5, 1])
    assert texts(events, "pain_reaction") == [
        "Shadow Cruiser is enraged — reaction THREE: must target Federation Heavy Cruiser until it is destroyed."
    ]
    # Federation 60 again: rise 1, 1d6 6 − 3 = 3 → pain 12; reaction 2 (≤ 2) → FOUR: speed 48 + 5 → 50 (cap).
    events = await impulse(c, t, [(FED, 60, "fore")], [1, 6, 2])
    assert texts(events, "pain_reaction") == [
        "Shadow Cruiser is fearful — reaction FOUR: must HET directly away from the damage (damage from fore) at"
        " once; it always succeeds; evasion plotting: must increase the range from every enemy ship, using an"
        " allotted HET only when its movement would not take it further away (until the end of turn 1);"
        " speed 48 → 50."
    ]
    track = await pain(c, t)
    assert (track["level"], track["reaction"], track["speed"]) == (12, "FOUR", 50)
    target, het, evasion = track["obligations"]
    assert (target["level"], target["expired"], target["ended"]) == (
        "THREE",
        True,
        "superseded by FOUR (turn 1 impulse 2)",
    )
    assert (het["kind"], het["direction"], het["expired"]) == ("het_away", "fore", False)
    assert (evasion["kind"], evasion["until"], evasion["until_turn"]) == ("evasion", "end_of_turn", 1)
    # It may still fire: Kosh enters the Shadow's fire on the Hawk.
    r = await send(c, t, "kosh", "damage.apply", {"target": HAWK, "source": SHADOW, "amount": 5})
    assert r.status_code == 200, r.text
    # The HET is due in the next movement; evasion plotting ends with the turn.
    events = await to_turn(c, t, 2, "energy_allocation")
    assert texts(events, "pain_obligation_expired") == [
        "Shadow Cruiser is no longer bound: must HET directly away from the damage (damage from fore) at once;"
        " it always succeeds.",
        "Shadow Cruiser is no longer bound: evasion plotting: must increase the range from every enemy ship,"
        " using an allotted HET only when its movement would not take it further away (until the end of turn 1).",
    ]


# --- SH-12 ------------------------------------------------------------------------------------------


async def test_SH_12_panicked_HETs_at_random_cannot_fire_and_must_phase_out(
    client: httpx.AsyncClient,
) -> None:
    """SH-12: FIVE at once HETs in a 1d6 direction, speed +8 (cap 50), cannot fire for the rest of the
    turn, evasion plotting; at 10+ hexes from the nearest enemy it must try to phase out; if that is
    impossible it must plot it at the next Energy Allocation; if still impossible through damage it
    makes its normal pain-reduction roll and plays on."""
    c = client
    t = await shadow_table(c, pain=12)
    await ok(c, t, "kosh", "shadow.plot_speed", {"ship": SHADOW, "speed": 20})
    await ok(c, t, "kirk", "clock.advance", {})  # → impulse 1
    # Federation 60 from fore, band 50–99: rise 2, 1d6 5 − 3 = 2 → pain 14; reaction 1 → FIVE;
    # HET direction 1d6 4 → the fourth hex side, D; speed 20 + 8 = 28.
    events = await impulse(c, t, [(FED, 60, "fore")], [2, 5, 1, 4])
    assert texts(events, "pain_reaction") == [
        "Shadow Cruiser is panicked — reaction FIVE: must HET in direction D (rolled) at once; cannot fire for"
        " the rest of turn 1; evasion plotting: must increase the range from every enemy ship, using an"
        " allotted HET only when its movement would not take it further away (until the end of turn 1);"
        " speed 20 → 28; once 10 hexes from the nearest enemy it must try to phase out."
    ]
    assert (await pain(c, t))["speed"] == 28
    # It cannot fire for the rest of the turn: the Shadow's fire is refused.
    r = await send(c, t, "kosh", "damage.apply", {"target": HAWK, "source": SHADOW, "amount": 5})
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["field"] == "source"
    assert "cannot fire for the rest of turn 1 (SH-12)" in r.json()["detail"]["reason"]
    # 9 hexes: not yet; 12 hexes: it must try to phase out.
    assert texts(
        await ok(c, t, "kosh", "shadow.report_range", {"ship": SHADOW, "range": 9}), "pain_range"
    ) == ["Shadow Cruiser is 9 hexes from the nearest enemy: under 10, it keeps evading."]
    events = await ok(c, t, "kosh", "shadow.report_range", {"ship": SHADOW, "range": 12})
    assert texts(events, "pain_phase_out") == [
        "Shadow Cruiser is 12 hexes from the nearest enemy and must attempt to phase out (SH-12)."
    ]
    events = await ok(c, t, "kosh", "shadow.phase_out", {"ship": SHADOW, "result": "impossible"})
    assert texts(events, "pain_phase_out") == [
        "Shadow Cruiser cannot phase out now and must plot it at the next Energy Allocation."
    ]
    events = await to_turn(c, t, 2, "energy_allocation")
    assert "Shadow Cruiser must plot phasing out this Energy Allocation (SH-12)." in [
        e["text"] for e in events
    ]
    # A new turn: the fire ban is over.
    r = await send(c, t, "kosh", "damage.apply", {"target": HAWK, "source": SHADOW, "amount": 5})
    assert r.status_code == 200, r.text
    # Still impossible through damage: the normal reduction roll, 1d6 3: pain 14 → 11, FIVE → THREE.
    events = await ok(c, t, "kosh", "shadow.phase_out", {"ship": SHADOW, "result": "impossible"}, [3])
    assert [e["text"] for e in events] == [
        "Shadow Cruiser still cannot phase out through damage; it rolls pain reduction and plays on.",
        "Shadow Cruiser rolls pain reduction: pain 14 → 11; reaction FIVE → THREE (FIVE → FOUR: FOUR's"
        " restrictions apply (evasion plotting this turn; it may fire); FOUR → THREE: no restrictions).",
    ]
    track = await pain(c, t)
    assert (track["level"], track["reaction"], track["reduced_turn"]) == (11, "THREE", 2)


# --- SH-13 ------------------------------------------------------------------------------------------


async def test_SH_13_death_drops_speed_to_one_and_leaves_the_carcass_in_play(
    client: httpx.AsyncClient,
) -> None:
    """SH-13: at pain 16 the ship is DEAD: speed drops to at most 1, it is out of the game for every
    purpose (no further actions, GEN-04), but the carcass stays in play."""
    c = client
    t = await shadow_table(c, pain=12)
    await ok(c, t, "kosh", "shadow.plot_speed", {"ship": SHADOW, "speed": 30})
    await ok(c, t, "kirk", "clock.advance", {})  # → impulse 1
    # 260 to the Core, band 250+: rise always (1d6 3 ≤ 6), 1d6 4 + 1 = 5 → 17, capped at 16: DEATH.
    events = await impulse(c, t, [(FED, 260, None)], [3, 4])
    assert texts(events, "pain_death") == [
        "Shadow Cruiser dies of shock at pain 16 and is destroyed: it drops to speed 1 at most, its carcass"
        " drifts in its last direction, out of the game for every purpose but left in play to be recovered."
    ]
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth("watcher"))
    shadow = r.json()["state"]["ships"][SHADOW]
    assert shadow["destroyed"] is True
    track = shadow["parts"]["pain"]
    assert (track["level"], track["reaction"], track["dead"], track["speed"]) == (16, "DEATH", True, 1)
    # Out of the game: it fires no more, and it rolls no pain reduction at the next Energy Allocation.
    r = await send(c, t, "kosh", "damage.apply", {"target": HAWK, "source": SHADOW, "amount": 5})
    assert r.status_code == 422, r.text
    await to_turn(c, t, 2, "energy_allocation")
    r = await send(c, t, "kosh", "shadow.reduce_pain", {"ship": SHADOW}, [6])
    assert r.status_code == 422, r.text
    assert (await pain(c, t))["level"] == 16


# --- SH-02, GEN-04 ----------------------------------------------------------------------------------


async def test_SH_02_GEN_04_the_point_after_the_last_Excess_Damage_box_destroys_wherever_it_lands(
    client: httpx.AsyncClient,
) -> None:
    """SH-02: besides pain, a Shadow dies by "the normal destruction of the last Excess Damage box + 1"
    (seed 000): the last box gone, one more point. The library cruiser as it is (Core 40, 20 Excess
    Damage boxes). 114 through the fore arc: 24 armour, Fore's 30 structure, the Core's 40, all 20
    Excess boxes — Core 0/40, Excess 0/20, and not yet destroyed. The next point destroys it
    wherever it lands: here on the aft arc's armour, the other 4 beyond destruction (GEN-04)."""
    c = client
    t = await set_table(
        c,
        system="sfb",
        players=("kirk", "kosh"),
        ships={"shadow": (ship_def(SHADOW), "kosh"), "fed": (ship_def(FED), "kirk")},
    )
    await ok(c, t, "kirk", "clock.advance", {})  # Energy Allocation → impulse 1
    hit = {"target": SHADOW, "source": FED}
    events = await ok(c, t, "kirk", "damage.apply", {**hit, "amount": 114, "direction": "fore"})
    assert [e["text"] for e in events] == [
        "Federation Heavy Cruiser hits Shadow Cruiser for 114 (fore): 24 to armour, 90 to Fore → Core.",
        "Shadow Cruiser's Fore is destroyed.",
        "Shadow Cruiser's Core is destroyed.",
    ]
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth("kosh"))
    ship = r.json()["state"]["ships"][SHADOW]
    core = next(s for s in ship["parts"]["sheet"]["sections"] if s["name"] == "Core")
    assert (core["structure"], ship["parts"]["sheet"]["excess_damage"], ship["destroyed"]) == (0, 0, False)
    events = await ok(c, t, "kirk", "damage.apply", {**hit, "amount": 5, "direction": "aft"})
    assert [e["text"] for e in events] == [
        "Federation Heavy Cruiser hits Shadow Cruiser for 5 (aft): 1 to armour, 4 beyond destruction.",
        "Shadow Cruiser is destroyed (the last Excess Damage box is gone and one more point landed).",
    ]
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth("kosh"))
    ship = r.json()["state"]["ships"][SHADOW]
    aft = next(s for s in ship["parts"]["sheet"]["sections"] if s["name"] == "Aft")
    assert (ship["destroyed"], aft["armour"]) == (True, 17)
    r = await act(c, t, "kosh", "shadow.plot_speed", {"ship": SHADOW, "speed": 10})
    assert r.status_code == 422
    assert r.json()["detail"]["reason"] == "Shadow Cruiser is destroyed and takes no further actions (GEN-04)"
