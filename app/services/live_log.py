"""What the live frames derive from a battle's append-only log, kept per battle in this process.

Every wake-up used to read the whole log again — the map's rows, every row's seq and type for the
⚑ markers, the last 200 rows for when the step began — so a wake-up cost more the longer the
battle (issue 12). The log only ever grows, so this keeps those readings per battle and extends
them with the rows after the last seq it has seen: a wake-up reads only its new rows. The same
functions read them from the database for a page (`maps.map_rows`, `overrides.standing`,
`views.step_began`), so a frame and a page say the same.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog
from app.services.maps import MAP_ACTIONS
from app.services.overrides import Mark, is_special, marks_in
from app.services.views import STEP_LOOKBACK, moves_clock

RECENT = 256  # rows kept whole for frames (a viewer further behind is read from the database)
BATTLES = 256  # battles kept per process (least recently read dropped first)


@dataclass
class BattleLog:
    """One battle's log as the live path needs it, up to `last`."""

    last: int = 0
    kinds: list[tuple[int, str]] = field(default_factory=list)  # every row's (seq, action type)
    details: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]] = field(default_factory=dict)
    moves: list[ActionLog] = field(default_factory=list)  # the rows the map reads
    recent: deque[ActionLog] = field(default_factory=lambda: deque(maxlen=RECENT))
    clock_row: tuple[int, datetime | None] | None = None  # the latest row that moved the clock
    _marks: tuple[int, list[Mark]] | None = None

    def extend(self, rows: list[ActionLog]) -> None:
        """Take the rows after `last`, oldest first (the caller read them in seq order)."""
        for row in rows:
            if row.seq <= self.last:
                continue
            self.kinds.append((row.seq, row.action_type))
            if is_special(row.action_type):
                self.details[row.seq] = (row.payload, row.events)
            if row.action_type in MAP_ACTIONS:
                self.moves.append(row)
            if moves_clock(row.events):
                self.clock_row = (row.seq, row.created_at)
            self.recent.append(row)
            self.last = row.seq

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

    def marks(self) -> list[Mark]:
        """`overrides.standing` at `last` (worked out again only when a special row came)."""
        specials = len(self.details)
        if self._marks is None or self._marks[0] != specials:
            self._marks = (specials, marks_in(self.kinds, self.details) if specials else [])
        return self._marks[1]


class LiveLogs:
    """Every battle's `BattleLog` in this process, bounded; the hub's rounds for one battle run one
    at a time, so a battle's log is extended by one reader at a time."""

    def __init__(self, battles: int = BATTLES) -> None:
        self.battles = battles
        self._logs: OrderedDict[str, BattleLog] = OrderedDict()

    def forget(self, battle_id: str) -> None:
        self._logs.pop(battle_id, None)

    async def read(
        self, session: AsyncSession, battle_id: str, since: int, seq: int
    ) -> tuple[BattleLog, list[ActionLog]]:
        """The battle's log extended up to `seq`, and the rows after `since` up to `seq` (one query
        for the rows not seen before; none when nothing is new)."""
        log = self._logs.pop(battle_id, None)
        if log is None or log.last > seq:  # first read here, or the battle went back (restored)
            log = BattleLog()
        self._logs[battle_id] = log
        while len(self._logs) > self.battles:
            self._logs.popitem(last=False)
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
        return log, kept + [r for r in rows if r.seq > since]
