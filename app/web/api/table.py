"""At the table over REST: chat, notification settings, catch-up, requests, table options.
Same services as the pages, same per-viewer reads; a private message or a request is answered only
to its ends, and a webhook URL only to its owner."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from app.services.errors import Forbidden
from app.services.reading.views import catch_up, viewer_of
from app.services.store import seats
from app.services.store.battles import get_battle, load_state
from app.services.table import chat, notify
from app.services.write import requests
from app.web.deps import Creds, PlatformDep, errors, participant_by_bearer

router = APIRouter(prefix="/api/v1", tags=["table"])


class ChatIn(BaseModel):
    text: str = Field(description="at most CHAT_MAX_CHARS (500) characters")
    to: str | None = Field(
        default=None,
        description="None: everyone; 'referee': a player's private line; a player's id: the referee's",
    )


@router.get("/battles/{battle_id}/chat", responses=errors(401, 403, 404))
async def read_chat(
    battle_id: str, platform: PlatformDep, creds: Creds, since: int = Query(default=0, ge=0, le=2**31 - 1)
) -> dict[str, Any]:
    """The table talk this participant may read (public, and private lines they are an end of).
    `seq` numbers the messages *you* may read (1, 2, …), so `since` pages on without gaps."""
    me = await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        lines = await chat.lines_for(session, battle_id, me, since=since, limit=None)
        seq = await chat.visible_count(session, battle_id, me)
    return {"chat_seq": seq, "messages": [line.as_dict() for line in lines]}


@router.post("/battles/{battle_id}/chat", status_code=201, responses=errors(401, 403, 404, 429))
async def write_chat(battle_id: str, body: ChatIn, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """Say something at the table (429 when writing faster than the limit)."""
    me = await participant_by_bearer(platform, battle_id, creds)
    line = await chat.post(platform, battle_id, me.id, body.text, body.to)
    return line.as_dict()


class WebhookIn(BaseModel):
    webhook_url: str | None = Field(default=None, description="http(s) URL; empty or null turns it off")


@router.get("/battles/{battle_id}/notifications", responses=errors(401, 403, 404))
async def read_notifications(battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """Your own webhook (nobody else's)."""
    me = await participant_by_bearer(platform, battle_id, creds)
    return {"webhook_url": await notify.webhook_of(platform, me)}


@router.put("/battles/{battle_id}/notifications", responses=errors(401, 403, 404, 429, 503))
async def write_notifications(
    battle_id: str, body: WebhookIn, platform: PlatformDep, creds: Creds
) -> dict[str, Any]:
    """Opt into a webhook (Discord-compatible `{"content": …}` body), sent once each time the battle
    starts waiting on you while you are away from the page."""
    me = await participant_by_bearer(platform, battle_id, creds)
    return {"webhook_url": await notify.set_webhook(platform, me, body.webhook_url)}


@router.post("/battles/{battle_id}/notifications/test", responses=errors(401, 403, 404, 429, 503))
async def test_notification(battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """Send one test message now: `delivered` says whether the webhook answered 2xx. A seat's
    webhook gets at most WEBHOOK_SEAT_LIMIT calls per WEBHOOK_SEAT_WINDOW_SECONDS (429), and when
    every webhook slot of the server is busy the answer is 503 with Retry-After."""
    me = await participant_by_bearer(platform, battle_id, creds)
    return {"delivered": await notify.send_test(platform, me)}


@router.get("/battles/{battle_id}/catch-up", responses=errors(401, 403, 404))
async def read_catch_up(battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """What happened (as you may see it) since the seq you last looked at or acted on, and the
    table talk others wrote since you last read (`talk`: count, first lines; null when none);
    reading it here marks the battle's current seq as seen."""
    me = await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        state, seq = await load_state(session, battle_id, platform.rules)
        viewer = viewer_of(me, state)
        earlier = await seats.read_status(session, me.id)
    left_at = earlier.last_seen_at if earlier is not None else None
    before = await seats.mark_seen(platform, me.id, seq)
    async with platform.db.reader() as session:
        summary = await catch_up(session, battle, viewer, before, seq)
        talk = await chat.since_visit(session, battle_id, me, left_at)
    return {"seq": seq, "since": before, "summary": summary, "talk": talk}


class AskIn(BaseModel):
    reason: str = Field(min_length=3, max_length=300)


class AnswerIn(BaseModel):
    approve: bool
    answer: str = Field(default="", max_length=300, description="why, when refusing")


@router.get("/battles/{battle_id}/requests", responses=errors(401, 403, 404))
async def read_requests(battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """The referee: every request; a player: their own."""
    me = await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        shown = await requests.requests_for(session, battle, me, rules=platform.rules)
    return {"requests": [r.as_dict() for r in shown]}


@router.post("/battles/{battle_id}/requests", status_code=201, responses=errors(401, 403, 404))
async def ask_undo(battle_id: str, body: AskIn, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    """A player asks the referee to undo their own last action (while it is the battle's last)."""
    me = await participant_by_bearer(platform, battle_id, creds)
    req = await requests.ask_undo(platform, battle_id, me.id, body.reason)
    return {"id": req.id, "kind": req.kind, "target_seq": req.target_seq, "status": req.status}


@router.post("/battles/{battle_id}/requests/{request_id}", responses=errors(401, 403, 404, 409))
async def answer(
    battle_id: str,
    request_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    body: AnswerIn,
    platform: PlatformDep,
    creds: Creds,
) -> dict[str, Any]:
    """The referee approves or refuses a request."""
    me = await participant_by_bearer(platform, battle_id, creds)
    row = await requests.decide(platform, battle_id, me.id, request_id, body.approve, body.answer)
    return {"id": row.id, "status": row.status, "answer": row.answer, "result_seq": row.result_seq}


@router.get("/battles/{battle_id}/table", responses=errors(401, 403, 404))
async def read_table(battle_id: str, platform: PlatformDep, creds: Creds) -> dict[str, Any]:
    await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        return {"options": await seats.table_options(session, await get_battle(session, battle_id))}


@router.patch("/battles/{battle_id}/table", responses=errors(401, 403, 404))
async def change_table(
    battle_id: str, body: dict[str, Any], platform: PlatformDep, creds: Creds
) -> dict[str, Any]:
    """Referee: spectators_chat, damage_needs_approval, step_deadline_minutes."""
    me = await participant_by_bearer(platform, battle_id, creds)
    if me.role != "referee":
        raise Forbidden("only the referee changes the table's options")
    options = await seats.set_table_options(platform, battle_id, me, body)
    return {"options": options}
