"""A system's name on its sheet tile: whole words on up to three short lines, never cut off with
"…" ("Fore Phaser A…" said nothing of which array). A word longer than a line, or more words than
three lines hold, is drawn squeezed to the tile's width rather than cut, and the tile's title keeps
the full name for screen readers and tooltips."""

from __future__ import annotations

from dataclasses import dataclass

LINE = 8  # characters a tile's line holds at its font size (chromium: "Deflector", 9, is 43 px of 45)
LINES = 3


@dataclass(frozen=True)
class TileLine:
    text: str
    squeeze: bool  # drawn to the tile's width (textLength) because it is longer than a line


def tile_lines(name: str, width: int = LINE, most: int = LINES) -> list[TileLine]:
    """The name's words filled greedily into lines of at most `width` characters, at most `most`
    lines (the rest joins the last one); a line longer than `width` is marked to be squeezed."""
    lines: list[str] = []
    for word in name.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) > most:
        lines = [*lines[: most - 1], " ".join(lines[most - 1 :])]
    return [TileLine(line, len(line) > width) for line in lines]
