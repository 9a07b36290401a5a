"""Whole numbers read from text a client sent (form fields, headers): ASCII digits only.

`str.isdigit()` and `int()` also take '²', '٣' or '１', and `int('²')` then raises — a 500 where a
422 naming the field belongs. Every number parsed from request text goes through here."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[0-9]{1,19}")
_SIGNED = re.compile(r"[+-]?[0-9]{1,19}")


def whole_number(
    text: str, *, low: int | None = None, high: int | None = None, signed: bool = False
) -> int | None:
    """The whole number `text` spells in ASCII digits (at most 19 of them, so never a huge
    conversion), or None when it is anything else or falls outside `low`..`high`."""
    if not (_SIGNED if signed else _DIGITS).fullmatch(text):
        return None
    value = int(text)
    if (low is not None and value < low) or (high is not None and value > high):
        return None
    return value
