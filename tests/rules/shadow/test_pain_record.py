"""What the pain check records, beyond its sentences: whose rolls and events they are, the figures
the log and the sheet read, and how armour and internal damage add up (SH-03 … SH-07, GEN-02).

The sentences are pinned in test_pain_check.py; these pin the rest of each record, so that a roll or
an event filed under no ship, or a total that subtracts instead of adds, cannot pass unseen.
Every number is the seed's: the damage bands 250+ … 25–49 with their 1d6 chances (seed 000, "Damage /
Chance of level rise / Chance of reaction"), and the reaction chart's levels by pain.
"""

from __future__ import annotations

from typing import Any

from app.rules.state import BattleState

from .support import (
    EXCALIBUR,
    KER,
    YORKTOWN,
    act,
    advance,
    at_impulse,
    battle,
    end_impulse,
    hit,
    of_kind,
    pain,
)


def test_SH_03_armour_and_internal_damage_add_up() -> None:
    """SH-03: damage "to the armour panels and/or the internals" counts, both together: a 30-point
    hit on 20 armour boxes puts 20 on armour and 10 inside, 30 toward the check."""
    shadow: dict[str, Any] = {
        "name": "Ker",
        "klass": "Shadow Cruiser (test)",
        "system": "sfb",
        "side": "Shadows",
        "parts": {
            "sheet": {"sections": [{"name": "Hull", "armour_max": 20, "structure_max": 500}]},
            "pain": {},
        },
    }
    state = battle(shadow=shadow)
    state, _ = advance(state)
    state, _ = hit(state, 30)
    track = pain(state)
    assert (track.damage_total, track.damage_by_source, track.damage_by_direction) == (
        30,
        {EXCALIBUR: 30},
        {"fore": 30},
    )


def test_SH_03_one_point_counts_and_hits_from_one_direction_add_up() -> None:
    """SH-03: every point that reaches armour counts, one as much as any; two hits from the fore
    make one fore total (the flinch reads the direction the damage came from, SH-08)."""
    state = at_impulse()
    state, _ = hit(state, 1, source=YORKTOWN, direction="Fore")
    state, _ = hit(state, 12, source=EXCALIBUR, direction="fore")
    track = pain(state)
    assert (track.damage_total, track.damage_by_source, track.damage_by_direction) == (
        13,
        {YORKTOWN: 1, EXCALIBUR: 12},
        {"fore": 13},
    )


def test_SH_03_under_25_is_recorded_for_the_ship_with_its_total() -> None:
    """SH-03: under 25 there is no check, but the log keeps the total against the Shadow."""
    state = at_impulse()
    state, _ = hit(state, 24)
    state, events = end_impulse(state, [])
    (check,) = of_kind(events, "pain_check")
    assert (check.ship, check.data, check.rolls) == (KER, {"damage": 24}, [])


def test_SH_04_SH_05_rolls_and_check_are_the_shadows_with_the_seeds_figures() -> None:
    """SH-04/SH-05 (GEN-02): at 100–149 the rise is on 1–3 and the amount is 1d6 − 2. Pain 0, 120
    damage, rise roll 2 → rises; amount roll 6 → +4 → pain 4; reaction roll 5 (needs ≤ 3) fails."""
    state = at_impulse()
    state, _ = hit(state, 120, source=YORKTOWN)
    state, events = end_impulse(state, [2, 6, 5])
    (check,) = of_kind(events, "pain_check")
    assert check.ship == KER
    assert check.data == {"damage": 120, "band": "100–149", "old": 0, "new": 4, "most_damage": YORKTOWN}
    assert [(r.ship, r.target) for r in check.rolls] == [(KER, "≤ 3"), (KER, None)]
    (reaction,) = of_kind(events, "pain_reaction")
    assert (reaction.ship, reaction.text) == (KER, "Ker does not react to the pain.")
    assert [(r.ship, r.target, r.total) for r in reaction.rolls] == [(KER, "≤ 3", 5)]
    assert pain(state).level == 4


def test_SH_04_no_rise_says_pain_stays() -> None:
    """SH-04: at 25–49 the rise is on a 1 only; a 2 leaves pain where it was, and no reaction is
    rolled ("each impulse that the pain level rises")."""
    state = at_impulse(level=3)
    state, _ = hit(state, 30)
    state, events = end_impulse(state, [2])
    (check,) = of_kind(events, "pain_check")
    assert check.text == (
        "Ker took 30 damage to armour and internals in turn 1 impulse 1 (most from Excalibur, 30): pain stays 3."
    )
    assert check.data == {"damage": 30, "band": "25–49", "old": 3, "new": 3, "most_damage": EXCALIBUR}
    assert of_kind(events, "pain_reaction") == []


def test_SH_06_a_zero_reading_is_recorded_as_zero_for_the_ship() -> None:
    """SH-06: the seed's example — pain 0, 217 damage, rise 3, amount 3 → pain 3; the reaction
    roll succeeds, but pain 3 reads ZERO on the chart (1–4): no reaction."""
    state = at_impulse()
    state, _ = hit(state, 217)
    state, events = end_impulse(state, [3, 3, 2])
    (reaction,) = of_kind(events, "pain_reaction")
    assert (reaction.ship, reaction.data) == (KER, {"reaction": "ZERO"})
    assert [(r.ship, r.target, r.total) for r in reaction.rolls] == [(KER, "≤ 5", 2)]


