"""REPORTS: the reports already built, so a report is not replayed from the whole log on every
request (the page, its poll, the JSON, the shared page and its image card all ask for it).

Keyed by battle and seq, and by whom it was built for:
(battle id, seq, status, participant id, role, name, the rules). Invalidation, stated:

- a new action — any action, undo, redo, rewind and the end included, as each is a log entry —
  moves the battle's seq, so the next request misses and rebuilds from the log; storing it drops
  that battle's entries of earlier seqs at once;
- nothing else changes a report: table talk and drafts are not in it, a seat's new token does not
  change what the seat sees (its name, if it ever changed, is in the key);
- at most `MOST` entries are kept (least recently used first out), in this process only: each
  server process keeps its own, and a restart starts empty.

A hit returns the very object built before: callers read it and never change it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

T = TypeVar("T")

MOST = 256


class ReportCache(Generic[T]):
    def __init__(self, most: int = MOST) -> None:
        self.most = most
        self._kept: OrderedDict[tuple[str, int, Hashable], T] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, battle_id: str, seq: int, who: Hashable) -> T | None:
        key = (battle_id, seq, who)
        found = self._kept.get(key)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self._kept.move_to_end(key)
        return found

    def put(self, battle_id: str, seq: int, who: Hashable, value: T) -> None:
        for key in [k for k in self._kept if k[0] == battle_id and k[1] < seq]:
            del self._kept[key]
        self._kept[(battle_id, seq, who)] = value
        while len(self._kept) > self.most:
            self._kept.popitem(last=False)

    def forget(self, battle_id: str) -> None:
        """Drop every report of a battle (its log was changed outside the actions: a test, a repair)."""
        for key in [k for k in self._kept if k[0] == battle_id]:
            del self._kept[key]
