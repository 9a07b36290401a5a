"""The battle state: plain, serialisable data. Each ship carries named parts (pain track, shields,
warp drive, Traveller sections…) so one battle can mix rule sets; each ruleset owns its parts' shape."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from app.rules.core import RuleError


class Clock(BaseModel):
    """Where the battle is in its game system's sequence (GEN-01)."""

    turn: int = 1
    step: str
    impulse: int | None = None  # SFB impulses 1–32


class Ship(BaseModel):
    id: str
    name: str
    owner: str | None = None  # participant id of the commanding player
    side: str = ""
    system: str  # the ship's rule family: "sfb", "b5wars", "traveller"
    klass: str = ""
    destroyed: bool = False
    crippled: bool = False
    position: dict[str, Any] | None = None  # e.g. {"hex": "0405", "facing": 1}; hidden while cloaked
    parts: dict[str, Any] = Field(default_factory=dict)

    def part(self, name: str) -> dict[str, Any] | None:
        return self.parts.get(name)

    def opposes(self, other: Ship) -> bool:
        """Whether `other` fights against this ship: by side where both have one, else by
        commander (as SH-12 counts enemies); a ship never opposes itself."""
        if other.id == self.id:
            return False
        if self.side and other.side:
            return other.side != self.side
        return other.owner != self.owner


class PendingRoll(BaseModel):
    """A step's end that waits for a die of a ship whose commander did not end it (GEN-02, physical
    dice): who rolls it is the ship's commander, or the referee."""

    ship: str
    sides: int
    purpose: str
    dice: list[int] = Field(default_factory=list)  # entered earlier for this end: drawn again first


class BattleState(BaseModel):
    system: str  # "sfb", "b5wars", "traveller"
    clock: Clock
    ships: dict[str, Ship] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    finished: bool = False
    ready: list[str] = Field(default_factory=list)  # participants done with the current step
    # participant → the repeat (impulse) they are done until: a skip is standing readiness
    ready_until: dict[str, int] = Field(default_factory=dict)
    rolling: PendingRoll | None = None  # the step's end waits for this die
    _game: Any = PrivateAttr(default=None)  # the Game (app/rules/game.py), which imports this module

    def bind(self, game: Any) -> None:
        """Attach the game (system + rulesets) this state is played under; copies keep it."""
        self._game = game

    @property
    def game(self) -> Any:
        # Read from pydantic's private store directly: `self._game` goes through BaseModel's
        # __getattr__ on every call, and the rules ask for the game many times an action.
        game = self.__pydantic_private__["_game"]  # type: ignore[index]  # set for a model with private fields
        if game is None:
            raise RuntimeError("this battle state is not bound to its game (use Rules.load / new_battle)")
        return game

    def ship(self, ship_id: str, field: str = "ship") -> Ship:
        try:
            return self.ships[ship_id]
        except KeyError:
            raise RuleError(f"no ship {ship_id!r} in this battle", field) from None

    def copy_deep(self, shared: Iterable[tuple[str, str]] = ()) -> BattleState:
        """A private copy for a rule to change (`apply_action`), bound to the same game. Rebuilt
        from its own data by pydantic's core: the state is plain data, and `copy.deepcopy` walking
        it in Python cost five times as much (on the action path's CPU). The parts named in
        `shared` (ship id, part name) are not copied: the copy holds the very same dicts, which
        the caller vouches nothing changes in place (`parsed.copy_for_handler`)."""
        left_out: dict[str, dict[str, set[str]]] = {}
        for sid, name in shared:
            left_out.setdefault(sid, {"parts": set()})["parts"].add(name)
        copy = type(self).model_validate(self.model_dump(exclude={"ships": left_out} if left_out else None))
        for sid, names in left_out.items():
            # put back in their places: the parts' order is the card's order and the stored JSON's
            original, copied = self.ships[sid].parts, copy.ships[sid].parts
            rebuilt = {n: original[n] if n in names["parts"] else copied[n] for n in original}
            copied.clear()
            copied.update(rebuilt)
        copy._game = self.__pydantic_private__["_game"]  # type: ignore[index]  # as in `game`
        return copy
