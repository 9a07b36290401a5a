"""Ramming with shields at its edges (ST-09, ST-11): shields that have fallen add nothing to the
ramming factor, and a ship with a cloaking device it has not engaged adds its in-arc shield as any.

The seed (001): "add the current value of any in-arc shield projection to the ship's ramming factor";
"if at any time a ship's shield generator fails or is destroyed, all shield projections immediately
fall". The Excelsior's Fore projection is 40; the Bird of Prey's one Shield is 20.
"""

from __future__ import annotations

from typing import Any

from tests.rules.startrek.helpers import act, advance_to, battle, player, set_value


def ram(state: Any, ship: str, factor: int, direction: str | None = None) -> Any:
    payload: dict[str, Any] = {"ship": ship, "factor": factor}
    if direction:
        payload["direction"] = direction
    state, events = act(state, "startrek.ramming_factor", payload, player(ship))
    return events[0]


def test_ST_09_ST_11_with_the_shield_generator_destroyed_the_shields_add_nothing() -> None:
    """ST-11: the Shield Generator destroyed (6 of 6 boxes), every projection has fallen: a ramming
    factor of 100 stays 100."""
    state = set_value(battle("excelsior"), "ships.excelsior.parts.sheet.sections.2.systems.0.damage", 6)
    event = ram(advance_to(state, "movement"), "excelsior", 100, "fore")
    assert event.data == {"factor": 100}
    assert event.text == (
        "Excelsior's ramming factor is 100: its shields add nothing (its shield generator is gone (ST-11))."
    )


def test_ST_09_an_uncloaked_bird_of_prey_adds_its_shield() -> None:
    """ST-09: the Bird of Prey, cloak not engaged, rams with factor 10: + Shield 20 = 30."""
    event = ram(advance_to(battle("klingon-bird-of-prey"), "movement"), "kor-vaq", 10)
    assert (event.data, event.text) == (
        {"factor": 30},
        "Kor'vaq's ramming factor is 10 + Shield shield 20 = 30 (ST-09).",
    )
