"""Referee overrides name a path and log the old and new values. When the path holds something other
players may not see — a cloaked ship's position, a power budget — the values stay with the referee
and the ship's commander, whatever the path's depth: a whole ship, its parts, or every ship."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.helpers import Table, act, set_table, ship_def
from tests.security.util import browser, has

SECRET = "0917"
WARBIRD = "haakona"


async def _cloaked_warbird(client: httpx.AsyncClient) -> Table:
    table = await set_table(
        client,
        players=("kirk", "tomalak"),
        ships={"ex": (ship_def("excelsior"), "kirk"), "wb": (ship_def("romulan-warbird"), "tomalak")},
    )
    for _ in range(3):
        assert (await act(client, table, "ref", "clock.advance", {})).status_code == 200
    assert (await act(client, table, "tomalak", "startrek.cloak", {"ship": WARBIRD})).status_code == 200
    for _ in range(2):  # → turn 2 Movement
        assert (await act(client, table, "ref", "clock.advance", {})).status_code == 200
    moved = await act(client, table, "tomalak", "ship.move", {"ship": WARBIRD, "position": {"hex": SECRET}})
    assert moved.status_code == 200, moved.text
    return table


def _stored(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in ("commanded", "position_hidden")}


async def _everything_kirk_reads(client: httpx.AsyncClient, table: Table) -> str:
    texts = [
        (await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth(who))).text
        for who in ("kirk", "watcher")
    ]
    texts.append((await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("watcher"))).text)
    async with browser(client, table.tokens["kirk"]) as kirk:
        page = (await kirk.get(f"/battles/{table.battle_id}")).text
    assert not has(page, SECRET)
    return "\n".join(texts)


@pytest.mark.parametrize("path", ["ships.haakona", "ships.haakona.parts", "ships"])
async def test_override_of_a_whole_ship_keeps_its_hidden_values_hidden(
    client: httpx.AsyncClient, path: str
) -> None:
    table = await _cloaked_warbird(client)
    ref = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    ships = {sid: _stored(s) for sid, s in ref["state"]["ships"].items()}
    ships[WARBIRD]["crippled"] = True
    value: Any = {
        "ships": ships,
        "ships.haakona": ships[WARBIRD],
        "ships.haakona.parts": ships[WARBIRD]["parts"],
    }[path]
    r = await act(
        client, table, "ref", "override.set", {"path": path, "value": value, "reason": "fix the sheet"}
    )
    assert r.status_code == 200, r.text
    with_position = path != "ships.haakona.parts"
    assert has(r.text, SECRET) == with_position and '"output"' in r.text  # the referee reads it all
    tomalak = await client.get(
        f"/api/v1/battles/{table.battle_id}/events?since=8", headers=table.auth("tomalak")
    )
    # The commander reads the values of his own ship, but not when every ship was set at once.
    assert ('"output"' in tomalak.text) == (path != "ships")
    seen = await _everything_kirk_reads(client, table)
    assert not has(seen, SECRET)
    assert '"output"' not in seen  # nor the warbird's power budget
    assert "OVERRIDE (Referee): a value hidden from you was corrected." in seen


async def test_override_of_a_public_value_is_public(client: httpx.AsyncClient) -> None:
    table = await _cloaked_warbird(client)
    r = await act(
        client,
        table,
        "ref",
        "override.set",
        {"path": "ships.excelsior.crippled", "value": True, "reason": "table ruling"},
    )
    assert r.status_code == 200
    kirk = await client.get(
        f"/api/v1/battles/{table.battle_id}/events?since=8", headers=table.auth("watcher")
    )
    assert "ships.excelsior.crippled false→true — “table ruling”" in kirk.text


async def test_override_of_a_power_budget_is_hidden_from_other_players(client: httpx.AsyncClient) -> None:
    table = await _cloaked_warbird(client)
    r = await act(
        client,
        table,
        "ref",
        "override.set",
        {"path": "ships.excelsior.parts.power.output", "value": 77, "reason": "engine refit"},
    )
    assert r.status_code == 200
    tomalak = await client.get(
        f"/api/v1/battles/{table.battle_id}/events?since=8", headers=table.auth("tomalak")
    )
    kirk = await client.get(f"/api/v1/battles/{table.battle_id}/events?since=8", headers=table.auth("kirk"))
    assert tomalak.status_code == 200 and kirk.status_code == 200
    told = [e["text"] for entry in tomalak.json()["entries"] for e in entry["events"]]
    assert told[-1] == "⚠ OVERRIDE (Referee): a value hidden from you was corrected."
    assert not has(tomalak.text, "77") and "engine refit" not in tomalak.text
    assert "power.output" in kirk.text and has(kirk.text, "77")
