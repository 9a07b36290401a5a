"""GEN-02 dice, clause by clause: the provable seeded die as docs/decisions.md words it (worked out
here with hmac and hashlib, not read from the code under test), entered dice taking every face a
die has and counting which die is wrong, a roll's record, and what a replay hands back."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from app.rules.core import NeedRoll, RuleError
from app.rules.dice import EnteredDice, ReplayDice, ScriptedDice, SeededDice, derive_roll

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
