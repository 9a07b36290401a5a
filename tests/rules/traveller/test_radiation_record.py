"""Radiation as the log keeps it (TR-13a, TR-21): the band looked up in tables.md's Radiation Damage
table, lowered by the cut a barrage names, then the crew, computer and sensor throws of that band —
each throw's purpose, owner, 2D target and outcome — and what stops radiation altogether. The bands
and throws below are the table's rows written out (11–15: band 2, crew 5+; 16–20: band 3, crew 4+,
computer 6+; 31–40: band 5, crew 2+, computer 4+, sensors 6+; 41–50: band 6, crew Auto, computer 3+,
sensors 5+; 101+: band 10, all Auto)."""

from __future__ import annotations

from typing import Any

from app.rules.dice import ScriptedDice
from app.rules.traveller.hits import Resolution
from app.rules.traveller.radiation import apply_radiation
from app.rules.traveller.ship import load
from tests.rules.traveller.helpers import battle, capital


def irradiate(
    damage: int,
    dice: list[int] = (),
    *,
    cut: int = 0,
    label: str = "",
    kind: str = "particle",
    armour: int = 0,
    **tigress: Any,
) -> Resolution:
    """Tigress (a CF test ship, crew Full) takes `damage` radiation; every scripted die is used."""
    state = battle(capital("Kestrel"), capital("Tigress", **tigress))
    ship = state.ships["tigress"]
    source = ScriptedDice(list(dice))
    res = Resolution(state, ship, load(ship), source)
    apply_radiation(res, damage, cut, label, kind, armour)
    assert not source.values, f"unused scripted dice: {source.values}"
    return res


def rolls(res: Resolution) -> list[tuple]:
    return [(r.purpose, r.ship, r.dice, r.target, r.outcome) for e in res.events for r in e.rolls]


def test_TR_21_no_radiation_says_nothing() -> None:
    assert irradiate(0).events == []


def test_TR_21_one_point_of_radiation_is_band_1_and_throws_for_the_crew_at_6_plus() -> None:
    res = irradiate(1, [3, 3])
    assert rolls(res) == [("radiation crew hit", "tigress", [3, 3], "6+", "hit")]
    assert res.events[0].text == "Tigress radiation 1: band 1; crew 2D 6 vs 6+: crew Full → Weakened."


def test_TR_21_a_band_2_crew_throw_at_exactly_5_hits() -> None:
    # 12 radiation: band 2, crew 5+, no computer or sensor throw; 2D 2+3 = 5 hits: the crew steps
    # down one (TR-23), Full → Weakened.
    res = irradiate(12, [2, 3])
    assert rolls(res) == [("radiation crew hit", "tigress", [2, 3], "5+", "hit")]
    assert [(e.kind, e.ship, e.text, e.data) for e in res.events] == [
        (
            "radiation",
            "tigress",
            "Tigress radiation 12: band 2; crew 2D 5 vs 5+: crew Full → Weakened.",
            {"band": 2},
        )
    ]
    assert res.model.crew_strength == "weakened"


def test_TR_21_a_crew_throw_one_short_misses() -> None:
    res = irradiate(12, [1, 3])
    assert rolls(res) == [("radiation crew hit", "tigress", [1, 3], "5+", "no hit")]
    assert res.events[0].text == "Tigress radiation 12: band 2; crew 2D 4 vs 5+: no hit."
    assert res.model.crew_strength == "full"


def test_TR_21_band_3_throws_for_crew_then_computer() -> None:
    # 18 radiation: band 3, crew 4+ (2D 2 misses), computer 6+ (2D 6 hits: the first computer hit).
    res = irradiate(18, [1, 1, 3, 3])
    assert rolls(res) == [
        ("radiation crew hit", "tigress", [1, 1], "4+", "no hit"),
        ("radiation computer hit", "tigress", [3, 3], "6+", "hit"),
    ]
    assert res.events[-1].text == (
        "Tigress radiation 18: band 3; crew 2D 2 vs 4+: no hit; "
        "computer 2D 6 vs 6+: computer hit 1: −1 DM to all rolls."
    )
    assert res.model.systems.computer == 1


def test_TR_21_band_5_throws_for_sensors_too() -> None:
    # 35 radiation: band 5, crew 2+ (2D 2 hits), computer 4+ (2D 3 misses), sensors 6+ (2D 6 hits,
    # then the sensors' 1d6 DM, 4).
    res = irradiate(35, [1, 1, 1, 2, 3, 3, 4])
    # the sensors' DM roll is its own event, logged as it is thrown, before the radiation line
    assert rolls(res) == [
        ("sensor hit DM", "tigress", [4], None, "sensors DM −4"),
        ("radiation crew hit", "tigress", [1, 1], "2+", "hit"),
        ("radiation computer hit", "tigress", [1, 2], "4+", "no hit"),
        ("radiation sensors hit", "tigress", [3, 3], "6+", "hit"),
    ]
    assert res.events[-1].text == (
        "Tigress radiation 35: band 5; crew 2D 2 vs 2+: crew Full → Weakened; computer 2D 3 vs 4+: "
        "no hit; sensors 2D 6 vs 6+: sensors hit 1: −4 DM to Sensors checks."
    )
    assert res.events[-1].data == {"band": 5}
    assert res.model.systems.sensors == 1


