"""What the pain template is told beyond the chart (SH-03, SH-09, SH-12, SH-14, SH-16): the interval
the damage is totalled over, whether a targeting duty stands, when FIVE must report its range, which
obligations are the phase-out to resolve, who did most damage, and whether the SH-14 roll is open.

Every number is the seed's (seed 000): 250+ damage rises on 1–6 by 1d6 + 1 and reacts on 1–6; the
chart reads 5–6 ONE, 7–8 TWO, 14–15 FIVE; FIVE must phase out "as soon as ship is 10 hexes from the
nearest enemy ship"; pain reduction is "D6", so any pain from 1 up can be reduced.
"""

from __future__ import annotations

from typing import Any

from app.rules.state import BattleState
from tests.helpers import part_context

from .support import KER, PLAYER, act, at_impulse, battle, end_impulse, hit

# 250+ damage: rise on 1–6 (roll 6), amount 1d6 + 1 (roll 1) = +2, reaction on 1–6 (roll 6).
RISE_TWO_AND_REACT = [6, 1, 6]


def shown(state: BattleState) -> dict[str, Any]:
    return part_context(state, KER, "pain", PLAYER)["display"][KER]["pain"]


def test_SH_03_the_damage_is_totalled_per_impulse_or_per_combat_step() -> None:
    """SH-03: the check is per SFB impulse; in a Babylon 5 Wars battle the combat step counts as one."""
    assert shown(at_impulse())["interval"] == "impulse"
    assert shown(at_impulse("b5wars"))["interval"] == "combat step"


def test_SH_16_nothing_yet_names_no_attacker() -> None:
    """SH-16: before any damage the sheet names no ship that did most damage, in either place."""
    values = shown(at_impulse())
    assert (values["most_from"], values["most_damage_name"]) == (None, None)


def test_SH_09_SH_16_an_angered_ship_shows_its_targeting_duty_and_its_target() -> None:
    """SH-09: TWO (pain 5 → 7) must target Excalibur; the card flags a targeting duty and names it."""
    state = at_impulse(level=5)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)
    values = shown(state)
    assert (values["targeting"], values["most_damage_name"]) == (True, "Excalibur")
    assert values["must_report_range"] is False


def test_SH_08_SH_16_a_flinch_is_no_targeting_duty() -> None:
    """SH-08: ONE (pain 3 → 5) owes a flinch, which targets nobody."""
    state = at_impulse(level=3)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)
    values = shown(state)
    assert ([d["kind"] for d in values["standing"]], values["targeting"]) == (["flinch"], False)


def test_SH_12_five_asks_for_the_range_until_a_phase_out_is_owed() -> None:
    """SH-12: a panicked ship must report its range; once 10 hexes away it owes a phase-out, shown as
    the obligation to resolve, and the range is no longer asked for."""
    state = battle(level=14, reaction="FIVE")
    assert shown(state)["must_report_range"] is True
    state, _ = act(state, "shadow.report_range", {"ship": KER, "range": 10}, actor=PLAYER)
    values = shown(state)
    assert values["must_report_range"] is False
    assert [(d["kind"], d["phase"]) for d in values["standing"]] == [("phase_out", True)]


def test_SH_12_the_panic_duties_other_than_phasing_out_are_not_resolved_as_a_phase_out() -> None:
    """SH-12: FIVE (pain 12 → 14) owes a HET, a fire ban and evasion; none is the phase-out form."""
    state = at_impulse(level=12)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT + [3])
    assert [(d["kind"], d["phase"]) for d in shown(state)["standing"]] == [
        ("het_random", False),
        ("no_fire", False),
        ("evasion", False),
    ]


def test_SH_14_pain_one_can_be_reduced() -> None:
    """SH-14: "reduce it's current pain level by D6": at pain 1 the roll is open."""
    assert shown(battle(level=1))["may_reduce"] is True
