"""On the referee's page, without a browser: destructive steps are confirmed first (the
server refuses them without confirm=yes and asks on a page of its own), and the undo, redo and
rewind forms say what they would do."""

from __future__ import annotations

import html

import httpx

from tests.helpers import act, set_table, simple_ship
from tests.web.test_pages import csrf, join


async def seq_of(client: httpx.AsyncClient, table) -> int:  # type: ignore[no-untyped-def]
    return (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()["seq"]


async def test_removing_a_ship_ending_and_removing_a_seat_ask_first(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    page = await join(client, table.tokens["ref"])
    token = csrf(page.text)
    actions = f"/battles/{table.battle_id}/actions"
    remove = {"csrf_token": token, "action_type": "ship.remove", "action_id": "rm1", "p.ship": "hawk"}
    r = await client.post(actions, data=remove)
    assert r.status_code == 200 and "Remove Hawk from the battle?" in r.text
    assert 'name="confirm" value="yes"' in r.text and "Yes, remove Hawk" in r.text
    assert 'name="p.ship" value="hawk"' in r.text and 'href="/battles/' in r.text  # a way back
    assert await seq_of(client, table) == 1  # nothing removed yet
    r = await client.post(actions, data=remove, headers={"HX-Request": "true"})
    assert r.status_code == 422 and "Confirm on the page first" in r.text
    assert await seq_of(client, table) == 1
    r = await client.post(actions, data={**remove, "confirm": "yes"})
    assert r.status_code == 303 and await seq_of(client, table) == 2
    end = {"csrf_token": token, "action_type": "battle.end", "action_id": "end1"}
    r = await client.post(actions, data=end)
    assert r.status_code == 200 and "End the battle?" in r.text and await seq_of(client, table) == 2
    assert "undo included, and the dice seed is revealed." in r.text  # the server rolled: a seed
    seat = f"/battles/{table.battle_id}/participants/{table.ids['bob']}/remove"
    r = await client.post(seat, data={"csrf_token": token})
    assert r.status_code == 200 and "Remove bob from the battle?" in r.text and "Yes, remove bob" in r.text
    bob = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))
    assert bob.status_code == 200  # still seated
    r = await client.post(seat, data={"csrf_token": token, "confirm": "yes"})
    assert r.status_code == 303
    bob = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))
    assert bob.status_code == 403
    r = await client.post(actions, data={**end, "confirm": "yes"})
    assert r.status_code == 303 and await seq_of(client, table) == 3
    # REST (bots) does not ask.
    assert (await act(client, table, "ref", "battle.undo", {"reason": "after"})).status_code == 422


async def test_referee_sees_what_undo_and_redo_would_do_and_where_rewind_returns(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    hit = {"target": "crow", "source": "hawk", "amount": 5}
    assert (await act(client, table, "ann", "damage.apply", hit)).status_code == 200  # 3
    page = html.unescape((await join(client, table.tokens["ref"])).text)
    assert "Undo takes back the last action still in effect: " in page
    assert "#3 Hawk hits Crow for 5" in page and "Undo #3" in page and "redo-form" not in page
    assert '<option value="2">#2 Crow (Test frigate) joins the battle.</option>' in page
    assert '<option value="0">the start of the battle</option>' in page
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={"csrf_token": csrf(page), "action_type": "battle.undo", "action_id": "u1", "p.reason": "oops"},
    )
    assert r.status_code == 303
    page = html.unescape((await client.get(f"/battles/{table.battle_id}")).text)
    assert "Undo #2" in page and "#2 Crow (Test frigate) joins the battle." in page
    assert "Redo puts back <q>#3 Hawk hits Crow for 5" in page
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={"csrf_token": csrf(page), "action_type": "battle.redo", "action_id": "r1"},
    )
    assert r.status_code == 303
    page = html.unescape((await client.get(f"/battles/{table.battle_id}")).text)
    assert "⚠ REDO (Referee): action 3 (damage.apply) is restored" in page and "Undo #3" in page


async def test_ending_a_physical_dice_battle_promises_no_seed(client: httpx.AsyncClient) -> None:
    """The players rolled the dice: the end's confirmation does not say a seed will be revealed."""
    table = await set_table(client, dice_mode="physical")
    page = await join(client, table.tokens["ref"])
    end = {"csrf_token": csrf(page.text), "action_type": "battle.end", "action_id": "end1"}
    r = await client.post(f"/battles/{table.battle_id}/actions", data=end)
    assert r.status_code == 200 and "End the battle?" in r.text
    assert (
        "Nobody can act after the end, undo included." in r.text
        and "seed" not in r.text.split("End the battle?")[1]
    )
