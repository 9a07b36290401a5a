"""Pages without JavaScript: forms POST, redirect and GET; CSRF; escaping; page messages."""

from __future__ import annotations

import re

import httpx

from tests.helpers import set_table, simple_ship


def csrf(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


async def join(client: httpx.AsyncClient, token: str) -> httpx.Response:
    """Take a seat in a fresh browser (a seated browser is asked before it switches seats)."""
    client.cookies.clear()
    return await client.get(f"/join/{token}", follow_redirects=True)


async def test_create_battle_from_home_page_and_show_links_once(client: httpx.AsyncClient) -> None:
    home = await client.get("/")
    assert home.status_code == 200 and "Create a battle" in home.text
    r = await client.post(
        "/battles",
        data={
            "csrf_token": csrf(home.text),
            "name": "Night action",
            "system": "sfb",
            "dice_mode": "seeded",
            "players": "Ann\nBob",
            "ships": ["shadow-cruiser", "federation-heavy-cruiser"],
        },
        follow_redirects=True,
    )
    # The links page (tests/web/test_wizard.py): the players', then the referee's own.
    assert r.status_code == 200 and "Night action is ready" in r.text
    assert r.text.count('value="http://127.0.0.1:8000/join#') == 3
    dashboard = await client.get(r.text.split('id="links-dismiss"')[0].rsplit('href="', 1)[1].split('"')[0])
    assert "Referee dashboard" in dashboard.text
    assert "Shadow Cruiser" in dashboard.text and "Federation Heavy Cruiser" in dashboard.text
    assert "/join#" not in dashboard.text  # shown once, on the links page only


async def test_form_post_redirect_get_and_errors_as_page_messages(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    page = await join(client, table.tokens["ann"])
    assert page.status_code == 200 and "My ships" in page.text
    token = csrf(page.text)
    base = {"csrf_token": token, "action_type": "damage.apply", "action_id": "a1", "seen_seq": "2"}
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={**base, "p.target": "crow", "p.source": "hawk", "p.amount": "6", "p.direction": "fore"},
    )
    assert r.status_code == 303
    page = await client.get(r.headers["location"])
    assert "Hawk hits Crow for 6 (fore): 4 to armour, 2 to Fore." in page.text
    assert 'data-structure="18"' in page.text
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={
            **base,
            "action_id": "a2",
            "seen_seq": "3",
            "p.target": "crow",
            "p.source": "hawk",
            "p.amount": "zero",
        },
        follow_redirects=True,
    )
    assert (
        "amount: must be a whole number (you sent “zero”)" in r.text and 'class="flash flash-error"' in r.text
    )
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={
            **base,
            "action_id": "a3",
            "seen_seq": "1",
            "p.target": "crow",
            "p.source": "hawk",
            "p.amount": "2",
        },
        follow_redirects=True,
    )
    assert "changed while you acted" in r.text and "look again" in r.text  # in the page's words, not seqs
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={
            **base,
            "action_id": "a4",
            "seen_seq": "3",
            "p.target": "crow",
            "p.source": "hawk",
            "p.amount": "2",
        },
        headers={"HX-Request": "true"},
    )
    assert (
        r.status_code == 200
        and r.text.strip().startswith('<p class="flash flash-info"')
        and "Hawk hits Crow for 2" in r.text
    )


async def test_csrf_is_required(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    await join(client, table.tokens["ann"])
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={"csrf_token": "forged", "action_type": "clock.advance", "action_id": "x"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 403 and "expired or came from another site" in r.text
    api = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))
    assert api.json()["seq"] == 1


async def test_names_are_escaped_everywhere(client: httpx.AsyncClient) -> None:
    evil = "<script>alert(1)</script>"
    table = await set_table(client, ships={"evil": (simple_ship(evil), "ann")})
    page = await join(client, table.tokens["bob"])
    assert evil not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


