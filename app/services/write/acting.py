"""The one call every door makes for a seat's action: whether it waits for the referee is decided
here, once, and not in each door.

A battle may ask that a player's damage on a ship they do not command wait for the referee's
approval (`damage_needs_approval`): such an entry becomes a request on the table and is applied
when the referee approves it. Everything else is submitted at once. A seat that acts by its token
(the REST door) is found inside the action's own read, so the write path answers `MustAsk` when the
entry may wait, before anything is written; the question is then asked with the seat it found.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from app.models import TableRequest
from app.operations import metrics
from app.services.platform import Platform
from app.services.write import actions
from app.services.write.actions import Command, MustAsk, Submitted
from app.services.write.requests import queue_if_needed


@dataclass(frozen=True)
class Queued:
    """The action waits for the referee as this request; nothing of the battle was written."""

    request: TableRequest


async def act(platform: Platform, cmd: Command) -> Submitted | Queued:
    """Submit `cmd`, or queue it for the referee where the battle asks for that (counted as
    "queued" in the action metrics; a submitted one is counted by `submit`)."""
    started = time.perf_counter()
    done = await _act(platform, cmd)
    if isinstance(done, Queued):
        metrics.action_done(actions._system_of(platform, cmd.battle_id), "queued", started)
    return done


async def _act(platform: Platform, cmd: Command) -> Submitted | Queued:
    if cmd.token_hash is None:
        queued = await queue_if_needed(platform, cmd)
        return Queued(queued) if queued is not None else await actions.submit(platform, cmd)
    try:
        return await actions.submit(platform, cmd)
    except MustAsk as asking:
        cmd = replace(cmd, participant_id=asking.participant_id, queue_checked=True)
        queued = await queue_if_needed(platform, cmd, True)
        return Queued(queued) if queued is not None else await actions.submit(platform, cmd)
