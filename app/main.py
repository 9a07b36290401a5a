"""create_app(): the FastAPI application with its routers, lifespan, static files and middleware."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.sessions import SessionMiddleware
from starlette.types import Receive, Scope, Send

from app.config import Settings, get_settings
from app.db import Database
from app.operations import error_ids, logs, metrics
from app.operations.observe import observe
from app.operations.shutdown import Draining
from app.realtime.broker import make_broker
from app.realtime.hub import Hub, HubSettings
from app.services.bootstrap import build_platform
from app.services.bus import ActionCommitted, settle
from app.services.reading.live_log import LiveLogs
from app.services.table import clocks, notify
from app.web.api import battlefile as api_battlefile
from app.web.api import battles, health
from app.web.api import campaigns as api_campaigns
from app.web.api import clocks as api_clocks
from app.web.api import identity as api_identity
from app.web.api import leagues as api_leagues
from app.web.api import lobby as api_lobby
from app.web.api import table as api_table
from app.web.api.action_door import ActionDoor
from app.web.drawing.render import ROOT, LiveViews, battle_seqs, read_live, templates
from app.web.live import feed, ws
from app.web.middleware.errors import install_error_handlers
from app.web.middleware.limits import SlidingWindow
from app.web.middleware.security import BodyLimit, SecurityHeaders, install_log_redaction
from app.web.pages import (
    battle,
    battlefile,
    campaigns,
    dice,
    lobby,
    map_page,
    overrides,
    profile,
    report,
    report_share,
    ship_library,
    table,
    wizard,
)
from app.web.pages import clocks as clock_pages
from app.web.pages import leagues as leagues_pages

API_DESCRIPTION = """
The Starboard REST API for bots and tools. Every participant has a bearer token (the token in
their join link). Read the battle as that participant sees it, list log events since a `seq`,
and submit actions — the same actions the pages offer, with the same rights. Errors are JSON:
`{"detail": {"error": …, "field": …, "reason": …}}` (every operation lists the statuses it can
answer). Each action carries a client-made `action_id`: a
repeat returns the first result. Send `seq` (the seq you acted on) to be refused with 409 if
the battle has moved on. In physical-dice battles send the dice values in `dice`, in the order
the rule asks for them; a missing one is answered 422 with `needed` naming the roll.
"""


SESSION_COOKIE = "starboard_session"
SESSION_MAX_AGE = 60 * 60 * 24 * 30  # seconds a browser's seat stays signed in


class StarboardApp(FastAPI):
    """FastAPI, with the battle websocket handed to its `SocketDoor` before Starlette's and
    FastAPI's own layers (error handling, routing, middleware), whose frames an open socket would
    keep alive for hours, and a well-formed REST action to its `ActionDoor` (the request a crowd's
    every update starts from; everything else about it is answered by those layers)."""

    socket_door: ws.SocketDoor | None = None
    action_door: ActionDoor | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await observe(scope, receive, send, self._dispatch)

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.action_door is not None and (acted_on := ActionDoor.battle_of(scope)) is not None:
            await self.action_door.serve(self, acted_on, scope, receive, send)
            return
        door = self.socket_door
        battle_id = ws.SocketDoor.battle_of(scope) if door is not None else None
        if door is None or battle_id is None:
            await super().__call__(scope, receive, send)
        else:
            await door.open(self, battle_id, scope, receive, send)

    async def full_stack(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The request through every layer (what the doors hand on)."""
        await super().__call__(scope, receive, send)


def freeze_heap() -> None:
    """Collect, then freeze what survives (gc.freeze): what a process builds at startup lives as
    long as the process, and with 1,000 sockets open a full collection that walked it held the
    event loop for 150-210 ms (the 160-200 ms stalls in one action's answer); frozen, the
    same collection took 15-50 ms. Objects made later are collected as before."""
    gc.collect()
    gc.freeze()


# The app's routers in the order they are matched (after /docs, /metrics and /static).
ROUTERS: tuple[APIRouter, ...] = (
    health.router,
    battles.router,
    feed.router,
    api_battlefile.router,
    ship_library.router,  # the ship library over REST
    api_table.router,
    api_identity.router,  # profiles: passkeys, recovery codes, /me
    api_campaigns.router,  # campaigns: fleets that outlive a battle
    api_clocks.router,  # the battle clock, pause and resume, pings
    clock_pages.router,  # a seat's pings from the page
    api_lobby.router,  # the lobby over REST
    lobby.router,  # the lobby, public watching and the viewscreen
    api_leagues.router,  # leagues: standings, rated battles, fleet points
    leagues_pages.router,
    table.router,
    battlefile.router,
    dice.router,
    map_page.router,  # the map's selection door
    ship_library.pages,
    report.router,
    report.api_router,
    report_share.router,
    wizard.router,  # the home page and battle creation
    overrides.router,
    profile.router,  # a profile's pages: sign-in, My battles, devices
    campaigns.router,  # campaigns: the referee's dashboard, fleet pages
    battle.router,
)


