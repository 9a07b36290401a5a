"""Input errors in the user's words: a pydantic error becomes "amount: must be at least 1 (you sent
0)" with the field it names, for the rules' parse, the REST door and the pages alike."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

# What a missing field means, where a bare "is required" would not say enough.
MISSING = {
    "definition.name": "a ship needs a name",
    "definition.system": "a ship needs the game system its data is written for (e.g. b5wars, sfb, traveller)",
    "definition": "a ship definition is needed",
    "reason": "say why (it goes in the log)",
    "ship": "name the ship",
    "target": "name the target ship",
    "amount": "enter the amount",
}


NUMERIC = {"greater_than_equal", "greater_than", "less_than_equal", "less_than"}

# What a field's expected form is, where a pattern alone would not say.
PATTERNS = {"hex": "must be four digits, column then row, e.g. 0405"}


def _shown(value: Any, numeric: bool) -> str:
    if numeric and isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,19}(\.[0-9]{1,10})?", value):
        return value  # a number typed in a form or a query reads as the number
    if isinstance(value, str):
        return f"“{value[:40]}{'…' if len(value) > 40 else ''}”"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def explain(error: dict[str, Any]) -> str:
    """One pydantic error (from `errors()`) as a short sentence, without the field's name."""
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    value = error.get("input")
    numeric = kind in NUMERIC or kind.startswith(("int_", "float_"))
    sent = f" (you sent {_shown(value, numeric)})"
    if kind == "missing":
        return "is required"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {
            "greater_than_equal": ("at least", "ge"),
            "greater_than": ("more than", "gt"),
            "less_than_equal": ("at most", "le"),
            "less_than": ("less than", "lt"),
        }[kind]
        return f"must be {words[0]} {ctx.get(words[1])}{sent}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return f"must be a whole number{sent}"
    if kind in ("float_parsing", "float_type"):
        return f"must be a number{sent}"
    if kind in ("bool_parsing", "bool_type"):
        return f"must be true or false{sent}"
    if kind == "string_type":
        return f"must be text{sent}"
    if kind == "string_too_short":
        n = ctx.get("min_length", 1)
        return "must not be empty" if n == 1 else f"needs at least {_plural(n, 'character')}{sent}"
    if kind == "string_too_long":
        return f"may have at most {_plural(ctx.get('max_length'), 'character')}"
    if kind == "string_pattern_mismatch":
        last = str((error.get("loc") or ("",))[-1])
        return f"{PATTERNS.get(last, 'is not in the expected form')}{sent}"
    if kind in ("literal_error", "enum"):
        return f"must be one of {ctx.get('expected', '…')}{sent}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"must be an object ({{…}}){sent}"
    if kind in ("list_type", "tuple_type", "set_type"):
        return f"must be a list ([…]){sent}"
    if kind == "too_short":
        return f"needs at least {_plural(ctx.get('min_length'), 'item')}"
    if kind == "too_long":
        return f"may have at most {_plural(ctx.get('max_length'), 'item')}"
    if kind == "extra_forbidden":
        return "is not a field this takes"
    if kind in ("value_error", "assertion_error"):
        message = str(error.get("msg", ""))
        for prefix in ("Value error, ", "Assertion failed, "):
            message = message.removeprefix(prefix)
        return message
    return str(error.get("msg", "is not valid")).lower()


def field_of(error: dict[str, Any], prefix: str) -> str | None:
    """The dotted path an error names (`definition.parts.sheet.sections.0.structure_max`)."""
    loc = [str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path", "header")]
    where = ".".join([prefix, *loc] if prefix else loc)
    return where or None


def humane(error: dict[str, Any], prefix: str = "") -> tuple[str | None, str]:
    """(field, "field: what is wrong (you sent …)") for one pydantic error."""
    where = field_of(error, prefix)
    if error.get("type") == "missing" and where in MISSING:
        return where, f"{where}: {MISSING[where]}"
    text = explain(error)
    return where, f"{where}: {text}" if where else text


def first_error(exc: ValidationError, prefix: str = "") -> tuple[str | None, str]:
    """The first problem of a validation error, humane; others are counted ("and 2 more problems")."""
    errors = exc.errors()
    if not errors:
        return None, "the input is not valid"
    where, text = humane(errors[0], prefix)
    if len(errors) > 1:
        text += f" (and {_plural(len(errors) - 1, 'more problem')})"
    return where, text
