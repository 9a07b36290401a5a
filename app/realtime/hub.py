"""Per-process registry of websocket viewers, and the one live path: everything a battle page shows
live — the log's regions, the seats, the table talk — reaches its sockets from here.

A wake-up (battle, seq) starts one *round* for that battle: one database read shared by every
viewer of the battle in this process, one rendering per distinct view (viewers who see the same
thing — spectators, a player's several tabs — share it), and each viewer's frame queued on its
own socket writer, so a slow socket delays only itself.

Never stale: a round whose read or rendering fails is retried with backoff; if it still fails the
viewers' sockets are closed with 1013/1011 (the browser reconnects and catches up by seq) — a
viewer is never silently forgotten while its socket stays open. A heartbeat every few seconds
reads the seq of every watched battle (one query), catches up any viewer behind it (so a wake-up
lost by the broker costs at most one heartbeat), and tells each up-to-date viewer not sent a frame
since the last beat the battle's seq, so the client can resync if it holds less.

Table talk (chat, requests to the referee) is not in the log: its wake-up (`Topic.TABLE`) reads
the battle's table once for every seat watching it here, draws each seat's regions from that read,
and sends each socket only what changed for it — someone else's private line sends a viewer nothing at all, not even its timing.

Send what changed: a frame carries only the regions a viewer's page does not already hold as they
are now, and a region the page holds an older version of goes as the hunks that differ
(app/realtime/diff.py) when those are smaller — the page rebuilds it from its own copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sys
import types
import zlib
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.operations.metrics import SOCKET_BYTES, SOCKET_FRAMES
from app.realtime.broker import Topic
from app.realtime.diff import patch
from app.realtime.memory import Trimmer

log = logging.getLogger(__name__)

TRY_AGAIN_LATER = 1013  # the database is unreachable: reconnect and catch up in a moment
INTERNAL_ERROR = 1011
POLICY_VIOLATION = 1008


class SeatGone(Exception):
    """The viewer's seat was removed (or the battle is gone): close with 1008."""


OUTBOX_LIMIT = 64  # frames waiting for one socket; more and it is closed 1013 (it catches up by seq)


PACK_FROM = 1024  # characters: a region this long is held zlib-packed (HTML packs to about a tenth)
# Whether str hashes are keyed per process (the default): then a region's length and hash tell
# whether a page holds it, and nobody outside can make two regions' hashes meet; with a fixed seed
# (PYTHONHASHSEED=0) the held copy is unpacked and compared whole instead.
_KEYED_HASH = bool(sys.flags.hash_randomization)


@dataclass(frozen=True, slots=True)
class Held:
    """One region as a record keeps it: its length and hash (str hashes are computed once per
    string, so every record compares with one rendering's region for the price of one), and its
    text — zlib-packed when long, so an idle socket's page costs the server a tenth of its HTML."""

    size: int
    fingerprint: int
    packed: bytes | str

    @classmethod
    def of(cls, text: str) -> Held:
        packed = zlib.compress(text.encode(), 1) if len(text) >= PACK_FROM else text
        return cls(len(text), hash(text), packed)

    def text(self) -> str:
        return zlib.decompress(self.packed).decode() if isinstance(self.packed, bytes) else self.packed

    def holds(self, text: str) -> bool:
        """Whether this is `text`."""
        if self.size != len(text):
            return False
        if isinstance(self.packed, str):
            return self.packed == text
        return self.fingerprint == hash(text) if _KEYED_HASH else self.text() == text


class Sent:
    """What a viewer's page holds, region by region: each region's HTML as last sent to it (`Held`).

    Viewers sent the same frames share one record, so a round works out what a rendering adds for
    them once (the record is the key: compared by identity, and held by the round while it runs).
    A record is replaced, never changed."""

    __slots__ = ("regions",)

    def __init__(self, regions: Mapping[str, Held] | None = None) -> None:
        self.regions: Mapping[str, Held] = types.MappingProxyType(dict(regions or {}))

    def text(self, target: str) -> str | None:
        """The HTML the page holds for this region (None: it holds none)."""
        held = self.regions.get(target)
        return held.text() if held is not None else None


NOTHING_SENT = Sent()  # a new viewer's record: its page's regions are as of its hello's seq


