"""Forged battle files: every imported row is checked against the event schema the log writes,
whatever its kind; undo, redo and rewind rows are rebuilt from the log before them (their target,
stored payload and event), never trusted from the file; the page's import reads files as strictly
as the API's (one reader: no NaN or Infinity, at most 32 levels deep). Each refusal is a 422
naming the field, and nothing is created."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from tests.helpers import Table, act, set_table, simple_ship
from tests.web.test_pages import csrf

HIT = {"target": "reliant", "source": "enterprise", "amount": 4, "direction": "fore"}


async def _played(c: httpx.AsyncClient) -> Table:
    """Kirk's Enterprise hits the Reliant; the referee undoes it, redoes it, then rewinds."""
    ships = {"enterprise": (simple_ship("Enterprise"), "kirk"), "reliant": (simple_ship("Reliant"), "khan")}
    table = await set_table(c, players=("kirk", "khan"), ships=ships)
    for who, kind, payload in (
        ("kirk", "damage.apply", HIT),
        ("ref", "battle.undo", {"reason": "wrong arc"}),
        ("ref", "battle.redo", {"reason": "it was right"}),
        ("kirk", "damage.apply", HIT),
    ):
        r = await act(c, table, who, kind, payload)
        assert r.status_code == 200, r.text
    seq = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()["seq"]
    r = await act(c, table, "ref", "battle.rewind", {"to_seq": seq - 1, "reason": "start again"})
    assert r.status_code == 200, r.text
    return table


async def _file(c: httpx.AsyncClient, table: Table) -> dict[str, Any]:
    r = await c.get(f"/api/v1/battles/{table.battle_id}/export", headers=table.auth("ref"))
    assert r.status_code == 200, r.text
    return r.json()


def _row(file: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(row for row in file["log"] if row["action_type"] == kind)


async def _battles(c: httpx.AsyncClient) -> int:
    from sqlalchemy import func, select

    from app.models import Battle

    async with c.app.state.platform.db.reader() as session:  # type: ignore[attr-defined]
        return int(await session.scalar(select(func.count()).select_from(Battle)) or 0)


async def _refused(c: httpx.AsyncClient, file: Any, field: str) -> dict[str, Any]:
    before = await _battles(c)
    r = await c.post("/api/v1/battles/import", json=file)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["field"] == field, r.json()
    assert await _battles(c) == before  # nothing created
    return r.json()["detail"]


async def test_an_honest_file_with_undo_redo_and_rewind_imports(client: httpx.AsyncClient) -> None:
    file = await _file(client, await _played(client))
    r = await client.post("/api/v1/battles/import", json=file)
    assert r.status_code == 201, r.text
    copy_id = r.json()["battle_id"]
    ref = next(s for s in r.json()["seats"] if s["role"] == "referee")
    again = await client.get(
        f"/api/v1/battles/{copy_id}/export", headers={"authorization": f"Bearer {ref['token']}"}
    )
    assert [row["events"] for row in again.json()["log"]] == [row["events"] for row in file["log"]]


@pytest.mark.parametrize("kind", ["battle.undo", "battle.redo", "battle.rewind"])
async def test_a_forged_history_event_is_refused(client: httpx.AsyncClient, kind: str) -> None:
    """The finding: an imported undo row kept whatever events the file said ("Kirk surrenders")."""
    table = await _played(client)
    file = await _file(client, table)
    row = _row(file, kind)
    row["events"][0]["text"] = "Kirk surrenders."
    detail = await _refused(client, file, f"log.{row['seq'] - 1}")
    assert detail["seq"] == row["seq"] and "not what the log makes of it" in detail["reason"]
    r = await client.get(f"/battles/{table.battle_id}", headers={"accept": "text/html"})
    assert "Kirk surrenders" not in r.text


async def test_a_forged_undo_target_is_refused(client: httpx.AsyncClient) -> None:
    file = await _file(client, await _played(client))
    row = _row(file, "battle.undo")
    row["payload"]["_to_seq"] = 0  # back to the start, while it claims to undo one action
    row["events"][0]["data"]["to_seq"] = 0
    detail = await _refused(client, file, f"log.{row['seq'] - 1}")
    assert "not what the log before it makes of it" in detail["reason"]


async def test_an_undo_without_undoes_is_refused_in_words(client: httpx.AsyncClient) -> None:
    """Decision: an undo row from before undo named what it undid cannot be checked; refused."""
    file = await _file(client, await _played(client))
    row = _row(file, "battle.undo")
    del row["payload"]["_undoes"]
    detail = await _refused(client, file, f"log.{row['seq'] - 1}")
    assert "older Starboard" in detail["reason"] and "_undoes" in detail["reason"]


@pytest.mark.parametrize("kind", ["battle.undo", "damage.apply", "ship.add"])
@pytest.mark.parametrize("entry", [1, "Kirk surrenders", None, {"kind": "x"}, {"kind": "x", "text": 5}])
async def test_non_event_entries_are_refused_naming_them(
    client: httpx.AsyncClient, kind: str, entry: Any
) -> None:
    """The finding: a row with non-event entries was stored, then the battle answered 500."""
    file = await _file(client, await _played(client))
    row = _row(file, kind)
    row["events"].append(entry)
    detail = await _refused(client, file, f"log.{row['seq'] - 1}.events.{len(row['events']) - 1}")
    assert "not an event" in detail["reason"]


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def _raw_with_options(file: dict[str, Any], options_json: str) -> bytes:
    """The file with its battle's options replaced by text no json.dumps would write."""
    marker = "__OPTIONS__"
    forged = copy.deepcopy(file)
    forged["battle"]["options"] = marker
    return json.dumps(forged).replace(f'"{marker}"', options_json).encode()


async def _page_import(c: httpx.AsyncClient, raw: bytes) -> httpx.Response:
    home = await c.get("/")
    return await c.post(
        "/battles/import",
        data={"csrf_token": csrf(home.text)},
        files={"file": ("battle.json", raw, "application/json")},
        headers={"HX-Request": "true"},
    )


@pytest.mark.parametrize(
    "options",
    ['{"x": NaN}', '{"x": Infinity}', '{"x": -Infinity}', json.dumps(_deep(40)), "[" * 5000 + "]" * 5000],
)
async def test_the_page_and_the_api_refuse_what_no_store_can_hold(
    client: httpx.AsyncClient, options: str
) -> None:
    """The finding: the page's import skipped the API's strict JSON (deep nesting → 500; Infinity
    and NaN stored on SQLite, 500 on PostgreSQL). Both doors now read files with one strict reader."""
    file = await _file(client, await _played(client))
    raw = _raw_with_options(file, options)
    before = await _battles(client)
    r = await _page_import(client, raw)
    assert r.status_code == 422 and 'data-field="file"' in r.text and "not a battle file" in r.text, r.text
    r = await client.post("/api/v1/battles/import", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert await _battles(client) == before
