"""Input errors read in the user's words and name the field, at every door — the rules'
parse (REST actions, page forms), FastAPI's own request checks (REST bodies and queries)."""

from __future__ import annotations

import html

import httpx

from tests.helpers import act, set_table, simple_ship
from tests.web.test_pages import csrf, join


async def detail(r: httpx.Response) -> tuple[int, str | None, str]:
    body = r.json()["detail"]
    return r.status_code, body["field"], body["reason"]


async def test_rest_action_errors_name_the_field_in_words(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    hit = {"target": "crow", "source": "hawk"}
    assert await detail(await act(client, table, "ann", "damage.apply", {**hit, "amount": 0})) == (
        422,
        "amount",
        "amount: must be at least 1 (you sent 0)",
    )
    assert await detail(await act(client, table, "ann", "damage.apply", {**hit, "amount": "lots"})) == (
        422,
        "amount",
        "amount: must be a whole number (you sent “lots”)",
    )
    assert await detail(await act(client, table, "ann", "damage.apply", hit)) == (
        422,
        "amount",
        "amount: enter the amount",
    )
    assert await detail(await act(client, table, "ref", "ship.add", {"definition": {}})) == (
        422,
        "definition.name",
        "definition.name: a ship needs a name (and 1 more problem)",
    )
    no_system = {"name": "Nameless"}
    assert await detail(await act(client, table, "ref", "ship.add", {"definition": no_system})) == (
        422,
        "definition.system",
        "definition.system: a ship needs the game system its data is written for (e.g. b5wars, sfb, traveller)",
    )
    assert await detail(await act(client, table, "ref", "battle.undo", {"reason": "x"})) == (
        422,
        "reason",
        "reason: needs at least 3 characters (you sent “x”)",
    )


async def test_rest_request_errors_name_the_field_in_words(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/v1/battles", json={"system": "b5wars"})
    assert await detail(r) == (422, "name", "name: is required")
    table = await set_table(client)
    r = await client.get(f"/api/v1/battles/{table.battle_id}/events?since=-1", headers=table.auth("ref"))
    assert await detail(r) == (422, "since", "since: must be at least 0 (you sent -1)")


async def test_page_errors_name_the_field_in_words(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    page = await join(client, table.tokens["ann"])
    form = {
        "csrf_token": csrf(page.text),
        "action_type": "damage.apply",
        "action_id": "z1",
        "p.target": "crow",
        "p.source": "hawk",
        "p.amount": "0",
    }
    r = await client.post(f"/battles/{table.battle_id}/actions", data=form, headers={"HX-Request": "true"})
    assert r.status_code == 422
    assert html.unescape(r.text).strip() == (
        '<p class="flash flash-error" role="alert" data-field="amount">amount: must be at least 1 (you sent 0)</p>'
    )
    ref = await join(client, table.tokens["ref"])
    r = await client.post(
        f"/battles/{table.battle_id}/ships",
        data={"csrf_token": csrf(ref.text), "definition_json": "{}"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and "definition.name: a ship needs a name" in html.unescape(r.text)
