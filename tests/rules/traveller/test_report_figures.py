"""What a High Guard hull tells the battle report (TR-17: each section's Hull and Structure left,
and what damage can still take off the ship) and which of its events are turning points (TR-23: a
crew hit that stood, not one braced away by Prepare for Impact!, TR-27)."""

from __future__ import annotations

from app.rules import STANDARD
from app.rules.figures import Section


def test_TR_17_the_report_counts_hull_and_structure_left_per_section():
    part = {
        "sections": [
            {"name": "Main", "hull": 12, "hull_max": 20, "structure": 20, "structure_max": 20},
            {
                "name": "Forward",
                "hull": 0,
                "hull_max": 8,
                "structure": 0,
                "structure_max": 8,
                "destroyed": True,
            },
            {"name": "Engineering", "hull": None, "hull_max": 6, "structure": None, "structure_max": 6},
        ]
    }
    figures = STANDARD.parts()["hg_ship"].report(part)
    assert figures.points == 32  # 12 + 20, a destroyed section's 0s and unset values adding nothing
    assert figures.sections == (
        Section("Main", 12, 20, 20, 20, False),
        Section("Forward", 0, 8, 0, 8, True),
        Section("Engineering", 0, 6, 0, 6, False),
    )
    assert STANDARD.parts()["hg_ship"].report({}).points == 0


def test_TR_23_TR_27_a_crew_hit_braced_away_is_no_crew_loss():
    crew_loss = next(t for t in STANDARD.parts()["hg_ship"].turning if t.label == "Crew loss" and t.holds)
    assert crew_loss.event == "system_hit"
    assert crew_loss.holds({"data": {"slot": "crew"}, "text": "Kestrel Main: crew hit, crew Full → Half"})
    assert not crew_loss.holds(
        {"data": {"slot": "crew"}, "text": "Kestrel Main: crew hit ignored (Prepare for Impact!)"}
    )
    assert not crew_loss.holds({"data": {"slot": "sensors"}, "text": "sensors hit"})
    assert not crew_loss.holds({"data": None})
