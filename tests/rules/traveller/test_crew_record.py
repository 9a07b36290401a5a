"""Crew checks (GEN-05, TR-23), the frozen watch (TR-24) and emergency orders in a battle without
orders (TR-26a), each clause checked with the figures of tables.md written out here."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, beam_shot, capital, section


def two_ships(**tigress):
    state = battle(
        capital("Kestrel"), capital("Tigress", **tigress), owners=("p-kestrel", "p-tigress"), orders=False
    )
    return advance_to(state, "combat").state


def burning(**tigress):
    """Tigress with a fire in Main (its Hull gone, an Internal Critical 1d6 6), seen from round 2."""
    state = two_ships(**tigress)
    state.ships["tigress"].parts["hg_ship"]["sections"][1]["hull"] = 0
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [6, 6, 4, 6, 6, 6, 3, 4])
    assert section(done.state, "tigress", "Main")["fire"] == {"target": 8, "started": 1}
    return advance_to(done.state, "ship_action").state


def test_GEN_05_TR_23_a_half_strength_crew_adds_its_minus_1_to_a_crew_check() -> None:
    # tables.md: Average crew skill 2 → +2 (Experienced column), Half strength → −1.
    state = burning(crew_strength="half")
    step = advance_to(state, "ship_action", turn=2, dice=[1, 1, 3, 4])
    assert step.texts[-2] == (
        "The fire in Tigress's Main rages on: 2D 2 + Crew Skill +2 + crew Half −1 = 3 vs 8+ → failure (Effect −5)."
    )


def test_GEN_05_a_crew_at_a_step_with_dm_0_adds_no_strength_dm() -> None:
    # tables.md: Weakened (51–75%) has DM +0, so only the Crew Skill DM is written.
    state = burning(crew_strength="weakened")
    step = advance_to(state, "ship_action", turn=2, dice=[1, 1, 3, 4])
    assert step.texts[-2] == (
        "The fire in Tigress's Main rages on: 2D 2 + Crew Skill +2 = 4 vs 8+ → failure (Effect −4)."
    )


FLIGHT = {
    "name": "Red Flight",
    "klass": "fighters",
    "system": "traveller",
    "side": "",
    "parts": {
        "flight": {
            "craft_type": "Fighter",
            "craft": 4,
            "craft_hull": 2,
            "craft_structure": 2,
            "batteries": [{"id": "pulse", "weapon": "pulse_laser", "mounts": 1}],
        }
    },
}


@pytest.mark.parametrize(
    ("ship", "tigress", "words"),
    [
        ("red-flight", {}, "Red Flight is not a High Guard ship"),
        ("tigress", {"frozen_watch_steps": 0}, "Tigress carries no frozen watch"),
        (
            "tigress",
            {"frozen_watch_steps": 2, "crew_strength": "dead"},
            "Tigress's crew is dead; nobody can thaw",
        ),
    ],
)
def test_TR_24_refusals_of_reviving_the_frozen_watch(ship: str, tigress: dict, words: str) -> None:
    state = battle(capital("Kestrel"), capital("Tigress", **tigress), FLIGHT, orders=False)
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.revive_frozen_watch", {"ship": ship})
    assert str(refused.value).startswith(words)
    assert refused.value.field == "ship"


def test_TR_26a_an_emergency_order_is_refused_when_the_battle_uses_no_orders() -> None:
    state = advance_to(battle(capital("Kestrel"), capital("Tigress"), orders=False), "combat").state
    body = {"ship": "kestrel", "order": {"order": "prepare_impact"}}
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.emergency_order", body)
    assert (str(refused.value), refused.value.field) == (
        "orders are not used in this battle (TR-26a)",
        "order",
    )
