"""Overrides are validated against the battle's game system (issue: a step the system lacks, an
unknown system or a part value its schema refuses answer 422 naming the field, and nothing
changes), over REST on SQLite and PostgreSQL."""

from __future__ import annotations

import httpx
import pytest

from tests.helpers import act, set_table, simple_ship


async def seq_of(client: httpx.AsyncClient, table, who: str = "ref") -> int:  # type: ignore[no-untyped-def]
    return (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))).json()["seq"]


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        (
            "clock.step",
            "warp_speed",
            "Babylon 5 Wars has no step 'warp_speed'; its steps are ship_power, movement, combat, adjust_systems",
        ),
        (
            "clock.step",
            "impulse",
            "Babylon 5 Wars has no step 'impulse'; its steps are ship_power, movement, combat, adjust_systems",
        ),
        ("clock.impulse", 5, "Ship Power has no numbered repeats"),
        ("clock.turn", 0, "turns are counted from 1"),
        ("system", "traveller", "a battle's game system cannot be changed; create a new battle"),
    ],
)
async def test_GEN_01_override_keeps_the_clock_on_the_systems_steps(
    client: httpx.AsyncClient, path: str, value: object, reason: str
) -> None:
    table = await set_table(client)
    before = await seq_of(client, table)
    r = await act(client, table, "ref", "override.set", {"path": path, "value": value, "reason": "try it"})
    assert r.status_code == 422
    assert r.json()["detail"] == {"error": "Invalid", "field": "value", "reason": reason}
    assert await seq_of(client, table) == before
    # The battle still plays: the clock advances and the state reads.
    assert (await act(client, table, "ref", "clock.advance", {})).status_code == 200
    assert await seq_of(client, table) == before + 1


async def test_GEN_01_override_to_a_real_step_is_allowed_and_impulses_stay_in_range(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(client, system="sfb")
    r = await act(
        client, table, "ref", "override.set", {"path": "clock.step", "value": "end_of_turn", "reason": "skip"}
    )
    assert r.status_code == 200
    r = await act(
        client, table, "ref", "override.set", {"path": "clock.step", "value": "impulse", "reason": "back"}
    )
    assert r.status_code == 422 and r.json()["detail"]["reason"] == "Impulse runs from 1 to 32"


async def test_GEN_03_override_part_value_refused_by_its_schema(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    assert (
        await act(client, table, "ref", "ship.add", {"definition": simple_ship("Hawk")})
    ).status_code == 200
    before = await seq_of(client, table)
    r = await act(
        client,
        table,
        "ref",
        "override.set",
        {"path": "ships.hawk.parts.sheet.sections.0.structure", "value": -3, "reason": "typo"},
    )
    assert r.status_code == 422 and r.json()["detail"]["field"] == "value"
    assert await seq_of(client, table) == before
