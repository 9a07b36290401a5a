"""What the Ship Power segment's arc and switch actions refuse and record (ST-14): each refusal on
the field the commander corrects, the secret events others read only as a sentence, and the power
left at its edges.

Every number is the library Excelsior's: reactor 30; Phaser Arrays 8, Photon Torpedo 2, Sensors 4;
four deflectors at 2 each (the Fore Deflector covers the Fore), so 8 is left at a turn's start.
"Ship systems can be deactivated" in the Ship Power segment to free power (ST-14); a switch back on
may not overspend the budget (no deficit spending, `power.py`).
"""

from __future__ import annotations

from typing import Any

from app.rules import BattleState
from tests.rules.startrek.helpers import battle, commander_act, definition, player, refusal_of, set_value

ME = player("excelsior")
OUTPUT = "ships.excelsior.parts.power.output"


do = commander_act("excelsior")


def refusal(state: BattleState, kind: str, **payload: Any) -> tuple[str | None, str]:
    return refusal_of(lambda: do(state, kind, **payload))


def test_ST_14_an_extension_reaches_one_projection_next_to_an_arc_of_a_working_deflector() -> None:
    state = battle("excelsior")
    assert refusal(state, "extend_arc", deflector="Fore Deflector", projection="Fore") == (
        "projection",
        "Fore is already in Fore Deflector's arc",
    )
    assert refusal(state, "extend_arc", deflector="Fore Deflector", projection="Aft") == (
        "projection",
        "Aft is not next to Fore Deflector's arc (Fore)",
    )
    state, _ = do(state, "switch_system", system="Fore Deflector")
    assert refusal(state, "extend_arc", deflector="Fore Deflector", projection="Port") == (
        "deflector",
        "Fore Deflector is switched off",
    )


def test_ST_14_a_retraction_needs_an_extension_and_is_secret() -> None:
    state = battle("excelsior")
    assert refusal(state, "retract_arc", deflector="Fore Deflector") == (
        "deflector",
        "Fore Deflector has no arc extension",
    )
    state, _ = do(state, "extend_arc", deflector="Fore Deflector", projection="Port")
    _, (event,) = do(state, "retract_arc", deflector="Fore Deflector")
    assert (event.kind, event.visibility, event.hidden_text) == (
        "arc_extension",
        "owner",
        "Excelsior returns Fore Deflector to its own arc.",
    )


def test_ST_14_switching_is_secret_and_refused_on_the_system() -> None:
    state = battle("excelsior")
    state, (event,) = do(state, "switch_system", system="Fore Deflector")
    assert (event.kind, event.visibility, event.hidden_text) == (
        "system_switched",
        "owner",
        "Excelsior switches Fore Deflector off.",
    )
    assert refusal(state, "switch_system", system="Fore Deflector") == (
        "system",
        "Fore Deflector is already off",
    )
    assert refusal(state, "switch_system", system="Sensors", on=True) == ("system", "Sensors is already on")
    assert refusal(state, "switch_system", system="Warp Core") == (
        "system",
        "Excelsior has no switchable system 'Warp Core'",
    )


def test_ST_14_a_deflector_switched_on_past_the_budget_is_refused() -> None:
    """The Fore Deflector off (10 left), the reactor down to 20 (0 left): back on it needs 2 more."""
    state, _ = do(battle("excelsior"), "switch_system", system="Fore Deflector")
    state = set_value(state, OUTPUT, 20)
    assert refusal(state, "switch_system", system="Fore Deflector", on=True) == (
        "deflector",
        "switching Fore Deflector on needs 2 more power than Excelsior has this turn",
    )


def test_ST_14_a_system_switched_on_may_use_the_last_point_but_not_one_more() -> None:
    """Sensors (4) off; with the reactor at 22 they come back on to exactly 0 left; at 21 they need 1."""
    state, _ = do(battle("excelsior"), "switch_system", system="Sensors")
    _, (event,) = do(set_value(state, OUTPUT, 22), "switch_system", system="Sensors", on=True)
    assert event.text == "Excelsior switches Sensors on (0 power left)."
    assert refusal(set_value(state, OUTPUT, 21), "switch_system", system="Sensors", on=True) == (
        "system",
        "switching Sensors on needs 1 more power than is left",
    )


def test_ST_14_a_ship_with_deflectors_and_no_budget_has_no_power_left() -> None:
    data = definition("excelsior")
    del data["parts"]["power"]
    _, (event,) = do(battle(data), "switch_system", system="Fore Deflector")
    assert event.text == (
        "Excelsior switches Fore Deflector off (0 power left); Fore Deflector gives no regeneration now."
    )


def test_ST_14_an_extension_is_secret_and_refused_on_the_deflector_it_would_shut_down() -> None:
    """ "If a deflector shields innate regeneration value ... falls below 0, the shield is deactivated":
    the Starboard Deflector at value 0 may not take a step (0 → −1)."""
    state, (event,) = do(battle("excelsior"), "extend_arc", deflector="Fore Deflector", projection="Port")
    assert (event.kind, event.visibility, event.hidden_text) == (
        "arc_extension",
        "owner",
        "Excelsior extends Fore Deflector to cover its Port shield.",
    )
    state = set_value(state, "ships.excelsior.parts.shields.deflectors.1.value", 0)
    assert refusal(state, "extend_arc", deflector="Starboard Deflector", projection="Fore") == (
        "deflector",
        "Starboard Deflector (value 0) would fall to -1 and shut down (ST-14)",
    )
