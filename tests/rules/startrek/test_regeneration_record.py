"""Free shield regeneration in the Ship Power segment, at its edges (ST-07, ST-12, ST-14, ST-15): a
deflector at value 0 gives nothing, the projection it goes to on a tie, points lost at the rating
staying lost, and a collapsed projection falling again when the regeneration that raised it is
withdrawn.

Every number is the seed's or the library Excelsior's: a deflector gives "free points" equal to its
value (ST-07); an arc extension lowers that value by 1 (ST-14); a projection with no deflector in arc
collapses (ST-12) and "must start from scratch" (ST-15); up to 50% moves to a collapsed neighbour
(ST-15a). The Excelsior's projections are Fore 40, Starboard, Aft and Port 30; its deflectors Fore 4,
the others 3. The tie rule (the projection with the most room; a tie to the one just extended to,
then the data's order) is the tracker's reading of "an in-arc projection".
"""

from __future__ import annotations

from typing import Any

from app.rules.startrek.shields import Projection
from tests.rules.startrek.helpers import (
    act,
    advance,
    advance_to,
    battle,
    hit,
    of_kind,
    player,
    set_value,
    shields,
)

ME = player("excelsior")
EX = "ships.excelsior.parts.shields"


def next_ship_power(state: Any) -> tuple[Any, list[Any]]:
    state = advance_to(state, "adjust_systems")
    state, events = advance(state)
    assert state.clock.step == "ship_power"
    return state, events


def extend(state: Any, deflector: str, projection: str) -> tuple[Any, list[Any]]:
    return act(
        state,
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": deflector, "projection": projection},
        ME,
    )


def switch(state: Any, system: str, on: bool = False) -> tuple[Any, list[Any]]:
    return act(state, "startrek.switch_system", {"ship": "excelsior", "system": system, "on": on}, ME)


def port(state: Any) -> Projection:
    return shields(state, "excelsior").projections[3]


def test_ST_07_ST_14_a_tie_in_room_goes_to_the_projection_just_extended_to() -> None:
    """Fore 37/40 and Port 27/30 both have room 3; the Fore Deflector extended to the Port (value
    4 → 3) gives its free 3 to the Port."""
    state = set_value(battle("excelsior"), f"{EX}.projections.0.current", 37)
    state = set_value(state, f"{EX}.projections.3.current", 27)
    state, events = extend(state, "Fore Deflector", "Port")
    assert "free regeneration now Fore Deflector +3 → Port 30/30 (ST-14)." in events[0].text


def test_ST_07_ST_14_an_extended_deflector_opening_on_a_tie_gives_to_its_own_projection_first() -> None:
    """Next Ship Power, the extended Fore Deflector (3) finds Fore 36/40 and Port 26/30, room 4 each:
    its 3 go to the Fore, first in its arc."""
    state, _ = extend(battle("excelsior"), "Fore Deflector", "Port")
    state = set_value(state, f"{EX}.projections.0.current", 36)
    state = set_value(state, f"{EX}.projections.3.current", 26)
    state, events = next_ship_power(state)
    assert of_kind(events, "shield_regeneration")[0].text.startswith(
        "Excelsior's deflectors regenerate its shields: Fore Deflector +3 → Fore 39/40;"
    )


def test_ST_14_a_deflector_extended_to_value_0_gives_nothing() -> None:
    """ST-14: a Starboard Deflector of value 1 extended 90° falls to 0 (not below: it still works)
    and gives +0 — before its free regeneration was given, and after."""
    state = set_value(battle("excelsior"), f"{EX}.deflectors.1.value", 1)
    state = set_value(state, f"{EX}.projections.1.current", 20)
    fresh, events = extend(state, "Starboard Deflector", "Fore")
    assert events[0].text.endswith("free regeneration now Starboard Deflector +0 → Starboard 20/30 (ST-14).")
    state, events = next_ship_power(state)
    assert "Starboard Deflector +1 → Starboard 21/30" in of_kind(events, "shield_regeneration")[0].text
    state, events = extend(state, "Starboard Deflector", "Fore")
    assert events[0].text.endswith(
        "at its value now (ST-07): Starboard Deflector +0 → Starboard 20/30 (ST-14)."
    )


def collapsed_port() -> Any:
    """Turn 2 Ship Power with the Port collapsed: 40 from port destroyed the Port Deflector in turn 1
    and emptied the Port, which had no deflector in arc at Adjust Ship Systems (ST-12)."""
    state = battle("excelsior")
    state, _ = hit(state, "excelsior", 40, direction="port", system="Port Deflector")
    state = set_value(state, f"{EX}.projections.0.current", 39)
    state, _ = next_ship_power(state)
    assert (state.clock.turn, port(state).value, port(state).collapsed) == (2, 0, True)
    return state


