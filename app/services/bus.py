"""The one way work follows a commit: events collected in the unit of work, handed to their
handlers once it has committed (as cosmicpython's message bus, or Zulip's `send_event_on_commit`).

A unit of work that fails or is rolled back hands nothing over. Handlers run in the order they were
registered; one that answers an awaitable has it run as a background task, so nothing after the
commit delays the answer to the action. A handler that fails is logged and never undoes the commit,
nor keeps the handlers after it from running."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from app.services.kept import Commit

log = logging.getLogger(__name__)

E = TypeVar("E")
Handler = Callable[[E], "Awaitable[None] | None"]


@dataclass(frozen=True)
class ActionCommitted:
    """An action was committed by this process: what it wrote (`commit`: the battle row, the new
    state, the log row), whether its write recorded the actor as just seen (False: the seat has
    no status row yet) and whether any seat of the battle wants a webhook."""

    commit: Commit
    seen: bool = True
    hooked: bool = False

    @property
    def actor_id(self) -> str | None:
        return self.commit.row.actor_id

    def __str__(self) -> str:
        return f"battle {self.commit.battle_id} seq {self.commit.seq}"


@dataclass(frozen=True)
class TableChanged:
    """The table around a battle changed — table talk, a request to the referee, the table's
    options — with no action in the log: the pages' table regions are drawn again (`seq`: the
    chat's new number, or 0)."""

    battle_id: str
    seq: int = 0


@dataclass(frozen=True)
class SeatsChanged:
    """A seat was added, removed or given a new link: every process's pages of the battle read the
    seats again (the turn bar's table, the referee's seat list), like any other change."""

    battle_id: str


@dataclass
class Unit:
    """One unit of work: its session, and the events it will hand over once it has committed."""

    session: AsyncSession
    events: list[Any] = field(default_factory=list)

    def emit(self, event: Any) -> None:
        self.events.append(event)


class Bus:
    """Handlers by event type, run after the commit of the unit that emitted the event."""

    def __init__(self) -> None:
        self._handlers: dict[type, list[Callable[[Any], Awaitable[None] | None]]] = {}

    def on(self, kind: type[E], handler: Handler[E]) -> None:
        self._handlers.setdefault(kind, []).append(handler)

    def off(self, kind: type[E], handler: Handler[E]) -> None:
        self._handlers.get(kind, []).remove(handler)

    def publish(self, events: Iterable[Any]) -> None:
        """Hand each event to its handlers, in order (called once the unit has committed)."""
        for event in events:
            for handler in self._handlers.get(type(event), ()):
                try:
                    work = handler(event)
                except Exception:  # the commit stands: its viewers catch up by the heartbeat
                    log.exception("after-commit handler %s failed on %s", _name(handler), event)
                    continue
                if inspect.isawaitable(work):
                    task = asyncio.get_running_loop().create_task(_guarded(work, handler, event))
                    _running.add(task)
                    task.add_done_callback(_running.discard)


_running: set[asyncio.Task[None]] = set()  # every bus's background work in this process


async def settle() -> None:
    """Wait until the background work handed out after commits has finished (tests, shutdown)."""
    while _running:
        await asyncio.gather(*list(_running), return_exceptions=True)


async def _guarded(work: Awaitable[None], handler: Callable[..., Any], event: Any) -> None:
    try:
        await work
    except Exception:  # after-commit work never fails the action that was committed
        log.exception("after-commit handler %s failed on %s", _name(handler), event)


def _name(handler: Callable[..., Any]) -> str:
    return getattr(handler, "__qualname__", None) or repr(handler)
