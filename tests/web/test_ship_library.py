"""The ship library people can grow (docs/ship-library.md), on SQLite and PostgreSQL: the
ship JSON Schema is what ship.add validates; a referee saves a definition from JSON or a ship from
the battle (as it is now, damage kept, or as built), lists, exports, saves an export again and gets
the same definition, deletes; saved ships are offered where ships are added. Bad input is 422 naming
the field; only referees write, and only the saving battle's referees delete."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import datetime, timedelta
from typing import Any

import httpx
import jsonschema_rs
import pytest

from app.services.library.samples import library as samples
from tests.helpers import Table, act, set_table, ship_def, simple_ship
from tests.web.test_pages import csrf, join

SHIPS = "/api/v1/ships"


def unique(name: str) -> str:
    """A ship name no other test has saved (the library is one table for the whole test session)."""
    return f"{name} {uuid.uuid4().hex[:6]}"


async def save_json(c: httpx.AsyncClient, table: Table, definition: Any, who: str = "ref") -> httpx.Response:
    return await c.post(SHIPS, json={"definition": definition}, headers=table.auth(who))


def slugs(r: httpx.Response) -> dict[str, dict[str, Any]]:
    assert r.status_code == 200, r.text
    return {s["slug"]: s for s in r.json()["ships"]}


def refused(r: httpx.Response, status: int, field: str | None) -> str:
    """The error's reason, after checking its status and the field it names."""
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert detail["field"] == field, detail
    assert detail["reason"], detail
    return detail["reason"]


async def test_the_schema_is_the_definition_ship_add_validates(client: httpx.AsyncClient) -> None:
    every = (await client.get(f"{SHIPS}/schema")).json()
    assert every["properties"]["system"]["enum"] == ["b5wars", "sfb", "traveller"]
    assert every["required"] == ["name", "system"]
    assert {"sheet", "pain", "shields", "hg_ship"} <= set(every["properties"]["parts"]["properties"])
    b5 = (await client.get(f"{SHIPS}/schema", params={"system": "b5wars"})).json()
    assert b5["properties"]["system"]["enum"] == ["b5wars", "sfb"]  # B5 Wars battles take SFB Shadows
    for key in ("sfb", "b5wars", "traveller"):
        schema = (await client.get(f"{SHIPS}/schema", params={"system": key})).json()
        check = jsonschema_rs.validator_for(schema)
        for slug, ship in samples().items():
            fits = ship["system"] in schema["properties"]["system"]["enum"]
            assert check.is_valid(ship) is fits, (key, slug)
    check = jsonschema_rs.validator_for(every)
    assert not check.is_valid({"name": "X", "system": "b5wars", "parts": {"nope": {}}})  # unknown part
    assert not check.is_valid(
        {"name": "X", "system": "b5wars", "parts": {"sheet": {"sections": []}}}
    )  # a sheet has a section
    refused(await client.get(f"{SHIPS}/schema", params={"system": "chess"}), 422, "system")


