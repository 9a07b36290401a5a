"""The push feed for bots: `GET /api/v1/battles/{id}/feed`, Server-Sent Events.

Each log entry after the client's position is one event, `id: <seq>` and `data: {json}`, with the
events this participant may read (the same `visible_log`/`event_for` filtering every door uses),
the ships they touched and whether the battle now waits on this participant. The stream wakes on
the broker, like the websocket hub (`Feeds.wake` is subscribed in app/main.py), and re-reads the
battle's seq at each keep-alive, so a missed wake-up costs at most one keep-alive interval."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from sqlalchemy import select
from starlette.types import Receive, Scope, Send

from app.models import Battle, Participant
from app.operations import metrics
from app.realtime.broker import Topic
from app.services.errors import Busy, Invalid, RateLimited
from app.services.reading.views import LogEntry, viewer_of, visible_log
from app.services.store.battles import get_battle, load_state
from app.web.deps import SEQ_MAX, Creds, PlatformDep, errors, participant_by_bearer
from app.web.middleware.errors import is_unavailable
from app.web.numbers import whole_number

router = APIRouter(prefix="/api/v1", tags=["api"])

KEEPALIVE_SECONDS = 15.0
BATCH = 200  # log entries read per query while catching up


# The last frame of a feed whose server is shutting down: reconnect in a second (to another
# replica) with Last-Event-ID; no `id:`, so the last entry's seq stays the one to resume after.
RESTART = b'retry: 1000\nevent: restart\ndata: {"restart": true}\n\n'


class Feeds:
    """Open feeds by battle: each connection's Event, set by a broker wake-up for its battle; and
    how many are held open, per seat and in this process (each open feed costs a query per
    wake-up, so they are bounded: FEED_MAX_PER_SEAT, FEED_MAX_PER_PROCESS)."""

    def __init__(self) -> None:
        self.waiting: dict[str, set[asyncio.Event]] = {}
        self.held: dict[str, int] = {}  # open feeds by participant
        self.total = 0
        self.closing = False  # the process is shutting down: every feed ends with RESTART

    def hold(self, seat_id: str, per_seat: int, per_process: int, retry_after: int) -> Callable[[], None]:
        """Count one more open feed for this seat, or refuse it: 429 past the seat's own bound, 503
        with Retry-After when the process holds its most. Check and count happen with no await
        between them, so concurrent requests cannot both take the last place. Answers the release
        (safe to call twice)."""
        if self.held.get(seat_id, 0) >= per_seat:
            raise RateLimited(
                f"at most {per_seat} open feeds for one seat; close one first", None, retry_after=retry_after
            )
        if self.total >= per_process:
            raise Busy(
                "this server holds as many feeds as it may; try again shortly", None, retry_after=retry_after
            )
        self.held[seat_id] = self.held.get(seat_id, 0) + 1
        self.total += 1
        released = False

        def release() -> None:
            nonlocal released
            if released:
                return
            released = True
            self.total -= 1
            left = self.held.get(seat_id, 1) - 1
            if left > 0:
                self.held[seat_id] = left
            else:
                self.held.pop(seat_id, None)

        return release

    def close_all(self) -> None:
        """Shutting down: wake every feed, which ends with a `restart` event (bots resume elsewhere)."""
        self.closing = True
        for events in self.waiting.values():
            for event in events:
                event.set()

    def add(self, battle_id: str) -> asyncio.Event:
        event = asyncio.Event()
        self.waiting.setdefault(battle_id, set()).add(event)
        return event

    def remove(self, battle_id: str, event: asyncio.Event) -> None:
        events = self.waiting.get(battle_id)
        if events is not None:
            events.discard(event)
            if not events:
                del self.waiting[battle_id]

    async def wake(self, battle_id: str, seq: int, topic: Topic = Topic.LOG) -> None:
        """A broker listener: an action was committed in the battle, or its seats changed (a feed
        whose token was rotated or whose seat was removed closes at once). Table talk is not in a
        feed."""
        if topic is Topic.TABLE:
            return
        for event in self.waiting.get(battle_id, ()):
            event.set()

    async def wake_all(self) -> None:
        """After the broker resubscribed: wake-ups may have been missed, so every feed looks."""
        for events in self.waiting.values():
            for event in events:
                event.set()


def _item(entry: LogEntry, waiting_on_you: bool, finished: bool) -> dict[str, Any]:
    ships = sorted({e["ship"] for e in entry.events if e.get("ship")})
    return {
        "seq": entry.seq,
        "action_type": entry.action_type,
        "actor": entry.actor,
        "clock": entry.clock,
        "events": entry.events,
        "ships": ships,
        "waiting_on_you": waiting_on_you,
        "finished": finished,
        **({"hidden": True} if entry.hidden else {}),
    }


async def _still_seated(platform: Any, participant: Participant) -> bool:
    async with platform.db.reader() as session:
        row = await session.get(Participant, participant.id)
        return row is not None and row.active and row.token_hash == participant.token_hash


async def _position_of(platform: Any, battle_id: str) -> tuple[int, bool]:
    """The battle's seq and whether it has ended: the one cheap query each wake-up makes."""
    async with platform.db.reader() as session:
        row = (await session.execute(select(Battle.seq, Battle.status).where(Battle.id == battle_id))).one()
    return int(row.seq or 0), row.status == "finished"


