"""Notifications for slow games: a webhook a participant opts into (a Discord-compatible
JSON body `{"content": "…"}`), sent once each time the battle *starts* waiting on them.

After each committed action (a handler on the platform's bus) the notifier compares who the step waits on
(`Game.awaited`) with what it saw at the previous action (`SeatStatus.awaited`); each seat newly
waited on (or waited on by a step that began in this action), not seen on the page in the last `notify_idle_seconds`, gets one message — in a
background task with retries and backoff, never blocking or failing the action. Finished battles
notify nobody. A periodic check tells the referee when a step waited longer than the battle's
`step_deadline_minutes`.

Sends go through app/services/table/webhooks.py: their own bounded threads, a deadline per attempt,
a global cap and a per-seat rate, so a receiver that never answers slows nobody's game.

A message says only what the turn bar shows everyone (the battle's name, the step, who it waits on).
Webhook URLs are secrets: only their owner reads them back. They must be http(s) and, unless
WEBHOOK_ALLOW_PRIVATE is set, resolve to public addresses only (no loopback, private, link-local,
reserved, mapped or translated targets: SSRF; see outbound_address.py); each send connects to the
address it checked; redirects are not followed."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
from collections.abc import Awaitable
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError

from app.models import ActionLog, Battle, Participant, SeatStatus, TableSettings
from app.rules.generic.timing import span
from app.services.bus import ActionCommitted
from app.services.errors import Busy, Forbidden, Invalid, ServiceError
from app.services.platform import Platform
from app.services.store.battles import load_state, participants
from app.services.store.seats import (
    aware,
    mark_seen,
    recently_seen,
    seen_at,
    status_of,
    statuses,
    table_options,
    utcnow,
)
from app.services.table import pings
from app.services.table.outbound_address import resolve
from app.services.table.webhooks import webhooks_of

log = logging.getLogger(__name__)

MAX_URL = 500


def check_url(url: str, allow_private: bool) -> str:
    """A webhook URL as it may be kept: http(s), a host, no credentials, a public target."""
    url = url.strip()
    if len(url) > MAX_URL:
        raise Invalid(f"a webhook URL is at most {MAX_URL} characters", "webhook_url")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid("a webhook is an http:// or https:// URL", "webhook_url")
    if parts.username or parts.password:
        raise Invalid("put no user name or password in the webhook URL", "webhook_url")
    try:
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:
        raise Invalid("the webhook URL's port is not a number", "webhook_url") from None
    if not allow_private:  # each send resolves and checks again, and connects to what it checked
        resolve(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), False)
    return url


async def deliver(
    platform: Platform,
    url: str,
    content: str,
    *,
    retries: int | None = None,
    seat: str | None = None,
    embeds: list[dict[str, Any]] | None = None,
) -> bool:
    """POST {"content": …} with retries and exponential backoff; True once a 2xx answers. A message
    the server started (`retries` None) is dropped with a log line when the seat's rate is spent or
    every webhook slot is busy; a test (`retries` given) raises those refusals instead."""
    s = platform.settings
    sender = webhooks_of(platform)
    asked = retries is not None
    if seat is not None:
        if asked:
            sender.check_seat(seat)
        elif (wait := sender.seat_allows(seat)) is not None:
            log.warning("webhook message dropped: the seat's rate is spent for %s s", wait)
            return False
    # "@" gets a zero-width space: a battle or seat name never pings @everyone on Discord.
    message: dict[str, Any] = {"content": content[:1900].replace("@", "@\u200b")}
    if embeds:  # Discord's optional embeds (pings.py): plain text a receiver may ignore
        message["embeds"] = embeds[:10]
    body = json.dumps(message).encode()
    attempts = 1 + (s.webhook_retries if retries is None else retries)
    delay = s.webhook_backoff_seconds
    for attempt in range(attempts):
        try:
            status = await sender.post(url, body)
            if 200 <= status < 300:
                return True
            log.info("webhook answered %s (attempt %s)", status, attempt + 1)
        except Invalid as exc:
            log.warning("webhook refused: %s", exc.message)
            return False
        except Busy:
            if asked:
                raise
            log.warning("webhook message dropped: all %s webhook slots are busy", sender.cap)
            return False
        except (OSError, http.client.HTTPException) as exc:  # TimeoutError is an OSError
            log.info("webhook failed (attempt %s): %r", attempt + 1, exc)
        if attempt + 1 < attempts:
            await asyncio.sleep(delay)
            delay *= 2
    return False


_tasks: set[asyncio.Task[Any]] = set()
_locks: dict[str, asyncio.Lock] = {}
_compared: dict[str, int] = {}  # battle → the last seq whose waits were compared in this process


def _spawn(coro: Any) -> None:
    task = asyncio.get_running_loop().create_task(coro)
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def drain() -> None:
    """Wait for notifications under way (tests, shutdown)."""
    while _tasks:
        await asyncio.gather(*list(_tasks), return_exceptions=True)


async def set_webhook(platform: Platform, participant: Participant, url: str | None) -> str | None:
    """Opt into (or, with an empty URL, out of) notifications for this seat."""
    if participant.role == "spectator":
        raise Forbidden("spectators are never waited on; there is nothing to notify", "webhook_url")
    kept = None
    if url and url.strip():  # the name is resolved on the webhook threads, counted as a call
        sender = webhooks_of(platform)
        sender.check_seat(participant.id)
        check = partial(check_url, allow_private=platform.settings.webhook_allow_private)
        try:
            kept = await sender.check(url, check)
        except TimeoutError:
            raise Invalid("the webhook's host took too long to resolve", "webhook_url") from None
    for _attempt in range(3):
        try:
            async with platform.db.transaction() as session:
                row = await status_of(session, participant)
                row.webhook_url = kept
                # A wait already under way when they opt in is not "starting" at the next action.
                state, _ = await load_state(session, participant.battle_id, platform.rules)
                row.awaited = not state.finished and state.game.waits_on(
                    state, participant.id, participant.role == "referee"
                )
            return kept
        except IntegrityError:  # the seat's first visit made its status row meanwhile: go again
            continue
    raise ServiceError("the seat is busy; try again")


async def webhook_of(platform: Platform, participant: Participant) -> str | None:
    """The owner's own webhook URL (never shown to anyone else)."""
    async with platform.db.reader() as session:
        row = await session.get(SeatStatus, participant.id)
    return row.webhook_url if row is not None else None


