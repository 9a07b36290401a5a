"""Dice sources. Rules never call `random`: they ask the source they were given.

* SeededDice: provable play. Roll *i* of action *seq* comes from HMAC-SHA256(seed, battle:seq:i),
  with rejection sampling so every face is equally likely. The seed's SHA-256 is public from the
  start and the seed itself is revealed when the battle ends, so anyone can re-derive every roll.
* ScriptedDice: tests say exactly what comes up.
* EnteredDice: physical dice; values come with the action in the order the rule asks for them,
  and a missing one raises NeedRoll naming the roll still needed.
Every source records each die it produced, so the log keeps them and a rebuild never rolls again.
"""

from __future__ import annotations

import hashlib
import hmac
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from app.rules.core import NeedRoll, Roll, RuleError


class DiceSource(ABC):
    # Whether a die may be missing (NeedRoll): people roll them, or a log hands back what they rolled.
    may_lack = False
    # Whether the server rolls these dice from the battle's seed, so its end reveals that seed; a
    # physical-dice battle's players roll them and it has no seed to reveal (GEN-02).
    server_rolls = True

    def __init__(self) -> None:
        self.record: list[dict[str, object]] = []

    @abstractmethod
    def _next(self, sides: int, purpose: str, ship: str | None) -> int:
        """The next face of a d`sides`."""

    def left(self) -> int | None:
        """How many entered (or recorded) dice are still to be drawn; None for a source that rolls
        for itself and never runs out (the server's dice)."""
        return None

    def die(self, sides: int, purpose: str, ship: str | None = None) -> int:
        value = self._next(sides, purpose, ship)
        if not 1 <= value <= sides:
            raise ValueError(f"a d{sides} cannot show {value}")
        self.record.append({"sides": sides, "value": value, "purpose": purpose, "ship": ship})
        return value

    def roll(
        self,
        count: int,
        sides: int,
        purpose: str,
        *,
        ship: str | None = None,
        modifier: int = 0,
        target: str | None = None,
    ) -> Roll:
        """Roll `count`d`sides` + modifier and return it as a log-ready Roll (outcome set by the rule)."""
        dice = [self.die(sides, purpose, ship) for _ in range(count)]
        expr = f"{count}d{sides}"
        if modifier:
            expr += f"{modifier:+d}".replace("-", " − ").replace("+", " + ")
        return Roll(
            expr=expr,
            dice=dice,
            modifier=modifier,
            total=sum(dice) + modifier,
            purpose=purpose,
            ship=ship,
            target=target,
        )


