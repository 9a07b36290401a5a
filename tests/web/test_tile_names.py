"""A system's name on its sheet tile keeps its words whole (app/web/drawing/tile_names.py): lines of
at most eight characters, three at most, a longer line squeezed to the tile rather than cut."""

from __future__ import annotations

from app.web.drawing.tile_names import TileLine, tile_lines


def test_names_wrap_in_whole_words_and_long_ones_are_squeezed_not_cut() -> None:
    assert tile_lines("Fore Phaser Array") == [
        TileLine("Fore", False),
        TileLine("Phaser", False),
        TileLine("Array", False),
    ]
    assert tile_lines("Warp Core") == [TileLine("Warp", False), TileLine("Core", False)]
    assert tile_lines("Reactor") == [TileLine("Reactor", False)]
    assert tile_lines("Singularity Core") == [TileLine("Singularity", True), TileLine("Core", False)]
    # More words than three lines hold: the rest joins the last line, squeezed, never dropped.
    assert tile_lines("Aft Port Wing Torpedo Bay") == [
        TileLine("Aft Port", False),
        TileLine("Wing", False),
        TileLine("Torpedo Bay", True),
    ]
    assert all("…" not in line.text for line in tile_lines("Starboard Lightning Cannon"))
