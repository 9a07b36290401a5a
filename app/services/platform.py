"""What the services need from the outside world, built once per process."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from app.config import Settings
from app.db import Database
from app.realtime.broker import Broker
from app.rules import STANDARD, Rules
from app.services.kept import KeptStates

AfterCommit = Callable[[str, int, "str | None"], Awaitable[None]]
Committed = Callable[[Any], None]
# (the action's session, battle id, new seq, acting participant id) → a follow-up to run after the
# commit, or None: work that belongs in the action's own transaction (one transaction per
# action, not one more for last-seen).
InCommit = Callable[[Any, str, int, "str | None"], Awaitable["Callable[[], Awaitable[None]] | None"]]


@dataclass
class Platform:
    settings: Settings
    db: Database
    broker: Broker
    rules: Rules = field(default=STANDARD)  # the systems and rulesets this server plays
    # After-commit work (notifications, last seen): each callback gets (battle id, new seq,
    # acting participant id) once an action is committed and published. submit() starts them as
    # background tasks, so they never block or fail the action.
    after_commit: list[AfterCommit] = field(default_factory=list)
    # Work inside each action's transaction, before its commit (last seen; whether a notification
    # may be due); a follow-up it returns is started like the after-commit callbacks.
    in_commit: list[InCommit] = field(default_factory=list)
    # What a commit produced (services.kept.Commit: the battle row, the new state, the log row),
    # handed in-process before the wake-up, so this process's live frames need not read them back
    # again. Called synchronously; a hook must not fail or wait.
    committed: list[Committed] = field(default_factory=list)
    # The state each battle's last commit here left, by version: the next action checks against it
    # without the snapshot being sent and parsed again (services/store/action_store.py).
    states: KeptStates = field(default_factory=KeptStates)
    # Outbound webhook calls on their own bounded threads (services/table/webhooks.py), made at
    # first use so nothing a seat starts shares capacity with the game's own work.
    webhooks: Any = None
