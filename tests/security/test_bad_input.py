"""Hostile input at the HTTP doors gets a 4xx answer naming the field, and nothing is stored:
seqs past 64 bits, options nested too deep, non-ASCII digits in forms, NaN/Infinity/huge numbers in
any JSON body, dice that are not plain whole numbers, and chunked bodies over the limit."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.models import ActionLog, Battle
from app.services.errors import Invalid
from app.services.write import actions as action_service
from tests.helpers import act, set_table, simple_ship
from tests.security.util import HX, browser, page_form

BIG = 2**63
SEQ_MAX = 2**31 - 1  # seq columns are 32-bit INTEGER


def nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth - 1):
        node["n"] = {}
        node = node["n"]
    return root


async def count(client: httpx.AsyncClient, model: type) -> int:
    platform = client.app.state.platform  # type: ignore[attr-defined]
    async with platform.db.reader() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def seq_of(client: httpx.AsyncClient, table) -> int:  # type: ignore[no-untyped-def]
    r = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
    return r.json()["seq"]


def refused(r: httpx.Response, status: int, field: str | None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert set(detail) >= {"error", "field", "reason"} and detail["field"] == field, detail
    return detail


@pytest.mark.parametrize("since", [SEQ_MAX + 1, BIG, 10**30])
async def test_events_since_past_64_bits_is_refused(client: httpx.AsyncClient, since: int) -> None:
    table = await set_table(client)
    r = await client.get(f"/api/v1/battles/{table.battle_id}/events?since={since}", headers=table.auth("ref"))
    refused(r, 422, "since")
    fine = await client.get(
        f"/api/v1/battles/{table.battle_id}/events?since={SEQ_MAX}", headers=table.auth("ref")
    )
    assert fine.status_code == 200 and fine.json()["entries"] == []


async def test_battle_options_nested_500_deep_are_refused(client: httpx.AsyncClient) -> None:
    before = await count(client, Battle)
    body = {"name": "Deep", "system": "b5wars", "options": nested(500)}
    detail = refused(await client.post("/api/v1/battles", json=body), 422, "options")
    assert detail["reason"] == "the options is nested more than 32 levels deep"
    # 32 levels of options are the most allowed; the next one is refused.
    assert (await client.post("/api/v1/battles", json={**body, "options": nested(32)})).status_code == 201
    refused(await client.post("/api/v1/battles", json={**body, "options": nested(33)}), 422, "options")
    assert await count(client, Battle) == before + 1


@pytest.mark.parametrize("seen", ["²", "٣", "1e3", "-1", str(SEQ_MAX + 1), str(BIG)])
async def test_a_page_forms_seen_seq_must_be_plain_digits(client: httpx.AsyncClient, seen: str) -> None:
    table = await set_table(client)
    async with browser(client, table.tokens["ref"]) as ref:
        token = await page_form(ref, table.battle_id)
        r = await ref.post(
            f"/battles/{table.battle_id}/actions",
            data={"csrf_token": token, "action_type": "clock.advance", "seen_seq": seen},
            headers=HX,
        )
        assert r.status_code == 422 and "seen_seq must be a whole number" in r.text, r.text
        ok = await ref.post(
            f"/battles/{table.battle_id}/actions",
            data={"csrf_token": token, "action_type": "clock.advance", "seen_seq": "0"},
            headers=HX,
        )
        assert ok.status_code == 200, ok.text
    assert await seq_of(client, table) == 1


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("NaN", "NaN is not a number JSON allows"),
        ("Infinity", "Infinity is not a number JSON allows"),
        ("-Infinity", "-Infinity is not a number JSON allows"),
        ("1e400", "too large"),
        ("-1e400", "too large"),
        ("1" + "0" * 400, "out of range"),
        (str(BIG), "out of range"),
        (str(-BIG - 1), "out of range"),
    ],
)
async def test_non_finite_and_huge_numbers_are_refused_in_any_json_body(
    client: httpx.AsyncClient, raw: str, why: str
) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    logged = await count(client, ActionLog)
    body = (
        f'{{"type": "ship.move", "action_id": "{uuid.uuid4().hex}", '
        f'"payload": {{"ship": "hawk", "position": {{"hex": "0101", "x": {raw}}}}}}}'
    )
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/actions",
        content=body,
        headers={**table.auth("ann"), "content-type": "application/json"},
    )
    detail = refused(r, 422, "payload.position.x")
    assert why in detail["reason"]
    created = await client.post(
        "/api/v1/battles",
        content=f'{{"name": "n", "system": "sfb", "options": {{"speed": {raw}}}}}',
        headers={"content-type": "application/json"},
    )
    refused(created, 422, "options.speed")
    assert await count(client, ActionLog) == logged and await seq_of(client, table) == 1
    # The largest 64-bit number and ordinary floats still pass the door.
    fine = await act(
        client, table, "ann", "ship.move", {"ship": "hawk", "position": {"hex": "0101", "x": 1.5}}
    )
    assert fine.status_code == 200, fine.text


@pytest.mark.parametrize("die", [True, "3", 3.0, [3], None])
async def test_dice_must_be_plain_whole_numbers(client: httpx.AsyncClient, die: Any) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")}, dice_mode="physical")
    r = await act(client, table, "ref", "clock.advance", {}, dice=[die])
    refused(r, 422, "dice.0")
    r = await act(client, table, "ref", "clock.advance", {}, seq=True)
    refused(r, 422, "seq")
    assert await seq_of(client, table) == 1


@pytest.mark.parametrize("dice_mode", ["seeded", "physical"])
@pytest.mark.parametrize("die", [10**40, 5000, 0, -3])
async def test_out_of_range_dice_are_refused_in_any_battle(
    client: httpx.AsyncClient, dice_mode: str, die: int
) -> None:
    table = await set_table(client, dice_mode=dice_mode)
    r = await act(client, table, "ref", "clock.advance", {}, dice=[die])
    assert r.status_code == 422 and r.json()["detail"]["field"] in ("dice", "dice.0"), r.text
    assert await seq_of(client, table) == 0


@pytest.mark.parametrize("dice", [[10**40], [0], [1001], [True], [3.0]])
def test_the_write_path_refuses_such_dice_from_any_door(dice: list[Any]) -> None:
    """The websocket hands its JSON to submit() as it came: the one write path checks the dice too."""
    with pytest.raises(Invalid) as refused_:
        action_service._check_input({}, None, dice)
    assert refused_.value.field == "dice"
    action_service._check_input({}, None, [1, 6, 100, 1000])


async def _chunks(size: int, piece: int = 4096) -> AsyncIterator[bytes]:
    sent = 0
    while sent < size:
        yield b"x" * min(piece, size - sent)
        sent += piece


async def test_a_chunked_body_over_the_limit_is_refused_with_413(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    for content_type in ("application/json", "application/x-www-form-urlencoded"):
        r = await client.post(
            f"/api/v1/battles/{table.battle_id}/actions",
            content=_chunks(70_000),
            headers={**table.auth("ann"), "content-type": content_type},
        )
        assert "content-length" not in r.request.headers
        refused(r, 413, None)
    assert await seq_of(client, table) == 1


async def test_form_fields_parse_numbers_strictly(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")}, dice_mode="physical")
    async with browser(client, table.tokens["ann"]) as ann:
        token = await page_form(ann, table.battle_id)
        base = {"csrf_token": token, "action_type": "ship.move", "p.ship": "hawk"}
        for field, value, said in [
            ("p.position:json", '{"hex": "0101", "x": NaN}', "position: NaN is not a number"),
            ("p.position:json", '{"hex": "0101", "x": 1e400}', "too large"),
            ("p.speed:int", "²", "speed must be a whole number"),
            ("p.speed:int", "1" + "0" * 40, "speed must be a whole number"),
            ("dice", "3 ٣", "dice must be whole numbers"),
        ]:
            r = await ann.post(f"/battles/{table.battle_id}/actions", data={**base, field: value}, headers=HX)
            assert r.status_code == 422 and said in r.text, (field, value, r.text)
    assert await seq_of(client, table) == 1


@pytest.mark.parametrize("text", ["\\u0000", "a\\u0000b", "\\ud800", "x\\udfff"])
async def test_text_no_database_can_store_is_refused(client: httpx.AsyncClient, text: str) -> None:
    """NUL and unpaired surrogates (PostgreSQL's text and JSONB hold neither): in values and keys."""
    before = await count(client, Battle)
    for body, field in [
        (f'{{"name": "{text}", "system": "sfb"}}', "name"),
        (f'{{"name": "ok", "system": "sfb", "options": {{"{text}": 1}}}}', "options"),
    ]:
        r = await client.post("/api/v1/battles", content=body, headers={"content-type": "application/json"})
        assert "NUL characters or unpaired surrogates" in refused(r, 422, field)["reason"]
    assert await count(client, Battle) == before


async def test_nul_in_a_path_query_or_form_is_refused(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    async with browser(client, table.tokens["ref"]) as ref:
        token = await page_form(ref, table.battle_id)
        refused(await ref.get("/battles/%00"), 422, "path")
        refused(await ref.get(f"/battles/{table.battle_id}/replay?seq=%00"), 422, "query")
        r = await ref.post(
            f"/battles/{table.battle_id}/links",
            data={"csrf_token": token, "name": "mole\x00", "role": "player"},
        )
        refused(r, 422, None)
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    assert "mole" not in str(state["participants"])
