"""Logs an operator can follow: one request id per request (the client's X-Request-ID when it is a
plain token, else made), on every log line written for it, in the answer's header, in error bodies
and error pages, and in the action's log row; LOG_FORMAT=json gives JSON lines; and a whole run's
log holds no token, cookie or secret."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.models import ActionLog
from app.operations.logs import JsonLines, RequestIdFilter
from app.services.write import actions as action_service
from tests.conftest import SECRET
from tests.helpers import act, set_table, simple_ship
from tests.security.test_join import CliServer, token_of
from tests.security.util import csrf
from tests.web.wsclient import WsViewer, cookie_for

HEX32 = re.compile(r"[0-9a-f]{32}")


async def test_the_request_id_is_taken_or_made_and_quoted_by_every_error(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/v1/battles/nope", headers={"X-Request-ID": "club-42.a"})
    assert r.status_code in (401, 404)
    assert r.headers["x-request-id"] == "club-42.a"
    assert r.json()["request_id"] == "club-42.a"
    # an id that could break a log line or a page is not taken: one is made instead
    for forged in ("a\u2028b".encode(), b"<script>x</script>", b"x" * 65, b""):
        r = await client.get("/api/v1/battles/nope", headers={"X-Request-ID": forged})
        made = r.headers["x-request-id"]
        assert HEX32.fullmatch(made) and r.json()["request_id"] == made
    # each request its own id
    first = (await client.get("/healthz")).headers["x-request-id"]
    assert first != (await client.get("/healthz")).headers["x-request-id"]
    # an error page tells the player which id to quote
    page = await client.get("/no-such-page", headers={"accept": "text/html", "X-Request-ID": "page-7"})
    assert page.status_code == 404 and "quote this id: <code>page-7</code>" in page.text
    # a refused action through the REST door's lean path quotes it too
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    r = await act(client, table, "ann", "damage.apply", {"target": "nowhere", "amount": 1})
    assert r.status_code == 422 and r.json()["request_id"] == r.headers["x-request-id"]


async def test_the_action_log_row_keeps_its_request_id(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    body = {"type": "damage.apply", "payload": {"target": "hawk", "amount": 1}, "action_id": "traced"}
    r = await client.post(
        f"/api/v1/battles/{table.battle_id}/actions",
        json=body,
        headers={**table.auth("ann"), "X-Request-ID": "table-3-turn-2"},
    )
    assert r.status_code == 200, r.text
    platform = client.app.state.platform  # type: ignore[attr-defined]
    async with platform.db.reader() as session:
        kept = await session.scalar(
            select(ActionLog.request_id).where(
                ActionLog.battle_id == table.battle_id, ActionLog.action_id == "traced"
            )
        )
    assert kept == "table-3-turn-2"


class Lines(logging.Handler):
    """The records as the app's handler would write them (its filter and the JSON formatter)."""

    def __init__(self) -> None:
        super().__init__()
        self.addFilter(RequestIdFilter())
        self.setFormatter(JsonLines())
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


async def test_every_line_written_for_a_request_carries_its_id(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})

    async def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(action_service, "submit", broken)
    lines = Lines()
    logging.getLogger().addHandler(lines)
    try:
        r = await act(client, table, "ann", "damage.apply", {"target": "hawk", "amount": 1})
    finally:
        logging.getLogger().removeHandler(lines)
    assert r.status_code == 500 and r.json()["request_id"] == r.headers["x-request-id"]
    failed = [line for line in lines.lines if line["message"] == "action request failed"]
    assert failed and all(line["request_id"] == r.headers["x-request-id"] for line in failed)
    assert "RuntimeError: a bug" in failed[0]["exc"]


@pytest.fixture
def json_server(sqlite_url: str, tmp_path: Path) -> Iterator[CliServer]:
    srv = CliServer(sqlite_url, tmp_path / "server.log", LOG_FORMAT="json")
    yield srv
    srv.stop()


async def test_a_whole_runs_log_is_json_lines_with_ids_and_no_token_cookie_or_secret(
    json_server: CliServer, sqlite_url: str
) -> None:
    base = json_server.url
    secrets: list[str] = [SECRET]
    async with httpx.AsyncClient(base_url=base, timeout=10) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
        secrets += table.tokens.values()
        # an old-style join link in the path and in a Referer, and the page's own join form
        assert (await c.get(f"/join/{table.tokens['bob']}?from=mail")).status_code == 303
        await c.get("/static/css/app.css", headers={"Referer": f"{base}/join/{table.tokens['bob']}"})
        async with httpx.AsyncClient(base_url=base, timeout=10) as ann:
            form = await ann.get("/join")
            secrets.append(csrf(form.text))
            await ann.post("/join", data={"csrf_token": csrf(form.text), "token": table.tokens["ann"]})
            secrets.append(ann.cookies["starboard_session"])
            page = await ann.get(f"/battles/{table.battle_id}")
            assert page.status_code == 200
            secrets.append(csrf(page.text))
        cookie = await cookie_for(base, table.tokens["watcher"])
        secrets.append(cookie)
        async with WsViewer(base, table.battle_id, cookie) as viewer:
            await viewer.hello(0)
            await viewer.until_answered()
        dmg = {"target": "crow", "source": "hawk", "amount": 2, "direction": "fore"}
        traced = await c.post(
            f"/api/v1/battles/{table.battle_id}/actions",
            json={"type": "damage.apply", "payload": dmg, "action_id": "traced-1"},
            headers={**table.auth("ann"), "X-Request-ID": "trace-me-1"},
        )
        assert traced.status_code == 200 and traced.headers["x-request-id"] == "trace-me-1"
        wrong = await c.get(
            f"/api/v1/battles/{table.battle_id}", headers={"Authorization": "Bearer not-a-token-xyz"}
        )
        assert wrong.status_code in (401, 403)
        secrets.append("not-a-token-xyz")
        rotated = await c.post(
            f"/api/v1/battles/{table.battle_id}/participants/{table.ids['bob']}/token",
            headers=table.auth("ref"),
        )
        secrets.append(token_of(rotated.json()["join_url"]))
    output = json_server.output()
    lines = [line for line in output.splitlines() if line.strip()]
    parsed = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"ts", "level", "logger", "request_id", "message"} <= set(p) for p in parsed)
    access = [p for p in parsed if p["logger"] == "uvicorn.access"]
    assert access and all(HEX32.fullmatch(p["request_id"]) or p["request_id"] == "trace-me-1" for p in access)
    assert any(p["request_id"] == "trace-me-1" and "/actions" in p["message"] for p in access)
    assert len({p["request_id"] for p in access}) == len(access)  # one id per request
    for secret in secrets:
        assert secret and secret not in output, f"a secret reached the log: {secret[:6]}…"
    with sqlite3.connect(sqlite_url.removeprefix("sqlite:///")) as db:
        (kept,) = db.execute(
            "SELECT request_id FROM action_log WHERE battle_id = ? AND action_id = 'traced-1'",
            (table.battle_id,),
        ).fetchone()
    assert kept == "trace-me-1"
