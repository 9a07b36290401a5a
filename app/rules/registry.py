"""The one list of game systems and rulesets, and the games they make.

A fifth ruleset: a package under `app/rules/` whose `__init__.py` builds `RULESET` with
`ruleset.gather(...)`, one entry in `RULESETS` below, and its key in the `rulesets` of each system
it plays in. A fourth system: one data module in `app/rules/systems/` and one entry in `SYSTEMS`.
Tests and tools may build their own `Rules` with more systems; nothing here is changed by import.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.rules.core import RuleError
from app.rules.game import Game
from app.rules.generic import RULESET as GENERIC
from app.rules.ruleset import PartSpec, Ruleset
from app.rules.shadow import RULESET as SHADOW
from app.rules.startrek import RULESET as STARTREK
from app.rules.state import BattleState
from app.rules.system import GameSystem
from app.rules.systems.b5wars import B5WARS
from app.rules.systems.sfb import SFB
from app.rules.systems.traveller import TRAVELLER
from app.rules.traveller import RULESET as TRAVELLER_HG

SYSTEMS: tuple[GameSystem, ...] = (SFB, B5WARS, TRAVELLER)
RULESETS: tuple[Ruleset, ...] = (GENERIC, SHADOW, STARTREK, TRAVELLER_HG)


class Rules:
    """Systems and rulesets known to a server; each system with its rulesets makes a `Game`."""

    def __init__(self, systems: Iterable[GameSystem], rulesets: Iterable[Ruleset]) -> None:
        self.systems: dict[str, GameSystem] = {s.key: s for s in systems}
        self.rulesets: dict[str, Ruleset] = {r.key: r for r in rulesets}
        self._games: dict[str, Game] = {}
        for system in self.systems.values():
            unknown = [k for k in system.rulesets if k not in self.rulesets]
            if unknown:
                raise ValueError(f"{system.name} names unknown rulesets {unknown}")
            playing = [self.rulesets[k] for k in system.rulesets]
            self._games[system.key] = Game(system, playing, self.rulesets.values())

    def with_system(self, system: GameSystem) -> Rules:
        """These rules and one more system (a variant, or a test's own)."""
        return Rules([*self.systems.values(), system], self.rulesets.values())

    def with_ruleset(self, ruleset: Ruleset) -> Rules:
        """These rules and one more ruleset (a test's own), for the systems that name it."""
        return Rules(self.systems.values(), [*self.rulesets.values(), ruleset])

    def parts(self) -> dict[str, PartSpec]:
        """Every part of every ruleset these rules know, by name."""
        return {p.name: p for r in self.rulesets.values() for p in r.parts}

    def game(self, system: str) -> Game:
        try:
            return self._games[system]
        except KeyError:
            raise RuleError(
                f"unknown game system {system!r}; choose one of {', '.join(self.systems)}", "system"
            ) from None

    def names(self) -> dict[str, str]:
        return {key: s.name for key, s in self.systems.items()}

    def new_battle(self, system: str, options: dict[str, Any] | None = None) -> BattleState:
        return self.game(system).new_battle(options)

    def load(self, data: dict[str, Any]) -> BattleState:
        """A stored state, bound to its game again."""
        return self.game(str(data.get("system"))).load(data)

    def all_actions(self) -> dict[str, Any]:
        """Every action any system plays (the REST catalogue), with the systems that play it."""
        found: dict[str, Any] = {}
        for key, game in self._games.items():
            for name, spec in game.actions.items():
                found.setdefault(name, (spec, []))[1].append(key)
        return found


STANDARD = Rules(SYSTEMS, RULESETS)


def new_battle(system: str, options: dict[str, Any] | None = None) -> BattleState:
    """A new battle under the standard rules."""
    return STANDARD.new_battle(system, options)