def test_TR_21_an_auto_crew_hit_throws_no_dice() -> None:
    # 45 radiation: band 6, crew Auto, computer 3+ (2D 2 misses), sensors 5+ (2D 4 misses).
    res = irradiate(45, [1, 1, 2, 2])
    assert rolls(res) == [
        ("radiation computer hit", "tigress", [1, 1], "3+", "no hit"),
        ("radiation sensors hit", "tigress", [2, 2], "5+", "no hit"),
    ]
    assert res.events[-1].text == (
        "Tigress radiation 45: band 6; crew Auto: crew Full → Weakened; "
        "computer 2D 2 vs 3+: no hit; sensors 2D 4 vs 5+: no hit."
    )


def test_TR_21_band_10_hits_everything_without_a_throw() -> None:
    # 120 radiation: band 10, all Auto; the sensors' first hit still rolls its 1d6 DM (2).
    res = irradiate(120, [2])
    assert rolls(res) == [("sensor hit DM", "tigress", [2], None, "sensors DM −2")]
    assert res.events[-1].text == (
        "Tigress radiation 120: band 10; crew Auto: crew Full → Weakened; computer Auto: computer hit 1: "
        "−1 DM to all rolls; sensors Auto: sensors hit 1: −2 DM to Sensors checks."
    )
    assert res.events[-1].rolls == []
    assert res.events[-1].data == {"band": 10}


def test_TR_21_armour_lowers_the_band_and_the_log_shows_the_sum() -> None:
    # 18 radiation is band 3; armour 1 lowers it to band 2: crew 5+ only (2D 5 hits).
    res = irradiate(18, [2, 3], cut=1, label="armour")
    assert rolls(res) == [("radiation crew hit", "tigress", [2, 3], "5+", "hit")]
    assert res.events[-1].text == (
        "Tigress radiation 18: band 3 − armour 1 = 2; crew 2D 5 vs 5+: crew Full → Weakened."
    )
    assert res.events[-1].data == {"band": 2}


def test_TR_21_a_band_lowered_to_0_has_no_effect() -> None:
    res = irradiate(18, cut=3, label="armour")
    assert [(e.kind, e.ship, e.text, e.rolls) for e in res.events] == [
        ("radiation", "tigress", "Tigress radiation 18: band 3 − armour 3 = 0 → no effect.", [])
    ]


def test_TR_21_a_band_lowered_below_0_is_written_with_a_minus_sign() -> None:
    # Mesons: the band is lowered by the meson screen points (Decision): band 1 − 4 = −3.
    res = irradiate(5, cut=4, label="meson screens", kind="meson")
    assert res.events[0].text == "Tigress radiation 5: band 1 − meson screens 4 = −3 → no effect."
    assert res.model.crew_strength == "full"


def test_TR_21_armour_8_stops_radiation_but_not_a_mesons() -> None:
    stopped = irradiate(45, armour=8)
    assert [(e.kind, e.ship, e.text) for e in stopped.events] == [
        ("radiation", "tigress", "Tigress shrugs off 45 radiation: armour 8 (TR-21).")
    ]
    assert stopped.model.crew_strength == "full"
    bites = irradiate(45, [1, 1, 2, 2], armour=8, kind="meson")
    assert bites.model.crew_strength == "weakened"


def test_TR_21_armour_7_lets_radiation_through() -> None:
    assert irradiate(45, [1, 1, 2, 2], armour=7).model.crew_strength == "weakened"


def test_TR_21_radiation_shielding_stops_nuclear_and_fusion_radiation() -> None:
    for kind in ("nuclear_missile", "nuclear_torpedo", "fusion"):
        res = irradiate(45, kind=kind, radiation_shielding=True)
        assert res.events[0].text == "Tigress shrugs off 45 radiation: radiation shielding (TR-21)."
    # a particle beam's radiation goes through the shielding (TR-13 halves it before, TR-21 does not stop it)
    assert irradiate(45, [1, 1, 2, 2], radiation_shielding=True).model.crew_strength == "weakened"


def test_TR_21_nuclear_dampers_stop_nuclear_radiation_only() -> None:
    damper = {"screens": [{"id": "damper", "kind": "nuclear_damper", "count": 2, "sections": ["Main"]}]}
    res = irradiate(45, kind="nuclear_missile", **damper)
    assert res.events[0].text == "Tigress shrugs off 45 radiation: nuclear dampers (TR-21)."
    meson_screen = {"screens": [{"id": "screen", "kind": "meson", "count": 2, "sections": ["Main"]}]}
    assert (
        irradiate(45, [1, 1, 2, 2], kind="nuclear_missile", **meson_screen).model.crew_strength == "weakened"
    )
    assert irradiate(45, [1, 1, 2, 2], kind="meson", **damper).model.crew_strength == "weakened"


def test_TR_21_shielding_is_named_before_dampers_and_both_before_armour() -> None:
    both = {
        "radiation_shielding": True,
        "screens": [{"id": "damper", "kind": "nuclear_damper", "count": 1, "sections": ["Main"]}],
    }
    res = irradiate(45, kind="fusion", armour=9, **both)
    assert res.events[0].text == "Tigress shrugs off 45 radiation: radiation shielding (TR-21)."
    damper = {"screens": [{"id": "damper", "kind": "nuclear_damper", "count": 1, "sections": ["Main"]}]}
    res = irradiate(45, kind="fusion", armour=9, **damper)
    assert res.events[0].text == "Tigress shrugs off 45 radiation: nuclear dampers (TR-21)."