async def _read(
    platform: Any, battle_id: str, participant: Participant, since: int
) -> tuple[list[dict[str, Any]], int, bool]:
    """Up to BATCH entries after `since` as this participant reads them, the seq read up to, and
    whether that is the end of the battle."""
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        state, seq = await load_state(session, battle_id, platform.rules)
        viewer = viewer_of(participant, state)
        until = min(seq, since + BATCH)
        entries = await visible_log(session, battle, viewer, since=since, until=until)
    finished = battle.status == "finished" or state.finished
    mine = not finished and state.game.waits_on(state, participant.id, participant.role == "referee")
    # Only the newest entry is read against the state now: earlier ones of a catch-up carry false.
    out = [_item(e, mine and e.seq == seq, finished and e.seq == seq) for e in entries]
    return out, until, finished and until == seq


class HeldFeed(StreamingResponse):
    """A feed's response that gives its place back however the stream ends (the client left, the
    stream ended, the server stopped): the release runs when the response is done being sent."""

    def __init__(self, content: AsyncIterator[bytes], release: Callable[[], None], **kw: Any) -> None:
        super().__init__(content, **kw)
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


def _frame(item: dict[str, Any]) -> bytes:
    return f"id: {item['seq']}\ndata: {json.dumps(item, separators=(',', ':'))}\n\n".encode()


@router.get(
    "/battles/{battle_id}/feed",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
            "description": (
                "Server-Sent Events: for each log entry after your position, `id: <seq>` and "
                '`data: {"seq", "action_type", "actor", "clock", "events", "ships", '
                '"waiting_on_you", "finished", "hidden"?}`; a `: keep-alive` comment every 15 s.'
            ),
        },
        **errors(401, 403, 404, 422, 429, 503),
    },
)
async def feed(
    battle_id: str,
    request: Request,
    platform: PlatformDep,
    creds: Creds,
    since: Annotated[int | None, Query(ge=0, le=SEQ_MAX, description="resume after this seq")] = None,
    last_event_id: Annotated[
        str | None, Header(description="resume after this seq (sent by EventSource on reconnect)")
    ] = None,
) -> StreamingResponse:
    """A push feed for bots: Server-Sent Events, one per log entry after `since` (or the
    `Last-Event-ID` header; 0 without either), each with only the events this participant may read,
    the ship ids they touched, and `waiting_on_you`: whether the battle, as it is now, waits on you
    (it is true only on the newest entry sent; earlier entries of a catch-up carry false). Entries
    you may read nothing of arrive as `{"seq", "hidden": true}` with no events, so your seq stays
    current. The stream ends after the entry that finishes the battle (`finished: true`), or when
    your token stops working. Comments (`: keep-alive`) keep idle connections open."""
    participant = await participant_by_bearer(platform, battle_id, creds)
    position = since
    if position is None and last_event_id is not None:
        position = whole_number(last_event_id.strip(), high=SEQ_MAX)
        if position is None:  # ASCII digits only: '²' passes str.isdigit() but not int()
            raise Invalid("Last-Event-ID: must be a seq (a whole number)", "Last-Event-ID")
    position = position or 0
    async with platform.db.reader() as session:
        await get_battle(session, battle_id)
    feeds: Feeds = request.app.state.feeds
    s = platform.settings
    release = feeds.hold(participant.id, s.feed_max_per_seat, s.feed_max_per_process, s.retry_after_seconds)

    async def stream(position: int) -> AsyncIterator[bytes]:
        woken = feeds.add(battle_id)
        try:
            yield b": feed open\n\n"
            while True:
                woken.clear()
                if feeds.closing:
                    yield RESTART
                    return
                if not await _still_seated(platform, participant):
                    return
                seq, finished = await _position_of(platform, battle_id)
                if seq > position:
                    items, position, ended = await _read(platform, battle_id, participant, position)
                    for item in items:
                        frame = _frame(item)
                        metrics.FEED_FRAMES.inc()
                        metrics.FEED_BYTES.inc(len(frame))
                        yield frame
                    if ended:
                        return
                    continue  # more may have come (or a batch was full)
                if finished:
                    return
                try:
                    await asyncio.wait_for(woken.wait(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    yield b": keep-alive\n\n"
        except Exception as exc:  # the database went away mid-stream: say when to come back
            if not is_unavailable(exc):
                raise
            retry_ms = platform.settings.retry_after_seconds * 1000
            yield f"retry: {retry_ms}\n: the battle database is unavailable; reconnect\n\n".encode()
        finally:
            feeds.remove(battle_id, woken)

    return HeldFeed(
        stream(position),
        release,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
