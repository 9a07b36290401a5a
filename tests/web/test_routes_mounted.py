"""The app serves its routers' routes as they were built at import (`app.main._mount`) rather
than through `include_router`, which builds every route again for each app. That holds only while
it changes nothing a client can see: these tests compare the app with one that includes the same
routers the ordinary way, and check that no router asks for what `_mount` would drop."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from fastapi.routing import APIRoute

from app.main import ROUTERS, create_app
from tests.conftest import settings_for


def _included(app: FastAPI) -> FastAPI:
    """An app like `app` whose routers are included the ordinary way."""
    other = FastAPI(title=app.title, version=app.version, description=app.description)
    other.router.routes.extend(app.router.routes[: len(app.router.routes) - _mounted_count()])
    for router in ROUTERS:
        other.include_router(router)
    return other


def _mounted_count() -> int:
    return sum(len(router.routes) for router in ROUTERS)


def test_the_schema_and_the_routes_are_what_include_router_gives(sqlite_url: str) -> None:
    app = create_app(settings_for(sqlite_url))
    ordinary = _included(app)
    assert app.openapi() == ordinary.openapi()
    served = [(r.path, sorted(getattr(r, "methods", None) or []), r.name) for r in app.routes]
    assert served[-_mounted_count() :] == [
        (r.path, sorted(getattr(r, "methods", None) or []), r.name)
        for router in ROUTERS
        for r in router.routes
    ]
    assert len(served) == len({(p, tuple(m), n) for p, m, n in served})  # no route served twice


def test_no_router_needs_what_mounting_would_drop() -> None:
    """Dependencies, lifespans and start-up hooks are what `include_router` would carry over."""
    for router in ROUTERS:
        assert not router.dependencies, router
        assert not router.on_startup and not router.on_shutdown, router
        for route in router.routes:
            if isinstance(route, APIRoute):
                assert route.path.startswith("/"), route.path


async def test_a_new_app_answers_a_page_an_api_call_and_a_refusal(sqlite_url: str) -> None:
    app = create_app(settings_for(sqlite_url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            assert (await c.get("/")).status_code == 200
            assert (await c.get("/api/v1/actions")).status_code == 200  # the published actions
            assert (await c.get("/api/v1/battles/no-such-battle")).status_code == 401  # no token
            assert (await c.get("/docs")).status_code == 200
