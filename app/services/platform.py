"""What the services need from the outside world, built once per process (`services/bootstrap.py`
builds it with the write path's after-commit handlers on its bus)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from app.config import Settings
from app.db import Database
from app.realtime.broker import Broker
from app.rules import STANDARD, Rules
from app.services.bus import Bus, Unit
from app.services.clock import SystemClock
from app.services.kept import KeptStates
from app.services.store.action_store import ActionStore
from app.services.store.postgres import PostgresActionStore
from app.services.store.sqlite import SqliteActionStore


@dataclass
class Platform:
    settings: Settings
    db: Database
    broker: Broker
    rules: Rules = field(default=STANDARD)  # the systems and rulesets this server plays
    # The state each battle's last commit here left, by version: the next action checks against it
    # without the snapshot being sent and parsed again (services/store/postgres.py).
    states: KeptStates = field(default_factory=KeptStates)
    # Outbound webhook calls on their own bounded threads (services/table/webhooks.py), made at
    # first use so nothing a seat starts shares capacity with the game's own work.
    webhooks: Any = None
    # Everything that follows a commit (kept state, wake-ups, checkpoints, this process's live log,
    # notifications): handlers by event type, run once the unit of work has committed.
    bus: Bus = field(default_factory=Bus)
    # The time the battle clocks read (services/table/clocks.py): a ManualClock in tests.
    clock: Any = field(default_factory=SystemClock)
    # Set when a commit changed a clock, so this process's timer looks again before its next due time.
    clock_changed: asyncio.Event = field(default_factory=asyncio.Event)
    # The database behind the write path, chosen once for the database this process runs on.
    store: ActionStore = field(init=False)

    def __post_init__(self) -> None:
        self.store = SqliteActionStore() if self.db.is_sqlite else PostgresActionStore()

    @asynccontextmanager
    async def unit(self) -> AsyncIterator[Unit]:
        """An action's unit of work (`Database.unit`); the events it emitted are handed to the bus
        once it has committed, and dropped if it fails."""
        async with self.db.unit() as session:
            work = Unit(session)
            yield work
        self.bus.publish(work.events)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Unit]:
        """A unit of work for the table's own changes (table talk, requests, options): a plain
        transaction whose emitted events are handed to the bus once it has committed."""
        async with self.db.transaction() as session:
            work = Unit(session)
            yield work
        self.bus.publish(work.events)
