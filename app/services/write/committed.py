"""What follows every committed action, as handlers on the platform's bus (`services/bus.py`), in
this order: the state is kept for this process's next action, the battle's viewers are woken (here
and, through the broker, in every other process), and every `checkpoint_every` actions the state is
kept as a checkpoint. The wake-up is a task, so every handler registered later (this process's
live log, the notifier) has run before any viewer is woken. A change to the table around the
battle (`TableChanged`: talk, a request, the options) wakes its table regions the same way."""

from __future__ import annotations

from collections.abc import Awaitable

from app.realtime.broker import Topic
from app.services.bus import ActionCommitted, SeatsChanged, TableChanged
from app.services.history import replay as history
from app.services.platform import Platform


def wire(platform: Platform) -> None:
    """Register the write path's own after-commit handlers on `platform`'s bus."""

    def keep(event: ActionCommitted) -> None:
        """The next action here starts from this state (`KeptStates`)."""
        c = event.commit
        platform.states.keep(c.battle_id, c.battle.version, c.seq, c.state, c.battle, c.seat)

    def wake(event: ActionCommitted) -> None:
        """Local viewers now; other processes by a background publisher with its own timeout (kept
        pending and sent again when the broker is back)."""
        platform.broker.announce(event.commit.battle_id, event.commit.seq)

    def checkpoint(event: ActionCommitted) -> Awaitable[None] | None:
        every = platform.settings.checkpoint_every
        if not every or event.commit.seq % every:
            return None
        return history.checkpoint(platform, event.commit.battle_id, event.commit.seq, event.commit.state)

    for handler in (keep, wake, checkpoint):
        platform.bus.on(ActionCommitted, handler)

    def wake_table(event: TableChanged) -> None:
        """The table's regions, on every page watching the battle, here and in other processes."""
        platform.broker.announce(event.battle_id, event.seq, Topic.TABLE)

    platform.bus.on(TableChanged, wake_table)

    def wake_seats(event: SeatsChanged) -> None:
        platform.broker.announce(event.battle_id, 0, Topic.SEATS)

    platform.bus.on(SeatsChanged, wake_seats)
