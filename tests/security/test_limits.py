"""Input limits at every door: deeply nested JSON, dice that are not whole numbers, and frames the
websocket cannot parse are refused with an answer (never a crash), and nothing is applied."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from tests.conftest import Server
from tests.helpers import act, set_table, simple_ship
from tests.security.util import HX, browser, page_form
from tests.web.wsclient import WsViewer, cookie_for


def nested(depth: int) -> dict[str, Any]:
    position: dict[str, Any] = {"hex": "0101"}
    node = position
    for _ in range(depth):
        node["n"] = {}
        node = node["n"]
    return position


async def _seq(c: httpx.AsyncClient, table) -> int:  # type: ignore[no-untyped-def]
    return (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()["seq"]


@pytest.mark.parametrize("depth", [40, 300])
async def test_deeply_nested_payload_is_refused_over_rest(client: httpx.AsyncClient, depth: int) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    r = await act(client, table, "ann", "ship.move", {"ship": "hawk", "position": nested(depth)})
    assert r.status_code == 422, r.text
    assert r.json()["detail"] == {
        "error": "Invalid",
        "field": "payload",
        "reason": "the payload is nested more than 32 levels deep",
    }
    assert await _seq(client, table) == 1
    fine = await act(client, table, "ann", "ship.move", {"ship": "hawk", "position": nested(20)})
    assert fine.status_code == 200


async def test_deeply_nested_form_field_is_refused(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    async with browser(client, table.tokens["ann"]) as ann:
        token = await page_form(ann, table.battle_id)
        r = await ann.post(
            f"/battles/{table.battle_id}/actions",
            data={
                "csrf_token": token,
                "action_type": "ship.move",
                "p.ship": "hawk",
                "p.position:json": json.dumps(nested(300)),
            },
            headers=HX,
        )
    assert r.status_code == 422 and "nested more than 32 levels" in r.text
    assert await _seq(client, table) == 1


async def test_request_body_over_the_limit_is_refused(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    big = {"ship": "hawk", "position": {"hex": "0101", "note": "x" * 70000}}
    r = await act(client, table, "ann", "ship.move", big)
    assert r.status_code == 413
    assert await _seq(client, table) == 1


async def test_socket_answers_bad_frames_and_stays_open(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")}, dice_mode="physical")
    cookie = await cookie_for(server.url, table.tokens["ann"])
    async with WsViewer(server.url, table.battle_id, cookie) as v:

        async def answer(frame: str) -> dict[str, Any]:
            await v.socket.send(frame)
            return await v.next_frame()

        deep_raw = await answer("[" * 5000 + "]" * 5000)
        assert deep_raw == {"type": "error", "field": None, "reason": "frames must be JSON objects"}
        base = {"type": "action", "action_id": uuid.uuid4().hex}
        deep = await answer(
            json.dumps(
                {**base, "action_type": "ship.move", "payload": {"ship": "hawk", "position": nested(300)}}
            )
        )
        assert deep["type"] == "error" and deep["error"] == "Invalid" and deep["field"] == "payload"
        for dice in ("66", [2.5], [True], {"a": 1}):
            bad = await answer(
                json.dumps(
                    {**base, "action_id": uuid.uuid4().hex, "action_type": "clock.advance", "dice": dice}
                )
            )
            assert (bad["type"], bad["error"], bad["field"]) == ("error", "Invalid", "dice"), bad
        seen = await answer(
            json.dumps(
                {**base, "action_id": uuid.uuid4().hex, "action_type": "clock.advance", "seen_seq": "1"}
            )
        )
        assert (seen["error"], seen["field"]) == ("Invalid", "seen_seq")
        # Still open and still answering: a hello brings the battle as it is (nothing was applied).
        await v.hello(0)
        frame = await v.frame_with_seq(1)
        assert frame["seq"] == 1
