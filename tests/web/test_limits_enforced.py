"""The server enforces every limit a form shows — the number fields' min/max and the text
fields' maxlength match the action's payload schema — and positions and ship fleets are checked
over REST and form posts alike (no browser)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import httpx

from app.rules.registry import STANDARD
from app.services.history.replay import HISTORY_ACTIONS
from tests.helpers import act, set_table, ship_def, simple_ship
from tests.web.test_pages import csrf, join

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
FORM_MARK = re.compile(r'name="action_type" value="([a-z_.]+)"|action_form\("([a-z_.]+)"')
INPUT = re.compile(r"<input\b[^>]*>")


def _property(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The JSON schema of a form field named p.a.b[:kind] (refs and optional unions followed)."""
    defs = schema.get("$defs", {})
    node: dict[str, Any] = schema
    for key in name.removeprefix("p.").split(":")[0].removesuffix("[]").split("."):
        node = node["properties"][key]
        while "$ref" in node or "anyOf" in node:
            if "$ref" in node:
                node = defs[node["$ref"].split("/")[-1]]
            else:
                node = next(o for o in node["anyOf"] if o.get("type") != "null")
    return node


def form_limits() -> list[tuple[str, str, str, dict[str, str]]]:
    """(template, action type, field, the limits the input shows) for every payload input."""
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text()
        for match in INPUT.finditer(text):
            tag = match.group(0)
            name = re.search(r'name="(p\.[^"{]+)"', tag)
            if name is None or name.group(1).endswith(":json"):  # JSON text: the body limits hold
                continue
            shown = {k: v for k, v in re.findall(r'\b(min|max|minlength|maxlength)="(-?[0-9]+)"', tag)}
            if not shown:
                continue
            kinds = [a or b for a, b in FORM_MARK.findall(text[: match.start()])]
            found.append((path.name, kinds[-1], name.group(1), shown))
    return found


def test_every_limit_a_form_shows_is_the_payload_schemas() -> None:
    actions = dict(HISTORY_ACTIONS)
    for key in STANDARD.systems:
        actions.update(STANDARD.game(key).actions)
    checked = form_limits()
    assert len(checked) >= 20  # the scan finds the forms' fields
    wrong = []
    for template, kind, name, shown in checked:
        field = _property(actions[kind].payload.model_json_schema(), name)
        server = {
            "min": field.get("minimum"),
            "max": field.get("maximum"),
            "minlength": field.get("minLength"),
            "maxlength": field.get("maxLength"),
        }
        for limit, value in shown.items():
            enforced = server[limit]
            if limit == "maxlength":  # the server may be stricter than the box
                good = enforced is not None and enforced <= int(value)
            else:
                good = enforced == int(value)
            if not good:
                wrong.append(
                    f"{template} {kind} {name}: the form shows {limit}={value}, the server {enforced}"
                )
    assert wrong == []


async def refused(r: httpx.Response) -> tuple[int, str, str]:
    body = r.json()["detail"]
    return r.status_code, body["field"], body["reason"]


async def test_positions_are_checked_over_rest(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})

    async def move(position: dict[str, Any]) -> httpx.Response:
        return await act(client, table, "ann", "ship.move", {"ship": "hawk", "position": position})

    assert await refused(await move({"hex": "0405", "facing": 0})) == (
        422,
        "position.facing",
        "position.facing: must be at least 1 (you sent 0)",
    )
    assert await refused(await move({"hex": "0405", "facing": 7})) == (
        422,
        "position.facing",
        "position.facing: must be at most 6 (you sent 7)",
    )
    assert await refused(await move({"hex": "0405", "speed": -1})) == (
        422,
        "position.speed",
        "position.speed: must be at least 0 (you sent -1)",
    )
    assert await refused(await move({"hex": "45"})) == (
        422,
        "position.hex",
        "position.hex: must be four digits, column then row, e.g. 0405 (you sent “45”)",
    )
    assert (await refused(await move({"hex": "04a5"})))[1] == "position.hex"
    placed = {"definition": simple_ship("Crow"), "position": {"hex": "0405", "facing": 0}}
    assert await refused(await act(client, table, "ref", "ship.add", placed)) == (
        422,
        "position.facing",
        "position.facing: must be at least 1 (you sent 0)",
    )
    ok = await move({"hex": "0405", "facing": 6, "speed": 0, "x": 1.5})
    assert (
        ok.status_code == 200
        and ok.json()["events"][0]["text"] == "Hawk moves: hex 0405, facing 6, speed 0, x 1.5."
    )


async def test_positions_are_checked_in_form_posts(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    page = await join(client, table.tokens["ann"])
    form = {
        "csrf_token": csrf(page.text),
        "action_type": "ship.move",
        "action_id": "m1",
        "p.ship": "hawk",
        "p.position.hex": "0405",
        "p.position.facing:int": "7",
    }
    r = await client.post(f"/battles/{table.battle_id}/actions", data=form, follow_redirects=True)
    assert "position.facing: must be at most 6 (you sent 7)" in html.unescape(r.text)
    r = await client.post(
        f"/battles/{table.battle_id}/actions",
        data={**form, "p.position.facing:int": "2", "p.position.hex": "405"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and "position.hex: must be four digits" in html.unescape(r.text)
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))).json()
    assert state["seq"] == 1 and state["state"]["ships"]["hawk"]["position"] is None


async def test_a_ship_of_another_fleet_is_refused_naming_definition_system(client: httpx.AsyncClient) -> None:
    table = await set_table(client)  # B5 Wars: b5wars and SFB-family ships
    assert (
        await act(client, table, "ref", "ship.add", {"definition": ship_def("shadow-cruiser")})
    ).status_code == 200
    r = await act(client, table, "ref", "ship.add", {"definition": simple_ship("Beowulf", "traveller")})
    assert await refused(r) == (
        422,
        "definition.system",
        "definition.system: a Babylon 5 Wars battle takes ships written for “b5wars” or “sfb”; this one is for “traveller”",
    )
    sfb = await set_table(client, system="sfb")
    r = await act(client, sfb, "ref", "ship.add", {"definition": simple_ship("Hawk", "b5wars")})
    assert (await refused(r))[1] == "definition.system"
    page = await join(client, sfb.tokens["ref"])
    r = await client.post(
        f"/battles/{sfb.battle_id}/ships",
        data={"csrf_token": csrf(page.text), "definition_json": '{"name": "X", "system": "traveller"}'},
        follow_redirects=True,
    )
    assert "definition.system: a " in html.unescape(
        r.text
    ) and "this one is for “traveller”" in html.unescape(r.text)
