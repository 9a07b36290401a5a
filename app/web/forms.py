"""Turn an HTML form into an action payload: fields named p.<name>; p.<name>:json is parsed as JSON;
repeated names become lists; empty values are left out so the rule's defaults apply."""

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
        values = [v for v in form.getlist(key) if isinstance(v, str) and v.strip() != ""]
        if not values:
            continue
        name = key[2:]
        if name.endswith(":json"):
            name = name[: -len(":json")]
            try:
                parsed = [json.loads(v) for v in values]
            except json.JSONDecodeError as exc:
                raise Invalid(f"{name} is not valid JSON: {exc.msg} (line {exc.lineno})", name) from None
            payload[name] = parsed[0] if len(parsed) == 1 else parsed
        elif name.endswith("[]"):
            payload[name[:-2]] = [v.strip() for v in values]
        else:
            payload[name] = values[0].strip() if len(values) == 1 else [v.strip() for v in values]
    return payload


def dice_from_form(form: FormData) -> list[int] | None:
    raw = form.get("dice")
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return [int(part) for part in raw.replace(",", " ").split()]
    except ValueError:
        raise Invalid("dice must be whole numbers separated by spaces", "dice") from None
