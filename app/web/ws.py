"""The battle websocket: pushes per-viewer fragments after each commit and accepts actions.

Client → server frames (JSON): {"type": "hello", "seq": N} to (re)start from seq N;
{"type": "action", "action_type", "payload", "action_id", "seen_seq", "dice"} to act;
{"type": "seen"} while the page is visible (issue 11: last seen). A hello with "chat_seq" is
also answered with the table's regions (chat, requests).
Server → client: {"content": "<hx-partial …>…", "seq": N} (htmx swaps it), and
{"type": "result", …} / {"type": "error", …} answers to actions.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from app.realtime.hub import Subscriber
from app.services import actions as action_service
from app.services import seats
from app.services.actions import Command
from app.services.battles import get_battle, get_participant
from app.services.errors import ServiceError
from app.services.requests import queue_if_needed
from app.web.render import live_fragments, render
from app.web.security import csrf_token, origin_allowed, seat_in

router = APIRouter()
log = logging.getLogger(__name__)

POLICY_VIOLATION = 1008
TOO_BIG = 1009


@router.websocket("/battles/{battle_id}/ws")
async def battle_socket(websocket: WebSocket, battle_id: str) -> None:
    app = websocket.app
    platform, hub, settings = app.state.platform, app.state.hub, app.state.settings
    if not origin_allowed(websocket, settings):
        await websocket.close(code=POLICY_VIOLATION, reason="origin not allowed")
        return
    participant_id = seat_in(websocket, battle_id)
    try:
        async with platform.db.reader() as session:
            participant = await get_participant(session, battle_id, participant_id)
            await get_battle(session, battle_id)
    except ServiceError:
        await websocket.close(code=POLICY_VIOLATION, reason="join the battle first")
        return
    csrf = csrf_token(websocket)
    await websocket.accept()

    async def render_since(since: int) -> tuple[str, int]:
        async with platform.db.reader() as session:
            battle = await get_battle(session, battle_id)
            me = await get_participant(session, battle_id, participant.id)
            return await live_fragments(session, battle, me, since, csrf, platform.rules)

    viewer = Subscriber(battle_id, participant.id, websocket.send_text, render_since)
    hub.join(viewer)
    try:
        while True:
            raw = await websocket.receive_text()
            if len(raw.encode()) > settings.max_ws_frame_bytes:
                await websocket.close(code=TOO_BIG, reason="frame too large")
                return
            try:
                await _handle(websocket, viewer, platform, participant.id, raw)
            except ServiceError:  # the seat was removed (or the battle is gone) while connected
                await websocket.close(code=POLICY_VIOLATION, reason="you are not part of this battle")
                return
    except WebSocketDisconnect:
        pass
    finally:
        hub.leave(viewer)
        with contextlib.suppress(Exception):  # issue 11: what they saw live counts as seen
            await seats.mark_seen(platform, participant.id, viewer.last_seq)


async def _handle(
    websocket: WebSocket, viewer: Subscriber, platform: Any, participant_id: str, raw: str
) -> None:
    try:
        message = json.loads(raw)
        kind = message.get("type")
    except (ValueError, AttributeError, RecursionError):
        await websocket.send_text(
            json.dumps({"type": "error", "field": None, "reason": "frames must be JSON objects"})
        )
        return
    if kind == "hello":
        seq = message.get("seq")
        viewer.last_seq = seq if isinstance(seq, int) and seq >= 0 else 0
        await viewer.catch_up()
        await seats.mark_seen(platform, participant_id, viewer.last_seq)  # issue 11: last seen
        if "chat_seq" in message:  # issue 11: the chat and requests as they are now
            await websocket.app.state.table_live.send(viewer, always=True)
        return
    if kind == "seen":  # issue 11: the page is open and visible (no notification while active)
        await seats.mark_seen(platform, participant_id)
        return
    if kind == "action":
        try:
            command = Command(
                viewer.battle_id,
                participant_id,
                str(message.get("action_type", "")),
                message.get("payload") or {},
                str(message.get("action_id", "")),
                message.get("seen_seq"),
                message.get("dice"),
            )
            queued = await queue_if_needed(platform, command)  # issue 11: damage waiting for approval
            if queued is not None:
                await websocket.send_text(json.dumps({"type": "queued", "request": queued.id}))
                return
            result = await action_service.submit(platform, command)
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
        await websocket.send_text(
            json.dumps({"type": "result", "seq": result.seq, "duplicate": result.duplicate})
        )
        return
    await websocket.send_text(
        json.dumps({"type": "error", "field": "type", "reason": f"unknown frame type {kind!r}"})
    )
