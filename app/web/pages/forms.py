"""Turn an HTML form into an action payload.

Fields are named p.<name>; p.<name>:json is parsed as JSON and p.<name>:int as a whole number;
p.<a>.<b> builds nested objects (p.position.hex → {"position": {"hex": …}}); repeated names (or a
trailing []) become lists; empty values are left out so the rule's defaults apply. Beside it, the
other fields more than one form shares: JSON pasted, the dice typed in, the pings ticked."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData

from app.services.errors import Invalid
from app.services.table.pings import Pings
from app.web.middleware.security import INT_LIMIT, JsonRefused, strict_loads
from app.web.numbers import whole_number


def _whole(raw: str) -> int | None:
    """ASCII digits only, and no more than fit 64 bits."""
    return whole_number(raw, low=-INT_LIMIT, high=INT_LIMIT - 1, signed=True)


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
            return strict_loads(raw)
        except JsonRefused as exc:
            where = f"{name}.{exc.field}" if exc.field else name
            raise Invalid(f"{name}: {exc.reason}", where) from None
    if kind == "int":
        value = _whole(raw)
        if value is None:
            raise Invalid(f"{name} must be a whole number (ASCII digits, within ±2^63)", name)
        return value
    return raw


def pasted_json(raw: str, field: str, label: str | None = None) -> Any:
    """JSON pasted into a form field, read as strictly as a request body; a refusal is Invalid
    naming `field` (said as `label`)."""
    try:
        return strict_loads(raw)
    except JsonRefused as exc:
        raise Invalid(f"{label or field}: {exc.reason}", field) from None


def pings_ticked(form: FormData) -> Pings:
    """The pings' checkboxes: a box left unticked is a ping turned off."""
    return Pings(**{name: form.get(name) == "on" for name in Pings.model_fields})


def dice_from_form(form: FormData) -> list[int] | None:
    raw = form.get("dice")
    if not isinstance(raw, str) or not raw.strip():
        return None
    parsed = [_whole(part) for part in raw.replace(",", " ").split()]
    values = [v for v in parsed if v is not None]
    if len(values) != len(parsed):
        raise Invalid("dice must be whole numbers separated by spaces", "dice")
    return values
