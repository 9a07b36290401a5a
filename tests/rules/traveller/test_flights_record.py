"""Flight clauses the mutation run found unpinned (TR-25, TR-25a): the craft-loss cap when the ship
data gives no gunners, the record of an attack on single craft and its refusals' fields. Figures
are the seed's TR-25 rule worked out in the comments."""

from __future__ import annotations

import pytest

from app.rules.core import NotAllowed, RuleError
from app.rules.traveller.flights import Flight, craft_lost
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, battle, capital
from tests.rules.traveller.test_craft_attacks import FLIGHT


def four_fighters(lost: int = 0) -> Flight:
    return Flight.model_validate({**FLIGHT["parts"]["flight"], "lost": lost})


@pytest.mark.parametrize(
    ("total", "mounts", "gunners", "expected"),
    [
        # 4 craft of 2 + 2 = 4 points. 12 points is 3 craft; no gunners given: the cap is the mounts.
        (12, 10, None, (3, 10, 0)),
        # The lower of mounts and gunners: 2 gunners cap 3 craft at 2, 4 points left over.
        (12, 10, 2, (2, 2, 4)),
        (12, 1, 5, (1, 1, 8)),
        # Never more craft than remain: 4 left, 40 points → 4 lost, 24 over.
        (40, 10, None, (4, 10, 24)),
        # Under one craft's points: none lost, the 3 points are excess.
        (3, 10, None, (0, 10, 3)),
    ],
)
def test_TR_25_craft_lost_capped_by_mounts_gunners_and_craft_left(total, mounts, gunners, expected) -> None:  # type: ignore[no-untyped-def]
    assert craft_lost(four_fighters(), total, mounts, gunners) == expected


def test_TR_25_a_flight_with_craft_lost_already_loses_no_more_than_remain() -> None:
    # 4 craft, 3 lost before: 1 remains; 40 points take it and leave 36.
    assert craft_lost(four_fighters(lost=3), 40, 10, None) == (1, 10, 36)


def test_TR_25a_an_attack_on_single_craft_is_recorded_against_the_flight() -> None:
    state = battle(capital("Kestrel"), FLIGHT, owners=("p-kestrel",), orders=False)
    done = act(
        state,
        "traveller.craft_attack",
        {"flight": "red-flight", "source": "kestrel", "craft_destroyed": 1},
        KESTREL_ACTOR,
    )
    [event] = done.events
    assert (event.kind, event.ship, event.data) == ("craft_attack", "red-flight", {"lost": 1})
    assert (
        event.text
        == "Kestrel attacks single craft of Red Flight by the core rules: 1 destroyed; 3 of 4 left (TR-25a)."
    )


def test_TR_25a_an_attacker_outside_the_battle_is_named_as_such() -> None:
    state = battle(capital("Kestrel"), FLIGHT, orders=False)
    done = act(
        state, "traveller.craft_attack", {"flight": "red-flight", "source": "raider", "craft_destroyed": 0}
    )
    assert done.texts == [
        "An attacker attacks single craft of Red Flight by the core rules: 0 destroyed; 4 of 4 left (TR-25a)."
    ]


@pytest.mark.parametrize(
    ("payload", "field", "words"),
    [
        ({"flight": "kestrel", "craft_destroyed": 1}, "flight", "Kestrel is not a flight"),
        (
            {"flight": "red-flight", "craft_destroyed": 5},
            "craft_destroyed",
            "Red Flight has only 4 craft left",
        ),
    ],
)
def test_TR_25a_refusals_name_their_field(payload, field, words) -> None:  # type: ignore[no-untyped-def]
    state = battle(capital("Kestrel"), FLIGHT, orders=False)
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.craft_attack", payload)
    assert (str(refused.value), refused.value.field) == (words, field)


def test_TR_25a_an_unknown_flight_is_refused_on_flight() -> None:
    state = battle(capital("Kestrel"), FLIGHT, orders=False)
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.craft_attack", {"flight": "blue-flight", "craft_destroyed": 1})
    assert refused.value.field == "flight"


def test_TR_25a_only_the_attackers_commander_or_the_referee_enters_the_attack() -> None:
    state = battle(
        capital("Kestrel"), capital("Tigress"), FLIGHT, owners=("p-kestrel", "p-tigress"), orders=False
    )
    with pytest.raises(NotAllowed) as refused:
        act(
            state,
            "traveller.craft_attack",
            {"flight": "red-flight", "source": "kestrel", "craft_destroyed": 1},
            TIGRESS_ACTOR,
        )
    assert (str(refused.value), refused.value.field) == (
        "enter attacks made by a ship you command, or as referee",
        "source",
    )


def test_TR_25a_the_last_craft_lost_destroys_the_flight_on_the_record() -> None:
    state = battle(capital("Kestrel"), FLIGHT, orders=False)
    done = act(
        state, "traveller.craft_attack", {"flight": "red-flight", "craft_destroyed": 4, "outcome": "missiles"}
    )
    assert done.texts[0] == (
        "An attacker attacks single craft of Red Flight by the core rules (missiles): 4 destroyed; 0 of 4 left (TR-25a)."
    )
    last = done.events[-1]
    assert (last.kind, last.ship, last.text) == (
        "ship_destroyed",
        "red-flight",
        "Red Flight has no craft left.",
    )