async def send_test(platform: Platform, participant: Participant) -> bool:
    url = await webhook_of(platform, participant)
    if not url:
        raise Invalid("set a webhook URL first", "webhook_url")
    async with platform.db.reader() as session:
        battle = await session.get(Battle, participant.battle_id)
    name = battle.name if battle is not None else "this battle"
    text = f"Starboard: test notification for {participant.name} in “{name}”."
    return await deliver(platform, url, text, retries=0, seat=participant.id)


def spawn(coro: Any) -> None:
    """Start a send in the background (pings.py): the game never waits for it."""
    _spawn(coro)


def link_to(platform: Platform, battle_id: str) -> str:
    return _link(platform, battle_id)


def _link(platform: Platform, battle_id: str) -> str:
    base = platform.settings.public_url
    return f" {base.rstrip('/')}/battles/{battle_id}" if base else ""


def on_committed(platform: Platform, event: ActionCommitted) -> Awaitable[None] | None:
    """After each committed action (a handler on the platform's bus): the action's own write
    recorded that the actor was just active, and whether any seat of the battle opted into a
    webhook. Most battles have none: then nothing more runs for this action; otherwise
    `after_commit` follows, in the background."""
    battle_id, seq = event.commit.battle_id, event.commit.seq
    if event.seen and not event.hooked:
        _compared[battle_id] = max(_compared.get(battle_id, seq), seq)
        return None
    return after_commit(platform, battle_id, seq, event.actor_id)


async def after_commit(platform: Platform, battle_id: str, seq: int, actor_id: str | None) -> None:
    """The after-commit callback: the actor was just active; then one message per new wait.

    It runs after every action, so it costs one transaction: the actor's last-seen update and the
    battle's seat statuses; a battle where nobody opted into a webhook (most) stops there, since
    `SeatStatus.awaited` only decides messages (an opt-in sets its own, `set_webhook`)."""
    lock = _locks.setdefault(battle_id, asyncio.Lock())
    async with lock:
        sends: list[tuple[str, str, str]] = []
        seen = False
        async with platform.db.transaction() as session:
            if actor_id:
                seen = await seen_at(session, actor_id, seq)
            rows = await statuses(session, battle_id)
            if not any(row.webhook_url for row in rows.values()):
                _compared[battle_id] = max(_compared.get(battle_id, seq), seq)
                rows = None
        if actor_id and not seen:  # no status row yet: the first visit makes it
            await mark_seen(platform, actor_id, seq)
        if rows is None:
            return
        async with platform.db.transaction() as session:
            battle = await session.get(Battle, battle_id)
            if battle is None:
                return
            # Always the latest state, compared once per seq: callbacks that run out of order (two
            # quick actions) see nothing new the second time.
            state, current = await load_state(session, battle_id, platform.rules)
            since = _compared.get(battle_id, seq - 1)
            if current <= since:
                return
            _compared[battle_id] = current
            people = {p.id: p for p in await participants(session, battle_id) if p.active}
            referees = [p.id for p in people.values() if p.role == "referee"]
            awaited = set() if state.finished else set(state.game.seats(state.game.awaited(state), referees))
            rows = await statuses(session, battle_id)
            step = state.game.step(state.clock).title(state.clock)
            wanted = await pings.for_battle(session, battle_id)
            moved = await session.scalars(
                select(ActionLog).where(
                    ActionLog.battle_id == battle_id, ActionLog.seq > since, ActionLog.seq <= current
                )
            )
            # A step that ended and began again since the last comparison is a new wait for those it
            # waits on (even if they were waited on just before).
            new_step = any(e.get("kind") in ("clock", "rewind") for row in moved for e in row.events)
            for pid in awaited - set(rows):
                if pid in people:
                    rows[pid] = await status_of(session, people[pid])
            for pid, row in rows.items():
                now_waited = pid in awaited and pid in people
                idle = not recently_seen(row, platform.settings.notify_idle_seconds)
                asked = wanted.get(pid, pings.DEFAULT)  # the seat's choice of pings
                wants = asked.your_move and asked.webhook
                if now_waited and (new_step or not row.awaited) and row.webhook_url and idle and wants:
                    link = _link(platform, battle_id)
                    text = f"Starboard: “{battle.name}” is waiting on you — {step}.{link}"
                    sends.append((pid, row.webhook_url, text))
                row.awaited = now_waited
        for pid, url, text in sends:
            _spawn(deliver(platform, url, text, seat=pid))


