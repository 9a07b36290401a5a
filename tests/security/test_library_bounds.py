"""The ship library is bounded: SHIPLIB_MAX_PER_OWNER saved ships per referee seat and
SHIPLIB_MAX_TOTAL in all, each refused with 422 naming `library` (nothing saved) — also when many
saves arrive at once (saves take turns, so no count is read stale). The home page lists only the
newest HOME_NEWEST saved ships by name and class and reads no definition: 300 saves had taken an
anonymous GET / from 0.02 s to 2.28 s."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import event, func, select

from app.main import create_app
from app.models import LibraryShip
from app.services.library.shiplib import HOME_NEWEST
from tests.conftest import settings_for
from tests.helpers import Table, set_table, simple_ship
from tests.web.test_pages import csrf

PER_OWNER = 5
TOTAL = 8


@pytest.fixture
async def bounded(db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings_for(db_url)
    settings.shiplib_max_per_owner = PER_OWNER
    settings.shiplib_max_total = TOTAL
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            c.app = app  # type: ignore[attr-defined]
            async with app.state.platform.db.transaction() as session:  # each test counts from empty
                await session.execute(LibraryShip.__table__.delete())
            yield c


async def _save(c: httpx.AsyncClient, table: Table, name: str) -> httpx.Response:
    return await c.post("/api/v1/ships", json={"definition": simple_ship(name)}, headers=table.auth("ref"))


async def _count(c: httpx.AsyncClient, saved_by: str | None = None) -> int:
    query = select(func.count()).select_from(LibraryShip)
    if saved_by is not None:
        query = query.where(LibraryShip.saved_by == saved_by)
    async with c.app.state.platform.db.reader() as session:  # type: ignore[attr-defined]
        return int(await session.scalar(query) or 0)


def _refused_library(r: httpx.Response) -> None:
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["field"] == "library", r.json()


async def test_one_referee_seat_keeps_at_most_its_share(bounded: httpx.AsyncClient) -> None:
    table = await set_table(bounded, players=("ann",), spectator=False)
    for i in range(PER_OWNER):
        assert (await _save(bounded, table, f"Ship {i}")).status_code == 201
    r = await _save(bounded, table, "One too many")
    _refused_library(r)
    assert f"({PER_OWNER})" in r.json()["detail"]["reason"]
    assert await _count(bounded) == PER_OWNER
    # A deleted ship frees its place.
    slug = (await bounded.get("/api/v1/ships", headers=table.auth("ref"))).json()["ships"][-1]["slug"]
    assert (await bounded.delete(f"/api/v1/ships/{slug}", headers=table.auth("ref"))).status_code == 204
    assert (await _save(bounded, table, "In its place")).status_code == 201


async def test_the_library_keeps_at_most_its_total(bounded: httpx.AsyncClient) -> None:
    first = await set_table(bounded, players=("ann",), spectator=False)
    second = await set_table(bounded, players=("ann",), spectator=False)
    for i in range(PER_OWNER):
        assert (await _save(bounded, first, f"First {i}")).status_code == 201
    for i in range(TOTAL - PER_OWNER):
        assert (await _save(bounded, second, f"Second {i}")).status_code == 201
    r = await _save(bounded, second, "Past the total")
    _refused_library(r)
    assert "full" in r.json()["detail"]["reason"]
    assert await _count(bounded) == TOTAL


async def test_saves_at_once_never_pass_the_bound(bounded: httpx.AsyncClient) -> None:
    """The count and the insert cannot race: of 16 saves sent at once by one seat, exactly
    PER_OWNER are kept and every other is the 422 — never a 500, never one too many."""
    table = await set_table(bounded, players=("ann",), spectator=False)
    answers = await asyncio.gather(*(_save(bounded, table, f"Rush {i}") for i in range(16)))
    codes = sorted(r.status_code for r in answers)
    assert codes == [201] * PER_OWNER + [422] * (16 - PER_OWNER), [
        r.text for r in answers if r.status_code != 201
    ]
    assert await _count(bounded) == PER_OWNER
    for r in answers:
        if r.status_code == 422:
            _refused_library(r)


@pytest.fixture
async def roomy(db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings_for(db_url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            c.app = app  # type: ignore[attr-defined]
            async with app.state.platform.db.transaction() as session:
                await session.execute(LibraryShip.__table__.delete())
            yield c


def _statements(c: httpx.AsyncClient) -> tuple[list[str], Any]:
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    engine = c.app.state.platform.db.engine.sync_engine  # type: ignore[attr-defined]
    event.listen(engine, "before_cursor_execute", record)
    return seen, lambda: event.remove(engine, "before_cursor_execute", record)


# Reading a definition's class inside the query is allowed; reading whole definitions is not.
_EXTRACT = re.compile(r"JSON_EXTRACT\(ship_library\.definition|ship_library\.definition\s*->>", re.I)


async def test_the_home_page_lists_the_newest_by_name_only(roomy: httpx.AsyncClient) -> None:
    table = await set_table(roomy, players=("ann",), spectator=False)
    names = [f"Saved {i:02d}" for i in range(HOME_NEWEST + 5)]
    for name in names:
        assert (await _save(roomy, table, name)).status_code == 201
    seen, stop = _statements(roomy)
    try:
        home = await roomy.get("/", headers={"accept": "text/html"})
    finally:
        stop()
    assert home.status_code == 200
    shown = [n for n in names if n in home.text]
    assert shown == names[-HOME_NEWEST:]  # the newest 40, the 5 oldest left out
    library_reads = [s for s in seen if "ship_library" in s]
    assert library_reads and all("ship_library.definition" not in _EXTRACT.sub("", s) for s in library_reads)

    # An older saved ship, no longer listed, can still be picked by its slug.
    oldest = (await roomy.get("/api/v1/ships", headers=table.auth("ref"))).json()["ships"]
    slug = next(e["slug"] for e in oldest if e["name"] == names[0])
    r = await roomy.post(
        "/battles",
        data={
            "csrf_token": csrf(home.text),
            "name": "From the back of the library",
            "system": "b5wars",
            "players": "Ann",
            "ships": slug,
            f"commander.{slug}": "Ann",
        },
    )
    assert r.status_code in (200, 303), r.text[:500]
    assert names[0] in (await roomy.get(r.headers["location"]) if r.status_code == 303 else r).text
