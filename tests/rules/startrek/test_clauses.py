"""Rule clauses no other test executed, each driven at its boundary through apply_action.

ST-18: a nacelle fails on d100 at or under its destroyed boxes — a chance that cannot pass 100%.
"""

from __future__ import annotations

import pytest

from tests.rules.startrek.helpers import act, battle, definition, player, set_value

PORT_DAMAGE = "ships.excelsior.parts.sheet.sections.1.systems.0.damage"


def big_nacelles() -> dict:
    """The Excelsior with 150-box nacelles, so more than 100 boxes can be destroyed."""
    data = definition("excelsior")
    for section in data["parts"]["sheet"]["sections"]:
        for system in section["systems"]:
            if system["kind"] == "nacelle":
                system["boxes"] = 150
    return data


@pytest.mark.parametrize("destroyed", [100, 101, 120])
def test_ST_18_failure_chance_is_capped_at_100_percent(destroyed: int) -> None:
    """ST-18: the chance is the destroyed boxes, capped at 100: 100, 101 or 120 boxes all read 100%,
    and the roll must beat 100 to hold — the highest d100 roll, 100, fails."""
    state = set_value(battle(big_nacelles()), PORT_DAMAGE, destroyed)
    state, events = act(state, "startrek.declare_warp", {"ship": "excelsior"}, player("excelsior"), [100])
    assert events[0].kind == "warp_failed"
    roll = events[0].rolls[0]
    assert (roll.total, roll.target, roll.outcome) == (100, "> 100 to hold", "fails")
    assert events[0].text.startswith(
        "Excelsior tries to go to warp: Port Nacelle (100% failure) rolls 100: fails; Starboard Nacelle is"
        " undamaged (0% failure)."
    )


def test_ST_18_ninety_nine_destroyed_boxes_still_hold_on_100() -> None:
    """Just under the cap: 99 boxes → 99%, and a roll of 100 holds."""
    state = set_value(battle(big_nacelles()), PORT_DAMAGE, 99)
    state, events = act(state, "startrek.declare_warp", {"ship": "excelsior"}, player("excelsior"), [100])
    assert events[0].kind == "warp_declared"
    assert events[0].rolls[0].target == "> 99 to hold"
    assert "Port Nacelle (99% failure) rolls 100: holds" in events[0].text
