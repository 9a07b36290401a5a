"""Carry-over through the service for the hex rulesets: the Shadow's pain starts the next battle
at zero unless the campaign's set-up carries it (SH-01); the generic sheet keeps its boxes
(GEN-03); a ship destroyed in battle (GEN-04) is lost to its fleet and credited as its killer's."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.campaigns.test_campaign_rest import API, bearer, ok
from tests.helpers import eventually, ship_def, simple_ship


async def _campaign(
    c: httpx.AsyncClient,
    system: str,
    sides: list[str],
    ships: list[tuple[str, dict[str, Any]]],
    **options: bool,
) -> tuple[str, str]:
    made = await ok(
        await c.post(
            f"{API}/campaigns", json={"name": "Rim", "system": system, "sides": sides, "options": options}
        ),
        201,
    )
    cid, ref = made["campaign_id"], made["referee"]["token"]
    for side, definition in ships:
        await ok(
            await c.post(
                f"{API}/campaigns/{cid}/ships",
                json={"side": side, "definition": definition},
                headers=bearer(ref),
            ),
            201,
        )
    return cid, ref


async def _battle(
    c: httpx.AsyncClient,
    cid: str,
    ref: str,
    ships: list[str],
    plays: list[tuple[str, dict[str, Any]]],
    end: bool = True,
) -> tuple[str, str]:
    started = await ok(
        await c.post(
            f"{API}/campaigns/{cid}/battles",
            json={"name": f"B{uuid.uuid4().hex[:4]}", "ships": ships},
            headers=bearer(ref),
        ),
        201,
    )
    battle, token = started["battle_id"], started["seats"][0]["token"]
    for type_, payload in plays + ([("battle.end", {"reason": "over"})] if end else []):
        body = {"type": type_, "payload": payload, "action_id": uuid.uuid4().hex}
        await ok(await c.post(f"{API}/battles/{battle}/actions", json=body, headers=bearer(token)))
    if end:

        async def home() -> bool:
            view = await ok(await c.get(f"{API}/campaigns/{cid}", headers=bearer(ref)))
            return any(b["id"] == battle and b["status"] == "recorded" for b in view["battles"])

        await eventually(home, what="the battle brought home")
    return battle, token


@pytest.mark.parametrize(("carries", "starts_at"), [(False, 0), (True, 7)])
async def test_SH_01_pain_starts_the_next_battle_at_zero_unless_the_setup_carries_it(
    client: httpx.AsyncClient, carries: bool, starts_at: int
) -> None:
    c = client
    cid, ref = await _campaign(
        c,
        "sfb",
        ["Shadows", "Federation"],
        [("Shadows", ship_def("shadow-cruiser")), ("Federation", ship_def("federation-heavy-cruiser"))],
        pain_carries=carries,
    )
    override = {"path": "ships.shadow-cruiser.parts.pain.level", "value": 7, "reason": "scenario"}
    await _battle(c, cid, ref, ["s1", "s2"], [("override.set", override)])
    view = await ok(await c.get(f"{API}/campaigns/{cid}", headers=bearer(ref)))
    assert view["ships"][0]["parts"]["pain"]["level"] == starts_at
    battle, token = await _battle(c, cid, ref, ["s1", "s2"], [], end=False)
    state = await ok(await c.get(f"{API}/battles/{battle}", headers=bearer(token)))
    assert state["state"]["ships"]["shadow-cruiser"]["parts"]["pain"]["level"] == starts_at


async def test_GEN_03_GEN_04_the_sheet_keeps_its_boxes_and_a_destroyed_ship_is_lost(
    client: httpx.AsyncClient,
) -> None:
    c = client
    cid, ref = await _campaign(
        c,
        "b5wars",
        ["Blue", "Red"],
        [("Blue", simple_ship("Hawk")), ("Red", simple_ship("Crow")), ("Red", simple_ship("Rook"))],
    )
    battle, _ = await _battle(
        c,
        cid,
        ref,
        ["s1", "s2", "s3"],
        [
            ("damage.apply", {"target": "rook", "source": "hawk", "amount": 10}),
            ("damage.apply", {"target": "crow", "source": "hawk", "amount": 500}),
        ],
    )
    view = await ok(await c.get(f"{API}/campaigns/{cid}", headers=bearer(ref)))
    hawk, crow, rook = view["ships"]
    assert crow["status"] == "destroyed" and crow["history"][0]["destroyed"] is True
    assert hawk["history"][0]["kills"] == ["Crow"] and hawk["totals"]["kills"] == 1
    assert rook["history"][0]["taken"] == 10 and rook["status"] == "ready"
    left = sum(
        (s["armour"] or 0) + s["structure"] + sum(x["boxes"] - x["damage"] for x in s["systems"])
        for s in rook["parts"]["sheet"]["sections"]
    )
    whole = sum(
        s["armour_max"] + s["structure_max"] + sum(x["boxes"] for x in s["systems"])
        for s in rook["parts"]["sheet"]["sections"]
    )
    assert whole - left == 10  # the ten boxes the battle took are still gone
    assert hawk["history"][0]["dealt"] == 10 + crow["history"][0]["taken"]
    # The result comes home once: asking again writes nothing.
    again = await c.post(f"{API}/campaigns/{cid}/battles/{battle}/record", headers=bearer(ref))
    assert again.status_code == 200 and again.json() == {"seq": None}
    log = await ok(await c.get(f"{API}/campaigns/{cid}/log", headers=bearer(ref)))
    assert [e["kind"] for e in log].count("battle_recorded") == 1
