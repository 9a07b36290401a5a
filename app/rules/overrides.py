"""What a referee may override by picking: each ship's settable values, named in words, with their
current value and the range the rules allow.

Which values a part offers is declared by the part itself, beside its model (`@part(...,
settable=...)`, `PartSpec.settable`): the values a table corrects (armour, structure, shield
strength, pain…), not the bookkeeping the rules keep for themselves. This module names no part: it
reads the declarations of the parts the battle's game knows. Their kind and range are read from the
part's own Pydantic model (the `ge`/`le` constraints, `Literal` choices, `bool`), narrowed by the
sibling field that caps them (a section's armour by its `armour_max`), so the picker can never
offer what the rules would refuse. A part that declares nothing offers nothing; REST's
`override.set` still takes any path.
"""

from __future__ import annotations

import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from app.rules.core import RuleError
from app.rules.ruleset import Settable
from app.rules.state import BattleState, Ship

Kind = Literal["number", "choice", "toggle"]


# The ship's own flags, listed first; each part's values follow, as its PartSpec declares them.
SHIP: tuple[Settable, ...] = (Settable("destroyed", "Destroyed"), Settable("crippled", "Crippled"))

YES = ("true", "yes", "on", "1")
NO = ("false", "no", "off", "0")


@dataclass(frozen=True)
class Choice:
    """One value the referee may set now: its full state path, its name, its current value and
    what the rules allow (`low`…`high` for a number, `options` for a choice, yes/no for a toggle)."""

    path: str
    ship: str
    group: str
    label: str
    kind: Kind
    current: Any
    low: float | None = None
    high: float | None = None
    whole: bool = True
    options: tuple[str, ...] = field(default=())

    @property
    def allowed(self) -> str:
        """The range in words, as the picker lists it."""
        if self.kind == "toggle":
            return "yes or no"
        if self.kind == "choice":
            return "one of " + ", ".join(self.options)
        low, high = (_shown(v) for v in (self.low, self.high))
        if low is not None and high is not None:
            return f"{low} to {high}"
        if low is not None:
            return f"{low} or more"
        return f"up to {high}" if high is not None else "any number"

    @property
    def shown(self) -> str:
        """The current value in words."""
        return self.words(self.current)

    def words(self, value: Any) -> str:
        """A value of this kind in words (the log line and the ⚑ marker use it too)."""
        if value is None:
            return "not set"
        if self.kind == "toggle":
            return "yes" if value else "no"
        return str(_shown(value))

    def parse(self, raw: str) -> Any:
        """The typed text as this value's JSON, or a RuleError naming the value in words (on the
        field `path`): out of range, not a number, not one of the choices."""
        text = raw.strip()
        if self.kind == "toggle":
            if text.lower() in YES:
                return True
            if text.lower() in NO:
                return False
            raise RuleError(f"{self.label}: answer yes or no (you sent {text!r})", self.path)
        if self.kind == "choice":
            if text not in self.options:
                raise RuleError(f"{self.label}: must be {self.allowed} (you sent {text!r})", self.path)
            return text
        number = _number(text, self.whole)
        if number is None:
            kind = "a whole number" if self.whole else "a number"
            raise RuleError(f"{self.label}: must be {kind} (you sent {text!r})", self.path)
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            raise RuleError(f"{self.label}: must be {self.allowed} (you sent {_shown(number)})", self.path)
        return number


_NUMBER = re.compile(r"[+-]?[0-9]{1,9}(\.[0-9]{1,6})?")


def _number(text: str, whole: bool) -> int | float | None:
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    if whole:
        return int(value) if value.is_integer() else None
    return int(value) if value.is_integer() else value