@dataclass(eq=False, slots=True, weakref_slot=True)
class Subscriber:
    """One open websocket: who is watching which battle, and the last seq they have been sent.

    An idle viewer holds no queue and no task (a crowd's memory is its idle sockets): `pending` and `writer`
    exist only while frames wait for its socket."""

    battle_id: str
    participant_id: str
    send_text: Callable[[str], Awaitable[None]]
    close: Callable[[int, str], Awaitable[None]]
    csrf: str = ""
    last_seq: int | None = None  # None until the client said hello
    resync: bool = False  # send what it lacks even without a new seq (after hello)
    refresh: int = 0  # a refresh asked at this count: send changed regions at the same seq (seats changed)
    closed: bool = False
    pending: deque[str] | None = None  # frames not yet written, oldest first
    writer: asyncio.Task[None] | None = None  # runs while `pending` has frames
    # What its page holds of the battle's regions (shared by viewers sent the same frames), and of
    # the table's (chat, requests) apart: the table is drawn per seat, and one record for both gave
    # every spectator's seat, after a chat line, a record and a frame a seat for every action after.
    sent: Sent = NOTHING_SENT
    table_sent: Sent = NOTHING_SENT
    sent_frames: int = 0
    sent_bytes: int = 0
    framed_at: float = 0.0  # when it was last queued a frame with a seq (the loop's clock)
    # writes a frame at once if the socket can take it as it is (see app.web.live.ws_protocol),
    # False if not: then its writer sends it with `send_text`
    write_now: Callable[[str], bool] | None = None
    # whether hunks may be sent: they are made against the rendering's CSRF placeholder, so a token
    # of another length would shift them (the hub then sends such a viewer whole regions)
    patches: bool = True


@dataclass
class HubSettings:
    heartbeat_seconds: float = 5.0
    read_retries: int = 3
    read_timeout: float = 5.0
    send_timeout: float = 10.0
    # Backoff between the tries of a failed read: retry_delay, doubled each time up to
    # retry_delay_max, times a random factor in [1 - jitter, 1 + jitter] drawn from `rng` (one
    # process's viewers do not all retry in step; a test passes a seeded Random and short delays).
    retry_delay: float = 0.2
    retry_delay_max: float = 2.0
    retry_jitter: float = 0.2
    rng: random.Random = field(default_factory=random.Random)


Loader = Callable[[str, int], Awaitable[Any]]  # (battle, since) → a shared read with .seq


class Views(Protocol):
    """How a shared read becomes frames: `key` names what a viewer sees (viewers with the same
    key get the same HTML), `html` draws it with `placeholder` where the viewer's CSRF token goes
    — one string, or (region, html) pairs so regions a viewer already has can be left out."""

    placeholder: str

    def key(self, read: Any, viewer: Subscriber) -> Any: ...

    def html(self, read: Any, viewer: Subscriber) -> str | list[tuple[str, str]]: ...


SeqReader = Callable[[list[str]], Awaitable[dict[str, int]]]
# (battle, seats) → each seat's table regions (chat, requests) as (target, html), None: not seated
TableReader = Callable[[str, list[str]], Awaitable[dict[str, list[tuple[str, str]] | None]]]


