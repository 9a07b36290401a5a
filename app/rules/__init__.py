"""The pure rules core: plain data in, plain data and events out.

Nothing in this package may import the web, database or realtime layers; a test
(`tests/rules/test_purity.py`) enforces it. The floors, bottom up: value types (core, state, dice),
a game system's steps (system, systems/), a ruleset's protocol (ruleset, attack), the rulesets
(generic/, shadow/, startrek/, traveller/), a game with its one gate (game), the one list of them
(registry), per-viewer views (views), the entry `apply_action` (engine), and the consumers that
read what each part declares of itself (overrides: the referee's picker; map_view: the map).
"""

from app.rules.core import Action, Actor, Event, Outcome, Roll, RuleError
from app.rules.engine import apply_action
from app.rules.registry import STANDARD, Rules, new_battle
from app.rules.state import BattleState, Clock, Ship

__all__ = [
    "STANDARD",
    "Action",
    "Actor",
    "BattleState",
    "Clock",
    "Event",
    "Outcome",
    "Roll",
    "RuleError",
    "Rules",
    "Ship",
    "apply_action",
    "new_battle",
]