async def test_save_list_export_round_trip_and_delete(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    name = unique("Hawk")
    r = await save_json(client, table, simple_ship(name))
    assert r.status_code == 201, r.text
    saved = r.json()
    slug = saved["slug"]
    assert slug.startswith("hawk-") and saved["name"] == name and saved["source"] == "json"
    assert saved["saved_by"] == "Referee" and not saved["sample"] and not saved["held"]

    listed = slugs(await client.get(SHIPS, params={"system": "b5wars"}))
    assert listed[slug]["sample"] is False and listed[slug]["saved_at"]
    # RFC 3339, with its offset, on SQLite too (which hands datetimes back without their zone)
    assert datetime.fromisoformat(listed[slug]["saved_at"]).utcoffset() == timedelta(0)
    assert listed["excelsior"]["sample"] is True and listed["shadow-cruiser"]["sample"] is True
    assert slug not in slugs(
        await client.get(SHIPS, params={"system": "sfb"})
    )  # an sfb battle takes no b5 ship
    assert slug in slugs(await client.get(SHIPS))
    refused(await client.get(SHIPS, params={"system": "chess"}), 422, "system")

    exported = await client.get(f"{SHIPS}/{slug}")
    assert (
        exported.status_code == 200 and f'filename="{slug}.json"' in exported.headers["content-disposition"]
    )
    definition = exported.json()
    fore = definition["parts"]["sheet"]["sections"][1]
    assert (fore["armour"], fore["structure"]) == (4, 20)  # stored as the rules keep it, defaults filled
    assert definition["name"] == name and definition["system"] == "b5wars"

    again = await save_json(client, table, definition)
    assert again.status_code == 201, again.text
    copy = again.json()["slug"]
    assert copy != slug
    assert (await client.get(f"{SHIPS}/{copy}")).json() == definition  # export → save → identical

    # A sample exports as its file; the samples are read-only.
    assert (await client.get(f"{SHIPS}/excelsior")).json() == samples()["excelsior"]
    refused(await client.delete(f"{SHIPS}/excelsior", headers=table.auth("ref")), 403, "slug")

    # Delete: not without a token, not a player, not another battle's referee; then its own referee.
    assert (await client.delete(f"{SHIPS}/{copy}")).status_code == 401
    assert (await client.delete(f"{SHIPS}/{copy}", headers=table.auth("ann"))).status_code == 403
    other = await set_table(client, players=())
    refused(await client.delete(f"{SHIPS}/{copy}", headers=other.auth("ref")), 403, "slug")
    deleted = await client.delete(f"{SHIPS}/{copy}", headers=table.auth("ref"))
    assert deleted.status_code == 204
    refused(await client.get(f"{SHIPS}/{copy}"), 404, "slug")
    refused(await client.delete(f"{SHIPS}/{copy}", headers=table.auth("ref")), 404, "slug")
    assert copy not in slugs(await client.get(SHIPS)) and slug in slugs(await client.get(SHIPS))


async def test_a_damaged_ship_saved_from_the_battle_keeps_its_damage(client: httpx.AsyncClient) -> None:
    """GEN-03: damage entered at the table is in the ship saved as it is now, box for box; as built
    is its definition as added. A ship saved from a battle under way is held for the battle's
    referees until the battle ends (its parts may hold what players may not see)."""
    crow = unique("Crow")
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship(crow, structure=30), "bob")}
    )
    hit = {"target": table.ships["crow"], "source": table.ships["hawk"], "amount": 9, "direction": "fore"}
    assert (await act(client, table, "ann", "damage.apply", hit)).status_code == 200
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    in_battle = state["state"]["ships"][table.ships["crow"]]["parts"]
    fore = in_battle["sheet"]["sections"][1]
    assert (fore["armour"], fore["structure"]) == (0, 15)  # 9 points: 4 of armour, then 5 of structure

    save = f"/api/v1/battles/{table.battle_id}/ships/{table.ships['crow']}/save"
    r = await client.post(
        save, json={"state": "now", "name": f"{crow} (battered)"}, headers=table.auth("ref")
    )
    assert r.status_code == 201, r.text
    now = r.json()
    assert now["source"] == "now" and now["held"] and now["from_ship"] == table.ships["crow"]
    exported = (await client.get(f"{SHIPS}/{now['slug']}", headers=table.auth("ref"))).json()
    assert exported["parts"] == in_battle and exported["name"] == f"{crow} (battered)"
    assert exported["parts"]["sheet"]["sections"][1]["armour"] == 0
    assert exported["parts"]["sheet"]["sections"][1]["structure"] == 15
    assert exported["parts"]["sheet"]["sections"][0]["structure"] == 30
    assert "owner" not in exported and "position" not in exported

    built = await client.post(save, json={"state": "built"}, headers=table.auth("ref"))
    assert built.status_code == 201 and built.json()["held"] and built.json()["source"] == "built"
    as_built = (await client.get(f"{SHIPS}/{built.json()['slug']}", headers=table.auth("ref"))).json()
    assert as_built["parts"]["sheet"]["sections"][1]["structure"] == 20  # undamaged, as it was added
    assert as_built["parts"]["sheet"]["sections"][0]["structure"] == 30

    # Held: nobody but this battle's referees sees it until the battle ends.
    refused(await client.get(f"{SHIPS}/{now['slug']}"), 404, "slug")
    refused(await client.get(f"{SHIPS}/{built.json()['slug']}"), 404, "slug")
    refused(await client.get(f"{SHIPS}/{now['slug']}", headers=table.auth("bob")), 404, "slug")
    assert now["slug"] not in slugs(await client.get(SHIPS, headers=table.auth("ann")))
    assert slugs(await client.get(SHIPS, headers=table.auth("ref")))[now["slug"]]["held"] is True
    assert (await act(client, table, "ref", "battle.end", {})).status_code == 200
    assert (await client.get(f"{SHIPS}/{now['slug']}")).json() == exported
    assert (await client.get(f"{SHIPS}/{built.json()['slug']}")).json() == as_built
    assert slugs(await client.get(SHIPS))[now["slug"]]["held"] is False


