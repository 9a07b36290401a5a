"""Limits with a clear refusal: battle creation per client address (429 + Retry-After, JSON) and
seats per battle (422 naming `participants`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from app.main import create_app
from app.web.middleware.limits import SlidingWindow
from tests.conftest import settings_for
from tests.security.util import HX, csrf


@pytest.fixture
async def tight(db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings_for(db_url).model_copy(
        update={"battle_create_limit": 3, "battle_create_window_seconds": 600, "max_seats_per_battle": 4}
    )
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c,
    ):
        c.app = app  # type: ignore[attr-defined]
        yield c


def other_address(c: httpx.AsyncClient) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=c.app, client=("203.0.113.9", 4444))  # type: ignore[attr-defined]
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def test_battle_creation_is_limited_per_client_address(tight: httpx.AsyncClient) -> None:
    body = {"name": "Flood", "system": "sfb"}
    for _ in range(2):
        assert (await tight.post("/api/v1/battles", json=body)).status_code == 201
    home = await tight.get("/")
    page = await tight.post(
        "/battles",
        data={"csrf_token": csrf(home.text), "name": "Form", "system": "sfb"},
        follow_redirects=False,
    )
    assert page.status_code == 200 and "is ready" in page.text  # the third, by the home page's form
    r = await tight.post("/api/v1/battles", json=body)
    assert r.status_code == 429
    retry = int(r.headers["retry-after"])
    assert 1 <= retry <= 600
    detail = r.json()["detail"]
    assert detail["error"] == "RateLimited" and detail["field"] is None and detail["retry_after"] == retry
    assert "at most 3 every 600 s" in detail["reason"]
    home = await tight.get("/")
    r = await tight.post(
        "/battles", data={"csrf_token": csrf(home.text), "name": "Form", "system": "sfb"}, headers=HX
    )
    assert r.status_code == 429 and "too many new battles" in r.text and r.headers["retry-after"]
    async with other_address(tight) as elsewhere:
        assert (await elsewhere.post("/api/v1/battles", json=body)).status_code == 201


def test_the_window_slides() -> None:
    now = [0.0]
    window = SlidingWindow(2, 60, clock=lambda: now[0])
    assert window.retry_after("a") is None and window.retry_after("a") is None
    assert window.retry_after("a") == 60 and window.retry_after("b") is None
    now[0] = 59.5
    assert window.retry_after("a") == 1
    now[0] = 60.0
    assert window.retry_after("a") is None
    assert SlidingWindow(0, 60).retry_after("a") is None  # 0 switches the limit off


async def test_seats_per_battle_are_capped(tight: httpx.AsyncClient) -> None:
    created = (await tight.post("/api/v1/battles", json={"name": "Full", "system": "sfb"})).json()
    auth = {"Authorization": f"Bearer {created['referee']['token']}"}
    url = f"/api/v1/battles/{created['battle_id']}/participants"
    ids = []
    for name in ("a", "b", "c"):  # with the referee: 4 seats
        r = await tight.post(url, json={"name": name}, headers=auth)
        assert r.status_code == 201
        ids.append(r.json()["participant_id"])
    r = await tight.post(url, json={"name": "d"}, headers=auth)
    assert r.status_code == 422
    assert r.json()["detail"] == {
        "error": "Invalid",
        "field": "participants",
        "reason": "this battle already holds the most seats allowed (4)",
    }
    state = (await tight.get(f"/api/v1/battles/{created['battle_id']}", headers=auth)).json()
    assert len(state["participants"]) == 4
    # A removed seat frees its place.
    assert (await tight.delete(f"{url}/{ids[0]}", headers=auth)).status_code == 204
    assert (await tight.post(url, json={"name": "d"}, headers=auth)).status_code == 201
