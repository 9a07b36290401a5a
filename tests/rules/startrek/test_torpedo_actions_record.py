"""What loading and firing the advanced photon launcher refuse and record (ST-25, with ST-17 and
ST-22): each refusal on its field, a single torpedo's sentence, a launcher named apart from its sheet
system, and both events filed under the ship; and the ramming factor's event (ST-09).

Every number is the seed's or the library's: the launcher holds "up to three torpedoes"; "for every
photon torpedo after the first ... a cumulative −1 to-hit penalty" (ST-25), so one torpedo has none.
The Thomas Paine carries one Advanced Photon Launcher (6 boxes), loaded with 3.
"""

from __future__ import annotations

from typing import Any

from app.rules import BattleState, new_battle
from tests.rules.startrek.helpers import (
    act,
    add,
    advance_to,
    battle,
    commander_act,
    definition,
    player,
    refusal_of,
    set_value,
)

ME = player("thomas-paine")
LAUNCHER = "ships.thomas-paine.parts.photon_launcher.launchers.0"
DESTROYED = ("ships.thomas-paine.parts.sheet.sections.0.systems.0.damage", 6)


do = commander_act("thomas-paine")


def refusal(state: BattleState, kind: str, **payload: Any) -> tuple[str | None, str]:
    return refusal_of(lambda: do(state, kind, **payload))


def tube_a() -> dict[str, Any]:
    """The Thomas Paine whose launcher is called "Tube A" on its data, the sheet's system still the
    Advanced Photon Launcher, empty."""
    data = definition("new-orleans")
    data["parts"]["photon_launcher"]["launchers"] = [
        {"name": "Tube A", "system": "Advanced Photon Launcher", "loaded": 0}
    ]
    return data


def test_ST_25_a_load_is_filed_under_the_ship_and_refused_on_count_or_launcher() -> None:
    state = set_value(battle("new-orleans"), f"{LAUNCHER}.loaded", 2)
    assert refusal(state, "load_torpedoes", launcher="Advanced Photon Launcher", count=2) == (
        "count",
        "Advanced Photon Launcher holds 2 of 3: room for 1 (ST-25)",
    )
    _, (event,) = do(state, "load_torpedoes", launcher="Advanced Photon Launcher")
    assert (event.kind, event.ship) == ("torpedo_load", "thomas-paine")
    state = set_value(battle(tube_a()), *DESTROYED)
    assert refusal(state, "load_torpedoes", launcher="Tube A") == ("launcher", "Tube A is destroyed")


def test_ST_25_one_torpedo_has_no_penalty_and_no_target_named() -> None:
    state = advance_to(battle("new-orleans"), "combat")
    _, (event,) = do(state, "fire_torpedoes", launcher="Advanced Photon Launcher", count=1)
    assert (event.kind, event.ship) == ("torpedo_fire", "thomas-paine")
    assert event.text == (
        "Thomas Paine fires 1 photon torpedo from Advanced Photon Launcher: no penalty (ST-25); 2 left loaded."
    )


def test_ST_25_a_volley_is_refused_on_the_field_to_correct() -> None:
    state = advance_to(set_value(battle("new-orleans"), f"{LAUNCHER}.loaded", 1), "combat")
    assert refusal(state, "fire_torpedoes", launcher="Advanced Photon Launcher", count=2) == (
        "count",
        "Advanced Photon Launcher has 1 loaded",
    )
    assert refusal(
        state, "fire_torpedoes", launcher="Advanced Photon Launcher", count=1, target="nobody"
    ) == ("target", "no ship 'nobody' in this battle")
    state = advance_to(set_value(battle(tube_a()), f"{LAUNCHER}.loaded", 1), "combat")
    state = set_value(state, *DESTROYED)
    assert refusal(state, "fire_torpedoes", launcher="Tube A", count=1) == ("launcher", "Tube A is destroyed")


def test_ST_17_no_volley_from_a_ship_going_to_warp() -> None:
    state, _ = do(battle("new-orleans"), "declare_warp")
    state = advance_to(state, "combat")
    assert refusal(state, "fire_torpedoes", launcher="Advanced Photon Launcher", count=1) == (
        "ship",
        "Thomas Paine is going to warp this turn and may not fire (ST-17)",
    )


def test_ST_22_no_volley_at_a_cloaked_ship_not_detected() -> None:
    state = new_battle("b5wars")
    state = add(state, definition("new-orleans"))
    state = add(state, definition("klingon-bird-of-prey"))
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, player("kor-vaq"))
    state = advance_to(state, "combat", turn=2)
    field, _ = refusal(
        state, "fire_torpedoes", launcher="Advanced Photon Launcher", count=1, target="kor-vaq"
    )
    assert field == "target"


def test_ST_09_the_ramming_factor_is_filed_under_the_ship() -> None:
    """ST-09: a factor of 100 plus the Thomas Paine's Fore projection (36): 136."""
    state = advance_to(battle("new-orleans"), "movement")
    _, (event,) = do(state, "ramming_factor", factor=100, direction="Fore")
    assert (event.kind, event.ship, event.data) == ("ramming_factor", "thomas-paine", {"factor": 136})