async def test_saving_from_a_battle_takes_its_referee(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship(unique("Hawk")), "ann")})
    save = f"/api/v1/battles/{table.battle_id}/ships/{table.ships['hawk']}/save"
    assert (await client.post(save, json={})).status_code == 401
    assert (await client.post(save, json={}, headers=table.auth("ann"))).status_code == 403  # a player
    assert (await client.post(save, json={}, headers=table.auth("watcher"))).status_code == 403
    other = await set_table(client, players=())
    assert (await client.post(save, json={}, headers=other.auth("ref"))).status_code == 403  # not its battle
    assert (await save_json(client, table, simple_ship(unique("Kite")), who="ann")).status_code == 403
    assert (await client.post(SHIPS, json={"definition": simple_ship("Kite")})).status_code == 401
    bad = {"Authorization": "Bearer not-a-token"}
    assert (
        await client.post(SHIPS, json={"definition": simple_ship("Kite")}, headers=bad)
    ).status_code == 403
    assert (await client.post(save, headers=table.auth("ref"))).status_code == 201  # no body: as it is now


async def test_ships_saved_under_one_name_at_once_each_get_their_own_slug(client: httpx.AsyncClient) -> None:
    tables = [await set_table(client, players=(), spectator=False) for _ in range(4)]
    name = unique("Swift")
    answers = await asyncio.gather(*(save_json(client, t, simple_ship(name)) for t in tables))
    assert [r.status_code for r in answers] == [201] * 4, [r.text for r in answers]
    made = sorted(r.json()["slug"] for r in answers)
    base = made[0]
    assert made == [base, f"{base}-2", f"{base}-3", f"{base}-4"]
    for r, t in zip(answers, tables, strict=True):  # each is its saver's to delete
        assert (await client.delete(f"{SHIPS}/{r.json()['slug']}", headers=t.auth("ref"))).status_code == 204


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "definition"),
        ({"definition": "a ship"}, "definition"),
        ({"definition": [1, 2]}, "definition"),
        ({"definition": simple_ship("Hawk"), "slug": "mine"}, "slug"),
        ({"definition": {"system": "b5wars"}}, "definition.name"),
        ({"definition": {**simple_ship("Hawk"), "name": ""}}, "definition.name"),
        ({"definition": {**simple_ship("Hawk"), "name": "x" * 81}}, "definition.name"),
        ({"definition": {"name": "Hawk"}}, "definition.system"),
        ({"definition": {**simple_ship("Hawk"), "system": "starwars"}}, "definition.system"),
        ({"definition": {**simple_ship("Hawk"), "parts": {"nope": {}}}}, "definition.parts.nope"),
        (
            {"definition": {**simple_ship("Hawk"), "parts": {"sheet": {"sections": []}}}},
            "definition.parts.sheet.sections",
        ),
        ({"definition": simple_ship("Hawk", structure=0)}, "definition.parts.sheet.sections.0.structure_max"),
        ({"definition": {**simple_ship("Hawk"), "parts": []}}, "definition.parts"),
    ],
)
async def test_every_bad_definition_is_refused_naming_its_field(
    client: httpx.AsyncClient, body: dict[str, Any], field: str
) -> None:
    table = await set_table(client, players=(), spectator=False)
    before = slugs(await client.get(SHIPS))
    reason = refused(await client.post(SHIPS, json=body, headers=table.auth("ref")), 422, field)
    assert reason.startswith(field), reason  # the reason says which field, in words
    assert slugs(await client.get(SHIPS)) == before  # nothing was saved