@dataclass(slots=True)
class Drawn:
    """One rendering, as the round compares it with what each viewer was sent: its regions in
    order, and the HTML of each region a page keeps ("+" marks one appended, the log's new rows,
    always new and never kept)."""

    regions: list[tuple[str, str]]
    held: dict[str, str]
    packed: dict[str, Held] = field(default_factory=dict)  # each region as records keep it, packed once

    @classmethod
    def of(cls, html: str | list[tuple[str, str]]) -> Drawn:
        regions = [("", html)] if isinstance(html, str) else html
        return cls(regions, {target: part for target, part in regions if not target.startswith("+")})

    def fresh(self, sent: Mapping[str, Held]) -> tuple[str, ...]:
        """The regions a viewer whose page holds `sent` lacks: appended ones always."""
        fresh = []
        for target, html in self.regions:
            if not target.startswith("+"):
                held = sent.get(target)
                if held is not None and held.holds(html):
                    continue
            fresh.append(target)
        return tuple(fresh)

    def holds(self, sent: Sent, fresh: tuple[str, ...]) -> Sent:
        """The record of a page that held `sent` and was sent the `fresh` regions of this rendering."""
        regions = dict(sent.regions)
        for target in fresh:
            if target in self.held:
                held = self.packed.get(target)
                if held is None:
                    held = self.packed[target] = Held.of(self.held[target])
                regions[target] = held
        return Sent(regions)

    def frame(
        self, sent: Sent, tail: dict[str, Any], patches: bool, same_seq: bool = False, table: bool = False
    ) -> tuple[str | None, Sent]:
        """The frame for a page holding `sent`, as JSON text ending in `tail` (its seq, …): the
        regions it lacks, each whole or (`patches`) as hunks against the version it holds when
        those are smaller; and the record of what the page holds once sent it. None when there is
        nothing to send: a refresh at the page's own seq (`same_seq`) or the table's regions
        (`table`) that find nothing new."""
        fresh = self.fresh(sent.regions)
        if same_seq:
            fresh = tuple(t for t in fresh if not t.startswith("+"))  # the same seq: the log has nothing new
        if (same_seq or table) and not fresh:
            return None, sent
        whole: list[str] = []
        hunks: list[list[Any]] = []
        for target, html in self.regions:
            if target not in fresh:
                continue
            old = sent.text(target) if patches else None
            if old is not None:
                length, ops = patch(old, html)
                if sum(len(op[2]) + 16 for op in ops) < len(html):  # ~16: an op's offsets and brackets
                    hunks.append([target, length, ops])
                    continue
            whole.append(html)
        body: dict[str, Any] = {"content": "".join(whole)}
        if hunks:
            body["patch"] = hunks
        return json.dumps(body | tail), self.holds(sent, fresh)


def _delay(attempt: int, settings: HubSettings) -> float:
    base = min(settings.retry_delay_max, settings.retry_delay * 2 ** (attempt - 1))
    return base * settings.rng.uniform(1 - settings.retry_jitter, 1 + settings.retry_jitter)


