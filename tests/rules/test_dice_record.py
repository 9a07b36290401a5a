"""GEN-02 dice, clause by clause: the provable seeded die as docs/decisions.md words it (worked out
here with hmac and hashlib, not read from the code under test), entered dice taking every face a
die has and counting which die is wrong, a roll's record, and what a replay hands back."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from app.rules.core import NeedRoll, RuleError
from app.rules.dice import (
    Deferred,
    EnteredDice,
    ReplayDice,
    ScriptedDice,
    SeatedDice,
    SeededDice,
    derive_roll,
    dice_plan,
    end_told,
)

SEED = b"starboard-test-seed-0123456789ab"


def documented_die(seed: bytes, battle: str, seq: int, index: int, sides: int) -> int:
    """GEN-02 (docs/decisions.md): the first 8-byte big-endian chunk below the largest multiple of S
    in HMAC-SHA256(seed, "battle:seq:i:dS:attempt"), attempt = 0, 1, …; the face is chunk mod S + 1."""
    limit = (2**64 // sides) * sides
    attempt = 0
    while True:
        digest = hmac.new(
            seed, f"{battle}:{seq}:{index}:d{sides}:{attempt}".encode(), hashlib.sha256
        ).digest()
        for offset in (0, 8, 16, 24):
            chunk = int.from_bytes(digest[offset : offset + 8], "big")
            if chunk < limit:
                return chunk % sides + 1
        attempt += 1


@pytest.mark.parametrize("sides", [6, 20, 100])
def test_GEN_02_the_seeded_die_is_the_documented_derivation(sides):
    dice = SeededDice(SEED, "battle-7", 12)
    faces = [dice.die(sides, "test") for _ in range(5)]
    assert faces == [documented_die(SEED, "battle-7", 12, i, sides) for i in range(5)]
    assert derive_roll(SEED, "battle-7", 12, 3, sides) == faces[3]


def test_GEN_02_a_roll_records_its_modifier_and_total():
    roll = ScriptedDice([3, 4]).roll(2, 6, "to hit", modifier=2, ship="ker", target="8+")
    assert (roll.expr, roll.dice, roll.modifier, roll.total, roll.ship, roll.target) == (
        "2d6 + 2",
        [3, 4],
        2,
        9,
        "ker",
        "8+",
    )
    assert ScriptedDice([5]).roll(1, 6, "damage", modifier=-1).expr == "1d6 − 1"


def test_GEN_02_entered_dice_take_every_face_of_the_die():
    dice = EnteredDice([1, 6, 7])
    assert (dice.die(6, "first"), dice.die(6, "second")) == (1, 6)
    with pytest.raises(RuleError) as err:
        dice.die(6, "third")
    assert (err.value.field, err.value.message) == ("dice", "a d6 cannot show 7 (die 3 for third)")


def test_GEN_02_a_replay_hands_back_the_recorded_dice_then_asks_for_the_next_as_it_did():
    dice = ReplayDice([{"sides": 6, "value": 4}])
    assert (dice.may_lack, dice.server_rolls) == (True, True)
    assert dice.die(6, "reaction", "ker") == 4
    with pytest.raises(NeedRoll) as need:
        dice.die(6, "HET direction", "ker")
    assert need.value.as_dict() == {"sides": 6, "purpose": "HET direction", "ship": "ker", "index": 1}
    physical = ReplayDice([], may_lack=False, server_rolls=False)
    assert (physical.may_lack, physical.server_rolls) == (False, False)


# --- a step's end waiting for another commander's die (GEN-02, docs/decisions.md) ----------------


def seated(source, stored=(), mine=("yorktown",)):
    names = {"ker": "Ker", "yorktown": "Yorktown"}
    return SeatedDice(source, may_roll=lambda ship: ship in mine, stored=stored, name=names.__getitem__)


def test_GEN_02_a_steps_end_draws_the_dice_entered_for_it_earlier_first():
    dice = seated(EnteredDice([]), stored=[3, 5])
    assert (dice.die(6, "reaction", "ker"), dice.die(6, "HET direction", "ker")) == (3, 5)
    assert dice.drawn == [3, 5]
    assert dice.source.record == []  # the source gave none of them


def test_GEN_02_the_actor_enters_the_dice_of_their_own_ships_and_dice_for_no_ship():
    dice = seated(EnteredDice([4, 2]))
    assert (dice.die(6, "reaction", "yorktown"), dice.die(6, "initiative")) == (4, 2)
    assert dice.drawn == [4, 2]
    assert dice.server_rolls is False  # physical dice: no seed to reveal at the end


def test_GEN_02_an_entered_die_for_another_commanders_ship_is_refused():
    dice = seated(EnteredDice([6]))
    with pytest.raises(RuleError) as err:
        dice.die(6, "reaction", "ker")
    assert (err.value.field, err.value.message) == (
        "dice",
        "the die for reaction is rolled for Ker by its commander or the referee; enter only the dice of "
        "your own ships",
    )


def test_GEN_02_with_no_die_entered_for_it_the_end_waits_for_that_commander():
    dice = seated(EnteredDice([2]))
    assert dice.die(6, "reaction", "yorktown") == 2
    with pytest.raises(Deferred) as wait:
        dice.die(6, "HET direction", "ker")
    assert (wait.value.sides, wait.value.purpose, wait.value.ship, wait.value.drawn) == (
        6,
        "HET direction",
        "ker",
        [2],
    )
    assert str(wait.value) == "1d6 for HET direction is rolled by the commander of ker"


def test_GEN_02_server_dice_roll_every_die_of_the_end():
    dice = seated(ScriptedDice([5]))
    assert dice.die(6, "reaction", "ker") == 5
    assert (dice.drawn, dice.server_rolls) == ([5], True)


def test_GEN_02_the_end_of_a_battle_reveals_the_seed_only_where_the_server_rolled():
    assert end_told("The battle ends.", ScriptedDice([])) == "The battle ends. The dice seed is revealed."
    assert end_told("The battle ends.", EnteredDice([])) == "The battle ends."


def test_GEN_02_the_server_rolls_anothers_die_filed_under_its_purpose_and_ship():
    dice = seated(ScriptedDice([5]))
    dice.die(6, "reaction", "ker")
    assert dice.source.record == [{"sides": 6, "value": 5, "purpose": "reaction", "ship": "ker"}]


def two_dice(counter: list[int]):
    def run(dice) -> None:
        counter.append(1)
        dice.die(6, "to hit", "ker")
        dice.die(6, "damage", "ker")

    return run


def test_GEN_02_the_plan_tries_each_face_of_each_die_once():
    """Two d6 always asked: 1 run with none entered, 6 with the first, 36 with both — 43 runs."""
    runs: list[int] = []
    assert dice_plan(two_dice(runs), []) == [
        {"index": 0, "sides": 6, "purpose": "to hit", "ship": "ker", "always": True},
        {"index": 1, "sides": 6, "purpose": "damage", "ship": "ker", "always": True},
    ]
    assert len(runs) == 43


def test_GEN_02_the_plan_runs_at_most_400_times():
    runs: list[int] = []

    def endless(dice) -> None:
        runs.append(1)
        while True:
            dice.die(6, "again")

    dice_plan(endless, [])
    assert len(runs) == 400


def d6_then_maybe_another(dice) -> None:
    """A rule that asks one d6, and a second only when the first shows 6."""
    if dice.die(6, "first") == 6:
        dice.die(6, "second")


def test_GEN_02_the_plan_counts_from_the_dice_already_entered():
    """A 6 entered for the first die: only the second is still to come, and always."""
    assert dice_plan(d6_then_maybe_another, [6]) == [
        {"index": 1, "sides": 6, "purpose": "second", "ship": None, "always": True}
    ]
