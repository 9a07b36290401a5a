"""What changed inside a region, as the page can apply it: the hunks that turn the HTML a viewer
holds into the new HTML.

A one-point damage entry changes a box or two of a ship card that is 18 KB of HTML, and the
referee's tools change by a number or two per action; sending each such region whole cost every
viewer 12–100 KB per action. A viewer's page keeps the HTML it was last sent for each region
(static/js/live.js), so the hub sends a region whose old version the viewer holds as the hunks
that differ, and the page rebuilds the new HTML from its copy and swaps it as before (a morph).

Hunks are `[start, end, text]`: replace `old[start:end]` by `text`, in order, never overlapping.
Offsets count UTF-16 code units, as JavaScript strings do (an emoji is two of them), so the page
applies them with `slice` as they come.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from difflib import SequenceMatcher
from itertools import accumulate, compress, count
from operator import ne

Hunk = tuple[int, int, str]

SMALL = 256  # a changed middle shorter than this is one hunk: a finer diff would not pay for itself
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix (slices compared in C, halving the span each time)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix, at most `limit`."""
    lo, hi = 0, min(len(a), len(b), limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid : len(a) - lo] == b[len(b) - mid : len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _trimmed(old: str, new: str, start: int, end: int, nstart: int, nend: int) -> Hunk | None:
    """old[start:end] → new[nstart:nend] with their common ends left out; None when equal."""
    a, b = old[start:end], new[nstart:nend]
    if a == b:
        return None
    p = common_prefix(a, b)
    s = common_suffix(a, b, min(len(a), len(b)) - p)
    return (start + p, end - s, b[p : len(b) - s])


def hunks(old: str, new: str) -> list[Hunk]:
    """The hunks (code-point offsets) that make `new` out of `old`: their common ends left out,
    and a large changed middle compared line by line, so two changes far apart are two small
    hunks. Lines are compared as whole strings (in C): pairwise when both middles have as many
    lines (the usual case: numbers changed in place), else aligned by difflib with its popular
    lines set aside (a tag-by-tag alignment cost a referee's frame 0.7 s)."""
    p = common_prefix(old, new)
    s = common_suffix(old, new, min(len(old), len(new)) - p)
    a, b = old[p : len(old) - s], new[p : len(new) - s]
    if not a and not b:
        return []
    if len(a) < SMALL or len(b) < SMALL:
        return [(p, len(old) - s, b)]
    la, lb = a.splitlines(keepends=True), b.splitlines(keepends=True)
    at, bt = _starts(la, p), _starts(lb, p)
    if len(la) == len(lb):
        blocks = [(i, i + 1, i, i + 1) for i in compress(count(), map(ne, la, lb))]  # the loop in C
    else:
        blocks = [
            (i1, i2, j1, j2)
            for op, i1, i2, j1, j2 in SequenceMatcher(None, la, lb).get_opcodes()
            if op != "equal"
        ]
    out: list[Hunk] = []
    for i1, i2, j1, j2 in blocks:
        hunk = _trimmed(old, new, at[i1], at[i2], bt[j1], bt[j2])
        if hunk is not None:
            out.append(hunk)
    return out


def _starts(lines: list[str], at: int) -> list[int]:
    """Where each line starts (and where the last one ends), from offset `at`."""
    return list(accumulate(map(len, lines), initial=at))


def utf16(text: str) -> tuple[int, list[int]]:
    """The length of `text` in UTF-16 code units, and where its astral characters (two units) are."""
    astral = [m.start() for m in _ASTRAL.finditer(text)] if not text.isascii() else []
    return len(text) + len(astral), astral


def patch(old: str, new: str) -> tuple[int, list[list[int | str]]]:
    """`new` as hunks against `old`, offsets in UTF-16 code units, with `old`'s length in them (the
    page checks it holds that very text before it applies them)."""
    length, astral = utf16(old)
    found = hunks(old, new)
    if astral:
        return length, [[i + bisect_left(astral, i), j + bisect_left(astral, j), t] for i, j, t in found]
    return length, [[i, j, t] for i, j, t in found]


def apply(old: str, length: int, ops: list[list[int | str]]) -> str | None:
    """The page's side (static/js/live.js does the same): the new text, or None when `old` is not
    the text the hunks were made against."""
    units = old.encode("utf-16-le")
    if len(units) // 2 != length:
        return None
    out, at = [], 0
    for start, end, text in ops:
        assert isinstance(start, int) and isinstance(end, int) and isinstance(text, str)
        out.append(units[2 * at : 2 * start].decode("utf-16-le"))
        out.append(text)
        at = end
    out.append(units[2 * at :].decode("utf-16-le"))
    return "".join(out)
