"""What a shield transfer refuses and records (ST-08, ST-11, ST-15a): each refusal on the field the
commander corrects, the event filed under the ship with its figures, and the 50% bound opening anew
in each Adjust Ship Systems segment.

Every number is the seed's or the library Excelsior's: "up to 50% of the remaining damage absorption
ability of any shield projection can be transferred to other consecutive shield projections"
(ST-08; Decision: of the value when the segment opens, rounded down); the Fore is rated 40, the
Port 30, and the ring is Fore, Starboard, Aft, Port.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import BattleState
from app.rules.core import RuleError
from tests.rules.startrek.helpers import act, advance_to, battle, player, set_value, values

ME = player("excelsior")
EX = "ships.excelsior.parts.shields"


def at_adjust(fore: int = 40, port: int = 0) -> BattleState:
    state = advance_to(battle("excelsior"), "combat")
    state = set_value(state, f"{EX}.projections.0.current", fore)
    state = set_value(state, f"{EX}.projections.3.current", port)
    return advance_to(state, "adjust_systems")


def transfer(state: BattleState, source: str, target: str, points: int) -> tuple[BattleState, list[Any]]:
    payload = {"ship": "excelsior", "source": source, "target": target, "points": points}
    return act(state, "startrek.transfer_shields", payload, ME)


def refusal(state: BattleState, source: str, target: str, points: int) -> tuple[str | None, str]:
    with pytest.raises(RuleError) as err:
        transfer(state, source, target, points)
    return err.value.field, err.value.message


def test_ST_08_a_transfer_is_filed_under_the_ship_with_its_figures() -> None:
    _, (event,) = transfer(at_adjust(), "Fore", "Port", 10)
    assert (event.kind, event.ship, event.data) == (
        "shield_transfer",
        "excelsior",
        {"source": "Fore", "target": "Port", "points": 10},
    )


def test_ST_08_each_refusal_names_its_field() -> None:
    state = at_adjust(fore=33, port=25)
    assert refusal(state, "Dorsal", "Port", 1) == (
        "source",
        "no shield projection 'Dorsal' (projections: Fore, Starboard, Aft, Port)",
    )
    assert refusal(state, "Fore", "Dorsal", 1) == (
        "target",
        "no shield projection 'Dorsal' (projections: Fore, Starboard, Aft, Port)",
    )
    assert refusal(state, "Fore", "Aft", 1) == ("target", "Aft is not next to Fore (ST-08)")
    assert refusal(state, "Fore", "Starboard", 17) == (
        "points",
        "Fore held 33 when the segment opened: it may give 16 in all, 16 more (ST-08)",
    )
    assert refusal(state, "Fore", "Port", 6) == ("points", "Port is at 25/30: only 5 more fit (ST-08)")
    lowered = set_value(state, f"{EX}.projections.0.current", 5)  # after the segment opened
    assert refusal(lowered, "Fore", "Starboard", 6) == ("points", "Fore holds only 5")
    down = set_value(state, f"{EX}.generator_down", True)
    assert refusal(down, "Fore", "Port", 1) == (
        "ship",
        "Excelsior's shield generator is gone: its shields are down (ST-11)",
    )


def test_ST_08_the_bound_opens_anew_each_segment() -> None:
    """Fore 40 gives its 20 in turn 1's segment; turn 2's Ship Power adds the Fore Deflector's 4, so
    it holds 24 when turn 2's segment opens and may give 12 again (the Starboard set to 10 to take it)."""
    state, _ = transfer(at_adjust(), "Fore", "Port", 20)
    state = set_value(advance_to(state, "combat", turn=2), f"{EX}.projections.1.current", 10)
    state = advance_to(state, "adjust_systems", turn=2)
    assert refusal(state, "Fore", "Starboard", 13) == (
        "points",
        "Fore held 24 when the segment opened: it may give 12 in all, 12 more (ST-08)",
    )
    state, _ = transfer(state, "Fore", "Starboard", 12)
    assert values(state, "excelsior")["Fore"] == 12


def at_ship_power_with_port_collapsed() -> BattleState:
    """The Port fell in turn 1 (set by the referee, at 0): turn 2's Ship Power opens with it down."""
    state = set_value(at_adjust(), f"{EX}.projections.3.collapsed", True)
    return advance_to(state, "ship_power", turn=2)


def test_ST_15a_in_ship_power_strength_goes_only_to_a_projection_that_collapsed() -> None:
    state = advance_to(battle("excelsior"), "ship_power", turn=2)
    assert refusal(state, "Fore", "Port", 1) == (
        "ship",
        "in the Ship Power segment strength may only go to a projection that collapsed; none of Excelsior's "
        "did: transfers belong to the Adjust Ship Systems segment (ST-15a, ST-08)",
    )
    state = at_ship_power_with_port_collapsed()
    assert refusal(state, "Port", "Fore", 1) == (
        "target",
        "in the Ship Power segment strength may only go to a projection that collapsed; Fore did not (ST-15a)",
    )


def test_ST_15a_a_shored_up_projection_stands_again() -> None:
    state, (event,) = transfer(at_ship_power_with_port_collapsed(), "Fore", "Port", 5)
    assert event.text.endswith("(ST-15a).")
    port = state.ships["excelsior"].parts["shields"]["projections"][3]
    assert port["collapsed"] is False


def test_ST_08_a_projection_may_give_all_it_still_holds() -> None:
    """Fore held 33 as the segment opened (may give 16); lowered to 5 since, it gives all 5."""
    state = set_value(at_adjust(fore=33), f"{EX}.projections.0.current", 5)
    state, _ = transfer(state, "Fore", "Port", 5)
    assert values(state, "excelsior")["Fore"] == 0