def test_ST_07_points_lost_at_the_rating_stay_lost_when_room_opens_later() -> None:
    """ST-07: the Fore Deflector's 4 found Fore 39/40: +1, 3 lost. The Fore then gives 19 to the
    collapsed Port (ST-15a); switching the deflector off and on re-values its one regeneration on the
    Fore, still +1: the 3 lost at the rating are not given again."""
    state = collapsed_port()
    state, _ = act(
        state,
        "startrek.transfer_shields",
        {"ship": "excelsior", "source": "Fore", "target": "Port", "points": 19},
        ME,
    )
    state, _ = switch(state, "Fore Deflector")
    state, events = switch(state, "Fore Deflector", on=True)
    assert events[0].text.endswith(
        "its free regeneration stays on Fore, once per Ship Power, at its value now (ST-07): Fore Deflector +1 → "
        "Fore 21/40 (3 lost at the rating)."
    )


def regenerated_port() -> Any:
    """The Fore Deflector extended to the collapsed Port in turn 2; turn 3 opens with its 3 on the
    Port (room 30 against the Fore's 0), which stands again."""
    state, _ = extend(collapsed_port(), "Fore Deflector", "Port")
    state, events = next_ship_power(state)
    assert "Fore Deflector +3 → Port 3/30" in of_kind(events, "shield_regeneration")[0].text
    assert (port(state).value, port(state).collapsed) == (3, False)
    return state


def test_ST_12_ST_15_withdrawn_regeneration_leaves_the_unguarded_port_collapsed_again() -> None:
    """ST-12/ST-15: switching the Fore Deflector off withdraws its 3 from the Port, which was down when
    the segment opened and has no working deflector in arc: it is collapsed again, at 0."""
    state, events = switch(regenerated_port(), "Fore Deflector")
    assert events[0].text.endswith(
        "its free regeneration is withdrawn from Port (it is not working; given once per Ship Power, ST-07)."
    )
    assert (port(state).value, port(state).collapsed) == (0, True)


def test_ST_12_ST_14_retracting_the_arc_withdraws_the_regeneration_and_the_port_falls() -> None:
    """ST-14: retracted to its own arc, the Fore Deflector no longer covers the Port: its 3 are
    withdrawn, saying why, and the unguarded Port is collapsed again."""
    state, events = act(
        regenerated_port(), "startrek.retract_arc", {"ship": "excelsior", "deflector": "Fore Deflector"}, ME
    )
    assert events[0].text.endswith(
        "its free regeneration is withdrawn from Port (Port is no longer in its arc; given once per Ship Power, ST-07)."
    )
    assert (port(state).value, port(state).collapsed) == (0, True)


def test_ST_07_ST_12_a_port_holding_bought_points_stands_when_the_free_ones_are_withdrawn() -> None:
    """ST-07: 2 bought on the Port (3 → 5) stay when the free 3 are withdrawn: Port 2/30 stands."""
    state, _ = act(
        regenerated_port(),
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 2, "projection": "Port"},
        ME,
    )
    state, _ = switch(state, "Fore Deflector")
    assert (port(state).value, port(state).collapsed) == (2, False)


def test_ST_07_ST_14_a_regeneration_re_valued_upward_still_stops_at_the_rating() -> None:
    """ST-07: "no projection goes above its rating". The Fore Deflector, extended to the Port (value
    3), gives +3 to Fore 31/40 → 34/40; 6 bought fill it to 40/40. Retracted (value 4 again), its one
    regeneration is re-valued on the Fore: only 3 fit, so the Fore stays at 40/40."""
    state, _ = extend(battle("excelsior"), "Fore Deflector", "Port")
    state = set_value(state, f"{EX}.projections.0.current", 31)
    state, events = next_ship_power(state)
    assert "Fore Deflector +3 → Fore 34/40" in of_kind(events, "shield_regeneration")[0].text
    state, _ = switch(state, "Sensors")  # frees 4 power for the purchase
    state, _ = act(
        state,
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Fore Deflector", "points": 6},
        ME,
    )
    state, events = act(
        state, "startrek.retract_arc", {"ship": "excelsior", "deflector": "Fore Deflector"}, ME
    )
    assert events[0].text.endswith(
        "at its value now (ST-07): Fore Deflector +3 → Fore 40/40 (1 lost at the rating)."
    )
    assert shields(state, "excelsior").projections[0].value == 40
