"""Digits are ASCII digits everywhere a number is read from text: '²' passes `str.isdigit()` but
`int('²')` raises, which used to answer 500 on the feed's Last-Event-ID and the table-options form.
Now both answer 422 naming the field and change nothing."""

from __future__ import annotations

import httpx
import pytest

from app.web.numbers import whole_number
from tests.helpers import act, set_table, simple_ship
from tests.table.test_chat import page_as
from tests.web.test_pages import csrf

ODD_DIGITS = ("²", "٣", "１5", "1²")


@pytest.mark.parametrize("text", ODD_DIGITS)
def test_whole_number_takes_ascii_digits_only(text: str) -> None:
    assert text.isdigit() or text[0].isdigit()  # what the old check let through
    assert whole_number(text) is None


def test_whole_number_bounds_and_signs() -> None:
    assert whole_number("15") == 15 and whole_number("0") == 0
    assert whole_number("-3") is None and whole_number("-3", signed=True) == -3
    assert whole_number("1001", high=1000) is None and whole_number("0", low=1) is None
    assert whole_number("9" * 20) is None  # never a huge conversion


@pytest.mark.parametrize("text", ["²", "1²", "³"])
async def test_feed_last_event_id_superscript_is_422(client: httpx.AsyncClient, text: str) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    r = await client.get(
        f"/api/v1/battles/{table.battle_id}/feed",
        headers={**table.auth("ann"), "Last-Event-ID": text.encode("latin-1")},
    )
    assert r.status_code == 422 and r.json()["detail"]["field"] == "Last-Event-ID"


@pytest.mark.parametrize("text", ["²", "٣٠"])
async def test_table_options_superscript_deadline_is_422(client: httpx.AsyncClient, text: str) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    before = (await client.get(f"/api/v1/battles/{table.battle_id}/table", headers=table.auth("ann"))).json()
    ref = await page_as(client, table.tokens["ref"], table.battle_id)
    r = await client.post(
        f"/battles/{table.battle_id}/table",
        data={"csrf_token": csrf(ref), "spectators_chat": "on", "step_deadline_minutes": text},
        headers={"hx-request": "true"},
    )
    assert r.status_code == 422 and "whole number of minutes" in r.text
    after = (await client.get(f"/api/v1/battles/{table.battle_id}/table", headers=table.auth("ann"))).json()
    assert after["options"] == before["options"]


@pytest.mark.parametrize("index", ["٠", "０", "¹"])
async def test_an_override_path_takes_ascii_list_indexes_only(client: httpx.AsyncClient, index: str) -> None:
    """`int('٠')` is 0: an override path's list index in other digits reached the first section."""
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    path = f"ships.hawk.parts.sheet.sections.{index}.systems.0.boxes"
    r = await act(client, table, "ref", "override.set", {"path": path, "value": 8, "reason": "fix the sheet"})
    assert r.status_code == 422 and r.json()["detail"]["field"] == "path", r.text
    r = await act(
        client,
        table,
        "ref",
        "override.set",
        {"path": path.replace(index, "0"), "value": 8, "reason": "the same"},
    )
    assert r.status_code == 200, r.text