def _mount(app: FastAPI, router: APIRouter) -> None:
    """Serve a router's routes as they were built when its module was imported.

    `include_router` wraps a router anew for each app, and FastAPI builds every wrapped route's
    handler again (its dependencies, its parameters' validators) on that app's first request: a
    quarter of a CPU-second for each app the suite makes, and on a server's first request after a
    start. The routers here take their prefix, tags and schema flag where they are declared and
    nothing at inclusion, so their routes serve as they are: the same paths, the same OpenAPI.
    Invalidated by a router that needs options at inclusion (a prefix, dependencies) or by
    `app.dependency_overrides`, which such routes do not consult: use `include_router` there."""
    app.router.routes.extend(router.routes)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    refused = settings.refusal()
    if refused is not None:  # one line on stderr, exit status 1, before anything is opened
        raise SystemExit(f"starboard: refusing to start in production: {refused}")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database.from_settings(settings)
        broker = make_broker(
            settings.broadcast_url,
            publish_timeout=settings.broker_publish_timeout,
            retry_max=settings.broker_retry_max,
            connect_timeout=settings.db_connect_timeout,
        )
        platform = build_platform(settings=settings, db=db, broker=broker)
        live_logs = LiveLogs()  # each watched battle's log as the frames need it, read once
        # a commit is kept only for battles watched here (it holds the whole state)

        def keep_for_viewers(event: ActionCommitted) -> None:
            if hub.viewers.get(event.commit.battle_id):
                live_logs.committed(event.commit)

        platform.bus.on(ActionCommitted, keep_for_viewers)
        hub = Hub(
            load=lambda battle_id, since: read_live(
                db,
                battle_id,
                since,
                platform.rules,
                watching=hub.watching(battle_id),
                logs=live_logs,
                wanted=hub.wanted.get(battle_id),
                seats_version=hub.refreshes.get(battle_id, 0),
            ),
            views=LiveViews(),
            seqs=lambda battle_ids: battle_seqs(db, battle_ids),
            settings=HubSettings(
                heartbeat_seconds=settings.ws_heartbeat_seconds,
                read_timeout=settings.db_connect_timeout + settings.db_statement_timeout,
                send_timeout=settings.ws_send_timeout,
            ),
            table=partial(table.table_regions, platform),  # the table talk: its own topic, the same path
        )
        broker.subscribe(hub.wake)  # every topic: the log, the seats, the table talk
        broker.on_resubscribed(hub.resync_all)
        feeds = feed.Feeds()  # the bots' SSE feeds wake on the same wake-ups
        broker.subscribe(feeds.wake)
        broker.on_resubscribed(feeds.wake_all)
        platform.bus.on(ActionCommitted, partial(notify.on_committed, platform))  # maybe a webhook
        deadlines = asyncio.get_running_loop().create_task(notify.deadline_loop(platform))
        timer = asyncio.get_running_loop().create_task(clocks.run_timer(platform))  # time-outs, reminders
        await broker.start()
        await hub.start()
        app.state.platform = platform
        app.state.hub = hub
        app.state.feeds = feeds
        draining = Draining()  # SIGTERM: feeds told to resume elsewhere, /readyz 503
        draining.listeners.append(feeds.close_all)
        draining.install(asyncio.get_running_loop())
        app.state.draining = draining
        if settings.freeze_startup_heap:
            freeze_heap()
        try:
            yield
        finally:
            draining.begin()
            draining.uninstall()
            deadlines.cancel()
            timer.cancel()
            await platform.broker.stop()
            await hub.drain()
            # Work handed out after the last commits (checkpoints, pings) finishes before the pool
            # closes: run after it, it would open connections nobody closes.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(settle(), settings.shutdown_deadline_seconds)
            await platform.db.dispose()
            if platform.webhooks is not None:
                platform.webhooks.close()

    app = StarboardApp(
        title="Starboard",
        version="0.1.0",
        description=API_DESCRIPTION,
        lifespan=lifespan,
        openapi_url="/openapi.json",
        docs_url=None,  # served below from the vendored Swagger UI, not a CDN
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.create_limiter = SlidingWindow(
        settings.battle_create_limit, settings.battle_create_window_seconds
    )
    install_log_redaction()
    logs.configure(settings.log_format, settings.log_level)
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.secret_key,
        session_cookie=SESSION_COOKIE,
        same_site="lax",
        https_only=settings.secure_cookies == "true",
        max_age=SESSION_MAX_AGE,
    )
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders, secure_cookies=settings.secure_cookies)
    # before all of it: the battle websocket skips the HTTP layers (held for the socket's life)
    app.socket_door = ws.SocketDoor(settings.secret_key, SESSION_COOKIE, SESSION_MAX_AGE)
    # and the well-formed action request skips them too (they cost a tenth of an action's CPU)
    app.action_door = ActionDoor(settings.max_body_bytes)

    @app.get("/docs", include_in_schema=False)
    async def api_docs(request: Request) -> HTMLResponse:
        """Swagger UI from static/vendor (scripts from this origin only, as the CSP demands)."""
        return templates.TemplateResponse(request, "docs.html", {"openapi_url": app.openapi_url})

    if settings.metrics_enabled:  # off unless configured: docs/operations.md, "Metrics"
        metrics.install(app)
        app.add_api_route("/metrics", metrics.metrics, methods=["GET"], include_in_schema=False)

    app.mount("/static", StaticFiles(directory=str(ROOT / "static")), name="static")
    install_error_handlers(app)
    error_ids.install(app)  # after the handlers: each error answer quotes its request id
    for router in ROUTERS:
        _mount(app, router)
    return app