async def test_session_cookie_is_httponly_and_samesite(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    r = await client.get(f"/join/{table.tokens['ann']}", follow_redirects=False)
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie


async def test_referee_adds_ship_from_json_with_clear_errors(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    page = await join(client, table.tokens["ref"])
    token = csrf(page.text)
    r = await client.post(
        f"/battles/{table.battle_id}/ships",
        data={"csrf_token": token, "definition_json": "{not json"},
        follow_redirects=True,
    )
    assert "not valid JSON" in r.text
    r = await client.post(
        f"/battles/{table.battle_id}/ships",
        data={
            "csrf_token": token,
            "definition_json": '{"name": "X", "system": "b5wars", "parts": {"sheet": {"sections": [{"name": "P", "structure_max": -1}]}}}',
        },
        follow_redirects=True,
    )
    assert "definition.parts.sheet.sections.0.structure_max: must be at least 1 (you sent -1)" in r.text
    r = await client.post(
        f"/battles/{table.battle_id}/ships",
        data={"csrf_token": token, "library": "federation-heavy-cruiser", "owner": table.ids["ann"]},
        follow_redirects=True,
    )
    assert "Federation Heavy Cruiser (Federation Heavy Cruiser (sample data)) joins the battle." in r.text
    player = await join(client, table.tokens["ann"])
    assert "My ships" in player.text


async def test_page_door_refuses_acting_for_another_players_ship(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    page = await join(client, table.tokens["bob"])
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={
            "csrf_token": csrf(page.text),
            "action_type": "damage.apply",
            "action_id": "x1",
            "p.target": "hawk",
            "p.source": "hawk",
            "p.amount": "5",
        },
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 403 and "enter damage for a ship you command" in r.text
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))).json()
    assert (
        state["seq"] == 2
        and state["state"]["ships"]["hawk"]["parts"]["sheet"]["sections"][0]["structure"] == 40
    )


async def test_spectator_view_has_no_controls(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    page = await join(client, table.tokens["watcher"])
    assert page.status_code == 200 and "You are watching." in page.text
    assert "damage-form" not in page.text and "advance-clock" not in page.text and "Hawk" in page.text


def test_form_fields_build_nested_typed_payloads() -> None:
    from starlette.datastructures import FormData

    from app.web.pages.forms import payload_from_form

    form = FormData(
        [
            ("p.ship", "hawk"),
            ("p.position.hex", "0405"),
            ("p.position.facing:int", "2"),
            ("p.position.speed:int", ""),
            ("p.effects[]", "flash"),
            ("p.owner:json", "null"),
            ("csrf_token", "x"),
        ]
    )
    assert payload_from_form(form) == {
        "ship": "hawk",
        "position": {"hex": "0405", "facing": 2},
        "effects": ["flash"],
        "owner": None,
    }


async def test_record_a_move_with_the_page_form(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    page = await join(client, table.tokens["ann"])
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={
            "csrf_token": csrf(page.text),
            "action_type": "ship.move",
            "action_id": "m1",
            "p.ship": "hawk",
            "p.position.hex": "0405",
            "p.position.facing:int": "3",
            "p.position.speed:int": "8",
        },
        follow_redirects=True,
    )
    assert "Hawk moves: hex 0405, facing 3, speed 8." in r.text
    assert "Position: hex 0405, facing 3, speed 8" in r.text


async def test_replay_shows_the_battle_as_it_stood(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    from tests.helpers import act

    await act(
        client,
        table,
        "ann",
        "damage.apply",
        {"target": "crow", "source": "hawk", "amount": 10, "direction": "fore"},
    )
    await act(
        client,
        table,
        "ann",
        "damage.apply",
        {"target": "crow", "source": "hawk", "amount": 5, "direction": "fore"},
    )
    await join(client, table.tokens["bob"])
    live = await client.get(f"/battles/{table.battle_id}")
    assert 'id="sheet-crow-fore"' in live.text and 'data-structure="9"' in live.text
    at2 = await client.get(f"/battles/{table.battle_id}/replay", params={"seq": 2})
    assert "After action #2 of 4" in at2.text and 'data-structure="20"' in at2.text
    assert "Hawk hits Crow" not in at2.text
    at3 = await client.get(f"/battles/{table.battle_id}/replay", params={"seq": 3})
    assert 'data-structure="14"' in at3.text and "Hawk hits Crow for 10 (fore)" in at3.text
    assert "Hawk hits Crow for 5" not in at3.text
    beyond = await client.get(f"/battles/{table.battle_id}/replay", params={"seq": 99})
    assert "After action #4 of 4" in beyond.text
