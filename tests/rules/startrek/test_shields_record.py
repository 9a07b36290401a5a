"""Shield records beyond the existing sentences (ST-11, ST-13, ST-16): what an energy drain scores
and records, doubled for First One fire, and a destroyed shield generator dropping every projection
for good, with no regeneration after.

Every number is the seed's or the library Excelsior's (Fore projection 40): an energy drain "scores
10 times the energy draining amount against the shields" (ST-13) — a drain of 3 scores 30; First One
fire does "double damage ... against shields" (ST-16) — a drain of 2 scores 40, exactly filling the
Fore, which is not overkill (catalogue Decision); "if at any time a ship's shield generator fails or
is destroyed, all shield projections immediately fall" (ST-11).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.rules import STANDARD
from app.rules.core import RuleError
from app.rules.startrek.shields import Projection
from tests.rules.startrek.helpers import (
    KER,
    act,
    advance,
    advance_to,
    battle,
    hit,
    of_kind,
    set_value,
    shields,
)


def test_ST_13_a_drain_scores_ten_times_and_counts_as_absorbed() -> None:
    """ST-13: a drain of 3 on the Fore (40) scores 30 → 10/40, no bleed-through; the 3 points are the
    shields', filed under the Excelsior."""
    state = advance_to(battle("excelsior"), "combat")
    state, events = hit(state, "excelsior", 3, direction="fore", effects=["energy_drain"])
    assert events[0].data["absorbed"] == 3
    (drain,) = of_kind(events, "shield_drain")
    assert drain.ship == "excelsior"
    assert drain.text.endswith(
        "energy drain scores 10× on shields — 30 scored on Fore shield (40/40 → 10/40); no bleed-through (ST-13)."
    )


def test_ST_13_ST_16_a_first_one_drain_is_doubled_and_exactly_filling_is_no_overkill() -> None:
    """ST-16 on ST-13: Ker's drain of 2 scores 2 × 10 × 2 = 40 on the Fore's 40: filled, not overkill."""
    state = advance_to(battle("excelsior", KER), "combat")
    state, events = hit(state, "excelsior", 2, source="ker", direction="fore", effects=["energy_drain"])
    (drain,) = of_kind(events, "shield_drain")
    assert drain.text == (
        "Excelsior: energy drain scores 10× (doubled: First One fire) on shields — 40 scored "
        "on Fore shield (40/40 → 0/40); no bleed-through (ST-13)."
    )
    assert (drain.data["scored"], drain.data["free_to_hit"]) == (40, False)


def test_ST_11_a_destroyed_generator_drops_every_projection_for_good() -> None:
    """ST-11: the Shield Generator destroyed (6 of 6 boxes), the next hit finds it: every projection
    falls in turn 1, logged against the Excelsior; at the next Ship Power no deflector regenerates."""
    state = set_value(battle("excelsior"), "ships.excelsior.parts.sheet.sections.2.systems.0.damage", 6)
    state, events = hit(state, "excelsior", 1, direction="aft")
    (fall,) = of_kind(events, "shields_fall")
    assert (fall.ship, fall.text) == (
        "excelsior",
        "Excelsior's shield generator (Shield Generator) is destroyed: every shield projection falls (ST-11).",
    )
    part = shields(state, "excelsior")
    assert part.generator_down is True
    assert [(p.value, p.collapsed, p.collapsed_turn) for p in part.projections] == [(0, True, 1)] * 4
    state = advance_to(state, "adjust_systems")
    state, events = advance(state)
    assert [e.text for e in of_kind(events, "shield_regeneration")] == [
        "Excelsior has no shield generator: no regeneration."
    ]


def test_ST_05_a_projection_holds_no_more_than_its_rating() -> None:
    """The Excelsior's Fore projection is rated 40: ship data giving it 41 is refused, naming it."""
    with pytest.raises(ValidationError, match="projection 'Fore': current 41 above its rating 40"):
        Projection.model_validate({"name": "Fore", "arcs": ["fore"], "rating": 40, "current": 41})


def test_ST_07_regeneration_is_bought_for_a_deflector_the_ship_has() -> None:
    payload = {"ship": "excelsior", "deflector": "Aft Phaser Array", "points": 1}
    with pytest.raises(RuleError) as err:
        act(battle("excelsior"), "startrek.buy_regeneration", payload)
    assert (err.value.field, err.value.message) == (
        "deflector",
        "no deflector 'Aft Phaser Array' (deflectors: Fore Deflector, Starboard Deflector, Aft Deflector, "
        "Port Deflector)",
    )


def test_ST_06_a_hit_is_a_turning_point_when_it_empties_a_projection() -> None:
    """The report marks a hit that drove a projection from some strength to 0 (ST-06)."""
    emptied = STANDARD.parts()["shields"].turning[2]
    assert emptied.event == "shield_absorb"
    assert emptied.holds({"data": {"before": 12, "after": 0}}) is True
    assert emptied.holds({"data": {"before": 0, "after": 0}}) is False  # it was empty already
    assert emptied.holds({"data": {"before": None, "after": 0}}) is False
    assert emptied.holds({"data": {"before": 12, "after": 2}}) is False
    assert emptied.holds({}) is False