def _shown(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _unwrap(annotation: Any) -> Any:
    """`X | None` → X (the picker never sets a value back to unset)."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        kept = [a for a in typing.get_args(annotation) if a is not type(None)]
        return kept[0] if len(kept) == 1 else annotation
    return annotation


def _item(annotation: Any) -> Any:
    """The model of a list's items (`list[Section]` → Section)."""
    annotation = _unwrap(annotation)
    if typing.get_origin(annotation) is list:
        return _unwrap(typing.get_args(annotation)[0])
    return annotation


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    """A field's declared range (pydantic keeps `ge`/`le`… as annotated-types constraints)."""
    low = high = None
    for rule in info.metadata:
        if (value := getattr(rule, "ge", None)) is not None:
            low = value
        if (value := getattr(rule, "gt", None)) is not None:
            low = value + 1 if isinstance(value, int) else value
        if (value := getattr(rule, "le", None)) is not None:
            high = value
        if (value := getattr(rule, "lt", None)) is not None:
            high = value - 1 if isinstance(value, int) else value
    return low, high


def _choice(
    path: str, ship: str, group: str, label: str, info: FieldInfo, current: Any, cap: Any
) -> Choice | None:
    """The Choice of one leaf field, from its annotation and constraints; None for a kind the
    picker does not set (text, lists)."""
    annotation = _unwrap(info.annotation)
    if annotation is bool:
        return Choice(path, ship, group, label, "toggle", current)
    if typing.get_origin(annotation) is Literal:
        options = tuple(str(a) for a in typing.get_args(annotation))
        return Choice(path, ship, group, label, "choice", current, options=options)
    if annotation in (int, float):
        low, high = _bounds(info)
        if isinstance(cap, (int, float)) and not isinstance(cap, bool):
            high = cap if high is None else min(high, cap)
        if low is not None and high is not None and high <= low:
            return None  # nothing to choose (a section with no armour)
        return Choice(path, ship, group, label, "number", current, low, high, whole=annotation is int)
    return None


def _expand(
    model: type[BaseModel], node: Any, keys: list[str], at: str, names: dict[str, Any]
) -> list[tuple[str, FieldInfo, Any, dict[str, Any]]]:
    """Every (path, field, value, innermost item) a declared place reaches in the data."""
    key, rest = keys[0], keys[1:]
    info = model.model_fields.get(key)
    if info is None or not isinstance(node, dict) or key not in node:
        return []
    value = node[key]
    if not rest:
        return [(f"{at}.{key}", info, value, names | node)]
    inner = _item(info.annotation)
    if rest[0] == "*":
        if not isinstance(value, list) or not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            return []
        found = []
        for i, item in enumerate(value):
            if rest[1:]:
                found += _expand(inner, item, rest[1:], f"{at}.{key}.{i}", names | node)
        return found
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        return _expand(inner, value, rest, f"{at}.{key}", names | node)
    return []


def _declared(
    model: type[BaseModel],
    data: dict[str, Any],
    declared: tuple[Settable, ...],
    at: str,
    ship: str,
    group: str,
) -> list[Choice]:
    out = []
    for settable in declared:
        for path, info, value, item in _expand(model, data, settable.where.split("."), at, {}):
            cap = item.get(settable.upto) if settable.upto else None
            if settable.upto and cap is None:
                continue  # capped by a value this ship does not have (no Excess Damage boxes)
            label = settable.label.format_map(_Fields(item))
            made = _choice(path, ship, group, label, info, value, cap)
            if made is not None:
                out.append(made)
    return out


class _Fields(dict[str, Any]):
    """An item's fields for a label; a name the item lacks reads as '?' rather than failing."""

    def __missing__(self, key: str) -> str:
        return "?"


def choices_for(state: BattleState, ship_id: str) -> list[Choice]:
    """The values the referee may set on this ship now, in the order the picker lists them."""
    ship: Ship = state.ship(ship_id)
    at = f"ships.{ship.id}"
    found = _declared(Ship, ship.model_dump(mode="json"), SHIP, at, ship.id, "ship")
    for name, part in ship.parts.items():
        spec = state.game.parts.get(name)
        if spec is None or not isinstance(part, dict):
            continue
        found += _declared(spec.schema, part, spec.settable, f"{at}.parts.{name}", ship.id, name)
    return found


def choice_at(state: BattleState, path: str) -> Choice | None:
    """The declared value at a full state path, if the picker offers it."""
    keys = path.split(".")
    if len(keys) < 3 or keys[0] != "ships" or keys[1] not in state.ships:
        return None
    return next((c for c in choices_for(state, keys[1]) if c.path == path), None)
