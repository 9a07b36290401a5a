"""The battle websocket: pushes per-viewer fragments after each commit and accepts actions.

Client → server frames (JSON text): {"type": "hello", "seq": N} to (re)start from seq N (first,
within WS_HELLO_TIMEOUT); {"type": "action", "action_type", "payload", "action_id", "seen_seq",
"dice"} to act. Server → client: {"content": "<hx-partial …>…", "seq": N} (htmx swaps it),
{"type": "heartbeat", "seq": N, "every": S} every S seconds (the battle's seq: a client holding
less says hello again), and {"type": "result", …} / {"type": "error", …} answers.

Close codes: 1003 binary frame; 1008 origin, seat, no hello in time, too many sockets for the
seat or too many frames; 1009 frame too large; 1011/1013 the server could not read or send the
battle (the client reconnects and catches up by seq).
{"type": "seen"} while the page is visible (last seen, for notifications); a hello with
"chat_seq" is also answered with the table's regions (chat, requests); one with "whole": true
(the page could not apply a frame's hunks) with every region at once, even at its own seq.
A content frame may carry "patch": [[target, length, [[start, end, text], …]], …], regions the
page holds as hunks against its copy (app/realtime/diff.py; static/js/live.js applies them).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from base64 import b64decode
from typing import Any

import itsdangerous
from fastapi import WebSocket, WebSocketDisconnect
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketState

from app.operations import metrics
from app.realtime.hub import TRY_AGAIN_LATER, Hub, Subscriber
from app.services.errors import ServiceError
from app.services.store import seats
from app.services.store.battles import get_battle, get_participant
from app.services.table.lobby import PUBLIC_ID, public_watch
from app.services.write import actions
from app.services.write.actions import Command
from app.web.drawing.render import render
from app.web.live.ws_protocol import LeanWebSocketProtocol
from app.web.middleware.errors import is_unavailable
from app.web.middleware.security import csrf_token, origin_allowed, seat_in

log = logging.getLogger(__name__)

UNSUPPORTED = 1003
POLICY_VIOLATION = 1008
TOO_BIG = 1009
MAX_SEQ = 2**63 - 1  # a seq is a signed 64-bit integer in every database the app runs on


def _error(field: str | None, reason: str) -> str:
    return json.dumps({"type": "error", "field": field, "reason": reason})


class _Bucket:
    """Frames a client may send: `rate` a second on average, bursts of twice that."""

    def __init__(self, rate: float) -> None:
        self.rate, self.capacity = rate, max(1.0, 2 * rate)
        self.tokens, self.at = self.capacity, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    if websocket.application_state != WebSocketState.DISCONNECTED:
        with contextlib.suppress(Exception):  # already closed by the client or the server
            await websocket.close(code=code, reason=reason)


async def battle_socket(websocket: WebSocket) -> None:
    """The socket's whole life, started by `SocketDoor` (not a FastAPI route: FastAPI's would keep
    its dependency machinery, an exit stack and its frames, alive as long as the socket is open).
    This frame lives as long as the socket, so what only the handshake needs is read in helpers
    whose locals go with them (a reader session, the seat's row) and the decoded session cookie
    is let go once the seat and the CSRF token are known."""
    battle_id = websocket.path_params["battle_id"]
    app = websocket.app
    platform, hub, settings = app.state.platform, app.state.hub, app.state.settings
    if not origin_allowed(websocket, settings):
        await websocket.close(code=POLICY_VIOLATION, reason="origin not allowed")
        return
    try:
        try:
            participant_id = await _seat_of(platform, battle_id, seat_in(websocket, battle_id))
        except ServiceError:  # no seat here: a public watcher, where the battle is open to them
            participant_id = await _public_watcher(platform, battle_id)
            if participant_id is None:
                raise
    except ServiceError:
        await websocket.close(code=POLICY_VIOLATION, reason="join the battle first")
        return
    except Exception as exc:
        if not is_unavailable(exc):
            raise
        await websocket.accept()  # so the client gets a code it reconnects on
        await _close(websocket, TRY_AGAIN_LATER, "the battle database is unavailable; reconnecting")
        return
    csrf = csrf_token(websocket)
    del websocket.scope["session"]  # nothing reads the session after this (a socket sets no cookie)
    await websocket.accept()
    opened = hub.open_socket(battle_id, participant_id)
    try:
        if opened > settings.ws_max_sockets_per_seat and participant_id != PUBLIC_ID:
            metrics.RATE_LIMITED.labels("socket").inc()
            await _close(websocket, POLICY_VIOLATION, "too many connections")
            return
        await _serve(websocket, hub, platform, settings, battle_id, participant_id, csrf)
    finally:
        hub.close_socket(battle_id, participant_id)


async def _seat_of(platform: Any, battle_id: str, seat: Any) -> str:
    """The participant id this browser's session holds a seat for, in a battle that exists
    (ServiceError if not)."""
    async with platform.db.reader() as session:
        participant_id: str = (await get_participant(session, battle_id, seat)).id
        await get_battle(session, battle_id)
    return participant_id


async def _public_watcher(platform: Any, battle_id: str) -> str | None:
    """A browser with no seat here watches as the public (one shared spectator's view, no seat
    made) when the referee opened the battle to spectators (app/services/table/lobby.py)."""
    async with platform.db.reader() as session:
        return PUBLIC_ID if await public_watch(session, battle_id) else None


SOCKET_PATH = re.compile(r"/battles/([^/]+)/ws")


class SocketDoor:
    """The battle websocket answered before any of the application's own layers.

    Every layer an open socket passes through keeps a coroutine frame (and its locals) alive for
    the socket's whole life: Starlette's error and exception middleware, FastAPI's own, the
    sessions, security headers and body limit, routing — a sixth of an idle socket's Python heap
    (memory every idle socket would hold). None of them does anything for a websocket but the
    session, which is read here from its cookie the way Starlette's SessionMiddleware reads it
    (same signer, same maximum age). `app.main.StarboardApp` calls it first."""

    def __init__(self, secret_key: str, session_cookie: str, max_age: int) -> None:
        self.cookie = session_cookie
        self.max_age = max_age
        self.signer = itsdangerous.TimestampSigner(str(secret_key))

    def _session(self, scope: Scope) -> dict[str, Any]:
        raw = HTTPConnection(scope).cookies.get(self.cookie)
        if not raw:
            return {}
        try:
            data = self.signer.unsign(raw.encode("utf-8"), max_age=self.max_age)
            session = json.loads(b64decode(data))
        except (itsdangerous.BadSignature, ValueError):
            return {}
        return session if isinstance(session, dict) else {}

    @staticmethod
    def battle_of(scope: Scope) -> str | None:
        """The battle id when this is the battle websocket, else None (the app serves it)."""
        if scope["type"] != "websocket":
            return None
        found = SOCKET_PATH.fullmatch(scope["path"])
        return found.group(1) if found else None

    async def open(self, app: ASGIApp, battle_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        scope["app"] = app
        scope["path_params"] = {"battle_id": battle_id}
        scope["session"] = self._session(scope)
        await battle_socket(WebSocket(scope, receive, send))


async def _serve(
    websocket: WebSocket,
    hub: Hub,
    platform: Any,
    settings: Any,
    battle_id: str,
    participant_id: str,
    csrf: str,
) -> None:
    async def close(code: int, reason: str) -> None:
        await _close(websocket, code, reason)

    protocol = getattr(websocket._send, "__self__", None)  # uvicorn's protocol, when it is ours
    write_now = protocol.write_text_now if isinstance(protocol, LeanWebSocketProtocol) else None
    viewer = Subscriber(battle_id, participant_id, websocket.send_text, close, csrf=csrf, write_now=write_now)
    bucket = _Bucket(settings.ws_max_frames_per_second)
    deadline = time.monotonic() + settings.ws_hello_timeout
    try:
        while True:
            if viewer.last_seq is None:  # no hello yet: wait for it only so long
                left = deadline - time.monotonic()
                try:
                    message = await asyncio.wait_for(websocket.receive(), max(0.0, left))
                except TimeoutError:
                    await close(POLICY_VIOLATION, f"say hello within {settings.ws_hello_timeout:g} s")
                    return
            else:
                message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                await close(UNSUPPORTED, "binary frames are not accepted; send JSON text")
                return
            if len(raw) > settings.max_ws_frame_bytes or len(raw.encode()) > settings.max_ws_frame_bytes:
                await close(TOO_BIG, "frame too large")
                return
            if not bucket.take():
                metrics.RATE_LIMITED.labels("socket").inc()
                await close(POLICY_VIOLATION, "too many frames")
                return
            try:
                await _handle(websocket, viewer, hub, platform, raw)
            except ServiceError:  # the seat was removed (or the battle is gone) while connected
                await close(POLICY_VIOLATION, "you are not part of this battle")
                return
    except (RuntimeError, OSError, WebSocketDisconnect):  # the client went away while we answered
        return
    finally:
        viewer.closed = True
        hub.leave(viewer)
        with contextlib.suppress(Exception):  # what they saw live counts as seen
            await seats.mark_seen(platform, participant_id, viewer.last_seq)


async def _handle(websocket: WebSocket, viewer: Subscriber, hub: Hub, platform: Any, raw: str) -> None:
    try:
        message = json.loads(raw)
        kind = message.get("type")
    except (ValueError, AttributeError, RecursionError):
        await websocket.send_text(_error(None, "frames must be JSON objects"))
        return
    if kind == "hello":
        seq = message.get("seq")
        if type(seq) is not int or not 0 <= seq <= MAX_SEQ:
            await websocket.send_text(_error("seq", "hello needs the seq you hold: a whole number from 0"))
            return
        hub.hello(viewer, seq, whole=message.get("whole") is True)
        try:
            await seats.mark_seen(platform, viewer.participant_id, seq)  # last seen (notifications)
        except Exception as exc:  # a busy database must not cost the socket: the frames still come
            if not is_unavailable(exc):
                raise
            log.info("last seen not marked for a viewer of %s: %r", viewer.battle_id, exc)
        if "chat_seq" in message:  # the chat and requests as they are now
            await hub.send_table([viewer])
        return
    if kind == "seen":  # the page is open and visible (no notification while active)
        await seats.mark_seen(platform, viewer.participant_id)
        return
    if kind == "action":
        try:
            command = Command(
                viewer.battle_id,
                viewer.participant_id,
                str(message.get("action_type", "")),
                message.get("payload") or {},
                str(message.get("action_id", "")),
                message.get("seen_seq"),
                message.get("dice"),
            )
            result = await actions.submit(platform, command)
            if isinstance(result, actions.Queued):  # damage that waits for the referee
                await websocket.send_text(json.dumps({"type": "queued", "request": result.request.id}))
                return
        except ServiceError as exc:
            flash = render("partials/flash.html", {"message": exc.message, "level": "error"})
            await websocket.send_text(
                json.dumps(
                    {
                        "type": "error",
                        **exc.as_dict(),
                        "content": f'<hx-partial hx-target="#flash" hx-swap="innerHTML">{flash}</hx-partial>',
                    }
                )
            )
            return
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            await websocket.send_text(_error(None, "the battle database is unavailable; try again shortly"))
            return
        await websocket.send_text(
            json.dumps({"type": "result", "seq": result.seq, "duplicate": result.duplicate})
        )
        return
    await websocket.send_text(_error("type", f"unknown frame type {str(kind)[:40]!r}"))