def _react_at(state: BattleState, damage: int, dice: list[int]) -> tuple[BattleState, list[Any]]:
    state, _ = hit(state, damage)
    return end_impulse(state, dice)


def test_SH_07_a_lower_reaction_in_the_same_turn_is_recorded_and_overrides_nothing() -> None:
    """SH-07: "New reactions in the turn are valid, and over-ride previous results if the result is
    a higher level of reaction." Pain 6, 250 damage: rise on 1–6 (roll 4), amount 1d6 + 1 (roll 1)
    → pain 8, TWO on the chart; reaction on 1–6 (roll 6). Next impulse, 25 damage: rise on 1 (roll
    1), amount 1d6 − 4 (roll 1) → at least 1 → pain 9, THREE; reaction on 1 (roll 1): higher, so
    it overrides."""
    state = at_impulse(level=6)
    state, _ = _react_at(state, 250, [4, 1, 6])
    assert (pain(state).level, pain(state).reaction) == (8, "TWO")
    state, events = _react_at(state, 25, [1, 1, 1])
    assert (pain(state).level, pain(state).reaction) == (9, "THREE")
    (reaction,) = of_kind(events, "pain_reaction")
    assert reaction.ship == KER


def test_SH_07_a_reaction_not_higher_in_the_same_turn_is_recorded_with_its_level() -> None:
    """SH-07: pain 12 reads FOUR (12–13); a second rise in the same turn to 13 still reads FOUR,
    which does not override the FOUR already taken: recorded for the ship, with its roll."""
    state = at_impulse(level=11)
    # 25–49 damage: rise on 1; amount 1d6 − 4 → at least 1 → pain 12 (FOUR); reaction on 1.
    # FOUR's immediate HET away always succeeds (no die).
    state, _ = _react_at(state, 30, [1, 1, 1])
    assert (pain(state).level, pain(state).reaction) == (12, "FOUR")
    state, events = _react_at(state, 30, [1, 2, 1])
    assert pain(state).level == 13
    (reaction,) = of_kind(events, "pain_reaction")
    assert (
        reaction.text
        == "Ker reacts at FOUR, which does not override its FOUR reaction already taken in turn 1 (SH-07)."
    )
    assert (reaction.ship, reaction.data) == (KER, {"reaction": "FOUR"})
    assert [(r.ship, r.target, r.total) for r in reaction.rolls] == [(KER, "≤ 1", 1)]


def test_SH_13_destruction_ends_every_standing_obligation() -> None:
    """SH-13/GEN-04: a destroyed ship is "out of the game for all purposes": whatever a reaction
    obliged it to do ends, phase-out included, with the reason and the turn written on it."""
    bound = {
        "kind": "plot_phase_out",
        "level": "FIVE",
        "text": "must plot phasing out at the next Energy Allocation",
        "since": {"turn": 1, "impulse": None},
        "until": "met",
    }
    shadow: dict[str, Any] = {
        "name": "Ker",
        "klass": "Shadow Cruiser (test)",
        "system": "sfb",
        "side": "Shadows",
        "parts": {
            "sheet": {"sections": [{"name": "Hull", "armour_max": 5, "structure_max": 5}]},
            "pain": {"level": 14, "reaction": "FIVE", "obligations": [bound]},
        },
    }
    state = battle(shadow=shadow)
    state, _ = advance(state)
    state, _ = act(state, "damage.apply", {"target": KER, "amount": 40, "source": EXCALIBUR})
    assert state.ships[KER].destroyed is True
    (obligation,) = pain(state).obligations
    assert (obligation.expired, obligation.ended, obligation.ended_turn) == (True, "the ship is destroyed", 1)


def test_SH_10_an_obligation_that_ends_is_logged_for_the_shadow() -> None:
    """SH-10: "targets the ship that did the most damage until that ship is destroyed" — once
    Yorktown is destroyed, the next impulse's end logs the Shadow as no longer bound."""
    target = {
        "kind": "target",
        "level": "THREE",
        "text": "must target Yorktown until it is destroyed",
        "target": YORKTOWN,
        "since": {"turn": 1, "impulse": 1},
        "until": "target_destroyed",
    }
    state = at_impulse(level=9, reaction="THREE", obligations=[target])
    state, _ = act(state, "damage.apply", {"target": YORKTOWN, "amount": 40, "source": KER})
    assert state.ships[YORKTOWN].destroyed is True
    (obligation,) = pain(state).obligations
    assert (obligation.expired, obligation.ended) == (True, "Yorktown is destroyed")


def test_SH_08_a_flinch_due_in_the_next_movement_expires_for_the_shadow() -> None:
    """SH-08: the flinch is a move in the movement after the impulse that caused it; once that
    movement has passed, the log says the Shadow is no longer bound, against the Shadow."""
    flinch = {
        "kind": "flinch",
        "level": "ONE",
        "text": "move 1 hex directly away from the fore, keeping facing",
        "since": {"turn": 1, "impulse": 1},
        "until": "next_movement",
    }
    state = at_impulse(level=5, reaction="ONE", obligations=[flinch])
    state, events = advance(state)  # the end of impulse 1: the flinch's own impulse
    assert of_kind(events, "pain_obligation_expired") == []
    state, events = advance(state)  # the end of impulse 2: its movement is past
    (ended,) = of_kind(events, "pain_obligation_expired")
    assert (ended.ship, ended.text) == (
        KER,
        "Ker is no longer bound: move 1 hex directly away from the fore, keeping facing.",
    )
