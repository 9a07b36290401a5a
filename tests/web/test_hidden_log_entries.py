"""A log entry a viewer may read nothing of keeps its place — "a hidden action" under its
number, saying neither who nor what — so nobody's log numbering has a gap (page and REST)."""

from __future__ import annotations

import re

import httpx

from tests.helpers import act, session_cookie, set_table, ship_def


async def page(c: httpx.AsyncClient, token: str, battle_id: str) -> str:
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as browser:
        browser.cookies.set("starboard_session", await session_cookie(c, token))
        return (await browser.get(f"/battles/{battle_id}")).text


async def test_a_referee_only_entry_shows_as_a_hidden_action_in_its_place(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, players=("ann", "bob"), ships={"wb": (ship_def("romulan-warbird"), "ann")}
    )
    ship = table.ships["wb"]
    secret = await act(client, table, "ref", "startrek.set_signature", {"ship": ship, "signature": 37})
    assert secret.status_code == 200 and secret.json()["seq"] == 2
    assert (await act(client, table, "ref", "clock.advance", {})).status_code == 200  # 3
    log = (await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("bob"))).json()
    assert [e["seq"] for e in log["entries"]] == [1, 2, 3]
    assert log["entries"][1] == {
        "seq": 2,
        "actor": "",
        "action_type": "hidden",
        "clock": log["entries"][1]["clock"],
        "at": log["entries"][1]["at"],
        "events": [],
        "hidden": True,
    }
    bob = await page(client, table.tokens["bob"], table.battle_id)
    assert re.findall(r'<span class="log-seq">#(\d+)</span>', bob) == ["1", "2", "3"]
    entry = bob.split('id="log-2"')[1].split("</li>")[0]
    assert "a hidden action" in entry and "signature" not in entry and "Referee" not in entry
    ref = (await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ref"))).json()
    assert "hidden" not in ref["entries"][1]
    assert (
        ref["entries"][1]["events"][0]["text"] == "The referee sets Haakona's cloak signature to 37 (ST-23)."
    )