async def _step_start(session: Any, battle_id: str, seq: int) -> tuple[int, Any]:
    """The seq and time of the action that began the current step (0 and None: the battle's start)."""
    rows = await session.scalars(
        select(ActionLog)
        .where(ActionLog.battle_id == battle_id, ActionLog.seq <= seq)
        .order_by(ActionLog.seq.desc())
        .limit(200)
    )
    for row in rows:
        if any(e.get("kind") in ("clock", "rewind") for e in row.events):
            return row.seq, aware(row.created_at)
    return 0, None


async def check_deadlines(platform: Platform, now: Any = None) -> int:
    """Tell each referee with a webhook when the current step has waited past the battle's deadline
    (once per step). Answers how many messages were started."""
    now = now or utcnow()
    sent = 0
    async with platform.db.transaction() as session:
        rows = await session.scalars(select(TableSettings))
        for settings_row in list(rows):
            battle = await session.get(Battle, settings_row.battle_id)
            if battle is None or battle.status == "finished":
                continue
            minutes = (await table_options(session, battle))["step_deadline_minutes"]
            if not minutes:
                continue
            start_seq, began = await _step_start(session, battle.id, battle.seq)
            began = began or aware(battle.created_at)
            if (
                settings_row.deadline_reported_seq == start_seq
                or (now - began).total_seconds() < minutes * 60
            ):
                continue
            state, _ = await load_state(session, battle.id, platform.rules)
            people = {p.id: p for p in await participants(session, battle.id)}
            referees = [p.id for p in people.values() if p.role == "referee" and p.active]
            waiting = [
                people[p].name for p in state.game.seats(state.game.awaited(state), referees) if p in people
            ]
            if not waiting:
                continue
            # Claimed with a conditional update: of several server processes checking, one tells.
            claimed = await session.execute(
                update(TableSettings)
                .where(
                    TableSettings.battle_id == battle.id,
                    or_(
                        TableSettings.deadline_reported_seq.is_(None),
                        TableSettings.deadline_reported_seq != start_seq,
                    ),
                )
                .values(deadline_reported_seq=start_seq)
                .execution_options(synchronize_session=False)
            )
            if claimed.rowcount != 1:
                continue
            step = state.game.step(state.clock).title(state.clock)
            text = (
                f"Starboard: “{battle.name}” — {step} has waited over {minutes} min on "
                f"{', '.join(waiting)}.{_link(platform, battle.id)}"
            )
            seats = await statuses(session, battle.id)
            for pid, p in people.items():
                row = seats.get(pid)
                if p.role == "referee" and p.active and row is not None and row.webhook_url:
                    _spawn(deliver(platform, row.webhook_url, text, seat=pid))
                    sent += 1
    return sent


async def deadline_loop(platform: Platform) -> None:
    """The periodic deadline check (started with the app)."""
    while True:
        await asyncio.sleep(platform.settings.deadline_check_seconds)
        try:
            await check_deadlines(platform)
        except Exception:
            log.exception("step deadline check failed")


def deadline_body(
    battle_name: str, seat_name: str, left_s: float, link: str
) -> tuple[str, list[dict[str, Any]]]:
    """The "deadline soon" message: Discord's incoming-webhook fields (`content`, `embeds`)."""
    content = f"Starboard: “{battle_name}” — {seat_name}, your time runs out in {span(left_s)}.{link}"
    embed = {"title": "Deadline soon", "description": f"{span(left_s)} left to act", "color": 0xE8A33D}
    return content, [embed]


async def deadline_soon(platform: Platform, battle_id: str, participant_id: str, left_s: float) -> bool:
    """Ping a seat whose time runs out soon, by its webhook if it wants this ping (the page's
    browser ping reads the turn bar's clock itself). Answers whether a message was started."""
    async with platform.db.reader() as session:
        seat = await session.get(Participant, participant_id)
        status = await session.get(SeatStatus, participant_id)
        battle = await session.get(Battle, battle_id)
        wanted = await pings.settings_for(session, seat) if seat is not None else pings.DEFAULT
    if seat is None or battle is None or status is None or not status.webhook_url:
        return False
    if not (wanted.deadline and wanted.webhook):
        return False
    content, embeds = deadline_body(battle.name, seat.name, left_s, link_to(platform, battle_id))
    spawn(deliver(platform, status.webhook_url, content, seat=participant_id, embeds=embeds))
    return True