class Hub:
    def __init__(
        self,
        load: Loader | None = None,
        views: Views | None = None,
        seqs: SeqReader | None = None,
        settings: HubSettings | None = None,
        table: TableReader | None = None,
    ) -> None:
        self.viewers: dict[str, set[Subscriber]] = {}
        self.sockets: dict[tuple[str, str], int] = {}  # open sockets per seat (battle, participant)
        self.load, self.views, self.seqs, self.table = load, views, seqs, table
        self.settings = settings or HubSettings()
        self.wanted: dict[str, int] = {}  # the highest seq heard of, per battle
        self.refreshes: dict[str, int] = {}  # refreshes asked, per battle (seats changed)
        self._rounds: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._tables: dict[str, asyncio.Task[None]] = {}  # the table round under way, per battle
        self._tables_again: set[str] = set()
        self._heart: asyncio.Task[None] | None = None
        self.stats = {"reads": 0, "renders": 0, "frames": 0, "bytes": 0, "read_failures": 0}
        self.trimmer = Trimmer()  # after a burst of hellos, the freed memory goes back to the OS

    # -- sockets and viewers ----------------------------------------------------------------

    def open_socket(self, battle_id: str, participant_id: str) -> int:
        key = (battle_id, participant_id)
        self.sockets[key] = self.sockets.get(key, 0) + 1
        return self.sockets[key]

    def close_socket(self, battle_id: str, participant_id: str) -> None:
        key = (battle_id, participant_id)
        left = self.sockets.get(key, 1) - 1
        if left > 0:
            self.sockets[key] = left
        else:
            self.sockets.pop(key, None)

    def watching(self, battle_id: str) -> set[str]:
        """The seats with a socket on this battle here that said hello (the loader reads for them)."""
        return {v.participant_id for v in self.viewers.get(battle_id, ()) if not v.closed}

    def join(self, viewer: Subscriber) -> None:
        """(Re-)join: hello calls it every time, so a viewer that was dropped comes back."""
        viewer.closed = False
        self.viewers.setdefault(viewer.battle_id, set()).add(viewer)

    def leave(self, viewer: Subscriber) -> None:
        group = self.viewers.get(viewer.battle_id)
        if group:
            group.discard(viewer)
            if not group:
                del self.viewers[viewer.battle_id]
                self.wanted.pop(viewer.battle_id, None)
        if viewer.writer is not None and not viewer.writer.done():
            viewer.writer.cancel()
        viewer.writer, viewer.pending = None, None

    def hello(self, viewer: Subscriber, seq: int, whole: bool = False) -> None:
        """The client holds `seq`: send it everything after that (`whole`: and every region now,
        even at that seq — its copy of a region was not the one a frame's hunks were made against)."""
        viewer.last_seq = seq
        viewer.resync = True
        viewer.sent = viewer.table_sent = NOTHING_SENT  # the page is as of its seq: every region again
        if whole:
            self.refreshes[viewer.battle_id] = viewer.refresh = self.refreshes.get(viewer.battle_id, 0) + 1
        self.join(viewer)
        self._start(viewer.battle_id)
        self.trimmer.soon()

    async def shut(self, viewer: Subscriber, code: int, reason: str) -> None:
        """Close a viewer's socket with a code the client understands, and forget it."""
        if viewer.closed:
            return
        viewer.closed = True
        self.leave(viewer)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(viewer.close(code, reason), 2)

    def queue(self, viewer: Subscriber, frame: str) -> None:
        """Send `frame` to the viewer after the frames already waiting for it (in order); a viewer
        too far behind is closed 1013 instead (it reconnects and catches up in one frame)."""
        if viewer.closed:
            return
        if viewer.pending is None:
            viewer.pending = deque()
        if len(viewer.pending) >= OUTBOX_LIMIT:
            self._spawn_shut(viewer, TRY_AGAIN_LATER, "too far behind; reconnect")
            return
        if not viewer.pending and (viewer.writer is None or viewer.writer.done()):
            self._write_now(viewer, frame)
            return
        viewer.pending.append(frame)
        if viewer.writer is None or viewer.writer.done():
            viewer.writer = asyncio.get_running_loop().create_task(self._write(viewer))

    def _write_now(self, viewer: Subscriber, frame: str) -> None:
        """Nothing waits for this socket: write the frame in place when the socket can take it
        as it is (no task, no timer: a task and a timeout per frame were a tenth of the CPU at 50
        viewers a battle); otherwise the viewer's writer sends it, under the send timeout."""
        if viewer.write_now is not None:
            try:
                written = viewer.write_now(frame)
            except Exception as exc:
                viewer.pending = None
                self._failed(viewer, exc)
                return
            if written:
                viewer.pending = None
                viewer.sent_frames += 1
                viewer.sent_bytes += len(frame)
                return
        assert viewer.pending is not None
        viewer.pending.append(frame)
        viewer.writer = asyncio.get_running_loop().create_task(self._write(viewer))

    def _failed(self, viewer: Subscriber, exc: BaseException) -> None:
        log.info("closing a viewer of %s after a failed send: %r", viewer.battle_id, exc)
        viewer.closed = True
        self.leave(viewer)
        asyncio.get_running_loop().create_task(self._close_quietly(viewer))

    @staticmethod
    async def _close_quietly(viewer: Subscriber) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(viewer.close(INTERNAL_ERROR, "send failed"), 1)

    def _spawn_shut(self, viewer: Subscriber, code: int, reason: str) -> None:
        asyncio.get_running_loop().create_task(self.shut(viewer, code, reason))

    async def _write(self, viewer: Subscriber) -> None:
        """The viewer's own writer while it has frames waiting: they go out in order; a failed or
        stuck send closes it. It ends when none is left (the next frame starts another)."""
        pending = viewer.pending
        while pending:
            frame = pending.popleft()
            try:
                await asyncio.wait_for(viewer.send_text(frame), self.settings.send_timeout)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._failed(viewer, exc)
                return
            viewer.sent_frames += 1
            viewer.sent_bytes += len(frame)
        if viewer.pending is pending:
            viewer.pending = None  # idle again: nothing kept for it

    # -- wake-ups and rounds ----------------------------------------------------------------

    async def wake(self, battle_id: str, seq: int, topic: Topic = Topic.LOG) -> None:
        """The broker's listener: return at once; the round for the battle runs in the background."""
        if topic is Topic.SEATS:  # counted even with nobody watching: the kept seats are by that count
            await self.resync_battle(battle_id)
            return
        if battle_id not in self.viewers:  # nobody watches it here (a hello reads it anyway)
            return
        if topic is Topic.TABLE:
            self._start_table(battle_id)
            return
        if seq > self.wanted.get(battle_id, -1):
            self.wanted[battle_id] = seq
        self._start(battle_id)

    async def resync_all(self) -> None:
        """After the broker's subscription came back: wake-ups may have been missed, so every
        battle watched here is read again and every viewer caught up from its seq, its table
        talk too (each sent only what changed for it)."""
        for battle_id in list(self.viewers):
            for viewer in self.viewers.get(battle_id, ()):
                viewer.resync = True
            self._start(battle_id)
            if self.table is not None:
                self._start_table(battle_id)

    async def resync_battle(self, battle_id: str) -> None:
        """Something outside the log changed what this battle's pages show (a seat added, removed
        or given a new link): its viewers here are read again and sent what changed."""
        self.refreshes[battle_id] = self.refreshes.get(battle_id, 0) + 1
        for viewer in self.viewers.get(battle_id, ()):
            viewer.resync, viewer.refresh = True, self.refreshes[battle_id]
        if battle_id in self.viewers:
            self._start(battle_id)

    def _start(self, battle_id: str) -> None:
        task = self._rounds.get(battle_id)
        if task is not None and not task.done():
            self._again.add(battle_id)
            return
        self._rounds[battle_id] = asyncio.get_running_loop().create_task(self._run(battle_id))

    def _behind(self, battle_id: str) -> list[Subscriber]:
        wanted = self.wanted.get(battle_id, -1)
        return [
            v
            for v in self.viewers.get(battle_id, ())
            if v.last_seq is not None and not v.closed and (v.resync or v.last_seq < wanted)
        ]

    def _read(self, battle_id: str, since: int) -> Awaitable[Any]:
        """The loader's read; a hub made without one (a test's) fails the round as a failed read."""
        if self.load is None:
            raise TypeError("this hub has no loader")
        return self.load(battle_id, since)

    def _drawer(self) -> Views:
        """The views that draw frames; a hub made without them fails the frame as a failed rendering."""
        if self.views is None:
            raise TypeError("this hub has no views to draw with")
        return self.views

    async def _run(self, battle_id: str) -> None:
        try:
            attempt = 0
            while True:
                self._again.discard(battle_id)
                behind = self._behind(battle_id)
                if not behind:
                    return
                since = min(v.last_seq or 0 for v in behind)  # `_behind` keeps only viewers with a seq
                asked = self.refreshes.get(battle_id, 0)  # refreshes this read answers
                try:
                    read = await asyncio.wait_for(self._read(battle_id, since), self.settings.read_timeout)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    attempt += 1
                    self.stats["read_failures"] += 1
                    if attempt > self.settings.read_retries:
                        log.warning(
                            "battle %s unreadable after %d tries (%r): closing its %d viewers (1013)",
                            battle_id,
                            attempt,
                            exc,
                            len(behind),
                        )
                        for viewer in behind:
                            await self.shut(
                                viewer, TRY_AGAIN_LATER, "the battle could not be read; reconnecting"
                            )
                        return
                    await asyncio.sleep(_delay(attempt, self.settings))
                    continue
                attempt = 0
                self.stats["reads"] += 1
                self._push(battle_id, read, behind, asked)
                if battle_id not in self._again:
                    return
        finally:
            if self._rounds.get(battle_id) is asyncio.current_task():
                del self._rounds[battle_id]
            if battle_id in self._again and battle_id in self.viewers:  # woken during the last step
                self._start(battle_id)

    def _push(self, battle_id: str, read: Any, behind: list[Subscriber], asked: int = 0) -> None:
        seq = read.seq
        self.wanted[battle_id] = max(self.wanted.get(battle_id, -1), seq)
        now = asyncio.get_running_loop().time()
        views: dict[str, Any] = {}  # seat → what it sees: every socket of a seat sees the same
        rendered: dict[Any, Drawn] = {}  # (view, since) → its regions, drawn once for all
        # (rendering, what the page holds, refresh, hunks) → the frame and what the page then holds:
        # viewers sent the same frames share both, so each is worked out once per round
        frames: dict[tuple[Any, Sent, bool, bool, bool], tuple[str | None, Sent]] = {}
        signed: dict[tuple[str, str], str] = {}  # (frame, CSRF token) → the frame as sent
        placeholder = getattr(self.views, "placeholder", None)
        for viewer in behind:
            if viewer.closed or viewer.last_seq is None:
                continue
            # A refresh asked after this read began waits for the next read (it would miss the change).
            refresh = bool(viewer.refresh) and viewer.refresh <= asked
            viewer.resync = bool(viewer.refresh) and not refresh
            if refresh:
                viewer.refresh = 0
            elif viewer.refresh:
                self._again.add(battle_id)
            if seq <= viewer.last_seq and not refresh:
                continue
            try:
                view = views.get(viewer.participant_id)
                if view is None:
                    view = views[viewer.participant_id] = self._drawer().key(read, viewer)
                key = (view, viewer.last_seq)
                drawn = rendered.get(key)
                if drawn is None:
                    drawn = rendered[key] = Drawn.of(self._drawer().html(read, viewer))
                    self.stats["renders"] += 1
            except SeatGone:
                self._spawn_shut(viewer, POLICY_VIOLATION, "you are not part of this battle")
                continue
            except Exception:
                log.exception("rendering a frame of %s failed", battle_id)
                self._spawn_shut(viewer, INTERNAL_ERROR, "the frame could not be rendered; reconnecting")
                continue
            same_seq = refresh and seq <= viewer.last_seq
            patches = viewer.patches and self._fits(viewer)
            made = frames.get((key, viewer.sent, refresh, same_seq, patches))
            if made is None:
                # a refresh: the same seq, new regions — the page must not skip it as one it has
                tail = {"seq": seq, "refresh": True} if refresh else {"seq": seq}
                made = frames[(key, viewer.sent, refresh, same_seq, patches)] = drawn.frame(
                    viewer.sent, tail, patches, same_seq
                )
            frame, holds = made
            if frame is None:
                continue
            viewer.sent = holds
            if placeholder:  # the one per-browser part of a shared rendering: its CSRF token
                shared = frame
                frame = signed.get((shared, viewer.csrf))  # a browser's tabs share it
                if frame is None:
                    frame = signed[(shared, viewer.csrf)] = shared.replace(placeholder, viewer.csrf)
            viewer.last_seq, viewer.framed_at = seq, now
            self.stats["frames"] += 1
            self.stats["bytes"] += len(frame)
            SOCKET_FRAMES.inc()
            SOCKET_BYTES.inc(len(frame))
            self.queue(viewer, frame)

    # -- the table's regions (chat, requests) -----------------------------------------------

    def _start_table(self, battle_id: str) -> None:
        task = self._tables.get(battle_id)
        if task is not None and not task.done():
            self._tables_again.add(battle_id)  # read again once this round is done
            return
        self._tables[battle_id] = asyncio.get_running_loop().create_task(self._table_round(battle_id))

    async def _table_round(self, battle_id: str) -> None:
        try:
            while True:
                self._tables_again.discard(battle_id)
                await self.send_table(list(self.viewers.get(battle_id, ())))
                if battle_id not in self._tables_again:
                    return
        finally:
            if self._tables.get(battle_id) is asyncio.current_task():
                del self._tables[battle_id]

    async def send_table(self, viewers: list[Subscriber]) -> None:
        """Each battle's table regions, read once for all its watching seats here (what the seats
        share is read once, each seat's regions drawn from it), and each socket sent what changed
        for it (after a hello: all of them). A read that fails is tried again with the rounds'
        backoff; if the table still cannot be read the seats' sockets are closed 1013 — they
        reconnect and their hello reads it again — rather than left showing old talk."""
        battles: dict[str, dict[str, list[Subscriber]]] = {}
        for viewer in viewers:
            if not viewer.closed:
                battles.setdefault(viewer.battle_id, {}).setdefault(viewer.participant_id, []).append(viewer)
        for battle_id, seats in battles.items():
            found: dict[str, list[tuple[str, str]] | None] = {}
            for attempt in range(1, self.settings.read_retries + 2):
                try:
                    if self.table is None:
                        raise TypeError("this hub has no table reader")
                    found = await asyncio.wait_for(
                        self.table(battle_id, list(seats)), self.settings.read_timeout
                    )
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    self.stats["read_failures"] += 1
                    if attempt > self.settings.read_retries:
                        log.warning("the table of %s unreadable (%r): closing 1013", battle_id, exc)
                        for viewer in (v for group in seats.values() for v in group):
                            self._spawn_shut(
                                viewer, TRY_AGAIN_LATER, "the table could not be read; reconnecting"
                            )
                        break
                    await asyncio.sleep(_delay(attempt, self.settings))
            for participant_id, group in seats.items():
                regions = found.get(participant_id)
                if regions is not None:
                    self._push_table(group, Drawn.of(regions))

    def _push_table(self, group: list[Subscriber], drawn: Drawn) -> None:
        made: dict[tuple[Sent, bool], tuple[str | None, Sent]] = {}
        for viewer in group:
            if viewer.closed:
                continue
            patches = viewer.patches and self._fits(viewer)
            key = (viewer.table_sent, patches)  # viewers sent the same share the frame and the record
            if key not in made:
                made[key] = drawn.frame(viewer.table_sent, {"table": True}, patches, table=True)
            frame, holds = made[key]
            if frame is None:
                continue
            viewer.table_sent = holds
            # Through the viewer's own outbox, so table frames and battle frames go out in order.
            self.queue(viewer, frame)

    def _fits(self, viewer: Subscriber) -> bool:
        """Whether hunks made against the CSRF placeholder fit this viewer's page (same length)."""
        placeholder = getattr(self.views, "placeholder", None)
        return not placeholder or len(viewer.csrf) == len(placeholder)

    # -- heartbeat --------------------------------------------------------------------------

    async def start(self) -> None:
        if self.settings.heartbeat_seconds > 0:
            self._heart = asyncio.get_running_loop().create_task(self._heartbeat())

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.settings.heartbeat_seconds)
            try:
                await self.beat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("heartbeat failed")

    async def beat(self) -> None:
        """One heartbeat: read the watched battles' seqs (one query), catch up whoever is behind,
        and tell every up-to-date viewer not sent a frame since the last beat the battle's seq."""
        battles = list(self.viewers)
        if not battles:
            return
        current: dict[str, int] = {}
        if self.seqs is not None:
            try:
                current = await asyncio.wait_for(self.seqs(battles), self.settings.read_timeout)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is away: the rounds will find out too
                log.info("heartbeat could not read seqs: %r", exc)
        for battle_id in battles:
            seq = current.get(battle_id)
            if seq is not None and seq > self.wanted.get(battle_id, -1):
                log.info(
                    "heartbeat found %s at %s (had heard of %s): catching up",
                    battle_id,
                    seq,
                    self.wanted.get(battle_id),
                )
                self.wanted[battle_id] = seq
            known = self.wanted.get(battle_id)
            if self._behind(battle_id):
                self._start(battle_id)
            if known is None:
                continue
            beat = json.dumps({"type": "heartbeat", "seq": known, "every": self.settings.heartbeat_seconds})
            # A viewer sent a frame since the last beat has heard the seq and that the socket
            # lives (the page counts any frame): under load, most of the beats are not needed.
            fresh = asyncio.get_running_loop().time() - self.settings.heartbeat_seconds
            for viewer in list(self.viewers.get(battle_id, ())):
                if (
                    viewer.last_seq is not None
                    and viewer.last_seq >= known
                    and not viewer.pending
                    and viewer.framed_at < fresh
                ):
                    SOCKET_FRAMES.inc()
                    SOCKET_BYTES.inc(len(beat))
                    self.queue(viewer, beat)

    # -- shutdown ---------------------------------------------------------------------------

    async def drain(self) -> None:
        """Stop the heartbeat, let the rounds under way finish and the writers empty (shutdown)."""
        if self._heart is not None:
            self._heart.cancel()
        rounds = [*self._rounds.values(), *self._tables.values()]
        if rounds:
            await asyncio.wait(rounds, timeout=5)
        writers = [  # each ends once its viewer's waiting frames are written
            viewer.writer
            for group in self.viewers.values()
            for viewer in group
            if viewer.writer is not None and not viewer.writer.done()
        ]
        if writers:
            await asyncio.wait(writers, timeout=5)