async def test_every_bad_save_from_battle_or_address_is_refused_naming_its_field(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    save = f"/api/v1/battles/{table.battle_id}/ships/{table.ships['hawk']}/save"
    ref = table.auth("ref")
    refused(await client.post(save, json={"state": "sideways"}, headers=ref), 422, "state")
    refused(await client.post(save, json={"name": ""}, headers=ref), 422, "name")
    refused(await client.post(save, json={"name": "x" * 81}, headers=ref), 422, "name")
    refused(await client.post(save, json={"damage": True}, headers=ref), 422, "damage")
    missing = f"/api/v1/battles/{table.battle_id}/ships/no-such-ship/save"
    refused(await client.post(missing, json={}, headers=ref), 404, "ship")
    refused(await client.get(f"{SHIPS}/Not%20A%20Slug"), 422, "slug")
    refused(await client.get(f"{SHIPS}/{'a' * 61}"), 422, "slug")
    refused(await client.delete(f"{SHIPS}/-x", headers=ref), 422, "slug")
    refused(await client.get(f"{SHIPS}/no-such-ship"), 404, "slug")


async def test_saved_ships_are_offered_where_ships_are_added(client: httpx.AsyncClient) -> None:
    """The referee's "Add a ship" list and the home page's create form offer saved ships beside the
    samples, only those the battle's system takes; a saved ship is added with its saved parts."""
    table = await set_table(client)
    name = unique("Osprey")
    damaged = simple_ship(name)
    damaged["parts"]["sheet"]["sections"][0]["structure"] = 33  # a ship saved with damage on it
    slug = (await save_json(client, table, damaged)).json()["slug"]
    traveller = ship_def("tr-vigilant-escort") | {"name": unique("Vigil")}
    tr_slug = (await save_json(client, table, traveller)).json()["slug"]

    page = await join(client, table.tokens["ref"])
    assert f'<option value="{slug}">{name} — Test frigate (saved by Referee)</option>' in page.text
    assert f'value="{tr_slug}"' not in page.text.split('id="add-ship-library"')[1].split("</select>")[0]

    r = await client.post(
        f"/battles/{table.battle_id}/ships",
        data={"csrf_token": csrf(page.text), "library": slug},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200 and f"{name} (Test frigate) joins the battle." in r.text, r.text
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    added = next(s for s in state["state"]["ships"].values() if s["name"] == name)
    assert added["parts"]["sheet"]["sections"][0]["structure"] == 33
    assert added["parts"] == (await client.get(f"{SHIPS}/{slug}")).json()["parts"]

    # A Traveller ship in a B5 Wars battle: refused by the battle's system, naming the field.
    r = await client.post(
        f"/battles/{table.battle_id}/ships",
        data={"csrf_token": csrf(page.text), "library": tr_slug},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and 'data-field="definition.system"' in r.text, r.text
    assert "takes ships written for" in r.text
    r = await client.post(
        f"/battles/{table.battle_id}/ships",
        data={"csrf_token": csrf(page.text), "library": "no-such-ship"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and 'data-field="library"' in r.text


async def test_the_home_page_offers_saved_ships_to_create_a_battle_with(client: httpx.AsyncClient) -> None:
    table = await set_table(client, players=(), spectator=False)
    name = unique("Heron")
    slug = (await save_json(client, table, simple_ship(name))).json()["slug"]
    held = await client.post(
        f"/api/v1/battles/{table.battle_id}/ships/{(await _one_ship(client, table))}/save",
        headers=table.auth("ref"),
    )
    assert held.status_code == 201 and held.json()["held"]
    home = await client.get("/")
    assert f'value="{slug}"' in home.text
    assert f'value="{held.json()["slug"]}"' not in home.text  # held for its battle's referee
    r = await client.post(
        "/battles",
        data={"csrf_token": csrf(home.text), "name": "From the library", "system": "b5wars", "ships": [slug]},
        follow_redirects=True,
    )
    assert r.status_code == 200 and name in r.text, r.text[-2000:]


async def _one_ship(client: httpx.AsyncClient, table: Table) -> str:
    r = await act(client, table, "ref", "ship.add", {"definition": simple_ship(unique("Tern"))})
    assert r.status_code == 200, r.text
    return str(r.json()["events"][0]["ship"])


async def test_the_referee_keeps_the_library_from_the_dashboard(client: httpx.AsyncClient) -> None:
    crow = unique("Crow")
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship(crow), "bob")}
    )
    hit = {"target": table.ships["crow"], "source": table.ships["hawk"], "amount": 6, "direction": "fore"}
    await act(client, table, "ann", "damage.apply", hit)
    page = await join(client, table.tokens["ref"])
    assert 'id="ship-library"' in page.text and 'id="library-save-ship"' in page.text
    token = csrf(page.text)
    base = f"/battles/{table.battle_id}/library"
    htmx = {"HX-Request": "true"}

    r = await client.post(
        f"{base}/ship", data={"csrf_token": token, "ship": table.ships["crow"], "state": "now"}, headers=htmx
    )
    assert r.status_code == 200 and f"Saved {crow} as" in r.text, r.text
    assert 'id="ship-library-list"' in r.text and 'hx-swap-oob="true"' in r.text  # the lists, in place
    slug = r.text.split("as “")[1].split("”")[0]
    assert f'data-slug="{slug}"' in r.text and "only you see it until this battle ends" in r.text
    assert f'<option value="{slug}">' in r.text
    download = await client.get(f"{base}/{slug}.json")
    assert download.status_code == 200 and download.json()["parts"]["sheet"]["sections"][1]["armour"] == 0

    # Bad input: marked fields, nothing saved.
    r = await client.post(f"{base}", data={"csrf_token": token, "definition_json": "{not json"}, headers=htmx)
    assert r.status_code == 422 and 'data-field="definition"' in r.text
    r = await client.post(f"{base}", data={"csrf_token": token, "definition_json": ""}, headers=htmx)
    assert r.status_code == 422 and 'data-field="definition"' in r.text
    bad = '{"name": "X", "system": "b5wars", "parts": {"sheet": {"sections": [{"name": "P", "structure_max": -1}]}}}'
    r = await client.post(f"{base}", data={"csrf_token": token, "definition_json": bad}, headers=htmx)
    assert r.status_code == 422 and 'data-field="definition.parts.sheet.sections.0.structure_max"' in r.text
    r = await client.post(
        f"{base}/ship", data={"csrf_token": token, "ship": "nobody", "state": "now"}, headers=htmx
    )
    assert r.status_code == 404 and 'data-field="ship"' in r.text
    r = await client.post(
        f"{base}/ship",
        data={"csrf_token": token, "ship": table.ships["crow"], "name": "x" * 81},
        headers=htmx,
    )
    assert r.status_code == 422 and 'data-field="name"' in r.text

    # From JSON without htmx: post, redirect, the page lists it.
    json_name = unique("Kestrel")
    r = await client.post(
        base,
        data={"csrf_token": token, "definition_json": json.dumps(simple_ship(json_name))},
        follow_redirects=True,
    )
    assert r.status_code == 200 and f"Saved {json_name} as" in r.text
    kestrel = r.text.split(f"Saved {json_name} as “")[1].split("”")[0]
    assert f'data-slug="{kestrel}"' in r.text

    # Delete asks first (a page with one button, focused), then deletes.
    r = await client.post(f"{base}/{kestrel}/delete", data={"csrf_token": token})
    assert r.status_code == 200 and f"Delete {json_name} from the ship library?" in r.text
    assert 'name="confirm" value="yes"' in r.text and "autofocus" in r.text
    assert (await client.get(f"{SHIPS}/{kestrel}")).status_code == 200  # not yet
    r = await client.post(
        f"{base}/{kestrel}/delete", data={"csrf_token": token, "confirm": "yes"}, follow_redirects=True
    )
    assert (
        r.status_code == 200 and f"Deleted {json_name}" in r.text and f'data-slug="{kestrel}"' not in r.text
    )
    assert (await client.get(f"{SHIPS}/{kestrel}")).status_code == 404
    r = await client.post(
        f"{base}/excelsior/delete", data={"csrf_token": token, "confirm": "yes"}, headers=htmx
    )
    assert r.status_code == 403 and "read-only" in r.text

    # A player's page has no library section, and the player's browser may not save or delete.
    player = await join(client, table.tokens["ann"])
    assert player.status_code == 200 and 'id="ship-hawk"' in player.text  # her battle page
    assert 'id="ship-library"' not in player.text
    r = await client.post(
        f"{base}/ship", data={"csrf_token": csrf(player.text), "ship": table.ships["hawk"]}, headers=htmx
    )
    assert r.status_code == 403
    r = await client.post(f"{base}/{slug}/delete", data={"csrf_token": csrf(player.text)}, headers=htmx)
    assert r.status_code == 403


async def test_a_saved_ship_is_renamed_and_deleted_from_the_next_battles_library(
    client: httpx.AsyncClient,
) -> None:
    """The referee who saved a ship in one battle renames and deletes it from the library section of
    the next battle they referee in the same browser; over REST its own battle's referee renames it
    (the name in its definition too, the slug kept); nobody else may, and a bad name is refused
    naming `name`."""
    first = await set_table(client, players=())
    name = unique("Hawk")
    r = await save_json(client, first, simple_ship(name))
    assert r.status_code == 201, r.text
    slug = r.json()["slug"]

    # REST: its battle's referee renames it; another battle's referee and a bad name are refused.
    renamed = unique("Falcon")
    r = await client.patch(f"{SHIPS}/{slug}", json={"name": renamed}, headers=first.auth("ref"))
    assert r.status_code == 200, r.text
    assert (r.json()["slug"], r.json()["name"]) == (slug, renamed)
    assert (await client.get(f"{SHIPS}/{slug}")).json()["name"] == renamed
    second = await set_table(client, players=())
    refused(
        await client.patch(f"{SHIPS}/{slug}", json={"name": "X"}, headers=second.auth("ref")), 403, "slug"
    )
    refused(await client.patch(f"{SHIPS}/{slug}", json={"name": ""}, headers=first.auth("ref")), 422, "name")
    refused(
        await client.patch(f"{SHIPS}/{slug}", json={"name": "a\u0000b"}, headers=first.auth("ref")),
        422,
        "name",
    )
    refused(
        await client.patch(f"{SHIPS}/excelsior", json={"name": "X"}, headers=first.auth("ref")), 403, "slug"
    )

    # Pages: one browser referees both battles; the second battle's library offers both tools.
    await join(client, first.tokens["ref"])
    asked = await client.get(f"/join/{second.tokens['ref']}")
    page = await client.post(
        "/join",
        data={"csrf_token": csrf(asked.text), "token": second.tokens["ref"], "confirm": "yes"},
        follow_redirects=True,
    )
    base = f"/battles/{second.battle_id}/library"
    assert f'action="{base}/{slug}/rename"' in page.text and f'action="{base}/{slug}/delete"' in page.text
    token = csrf(page.text)
    r = await client.post(
        f"{base}/{slug}/rename", data={"csrf_token": token, "name": " "}, headers={"HX-Request": "true"}
    )
    assert r.status_code == 422 and 'data-field="name"' in r.text
    final = unique("Osprey")
    r = await client.post(
        f"{base}/{slug}/rename", data={"csrf_token": token, "name": final}, follow_redirects=True
    )
    assert r.status_code == 200 and f"Renamed “{slug}” to {final}." in r.text
    assert (await client.get(f"{SHIPS}/{slug}")).json()["name"] == final
    r = await client.post(
        f"{base}/{slug}/delete", data={"csrf_token": token, "confirm": "yes"}, follow_redirects=True
    )
    assert r.status_code == 200 and f"Deleted {final}" in r.text
    assert (await client.get(f"{SHIPS}/{slug}")).status_code == 404

    # A browser holding only the second battle's seat gets neither tool for a ship saved in the first.
    r = await save_json(client, first, simple_ship(unique("Kite")))
    kite = r.json()["slug"]
    page = await join(client, second.tokens["ref"])
    assert f'data-slug="{kite}"' in page.text and f"{kite}/rename" not in page.text
    r = await client.post(
        f"{base}/{kite}/rename",
        data={"csrf_token": csrf(page.text), "name": "Mine"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 403
