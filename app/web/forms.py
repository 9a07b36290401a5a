"""Turn an HTML form into an action payload.

Fields are named p.<name>; p.<name>:json is parsed as JSON and p.<name>:int as a whole number;
p.<a>.<b> builds nested objects (p.position.hex → {"position": {"hex": …}}); repeated names (or a
trailing []) become lists; empty values are left out so the rule's defaults apply."""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import FormData

from app.services.errors import Invalid


def payload_from_form(form: FormData) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    for key in dict.fromkeys(form.keys()):
        if not key.startswith("p."):
            continue
        values = [v.strip() for v in form.getlist(key) if isinstance(v, str) and v.strip() != ""]
        if not values:
            continue
        name, _, kind = key[2:].partition(":")
        as_list = name.endswith("[]")
        name = name.removesuffix("[]")
        parsed = [_parse(name, kind, v) for v in values]
        value: Any = parsed if as_list or len(parsed) > 1 else parsed[0]
        *parents, leaf = name.split(".")
        node = payload
        for parent in parents:
            node = node.setdefault(parent, {})
            if not isinstance(node, dict):
                raise Invalid(f"{parent} cannot be both a value and an object", parent)
        node[leaf] = value
    return payload


def _parse(name: str, kind: str, raw: str) -> Any:
    if kind == "json":
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise Invalid(f"{name} is not valid JSON: {exc.msg} (line {exc.lineno})", name) from None
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise Invalid(f"{name} must be a whole number", name) from None
    return raw


def dice_from_form(form: FormData) -> list[int] | None:
    raw = form.get("dice")
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return [int(part) for part in raw.replace(",", " ").split()]
    except ValueError:
        raise Invalid("dice must be whole numbers separated by spaces", "dice") from None
