"""How a rule module registers its handlers: one plain function holding the rule (so mutation
testing reaches its body), then `mark(fn, action(...), when(...))`. The marks apply in the order
given, a handler marked twice is refused at import, and `gather` finds each handler once."""

from __future__ import annotations

import types
from typing import Any

import pytest

from app.rules.core import ShipRef
from app.rules.ruleset import action, gather, hook, mark, spec_of, when


def _handler(state: Any, p: Any, actor: Any, dice: Any) -> list[Any]:
    return []


def _fresh() -> types.FunctionType:
    """A new function object each time (marks are attributes of the function)."""
    return types.FunctionType(_handler.__code__, globals(), "handler")


def test_marks_apply_in_order_action_then_when() -> None:
    fn = mark(_fresh(), action("t.act", ShipRef, "Act", ship="ship"), when("fire", refusal="fire only"))
    spec = spec_of(fn)
    assert (spec.name, spec.during, spec.outside) == ("t.act", frozenset({"fire"}), "fire only")
    with pytest.raises(AttributeError):  # `when` places an action: marked the other way round it has none
        mark(_fresh(), when("fire"), action("t.act", ShipRef, "Act"))


def test_a_handler_marked_twice_is_refused() -> None:
    fn = mark(_fresh(), action("t.act", ShipRef, "Act"))
    with pytest.raises(TypeError, match="marked as an action twice"):
        mark(fn, action("t.other", ShipRef, "Other"))
    step = mark(_fresh(), hook("enter", "fire"))
    with pytest.raises(TypeError, match="hook on enter fire twice"):
        mark(step, hook("enter", "fire"))
    assert mark(step, hook("leave", "fire")) is step  # another moment is another hook


def test_gather_finds_each_marked_handler_once() -> None:
    module = types.ModuleType("t_rules")
    fn = mark(_fresh(), action("t.act", ShipRef, "Act", ship="ship"))
    fn.__module__ = module.__name__
    module.act, module.same_handler_again = fn, fn  # one function under two names
    ruleset = gather("t", "T", [module])
    assert [a.name for a in ruleset.actions] == ["t.act"]
