"""What this process keeps from its own commits: each battle's last committed state, battle row
and acting seats (`KeptStates`, for the next action's check, on the platform), and what one commit
left (`Commit`, handed to this process's live frames before the wake-up). Both are read-only once
kept: the rules change a copy, and the live frames draw the very same objects."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from app.models import ActionLog, Battle, Participant
from app.rules.state import BattleState

NOT_READ: Any = object()  # a seat found by its id: the table's options were not read with it


@dataclass(frozen=True)
class KeptSeat:
    """A seat as an action of this process read it (read-only), and the table's options read with
    it (`NOT_READ` for a seat found by its id: its door does not ask them)."""

    row: Participant
    options: Any = NOT_READ


@dataclass(frozen=True)
class Kept:
    """What a battle's last commit from this process left: its battle row and state, at a version
    and seq, and the seats that acted here lately, by credential (`credential`)."""

    version: int
    seq: int
    state: BattleState
    battle: Battle | None = None
    seats: dict[str, KeptSeat] = field(default_factory=dict)


def credential(token_hash: str | None, participant_id: Any) -> str:
    """The credential an action's seat is kept under: its token's hash (REST) or its id (pages)."""
    return f"t:{token_hash}" if token_hash is not None else f"p:{participant_id}"


class KeptStates:
    """The state each battle's last commit from this process left, by battle version:
    an action on PostgreSQL whose battle is still at that version is checked against it, and the
    snapshot is neither sent again nor parsed again. A state is kept only once its action has
    committed, so the version it is kept under is the database's own and names no other state.
    Kept states are read-only, as every committed state is: the rules change a copy
    (`apply_action`), and this process's live frames draw the very same object.

    With the battle row and the acting seat kept too, the next action by a kept seat reads
    nothing: its write is guarded on the version, the seat and the table's options as kept
    (`WRITE_PG`), and a guard that fails means a whole read (`actions._submit_once`)."""

    SEATS = 32  # seats kept per battle (the latest actors)

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._kept: OrderedDict[str, Kept] = OrderedDict()

    def version(self, battle_id: str) -> int:
        """The version whose state is kept (-1: none)."""
        kept = self._kept.get(battle_id)
        return kept.version if kept is not None else -1

    def state(self, battle_id: str, version: int, seq: int) -> BattleState | None:
        kept = self._kept.get(battle_id)
        if kept is None or (kept.version, kept.seq) != (version, seq):
            return None
        self._kept.move_to_end(battle_id)
        return kept.state

    def entry(self, battle_id: str) -> Kept | None:
        """Everything kept for a battle (None: nothing)."""
        kept = self._kept.get(battle_id)
        if kept is not None:
            self._kept.move_to_end(battle_id)
        return kept

    def keep(
        self,
        battle_id: str,
        version: int,
        seq: int,
        state: BattleState,
        battle: Battle | None = None,
        seat: tuple[str, KeptSeat] | None = None,
    ) -> None:
        """Keep a committed state; the seats kept before stay kept (each write checks its own)."""
        before = self._kept.get(battle_id)
        seats = dict(before.seats) if before is not None else {}
        if seat is not None:
            seats.pop(seat[0], None)
            seats[seat[0]] = seat[1]
            while len(seats) > self.SEATS:
                del seats[next(iter(seats))]
        self._kept[battle_id] = Kept(version, seq, state, battle, seats)
        self._kept.move_to_end(battle_id)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def forget(self, battle_id: str) -> None:
        self._kept.pop(battle_id, None)


@dataclass(frozen=True)
class Commit:
    """What one committed action left in the database, as this process wrote it: the battle row,
    the state the snapshot now holds, and the new log row (all detached, read-only from here)."""

    battle_id: str
    seq: int
    battle: Battle
    state: BattleState
    row: ActionLog
    seat: tuple[str, KeptSeat] | None = None  # the acting seat, by its credential (`KeptStates`)
