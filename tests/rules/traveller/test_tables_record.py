"""High Guard table look-ups at their edges (app/rules/traveller/tables.py), with the cells of
shared/rules/tables.md written out: the printed Adjacent cell when no small craft shoots (TR-02),
whole Hull points per section (TR-17), the first radiation row (TR-21), a mount's kind (TR-06)."""

from __future__ import annotations

from app.rules.traveller import tables as T


def test_TR_02_the_adjacent_cell_is_the_ships_own_unless_small_craft_shoot():
    """Torpedo row: small craft at Adjacent −2, Adjacent −3 (tables.md, weapon range DMs)."""
    assert T.range_cell("torpedo", "adjacent") == -3
    assert T.range_cell("torpedo", "adjacent", small_craft_shooting=True) == -2
    bay = T.firing("torpedo_bay_50")
    assert bay.range_dm("adjacent") == -3
    assert bay.range_dm("adjacent", small_craft_shooting=True) == -2


def test_TR_17_a_sections_hull_is_whole_points_rounded_down():
    """1 Hull point per 50 t split evenly across sections, rounded down: CF (10,000 t, 3 sections)
    has 66 per section, CA (3,000 t, 2 sections) 30."""
    for code, hull in (("CA", 30), ("CF", 66), ("CZ", 3333)):
        points = T.section_hull(code)
        assert (points, type(points)) == (hull, int), code


def test_TR_21_radiation_band_1_throws_for_crew_on_6():
    """Band 1 (1–10 radiation): crew hit on 6, no computer or sensor throw."""
    row = T.radiation_row(1)
    assert row is not None
    assert (row.low, row.high, row.band, row.crew, row.computer, row.sensors) == (1, 10, 1, 6, None, None)


def test_TR_06_a_firing_keeps_its_weapons_mount():
    """A pulse laser fires from a turret, a particle beam barbette from a barbette, a torpedo bay
    from a bay (tables.md, barrage weapons)."""
    assert [T.firing(k).mount for k in ("pulse_laser", "particle_barbette")] == ["turret", "barbette"]
    assert T.firing("torpedo_bay_50", "nuclear").mount == "bay"
