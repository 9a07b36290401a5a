"""Star Trek in Babylon 5 Wars through the REST door: ST-15, a projection that collapsed at the
end of the last turn keeps nothing and regenerates from 0 (seed 001, "shields that have already
collapsed at the end of the last turn do not retain their remaining absorption ability; they must
start from scratch regenerating as if they had fallen completely"); and ST-23, the detection
suggestion on the map's range. SQLite only."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.helpers import Table, act, set_table, ship_def


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


async def ok(c: httpx.AsyncClient, t: Table, who: str, kind: str, payload: dict[str, Any]) -> list[str]:
    r = await act(c, t, who, kind, payload)
    assert r.status_code == 200, r.text
    return [e["text"] for e in r.json()["events"]]


async def projections(c: httpx.AsyncClient, t: Table) -> dict[str, tuple[int, bool]]:
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth("kirk"))
    assert r.status_code == 200, r.text
    parts = r.json()["state"]["ships"]["excelsior"]["parts"]["shields"]
    return {p["name"]: (p["current"], p["collapsed"]) for p in parts["projections"]}


async def test_ST_15_collapsed_projection_keeps_nothing_and_regenerates_from_zero(
    client: httpx.AsyncClient,
) -> None:
    c = client
    t = await set_table(
        c,
        players=("kirk", "tomalak"),
        dice_mode="physical",
        ships={
            "excelsior": (ship_def("excelsior"), "kirk"),
            "warbird": (ship_def("romulan-warbird"), "tomalak"),
        },
    )
    await ok(c, t, "ref", "clock.advance", {})  # Ship Power → Movement
    await ok(c, t, "ref", "clock.advance", {})  # → Combat
    fire = {"target": "excelsior", "source": "haakona"}
    # 12 from port: the Port projection (rating 30) holds it, 30 → 18 (ST-06).
    await ok(c, t, "tomalak", "damage.apply", {**fire, "amount": 12, "direction": "port"})
    # 50 from fore fill the Fore projection (40) and the 10 left wreck the Port Deflector (3 boxes).
    texts = await ok(
        c,
        t,
        "tomalak",
        "damage.apply",
        {**fire, "amount": 50, "direction": "fore", "section": "Port", "system": "Port Deflector"},
    )
    assert texts[-1] == "Excelsior's Port Deflector is destroyed."
    assert await projections(c, t) == {
        "Fore": (0, False),
        "Starboard": (30, False),
        "Aft": (30, False),
        "Port": (18, False),
    }
    await ok(c, t, "ref", "clock.advance", {})  # → Adjust Ship Systems
    # End of turn 1: the Port projection has no working deflector in arc and collapses holding 18 (ST-12);
    # turn 2's Ship Power opens with it at 0, not 18 — and no deflector of its own to give it any.
    texts = await ok(c, t, "ref", "clock.advance", {})
    assert texts[0] == "Excelsior's Port shield collapses: no working deflector in arc (ST-12)."
    assert texts[2] == (
        "Excelsior's deflectors regenerate its shields: Fore Deflector +4 → Fore 4/40; Starboard Deflector +0"
        " → Starboard 30/30 (3 lost at the rating); Aft Deflector +0 → Aft 30/30 (3 lost at the rating) (ST-07)."
    )
    assert (await projections(c, t))["Port"] == (0, True)
    # It regenerates from scratch: the Aft Deflector extended 90° over it (value 3 − 1 = 2, ST-14) may buy
    # up to 2 × 2 = 4 there, and the Port reads 0 + 4 = 4 — the 18 it held are gone.
    await ok(
        c,
        t,
        "kirk",
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Aft Deflector", "projection": "Port"},
    )
    texts = await ok(
        c,
        t,
        "kirk",
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Aft Deflector", "points": 4, "projection": "Port"},
    )
    assert "Port shield 0/30 → 4/30" in texts[0]
    assert (await projections(c, t))["Port"] == (4, False)


async def log_texts(c: httpx.AsyncClient, t: Table, who: str) -> list[str]:
    """Every event sentence of the log as `who` may read it."""
    r = await c.get(f"/api/v1/battles/{t.battle_id}/events", headers=t.auth(who))
    assert r.status_code == 200, r.text
    return [e["text"] for entry in r.json()["entries"] for e in entry["events"]]


async def test_ST_23_the_suggestion_uses_the_maps_range_where_both_ships_stand_on_it(
    client: httpx.AsyncClient,
) -> None:
    """ST-23: a detection attempt records the EW, the range and the signature, and the referee gets
    the suggestion "detected when EW > range + signature". Excelsior (0101) saw the Haakona cloak at
    0105, 4 hexes off; cloaked, it slipped to 0111, 10 hexes off. Kirk types range 4: the server,
    which knows both hexes, suggests on 10 and says so (EW 9 vs 10 + 3: not detected, where 4 would
    have said detected); Kirk's own line keeps his 4 and never shows the 10. The Thomas Paine has no
    hex, so its attempt's suggestion uses the range typed (EW 9 vs 4 + 3: detected)."""
    c = client
    t = await set_table(
        c,
        players=("kirk", "tomalak"),
        ships={
            "excelsior": (ship_def("excelsior"), "kirk"),
            "orleans": (ship_def("new-orleans"), "kirk"),
            "warbird": (ship_def("romulan-warbird"), "tomalak"),
        },
    )
    await ok(c, t, "ref", "clock.advance", {})  # Ship Power → Movement
    await ok(c, t, "kirk", "ship.move", {"ship": "excelsior", "position": {"hex": "0101", "facing": 1}})
    await ok(c, t, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": "0105", "facing": 1}})
    await ok(c, t, "ref", "clock.advance", {})  # → Combat
    await ok(c, t, "ref", "clock.advance", {})  # → Adjust Ship Systems
    await ok(c, t, "tomalak", "startrek.cloak", {"ship": "haakona"})
    await ok(c, t, "ref", "clock.advance", {})  # → turn 2 Ship Power
    await ok(c, t, "ref", "clock.advance", {})  # → Movement
    await ok(c, t, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": "0111", "facing": 1}})
    await ok(c, t, "ref", "clock.advance", {})  # → Combat
    await ok(c, t, "ref", "startrek.set_signature", {"ship": "haakona", "signature": 3})
    detect = {"target": "haakona", "ew": 9, "range": 4}
    assert await ok(c, t, "kirk", "startrek.detect_cloak", {**detect, "detector": "excelsior"}) == [
        "Excelsior puts 9 EW on detecting Haakona at range 4. The referee rules (ST-23)."
    ]
    assert await ok(c, t, "kirk", "startrek.detect_cloak", {**detect, "detector": "thomas-paine"}) == [
        "Thomas Paine puts 9 EW on detecting Haakona at range 4. The referee rules (ST-23)."
    ]
    referee = await log_texts(c, t, "ref")
    assert referee[-4:] == [
        "Excelsior puts 9 EW on detecting Haakona at range 4. The referee rules (ST-23).",
        "For the referee — attempt 0 by Excelsior: suggested: EW 9 vs range 10 from the map (the detector"
        " gave 4) + signature 3 → not detected (ST-23).",
        "Thomas Paine puts 9 EW on detecting Haakona at range 4. The referee rules (ST-23).",
        "For the referee — attempt 1 by Thomas Paine: suggested: EW 9 vs range 4 as entered (the map does"
        " not place both ships) + signature 3 → detected (ST-23).",
    ]
    assert not [line for line in await log_texts(c, t, "kirk") if "range 10" in line or "0111" in line]
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth("ref"))
    attempts = r.json()["state"]["ships"]["haakona"]["parts"]["cloak"]["attempts"]
    assert [(a["range"], a["map_range"], a["suggested"]) for a in attempts] == [
        (4, 10, False),
        (4, None, True),
    ]
