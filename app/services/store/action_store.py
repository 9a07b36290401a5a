"""An action's rows in the database, behind one protocol: what an action is checked against (the
battle, its snapshot, the acting seat, whether its id was used) and what it writes (its log row, the
snapshot, the battle, the actor's last seen).

Two implementations, chosen once when the `Platform` is built (`store_for`): PostgreSQL's
(`store/postgres.py`, one bare-driver statement each, the cheapest way on the action path) and
SQLite's (`store/sqlite.py`, the ORM). The write path (`services/write/actions.py`) speaks only
to this protocol, so it reads the same on both databases.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from app.models import ActionLog, Battle, Participant, Snapshot
from app.rules.state import BattleState
from app.services.kept import Kept


@dataclass(frozen=True)
class Asked:
    """What an action's read looks for: the battle, whether the action id was used, the acting
    seat by its id (pages, sockets) or by its token's hash (REST: the table's changed options come
    along), and `known`, the battle version whose state this process keeps (-1: none)."""

    battle_id: str
    action_id: str
    participant_id: str | None = None
    token_hash: str | None = None
    known: int = -1


@dataclass
class Found:
    """What one read for an action found: the battle and its snapshot (None: no such battle; the
    snapshot's state is None when the battle is at the version whose state this process keeps),
    the seat asked for (None: no such seat or token), whether the action id was used, for a seat
    found by its token the table's changed options (None: none changed), and whether that seat has
    drafts saved in the battle (only then does the write path read them, to fold them in)."""

    battle: Battle | None
    snap: Snapshot | None
    seat: Participant | None
    used: bool
    options: dict[str, Any] | None = None
    drafts: bool = False


@dataclass(frozen=True)
class Entry:
    """The action's log row, before it is written (the store gives it its id and time)."""

    battle_id: str
    seq: int
    action_id: str
    actor_id: str
    actor_role: str
    action_type: str
    clock: str
    payload: dict[str, Any]
    dice: list[Any]
    events: list[dict[str, Any]]
    request_id: str | None = None  # the request that made it (its log lines carry the same id)

    def columns(self) -> dict[str, Any]:
        """The log row's columns as the entry holds them."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Guard:
    """What the write is guarded on: the battle at its version as read, the acting seat still
    holding its token, role and place, (`options_read`) the table's options still as read, and
    (`no_drafts`) the seat having no draft saved in the battle: an action checked without its
    author's drafts (none were found, or none were read) must not pass over one saved since."""

    seat: Participant
    options_read: bool = False
    options: dict[str, Any] | None = None
    no_drafts: bool = False


@dataclass(frozen=True)
class Written:
    """A written action: its log row as the database holds it; whether the actor's seat status was
    updated (False: the seat has no status row yet) and whether any seat of the battle wants a
    webhook (the notifier's question, answered by the write itself)."""

    row: ActionLog
    seen: bool
    hooked: bool


@dataclass(frozen=True)
class Write:
    """One action's write: the battle and snapshot it was checked against, its log row, the state it
    leaves and what the write is guarded on."""

    battle: Battle
    snap: Snapshot
    entry: Entry
    state: BattleState
    guard: Guard


class GuardFailed(StaleDataError):
    """The write found the battle, the acting seat or the table's options not as the action was
    checked against them (another writer, a rotated token, a removed seat): nothing was written."""


class ActionStore(Protocol):
    """The database behind the write path. Every method runs in the caller's unit of work."""

    async def read(self, session: AsyncSession, asked: Asked) -> Found:
        """The battle, snapshot and seat an action is checked against, in one read."""
        ...

    def from_kept(self, kept: Kept) -> tuple[Battle, Snapshot] | None:
        """The battle and snapshot (state left out) from what this process's last commit kept, so
        an action may be checked without a read; None where this store always reads."""
        ...

    async def write(self, session: AsyncSession, w: Write) -> Written:
        """Write the action; afterwards `w.battle` and `w.snap.seq` hold what the database holds (the
        live path hands them to this process's viewers without reading them back). Raises
        `GuardFailed` (nothing written) when what `w.guard` names moved."""
        ...

    async def seat_by_token(
        self, session: AsyncSession, token_hash: str
    ) -> tuple[Participant, dict[str, Any] | None, dict[str, Any] | None] | None:
        """The seat holding this token, with its battle's options as created and as the referee
        changed them (None: no such token), in one statement: the REST door's one read."""
        ...
