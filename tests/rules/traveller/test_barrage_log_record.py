"""What a barrage's log names (TR-05, TR-06, TR-19, GEN-03): the event's kind and firing ship, the
attack roll's owner, and the refusals' words and fields, which the mutation run found unpinned."""

from __future__ import annotations

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, beam_shot, capital, hg
from tests.rules.traveller.test_branches_actions import HULK
from tests.rules.traveller.test_order_effects import FLIGHT_ACTOR, carrier_in_combat, give


def in_combat(*more: dict) -> object:
    state = battle(capital("Kestrel"), capital("Tigress"), *more, owners=("p-kestrel",), orders=False)
    return advance_to(state, "combat").state


def test_TR_06_the_barrage_event_and_its_attack_roll_belong_to_the_firing_ship() -> None:
    """2D 2 still lands a little (location 1d6 3): the event names Kestrel and the roll is its own."""
    done = act(in_combat(), "traveller.barrage", beam_shot(), KESTREL_ACTOR, [1, 1, 3])
    event = done.events[0]
    assert (event.kind, event.ship) == ("barrage", "kestrel")
    attack = next(r for r in event.rolls if r.purpose == "barrage attack")
    assert (attack.ship, attack.dice) == ("kestrel", [1, 1])


def test_GEN_03_a_ship_does_not_fire_on_itself() -> None:
    with pytest.raises(RuleError) as err:
        act(in_combat(), "traveller.barrage", beam_shot(target="kestrel"), KESTREL_ACTOR)
    assert (err.value.message, err.value.field) == ("a ship cannot fire on itself", "target")


def test_GEN_03_a_target_without_high_guard_data_is_refused_on_target() -> None:
    with pytest.raises(RuleError) as err:
        act(in_combat(HULK), "traveller.barrage", beam_shot(target="hulk"), KESTREL_ACTOR)
    assert (err.value.message, err.value.field) == ("Hulk is not a High Guard ship or flight", "target")


def test_TR_19_a_disabled_computer_fires_no_further_than_close() -> None:
    state = in_combat()
    hg(state, "kestrel")["systems"]["computer"] = 3
    with pytest.raises(RuleError) as err:
        act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR)
    assert (err.value.message, err.value.field) == ("the computer is disabled: no fire beyond Close", "range")


def test_TR_27_a_dodge_entered_for_a_blasted_launching_flight_is_refused_on_dodge_dm() -> None:
    state = carrier_in_combat()
    state = act(state, "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, FLIGHT_ACTOR).state
    state = give(state, "kestrel", ("blast_them", "tigress"))
    shot = beam_shot(mounts=10, target="red-flight", dodge_dm=-2)
    with pytest.raises(RuleError) as err:
        act(state, "traveller.barrage", shot, KESTREL_ACTOR)
    assert (err.value.message, err.value.field) == (
        "Red Flight launched from a ship Kestrel named in Blast Them As They Launch!: it may not dodge this round",
        "dodge_dm",
    )
