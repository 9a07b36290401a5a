"""The pure rules core: plain data in, plain data and events out.

Nothing in this package may import the web, database or realtime layers; a test
(`tests/rules/test_purity.py`) enforces it. Importing the package registers every
ruleset's actions and hooks.
"""

from app.rules import generic as _generic  # noqa: F401  (each import registers a ruleset)
from app.rules import shadow as _shadow  # noqa: F401
from app.rules import startrek as _startrek  # noqa: F401
from app.rules import traveller as _traveller  # noqa: F401
from app.rules.core import Action, Actor, Event, Outcome, Roll, RuleError
from app.rules.engine import apply_action
from app.rules.state import BattleState, Clock, Ship

__all__ = [
    "Action",
    "Actor",
    "BattleState",
    "Clock",
    "Event",
    "Outcome",
    "Roll",
    "RuleError",
    "Ship",
    "apply_action",
]
