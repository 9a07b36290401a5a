"""What the live frames derive from a battle's append-only log, kept per battle in this process.

Every wake-up used to read the whole log again — the map's rows, every row's seq and type for the
⚑ markers, the last 200 rows for when the step began — so a wake-up cost more the longer the
battle. The log only ever grows, so this keeps those readings per battle and extends
them with the rows after the last seq it has seen: a wake-up reads only its new rows. The same
functions read them from the database for a page (`maps.map_rows`, `overrides.standing`,
`views.step_began`), so a frame and a page say the same.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Participant
from app.services.history.replay import (
    HISTORY_ACTIONS,
    REWIND_POINTS,
    TakenBackWalk,
    line_of,
    preview_of,
    preview_seqs,
    referee_lines,
)
from app.services.kept import Commit
from app.services.reading.maps import MapRow, Parts, places_ships
from app.services.reading.overrides import Mark, is_special, marks_in
from app.services.reading.views import STEP_LOOKBACK, moves_clock

SEATS_FOR = 30.0  # seconds the seats are kept without a change heard of
RECENT = 256  # rows kept whole for frames (a viewer further behind is read from the database)
BATTLES = 256  # battles kept per process (least recently read dropped first)


@dataclass
class BattleLog:
    """One battle's log as the live path needs it, up to `last`."""

    last: int = 0
    kinds: list[tuple[int, str]] = field(default_factory=list)  # every row's (seq, action type)
    details: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]] = field(default_factory=dict)
    moves: list[MapRow] = field(default_factory=list)  # what the map reads of its rows
    recent: deque[ActionLog] = field(default_factory=lambda: deque(maxlen=RECENT))
    clock_row: tuple[int, datetime | None] | None = None  # the latest row that moved the clock
    parts: Parts | None = None  # the battle's part declarations: which rows the map reads
    _marks: tuple[int, list[Mark]] | None = None
    walk: TakenBackWalk = field(default_factory=TakenBackWalk)  # what undos and rewinds took back
    touched: dict[int, set[int]] = field(default_factory=dict)  # history row → the marks it changed
    # The referee's line of each of the latest rows (the preview's rewind and fork points), and of
    # older rows the preview named (what Undo or Redo would take, read once): a row never changes.
    lines: dict[int, str] = field(default_factory=dict)
    older: dict[int, str] = field(default_factory=dict)
    _preview: tuple[int, dict[str, Any]] | None = None  # the referee's preview at that `last`

    def extend(self, rows: list[ActionLog]) -> None:
        """Take the rows after `last`, oldest first (the caller read them in seq order)."""
        for row in rows:
            if row.seq <= self.last:
                continue
            self.kinds.append((row.seq, row.action_type))
            if is_special(row.action_type):
                self.details[row.seq] = (row.payload, row.events)
            changed = self.walk.add(row.seq, row.action_type, row.payload)
            if row.action_type in HISTORY_ACTIONS:
                self.touched[row.seq] = changed
            if places_ships(row, self.parts):
                self.moves.append(MapRow.of(row, self.parts))
            if moves_clock(row.events):
                self.clock_row = (row.seq, row.created_at)
            self.recent.append(row)
            self.last = row.seq
            self.lines[row.seq] = line_of(row, True)
        for seq in [s for s in self.lines if s < self.last - REWIND_POINTS]:
            del self.lines[seq]  # older than any point the preview offers

    def trim(self, since: int) -> None:
        """Let go of the whole rows every viewer already holds (up to `since`, the oldest viewer's
        seq): one further back — a page loaded before the last round, a socket reconnecting — is
        read from the database, as one beyond `RECENT` is. Kept, a battle held its set-up rows
        (every ship's whole definition) for as long as it was watched: a third of the memory of
        an idle socket at a table of five."""
        while self.recent and self.recent[0].seq <= since:
            self.recent.popleft()

    def rows_after(self, since: int) -> list[ActionLog] | None:
        """The kept rows after `since`, or None when some of them are no longer kept."""
        if since >= self.last:
            return []
        if self.recent and self.recent[0].seq <= since + 1:
            return [r for r in self.recent if r.seq > since]
        return None

    def step_since(self) -> datetime | None:
        """`views.step_began` at `last`: when the latest clock move within the lookback happened."""
        if self.clock_row is None:
            return None
        seq, at = self.clock_row
        return at if self.last - seq < STEP_LOOKBACK else None

    async def preview(self, session: AsyncSession, battle_id: str) -> dict[str, Any]:
        """`replay.preview` at `last`, from the walk's tops and the kept lines: worked out again
        only when a row came (each moves the points it offers), and a row read only when Undo or
        Redo names one older than the kept lines (its line is kept while they still name it)."""
        if self._preview is not None and self._preview[0] == self.last:
            return self._preview[1]
        tops = self.walk.tops()
        wanted = preview_seqs(tops)
        self.older = {seq: line for seq, line in self.older.items() if seq in wanted}
        missing = wanted - self.lines.keys() - self.older.keys()
        if missing:
            self.older |= await referee_lines(session, battle_id, missing)
        shown = preview_of(tops, self.lines | self.older)
        self._preview = (self.last, shown)
        return shown

    def marks(self) -> list[Mark]:
        """`overrides.standing` at `last` (worked out again only when a special row came)."""
        specials = len(self.details)
        if self._marks is None or self._marks[0] != specials:
            self._marks = (specials, marks_in(self.kinds, self.details) if specials else [])
        return self._marks[1]


