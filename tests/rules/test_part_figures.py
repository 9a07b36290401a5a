"""What each part tells the battle report, read through the part declarations the game holds (the
report never names a ruleset): the damage sheet's boxes left (GEN-03), the Shadow's pain track over
the reaction chart's bands (SH-01, SH-06), the shield projections against their ratings (ST-05,
ST-11). Figures are the sample ships' data written out."""

from __future__ import annotations

from app.rules import STANDARD
from app.rules.figures import Band, Gauge, Track
from tests.rules.startrek.helpers import definition


def report(part: str, data: dict):
    return STANDARD.parts()[part].report(data)


def test_GEN_03_the_sheet_counts_armour_structure_system_and_excess_boxes_left():
    sheet = {
        "sections": [
            {
                "name": "Fore",
                "armour": 4,
                "structure": 30,
                "systems": [{"boxes": 6, "damage": 2}, {"boxes": 5}],
            },
            {"name": "Core", "armour": None, "structure": None, "systems": [{"boxes": 3, "damage": 5}]},
        ],
        "excess_damage": 7,
    }
    # 4 + 30 + (6 − 2) + 5, the Core's unset values and overdamaged system as 0, and 7 Excess Damage.
    assert report("sheet", sheet).points == 50
    assert report("sheet", {"sections": [{"structure": 10}], "excess_damage": None}).points == 10


def test_SH_01_SH_06_the_pain_track_is_drawn_over_the_reaction_chart():
    """SH-06's chart: 0–4 ZERO, 5–6 ONE, 7–8 TWO, 9–11 THREE, 12–13 FOUR, 14–15 FIVE, 16 DEATH."""
    figures = report("pain", {"level": 9, "reaction": "THREE"})
    assert figures.track == Track(
        level=9,
        reaction="THREE",
        dead=False,
        top=16,
        bands=(
            Band("ZERO", 0, 4),
            Band("ONE", 5, 6),
            Band("TWO", 7, 8),
            Band("THREE", 9, 11),
            Band("FOUR", 12, 13),
            Band("FIVE", 14, 15),
            Band("DEATH", 16, 16),
        ),
    )
    assert report("pain", {"level": 16, "reaction": "DEATH", "dead": True}).track.dead is True


def test_ST_05_ST_11_each_projection_is_a_gauge_of_its_strength_against_its_rating():
    shields = definition("excelsior")["parts"]["shields"]
    shields["projections"][0]["current"] = 25
    shields["projections"][3] |= {"current": 0, "collapsed": True}
    shields["projections"][1]["current"] = None  # not yet raised: read as 0
    assert report("shields", shields).gauges == (
        Gauge("Fore", 25, 40, False),
        Gauge("Starboard", 0, 30, False),
        Gauge("Aft", 0, 30, False),
        Gauge("Port", 0, 30, True),
    )
    assert report("shields", {}).gauges == ()


def test_SH_06_a_reaction_that_reads_ZERO_is_no_turning_point():
    """The report marks a pain reaction as a turning point only when it took hold (SH-06: a
    successful roll that gives ZERO is no reaction); the Shadow's death always is (SH-02)."""
    reaction, death = STANDARD.parts()["pain"].turning
    assert (reaction.event, death.event, death.holds) == ("pain_reaction", "pain_death", None)
    assert reaction.holds({"data": {"reaction": "ONE"}}) is True
    assert reaction.holds({"data": {"reaction": "ZERO"}}) is False
    assert reaction.holds({"data": None}) is False


def test_SH_02_SH_06_a_turning_point_is_any_death_and_a_reaction_that_took_hold():
    reaction, death = STANDARD.parts()["pain"].turning
    assert death.of({"data": {}}) is True  # no condition: every pain death (SH-02)
    assert reaction.of({"data": {"reaction": "TWO"}}) is True
    assert reaction.of({"data": {"reaction": "ZERO"}}) is False
