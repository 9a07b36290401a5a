"""What the doors answer to the one who acted: never an event the actor may not read.

The pain reminder at the start of Ship Power is an owner-only event for the Shadow's commander
(SH-14). When another player's clock advance causes it, his answer — page message, htmx fragment,
REST body or websocket frame — must not carry it."""

from __future__ import annotations

import uuid

import httpx

from tests.helpers import Table, act, set_table, ship_def
from tests.security.util import HX, browser, page_form

REMINDER = "may roll pain reduction"


async def _pained_shadow(client: httpx.AsyncClient) -> Table:
    table = await set_table(
        client,
        players=("kirk", "kosh"),
        ships={"ex": (ship_def("excelsior"), "kirk"), "sh": (ship_def("shadow-cruiser"), "kosh")},
    )
    r = await act(
        client,
        table,
        "ref",
        "override.set",
        {"path": "ships.shadow-cruiser.parts.pain.level", "value": 5, "reason": "hit earlier"},
    )
    assert r.status_code == 200, r.text
    for _ in range(3):  # → Adjust Ship Systems; the next advance enters Ship Power
        assert (await act(client, table, "ref", "clock.advance", {})).status_code == 200
    return table


async def _reminder_was_made(client: httpx.AsyncClient, table: Table) -> None:
    """The reminder exists (the referee reads it), so its absence elsewhere means something."""
    log = (await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ref"))).json()
    texts = [e["text"] for e in log["entries"][-1]["events"]]
    assert any(REMINDER in t for t in texts), texts


async def test_htmx_answer_to_a_form_hides_other_players_owner_events(client: httpx.AsyncClient) -> None:
    table = await _pained_shadow(client)
    async with browser(client, table.tokens["kirk"]) as kirk:
        token = await page_form(kirk, table.battle_id)
        r = await kirk.post(
            f"/battles/{table.battle_id}/actions",
            data={"csrf_token": token, "action_type": "clock.advance", "action_id": uuid.uuid4().hex},
            headers=HX,
        )
    assert r.status_code == 200, r.text
    assert "Ship Power begins" in r.text
    assert REMINDER not in r.text
    await _reminder_was_made(client, table)


async def test_plain_form_message_hides_other_players_owner_events(client: httpx.AsyncClient) -> None:
    table = await _pained_shadow(client)
    async with browser(client, table.tokens["kirk"]) as kirk:
        token = await page_form(kirk, table.battle_id)
        r = await kirk.post(
            f"/battles/{table.battle_id}/actions",
            data={"csrf_token": token, "action_type": "clock.advance", "action_id": "adv-1"},
        )
        assert r.status_code == 303
        page = await kirk.get(r.headers["location"])
        # A repeat of the same action id answers "already applied" and nothing more.
        again = await kirk.post(
            f"/battles/{table.battle_id}/actions",
            data={"csrf_token": token, "action_type": "clock.advance", "action_id": "adv-1"},
            headers=HX,
        )
    assert "Ship Power begins" in page.text
    assert REMINDER not in page.text
    assert again.status_code == 200 and "Already applied." in again.text and REMINDER not in again.text
    await _reminder_was_made(client, table)


async def test_rest_answer_hides_other_players_owner_events_but_the_owner_reads_his(
    client: httpx.AsyncClient,
) -> None:
    table = await _pained_shadow(client)
    r = await act(client, table, "kirk", "clock.advance", {}, action_id="kirk-adv")
    assert r.status_code == 200, r.text
    assert [e["kind"] for e in r.json()["events"]] == ["clock", "shield_regeneration"]
    assert REMINDER not in r.text
    # The duplicate answer is filtered the same way.
    again = await act(client, table, "kirk", "clock.advance", {}, action_id="kirk-adv")
    assert again.json()["duplicate"] is True and REMINDER not in again.text
    kosh = await client.get(f"/api/v1/battles/{table.battle_id}/events?since=5", headers=table.auth("kosh"))
    assert REMINDER in kosh.text
