"""What the pain track itself decides: which direction the damage came from (SH-08, SH-11), which
ship did the most damage (SH-09), how the sheet numbers and names obligations, and when a deed is
marked done (SH-16).

Every number is the seed's (seed 000): 250+ damage rises on 1–6 by 1d6 + 1 and reacts on 1–6; the
chart reads 5–6 ONE, 7–8 TWO, 12–13 FOUR.
"""

from __future__ import annotations

import pytest

from app.rules.core import RuleError

from .support import (
    EXCALIBUR,
    KER,
    PLAYER,
    YORKTOWN,
    act,
    active,
    at_impulse,
    end_impulse,
    hit,
    of_kind,
    pain,
)

# 250+ damage: rise on 1–6 (roll 6), amount 1d6 + 1 (roll 1) = +2, reaction on 1–6 (roll 6).
RISE_TWO_AND_REACT = [6, 1, 6]


def test_SH_08_the_flinch_is_away_from_the_direction_most_damage_came_from() -> None:
    """SH-08: "moving 1 hex away from the direction that damage was taken from": 200 from aft and
    50 from fore in one impulse — the damage came from aft."""
    state = at_impulse(level=3)
    state, _ = hit(state, 50, direction="fore")
    state, _ = hit(state, 200, direction="aft")
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)  # pain 5: ONE
    (flinch,) = pain(state).active()
    assert (flinch.kind, flinch.direction) == ("flinch", "aft")


def test_SH_09_the_largest_single_source_is_the_target_whatever_its_name() -> None:
    """SH-09: TWO "targets the ship that did the most damage": Excalibur's 150 beats Yorktown's 100."""
    state = at_impulse(level=5)
    state, _ = hit(state, 100, source=YORKTOWN)
    state, _ = hit(state, 150, source=EXCALIBUR)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)  # pain 7: TWO
    track = pain(state)
    assert (track.reaction, track.most_damage, track.most_damage_amount) == ("TWO", EXCALIBUR, 150)
    assert [o.text for o in track.active()] == ["must target Excalibur next turn (turn 2)"]


def test_SH_09_damage_from_an_unrecorded_attacker_names_no_ship() -> None:
    """SH-09: when the most damage came from fire whose source was not entered (200, against
    Yorktown's 50), the angered ship must target that unrecorded attacker: no ship is named."""
    state = at_impulse(level=5)
    state, _ = hit(state, 200, source=None)
    state, _ = hit(state, 50, source=YORKTOWN)
    state, events = end_impulse(state, RISE_TWO_AND_REACT)  # pain 7: TWO
    track = pain(state)
    assert (track.most_damage, track.most_damage_amount) == (None, 200)
    assert [o.text for o in track.active()] == ["must target an unrecorded attacker next turn (turn 2)"]
    (check,) = of_kind(events, "pain_check")
    assert check.text == (
        "Ker took 250 damage to armour and internals in turn 1 impulse 1 (most from an unrecorded attacker, 200): "
        "pain rises 5 → 7."
    )


def test_SH_16_obligations_are_numbered_from_one_and_marked_done_when_done() -> None:
    """SH-16/SH-11: FOUR's HET (number 1) and evasion plotting (number 2) are listed on the sheet;
    the HET is marked done in impulse 2, which its end records; an unknown number is refused."""
    state = at_impulse(level=10)
    state, _ = hit(state, 250, direction="aft")
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)  # pain 12: FOUR; now impulse 2
    assert [(o.id, o.kind) for o in pain(state).active()] == [(1, "het_away"), (2, "evasion")]
    with pytest.raises(RuleError, match="Ker has no obligation number 3"):
        act(state, "shadow.obligation_done", {"ship": KER, "obligation": 3}, actor=PLAYER)
    state, _ = act(state, "shadow.obligation_done", {"ship": KER, "obligation": 1}, actor=PLAYER)
    het = pain(state).obligations[0]
    assert (het.ended, het.ended_turn) == ("done (turn 1 impulse 2)", 1)
    assert active(state) == [("evasion", "FOUR")]


def test_SH_10_a_target_removed_from_the_battle_releases_the_shadow() -> None:
    """SH-10: THREE targets its ship "until that ship is destroyed"; a ship the referee removes from
    the battle is gone as surely, so the obligation ends at the next look."""
    state = at_impulse(level=7)
    state, _ = hit(state, 250, source=YORKTOWN)
    state, _ = end_impulse(state, RISE_TWO_AND_REACT)  # pain 9: THREE on Yorktown
    assert active(state) == [("target", "THREE")]
    state, _ = act(state, "ship.remove", {"ship": YORKTOWN})
    state, events = end_impulse(state, [])
    (target,) = pain(state).obligations
    assert (target.expired, target.ended_turn) == (True, 1)
    assert [e.text for e in of_kind(events, "pain_obligation_expired")] == [
        "Ker is no longer bound: must target Yorktown until it is destroyed."
    ]
