"""Symbols no common font carries are inline SVG icons, not characters: without an emoji font a
browser drew ⏩ 🔒 💾 as empty boxes. The pages' templates and scripts hold no such character, and
each icon drawn in their place is hidden from screen readers beside words that say what it is."""

from __future__ import annotations

import re
from pathlib import Path

from app.web.drawing.render import env

ROOT = Path(__file__).resolve().parents[2]

# Code points drawn as emoji by default (Unicode's Emoji_Presentation), which fonts such as DejaVu
# lack, and the power symbols of Unicode 9 (U+23FB–U+23FE), which they lack too.
_BMP_EMOJI = (
    (0x231A, 0x231B), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3), (0x23FB, 0x23FE),
    (0x25FD, 0x25FE), (0x2614, 0x2615), (0x2648, 0x2653), (0x267F, 0x267F), (0x2693, 0x2693),
    (0x26A1, 0x26A1), (0x26AA, 0x26AB), (0x26BD, 0x26BE), (0x26C4, 0x26C5), (0x26CE, 0x26CE),
    (0x26D4, 0x26D4), (0x26EA, 0x26EA), (0x26F2, 0x26F3), (0x26F5, 0x26F5), (0x26FA, 0x26FA),
    (0x26FD, 0x26FD), (0x2705, 0x2705), (0x270A, 0x270B), (0x2728, 0x2728), (0x274C, 0x274C),
    (0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757), (0x2795, 0x2797), (0x27B0, 0x27B0),
    (0x27BF, 0x27BF), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55),
)  # fmt: skip


def _fontless(char: str) -> bool:
    code = ord(char)
    return code >= 0x1F000 or any(low <= code <= high for low, high in _BMP_EMOJI)


def test_no_page_template_or_script_draws_an_emoji_character() -> None:
    found = []
    for folder, pattern in (("templates", "**/*.html"), ("static/js", "**/*.js"), ("static/css", "**/*.css")):
        for path in sorted((ROOT / folder).glob(pattern)):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if any(_fontless(c) for c in line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    assert found == []


def test_the_icons_are_svg_hidden_from_screen_readers_and_sized_to_the_text() -> None:
    macro = env.get_template("partials/icons.html").module.icon  # type: ignore[attr-defined]
    for name in ("skip", "lock", "save", "dice", "fire", "power"):
        svg = str(macro(name))
        assert re.fullmatch(r'<svg class="icon icon-\w+" viewBox="0 0 24 24"[^>]*>.+</svg>', svg, re.S), name
        assert 'aria-hidden="true"' in svg and 'focusable="false"' in svg and 'width="1em"' in svg
        assert "<path" in svg or "<rect" in svg, f"{name} draws nothing"