class LiveLogs:
    """Every battle's `BattleLog` in this process, bounded; the hub's rounds for one battle run one
    at a time, so a battle's log is extended by one reader at a time.

    It also keeps, per battle, the last commit this process made (`committed`: the battle row, the
    new state and the log row, exactly what went to the database) and the seats as last read (kept
    until the seats change: every process hears of that, `SeatsChanged`). A round after a local
    action then reads nothing back from the database for spectators and players."""

    def __init__(self, battles: int = BATTLES, seats_for: float = SEATS_FOR) -> None:
        self.battles, self.seats_for = battles, seats_for
        self._logs: OrderedDict[str, BattleLog] = OrderedDict()
        self._commits: OrderedDict[str, Commit] = OrderedDict()
        self._seats: OrderedDict[str, tuple[int, float, list[Participant]]] = OrderedDict()

    def forget(self, battle_id: str) -> None:
        self._logs.pop(battle_id, None)
        self._commits.pop(battle_id, None)
        self._seats.pop(battle_id, None)

    def committed(self, commit: Commit) -> None:
        """A commit of this process (a handler on the platform's bus), kept if it is the battle's newest."""
        old = self._commits.get(commit.battle_id)
        if old is None or commit.seq > old.seq:
            _put(self._commits, commit.battle_id, commit, self.battles)

    def latest(self, battle_id: str, wanted: int | None) -> Commit | None:
        """The kept commit if it is at least the newest seq heard of (None: read the database —
        another process wrote since, or nothing was heard of yet)."""
        commit = self._commits.get(battle_id)
        if commit is None or wanted is None or commit.seq < wanted:
            return None
        return commit

    def seats(self, battle_id: str, version: int) -> list[Participant] | None:
        """The seats as last read, if no seat changed since (`version`: the hub's refresh count)
        and they are younger than `seats_for` seconds (a bound, should a change go unheard)."""
        kept = self._seats.get(battle_id)
        if kept is None or kept[0] != version or time.monotonic() - kept[1] > self.seats_for:
            return None
        return kept[2]

    def keep_seats(self, battle_id: str, version: int, people: list[Participant]) -> None:
        _put(self._seats, battle_id, (version, time.monotonic(), people), self.battles)

    def offer(self, battle_id: str, row: ActionLog) -> None:
        """A row known without reading it (this process's own commit): taken only if it is the
        next one, so the kept log never skips a row."""
        log = self._logs.get(battle_id)
        if log is not None and row.seq == log.last + 1:
            log.extend([row])

    async def read(
        self, session: AsyncSession, battle_id: str, since: int, seq: int, parts: Parts | None = None
    ) -> tuple[BattleLog, list[ActionLog]]:
        """The battle's log extended up to `seq`, and the rows after `since` up to `seq` (one query
        for the rows not seen before; none when nothing is new). `parts`: the battle's part
        declarations (by default the standard rules')."""
        log = self._logs.get(battle_id)
        if log is None or log.last > seq:  # first read here, or the battle went back (restored)
            log = BattleLog(parts=parts)
        _put(self._logs, battle_id, log, self.battles)
        kept: list[ActionLog] = []
        start = log.last  # the usual case: read only the rows not seen before
        if since < log.last:  # a viewer behind what is kept
            found = log.rows_after(since)
            if found is None:
                start = since  # further behind than the kept rows: read from where it is
            else:
                kept = found
        rows: list[ActionLog] = []
        if start < seq:
            rows = list(
                await session.scalars(
                    select(ActionLog)
                    .where(ActionLog.battle_id == battle_id, ActionLog.seq > start, ActionLog.seq <= seq)
                    .order_by(ActionLog.seq)
                )
            )
        log.extend(rows)  # takes only the rows after its `last`
        log.trim(since)
        return log, kept + [r for r in rows if r.seq > since]


def remarked(touched: dict[int, set[int]], since: int) -> list[int]:
    """The entries up to `since` whose taken-back mark the history rows after `since` changed (a
    viewer at `since` holds them as they were: its frame updates their marks)."""
    changed: set[int] = set()
    for seq, seqs in touched.items():
        if seq > since:
            changed.update(s for s in seqs if s <= since)
    return sorted(changed)


def _put(kept: OrderedDict[str, Any], key: str, value: Any, bound: int) -> None:
    """Keep `value` as the most recently used, dropping the least recently used past `bound`."""
    kept[key] = value
    kept.move_to_end(key)
    while len(kept) > bound:
        kept.popitem(last=False)