def _uniform(key: bytes, message: str, sides: int) -> int:
    """An unbiased face from HMAC output: reject values in the uneven tail of 2**64."""
    limit = (2**64 // sides) * sides
    attempt = 0
    while True:
        digest = hmac.new(key, f"{message}:{attempt}".encode(), hashlib.sha256).digest()
        for offset in range(0, 32, 8):
            value = int.from_bytes(digest[offset : offset + 8], "big")
            if value < limit:
                return value % sides + 1
        attempt += 1


class SeededDice(DiceSource):
    def __init__(self, seed: bytes, battle_id: str, seq: int) -> None:
        super().__init__()
        self.seed = seed
        self.battle_id = battle_id
        self.seq = seq
        self.index = 0

    def _next(self, sides: int, purpose: str, ship: str | None) -> int:
        value = _uniform(self.seed, f"{self.battle_id}:{self.seq}:{self.index}:d{sides}", sides)
        self.index += 1
        return value


def seed_commitment(seed: bytes) -> str:
    """What players see before the reveal: SHA-256 of the seed, hex."""
    return hashlib.sha256(seed).hexdigest()


def derive_roll(seed: bytes, battle_id: str, seq: int, index: int, sides: int) -> int:
    """Re-derive one roll after the seed is revealed (the check any player can run)."""
    return _uniform(seed, f"{battle_id}:{seq}:{index}:d{sides}", sides)


def verify_rolls(seed: bytes, battle_id: str, rolls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recorded rolls that the revealed seed does not reproduce (an empty list: all honest).

    Each roll names its action `seq`, its `index` within the action, its `sides` and `value`."""
    return [
        r
        for r in rolls
        if derive_roll(seed, battle_id, int(r["seq"]), int(r["index"]), int(r["sides"])) != r["value"]
    ]


SEED_REVEALED = " The dice seed is revealed."


def end_told(text: str, dice: DiceSource) -> str:
    """A battle's end says its seed is revealed only where the server rolled the dice from it: a
    physical-dice battle's players rolled them, and it has no seed to reveal (GEN-02)."""
    return text + SEED_REVEALED if dice.server_rolls else text


class ScriptedDice(DiceSource):
    def __init__(self, values: Iterable[int]) -> None:
        super().__init__()
        self.values = list(values)

    def _next(self, sides: int, purpose: str, ship: str | None) -> int:
        if not self.values:
            raise AssertionError(f"scripted dice ran out at {purpose} (d{sides})")
        return self.values.pop(0)


class EnteredDice(DiceSource):
    """Physical dice: the values the player entered, in the order the rule asks for them."""

    may_lack = True
    server_rolls = False

    def __init__(self, values: Iterable[int]) -> None:
        super().__init__()
        self.values = list(values)
        self.used = 0

    def _next(self, sides: int, purpose: str, ship: str | None) -> int:
        if not self.values:
            raise NeedRoll(sides, purpose, ship, self.used)
        value = self.values.pop(0)
        if not 1 <= value <= sides:
            raise RuleError(f"a d{sides} cannot show {value} (die {self.used + 1} for {purpose})", "dice")
        self.used += 1
        return value

    def left(self) -> int | None:
        return len(self.values)


class ReplayDice(DiceSource):
    """Rebuild: hand back exactly the dice the log recorded, checking the rule asks for the same.
    Past the last, a die is missing (NeedRoll) as it was when the action was made: a step's end that
    waited for another commander's die (`SeatedDice`) waits again."""

    may_lack = True

    def __init__(
        self, recorded: list[dict[str, Any]], may_lack: bool = True, server_rolls: bool = True
    ) -> None:
        """`may_lack=False`: the caller knows the recorded dice are all the action asks for (its
        row did not wait), so a step's end need not try on a copy first. `server_rolls`: as the
        battle's dice were rolled (False: physical dice, entered by the players)."""
        super().__init__()
        self.recorded = list(recorded)
        self.may_lack = may_lack
        self.server_rolls = server_rolls

    def _next(self, sides: int, purpose: str, ship: str | None) -> int:
        if not self.recorded:
            raise NeedRoll(sides, purpose, ship, len(self.record))
        entry = self.recorded.pop(0)
        if entry["sides"] != sides:
            raise AssertionError(f"log recorded a d{entry['sides']} where the rule asks for d{sides}")
        return int(entry["value"])


class Deferred(Exception):
    """A step's end needs a die for a ship whose commander is not the one ending it, and people roll
    the dice: the end waits for that commander (or the referee). `drawn`: the dice drawn before it."""

    def __init__(self, sides: int, purpose: str, ship: str, drawn: list[int]) -> None:
        super().__init__(f"1d{sides} for {purpose} is rolled by the commander of {ship}")
        self.sides = sides
        self.purpose = purpose
        self.ship = ship
        self.drawn = drawn


class SeatedDice(DiceSource):
    """The dice of a step's end (GEN-02): first those entered for it earlier (`stored`), then the
    source's. A die for a ship the actor may not roll for (`may_roll` says no) is never taken from
    dice the actor entered: entered ones are refused, and with none left the end waits for it
    (`Deferred`). Where the source rolls for itself (the server), it rolls every die as before."""

    def __init__(
        self,
        source: DiceSource,
        may_roll: Callable[[str], bool],
        stored: Iterable[int] = (),
        name: Callable[[str], str] = str,
    ) -> None:
        super().__init__()
        self.source = source
        self.server_rolls = source.server_rolls
        self.may_roll = may_roll
        self.name = name
        self.stored = list(stored)
        self.drawn: list[int] = []

    def _next(self, sides: int, purpose: str, ship: str | None) -> int:
        if self.stored:
            value = self.stored.pop(0)
        elif ship is None or self.may_roll(ship):
            value = self.source.die(sides, purpose, ship)
        elif self.source.left():  # the actor entered it
            raise RuleError(
                f"the die for {purpose} is rolled for {self.name(ship)} by its commander or the"
                " referee; enter only the dice of your own ships",
                "dice",
            )
        else:
            try:  # the server rolls it; entered (or replayed) dice have none for it: the end waits
                value = self.source.die(sides, purpose, ship)
            except NeedRoll:
                raise Deferred(sides, purpose, ship, list(self.drawn)) from None
        self.drawn.append(value)
        return value


def dice_plan(
    run: Callable[[DiceSource], object], entered: list[int], budget: int = 400
) -> list[dict[str, object]]:
    """Every die an action may still ask for after the ones entered, found by trying each face of
    each die the rule asks for (rules are pure, so this is cheap): the physical-dice form can ask for
    them all at once, named by purpose. Returns, in order, {"index", "sides", "purpose", "ship",
    "always"}; `always` is False for a die only some faces of earlier dice call for. `budget` bounds
    the runs tried (a d100 tree is cut short; what was found is still in order)."""
    found: dict[int, dict[str, object]] = {}
    ends: list[int] = []  # for each complete path, how many more dice it asked for
    runs = 0

    def explore(prefix: list[int]) -> None:
        nonlocal runs
        if runs >= budget:
            return
        runs += 1
        try:
            run(EnteredDice(entered + prefix))
        except NeedRoll as need:
            found.setdefault(
                need.index,
                {"index": need.index, "sides": need.sides, "purpose": need.purpose, "ship": need.ship},
            )
            for face in range(1, need.sides + 1):
                explore([*prefix, face])
            return
        except Exception:  # noqa: S110  (a refusal on some face: that path asks for nothing more)
            pass
        ends.append(len(prefix))

    explore([])
    start = len(entered)
    return [found[i] | {"always": all(n > i - start for n in ends)} for i in sorted(found)]
