"""The REST action's lean door (app/web/api/action_door.py): a well-formed action skips the
framework's layers, and every answer — served or handed on — is the one the full stack gives,
status, body and headers (on SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.operations.observe import observe
from app.services.write import actions as action_service
from app.web.api.action_door import ActionDoor
from tests.helpers import Table, set_table, simple_ship

HIT = {"target": "crow", "source": "hawk", "amount": 3, "direction": "fore"}
VARYING = {"date", "content-length"}
COMPARED = {"X-Request-ID": "compared-1"}  # both ways answer under one request id (error bodies quote it)


def full_stack(c: httpx.AsyncClient) -> httpx.AsyncClient:
    """A client of the same app whose every request goes through all of its layers."""
    app: Any = c.app  # type: ignore[attr-defined]

    async def everything(scope: Any, receive: Any, send: Any) -> None:
        await observe(scope, receive, send, app.full_stack)  # the outermost layer, as the app has it

    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=everything), base_url="http://testserver", headers=COMPARED
    )


def door(c: httpx.AsyncClient) -> ActionDoor:
    return c.app.action_door  # type: ignore[attr-defined,no-any-return]


async def table_of(c: httpx.AsyncClient) -> Table:
    return await set_table(
        c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )


def headers_of(r: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in r.headers.items() if k not in VARYING}


Send = Callable[[httpx.AsyncClient], Awaitable[httpx.Response]]


async def both_ways(client: httpx.AsyncClient, send: Send) -> tuple[httpx.Response, httpx.Response, int, int]:
    """The request through the door, then through the full stack; and how the door took it."""
    served, handed_on = door(client).served, door(client).handed_on
    client.headers.update(COMPARED)
    try:
        via_door = await send(client)
    finally:
        del client.headers["X-Request-ID"]
    took = (door(client).served - served, door(client).handed_on - handed_on)
    async with full_stack(client) as everything:
        via_stack = await send(everything)
    return via_door, via_stack, *took


async def test_a_well_formed_action_is_served_by_the_door_as_the_full_stack_serves_it(
    client: httpx.AsyncClient,
) -> None:
    table = await table_of(client)
    url = f"/api/v1/battles/{table.battle_id}/actions"

    async def hit(c: httpx.AsyncClient) -> httpx.Response:
        body = {"type": "damage.apply", "payload": HIT, "action_id": uuid.uuid4().hex}
        return await c.post(url, json=body, headers=table.auth("ann"))

    via_door, via_stack, served, handed_on = await both_ways(client, hit)
    assert (served, handed_on) == (1, 0)
    assert via_door.status_code == via_stack.status_code == 200
    assert headers_of(via_door) == headers_of(via_stack)
    assert (
        "content-security-policy" in via_door.headers
        and via_door.headers["content-type"] == "application/json"
    )
    first, second = via_door.json(), via_stack.json()
    assert (first["seq"], second["seq"]) == (3, 4) and first["duplicate"] is second["duplicate"] is False
    assert first["events"][0]["text"] == "Hawk hits Crow for 3 (fore): 3 to armour."
    assert (
        second["events"][0]["text"] == "Hawk hits Crow for 3 (fore): 1 to armour, 2 to Fore."
    )  # armour wore
    assert [sorted(e) for e in first["events"]] == [sorted(e) for e in second["events"]]


async def test_a_repeated_action_id_applies_once_through_the_door(client: httpx.AsyncClient) -> None:
    table = await table_of(client)
    url = f"/api/v1/battles/{table.battle_id}/actions"
    body = {"type": "damage.apply", "payload": HIT, "action_id": uuid.uuid4().hex}
    first = await client.post(url, json=body, headers=table.auth("ann"))
    again = await client.post(url, json=body, headers=table.auth("ann"))
    assert (first.json()["seq"], first.json()["duplicate"]) == (3, False)
    assert (again.json()["seq"], again.json()["duplicate"]) == (3, True)
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    assert state["seq"] == 3


def raw(body: bytes, **headers: str) -> Callable[[Table], tuple[bytes, dict[str, str]]]:
    def made(table: Table) -> tuple[bytes, dict[str, str]]:
        sent = {"content-type": "application/json", "authorization": table.auth("ann")["Authorization"]}
        return body, {**sent, **headers}

    return made


def action(**fields: Any) -> bytes:
    return json.dumps({"type": "damage.apply", "payload": HIT, "action_id": "same-id", **fields}).encode()


# (what is sent, whether the door serves it (else hands it on), the answer's status and field)
CASES: dict[str, tuple[Callable[[Table], tuple[bytes, dict[str, str]]], bool, int, str | None]] = {
    "no token": (lambda t: (action(), {"content-type": "application/json"}), False, 401, None),
    "not a bearer token": (raw(action(), authorization="Basic YWJjOmRlZg=="), False, 401, None),
    "an unknown token": (raw(action(), authorization="Bearer nobody"), True, 403, None),
    "not JSON": (raw(b"{not json"), False, 422, None),
    "NaN in the payload": (
        raw(action().replace(b'"amount": 3', b'"amount": NaN')),
        False,
        422,
        "payload.amount",
    ),
    "a list, not an object": (raw(b"[1, 2]"), False, 422, None),
    "no type": (raw(json.dumps({"payload": HIT}).encode()), False, 422, "type"),
    "dice as strings": (raw(action(dice=["6"])), False, 422, "dice.0"),
    "a rule refuses it": (raw(action(payload={**HIT, "amount": -3})), True, 422, "amount"),
    "a stale seq": (raw(action(seq=1)), True, 409, None),
    "an unknown action type": (raw(action(type="damage.nope")), True, 422, "type"),
    "form-encoded": (
        raw(b"type=damage.apply", **{"content-type": "application/x-www-form-urlencoded"}),
        False,
        422,
        None,
    ),
}


async def test_of_two_authorization_headers_the_door_reads_the_first_as_the_full_stack_does(
    client: httpx.AsyncClient,
) -> None:
    table = await table_of(client)
    url = f"/api/v1/battles/{table.battle_id}/actions"
    headers = [
        ("content-type", "application/json"),
        *table.auth("ann").items(),
        ("authorization", "Bearer nobody"),
    ]

    async def send(c: httpx.AsyncClient) -> httpx.Response:
        return await c.post(url, content=action(action_id=uuid.uuid4().hex), headers=headers)

    via_door, via_stack, served, _ = await both_ways(client, send)
    assert served == 1 and via_door.status_code == via_stack.status_code == 200


@pytest.mark.parametrize("case", list(CASES))
async def test_every_refusal_is_worded_as_the_full_stack_words_it_and_changes_nothing(
    client: httpx.AsyncClient, case: str
) -> None:
    make, served_here, status, field = CASES[case]
    table = await table_of(client)
    url = f"/api/v1/battles/{table.battle_id}/actions"
    body, headers = make(table)

    async def send(c: httpx.AsyncClient) -> httpx.Response:
        return await c.post(url, content=body, headers=headers)

    via_door, via_stack, served, handed_on = await both_ways(client, send)
    assert (served, handed_on) == ((1, 0) if served_here else (0, 1)), case
    assert via_door.status_code == via_stack.status_code == status, via_door.text
    assert via_door.json() == via_stack.json()
    assert headers_of(via_door) == headers_of(via_stack)
    if field is not None:
        assert via_door.json()["detail"]["field"] == field
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    assert state["seq"] == 2  # nothing was applied, either way


async def test_another_battles_address_and_a_too_large_body_get_the_full_stacks_answers(
    client: httpx.AsyncClient,
) -> None:
    table = await table_of(client)
    headers = raw(b"")(table)[1]

    async def elsewhere(c: httpx.AsyncClient) -> httpx.Response:
        return await c.post("/api/v1/battles/nope/actions", content=action(), headers=headers)

    via_door, via_stack, served, handed_on = await both_ways(client, elsewhere)
    assert (served, handed_on) == (1, 0)
    assert via_door.status_code == via_stack.status_code == 403 and via_door.json() == via_stack.json()

    limit = client.app.state.settings.max_body_bytes  # type: ignore[attr-defined]
    huge = action(payload={**HIT, "note": "x" * limit})

    async def too_large(c: httpx.AsyncClient) -> httpx.Response:
        return await c.post(f"/api/v1/battles/{table.battle_id}/actions", content=huge, headers=headers)

    via_door, via_stack, served, handed_on = await both_ways(client, too_large)
    assert (served, handed_on) == (0, 1)
    assert via_door.status_code == via_stack.status_code == 413 and via_door.json() == via_stack.json()
    assert via_door.json()["detail"]["error"] == "TooLarge"


async def test_a_database_fault_behind_the_door_is_a_503_with_retry_after(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await table_of(client)

    async def pool_exhausted(*_: Any, **__: Any) -> Any:
        raise PoolTimeout("QueuePool limit reached")

    monkeypatch.setattr(action_service, "submit", pool_exhausted)
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/actions", content=action(), headers=raw(b"")(table)[1]
    )
    assert r.status_code == 503 and r.headers["retry-after"].isdigit()
    assert r.json()["detail"]["error"] == "Unavailable" and "content-security-policy" in r.headers


async def test_an_unexpected_fault_behind_the_door_is_logged_and_answered_in_the_error_shape(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table = await table_of(client)

    async def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(action_service, "submit", broken)
    with caplog.at_level(logging.ERROR, logger="app.web.api.action_door"):
        r = await client.post(
            f"/api/v1/battles/{table.battle_id}/actions", content=action(), headers=raw(b"")(table)[1]
        )
    assert r.status_code == 500 and r.json()["detail"]["error"] == "ServerError"
    assert "content-security-policy" in r.headers
    assert any(record.exc_info and "a bug" in str(record.exc_info[1]) for record in caplog.records)


@pytest.mark.parametrize(
    ("scope_change", "battle", "plain"),
    [
        ({}, "b", True),  # the action POST itself: the door serves it
        ({"query_string": b"x=1"}, "b", False),  # an action POST, but left to the full stack
        ({"method": "PUT"}, None, True),  # not an action POST at all
        ({"path": "/api/v1/battles/b/actions/"}, None, True),
        ({"root_path": "/under"}, "b", False),
    ],
)
def test_the_door_looks_only_at_action_posts(
    scope_change: dict[str, Any], battle: str | None, plain: bool
) -> None:
    base = {"type": "http", "method": "POST", "path": "/api/v1/battles/b/actions", "headers": []}
    changed = {**base, **scope_change}
    headers = {b"content-length": b"10", b"content-type": b"application/json"}
    assert ActionDoor.battle_of(changed) == battle
    assert ActionDoor(1000)._plain(changed, headers) is plain
