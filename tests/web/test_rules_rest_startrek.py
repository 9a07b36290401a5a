"""Star Trek in Babylon 5 Wars through the REST door: ST-15, a projection that collapsed at the
end of the last turn keeps nothing and regenerates from 0 (seed 001, "shields that have already
collapsed at the end of the last turn do not retain their remaining absorption ability; they must
start from scratch regenerating as if they had fallen completely"). SQLite only."""

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
