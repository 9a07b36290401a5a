"""A game system as one object (GEN-01): its turn steps as data, and the clock that walks them.

A system names *moments* on its steps; rulesets hook onto moments, never onto a system's step names,
so a Shadow plays in any system whose steps carry the moments it needs. The moments in use:

- ``allocation``  — power/energy is allocated (SFB Energy Allocation, B5 Wars Ship Power)
- ``movement``    — ships move (B5 Wars Movement, Traveller Manoeuvre)
- ``fire``        — weapons fire (an SFB impulse, B5 Wars Combat, Traveller Combat)
- ``impulse_end`` — damage entered in this step is totalled when it ends (SH-03: an SFB impulse; in
  B5 Wars each of Ship Power, Combat and Adjust Ship Systems, with ramming counted in Combat)
- ``adjust``      — end-of-turn system adjustments (B5 Wars Adjust Ship Systems)
- ``orders``      — secret orders are written (Traveller)
- ``ship_action`` — repairs, jumps and fire fighting (Traveller)
- ``round_end``   — the round's close (Traveller)

Who must act in a step (``acts``): ``every_commander`` (each commander of a ship still fighting),
``anyone`` (whoever has something to enter; the step waits on nobody in particular) or
``initiative`` (the ruleset names the ship whose turn it is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from app.rules.core import RuleError
from app.rules.state import Clock

_STAMP_TURN = re.compile(r"T(\d+)(?: |$)")  # the turn at the head of a log stamp: "T4 I17" → 4

Acts = Literal["every_commander", "anyone", "initiative"]
# Where ships stand: on a hex map the server draws, in range bands a ruleset keeps, or neither.
Board = Literal["hex", "range_bands"]

# The moments (step marks) rulesets hook onto and actions belong to.
ALLOCATION = "allocation"
MOVEMENT = "movement"
FIRE = "fire"
IMPULSE_END = "impulse_end"
ADJUST = "adjust"
ORDERS = "orders"
SHIP_ACTION = "ship_action"
ROUND_END = "round_end"


@dataclass(frozen=True)
class Step:
    key: str
    label: str
    short: str
    marks: frozenset[str] = frozenset()
    repeats: int | None = None  # SFB: the impulse step is played 32 times
    acts: Acts = "every_commander"

    def title(self, clock: Clock) -> str:
        """The step as the page names it: "Impulse 7/32", "Ship Power"."""
        if self.repeats and clock.impulse is not None:
            return f"{self.label} {clock.impulse}/{self.repeats}"
        return self.label


@dataclass(frozen=True)
class GameSystem:
    key: str
    name: str
    steps: tuple[Step, ...]
    fleets: frozenset[str]  # ship families (a ship definition's `system`) the library may bring
    rulesets: tuple[str, ...]  # keys of the rulesets that play in this system, in hook order
    board: Board | None = None
    _index: dict[str, Step] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._index.update({s.key: s for s in self.steps})

    def has_step(self, key: str) -> bool:
        return key in self._index

    def step(self, clock: Clock) -> Step:
        try:
            return self._index[clock.step]
        except KeyError:
            raise RuleError(f"{self.name} has no step {clock.step!r}", "clock.step") from None

    def steps_marked(self, mark: str) -> list[Step]:
        return [s for s in self.steps if mark in s.marks]

    def marks(self) -> frozenset[str]:
        return frozenset().union(*(s.marks for s in self.steps))

    def first(self) -> Clock:
        return self._enter(1, self.steps[0])

    @staticmethod
    def _enter(turn: int, step: Step) -> Clock:
        return Clock(turn=turn, step=step.key, impulse=1 if step.repeats else None)

    def next(self, clock: Clock) -> Clock:
        """The clock after this step: the next repeat, the next step, or the next turn's first step."""
        step = self.step(clock)
        if step.repeats and clock.impulse is not None and clock.impulse < step.repeats:
            return Clock(turn=clock.turn, step=step.key, impulse=clock.impulse + 1)
        index = self.steps.index(step)
        if index + 1 < len(self.steps):
            return self._enter(clock.turn, self.steps[index + 1])
        return self._enter(clock.turn + 1, self.steps[0])

    def describe(self, clock: Clock) -> str:
        """ "Turn 3 · Impulse 7/32" """
        return f"Turn {clock.turn} · {self.step(clock).title(clock)}"

    def short(self, clock: Clock) -> str:
        """The log's time stamp: "T4 I17", "T2 Power"."""
        step = self.step(clock)
        if clock.impulse is not None:
            return f"T{clock.turn} {step.short}{clock.impulse}"
        return f"T{clock.turn} {step.short}"

    @staticmethod
    def turn_of(stamp: str) -> int | None:
        """The turn a log time stamp (`short`) names: what the log's turn stepper steps by. None for
        a row stamped before the log kept stamps."""
        found = _STAMP_TURN.match(stamp)
        return int(found.group(1)) if found else None

    def where(self, mark: str) -> str:
        """The step(s) carrying a moment, for refusals: "the Ship Power step"."""
        labels = [s.label for s in self.steps_marked(mark)]
        return " or ".join(labels) or mark
