"""Range board clauses (TR-02, core rules' Range Table, tables.md §1b) not met elsewhere: pairs that
are not pairs, Thrust that cancels out or whose pair left the board, a launch where the flight
already has bands, and the referee taking a pair off the board."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import Actor, RuleError
from app.rules.state import BattleState
from app.rules.traveller.ranges import entry
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, beam_shot, capital, hg

HULK = {"name": "Hulk", "klass": "drifting wreck", "system": "traveller", "parts": {}}
FLIGHT = {
    "name": "Red Flight",
    "klass": "fighters",
    "system": "traveller",
    "parts": {
        "flight": {"craft_type": "Fighter", "craft": 10, "craft_hull": 1, "craft_structure": 1, "thrust": 6}
    },
}
CARRIER_ACTOR = Actor("p-tigress", "player", frozenset({"tigress", "red-flight"}))


def ships(*more: dict[str, Any], **options: Any) -> BattleState:
    owners = ("p-kestrel", "p-tigress") + ("p-tigress",) * len(more)
    return battle(capital("Kestrel"), capital("Tigress"), *more, owners=owners, **options)


def band(state: BattleState, a: str, b: str) -> str | None:
    placed = entry(state, a, b)
    return placed.band if placed else None


def place(state: BattleState, a: str, b: str, band: str | None) -> BattleState:
    payload = {"ship": a, "other": b, "band": band, "reason": "set-up for the test"}
    return act(state, "traveller.set_range", payload).state


def refused(state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = KESTREL_ACTOR) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message


def test_TR_02_there_is_no_band_from_a_ship_to_itself_or_to_a_ship_off_the_board() -> None:
    state = ships(HULK, range_start="long")
    assert band(state, "kestrel", "tigress") == "long"
    assert entry(state, "kestrel", "kestrel") is None
    assert entry(state, "kestrel", "hulk") is None
    assert entry(state, "hulk", "kestrel") is None


def test_TR_02_a_barrage_range_is_one_of_the_bands() -> None:
    state = advance_to(ships(orders=False), "combat").state
    assert refused(state, "traveller.barrage", beam_shot(range="far")) == (
        "range must be one of adjacent, close, short, medium, long, very_long, distant, very_distant"
    )


def test_TR_02_thrust_changes_the_range_to_another_high_guard_unit() -> None:
    state = advance_to(place(ships(HULK, orders=False), "kestrel", "tigress", "long"), "manoeuvre").state
    to_self = {"ship": "kestrel", "thrust": 1, "target": "kestrel", "direction": "close"}
    assert (
        refused(state, "traveller.manoeuvre", to_self)
        == "a ship changes its range to another ship, not to itself"
    )
    to_hulk = {"ship": "kestrel", "thrust": 1, "target": "hulk", "direction": "close"}
    assert refused(state, "traveller.manoeuvre", to_hulk) == (
        "Hulk is not a High Guard ship or flight still in the fight"
    )


def test_TR_02_thrust_that_opens_and_closes_the_same_pair_cancels_out() -> None:
    """Kestrel opens 1 then closes 1 from Tigress: net 0, so the pair does not move (nor is it logged)."""
    state = advance_to(place(ships(orders=False), "kestrel", "tigress", "short"), "manoeuvre").state
    for direction in ("open", "close"):
        move = {"ship": "kestrel", "thrust": 1, "target": "tigress", "direction": direction}
        state = act(state, "traveller.manoeuvre", move, KESTREL_ACTOR).state
    assert hg(state, "kestrel")["round"]["thrust_used"] == 2
    done = advance_to(state, "combat")
    assert [e for e in done.events if e.kind == "range"] == []
    assert band(done.state, "kestrel", "tigress") == "short"


def test_TR_02_a_pair_the_referee_takes_off_the_board_does_not_move() -> None:
    state = advance_to(place(ships(orders=False), "kestrel", "tigress", "short"), "manoeuvre").state
    move = {"ship": "kestrel", "thrust": 2, "target": "tigress", "direction": "close"}
    state = act(state, "traveller.manoeuvre", move, KESTREL_ACTOR).state
    state = place(state, "kestrel", "tigress", None)
    assert hg(state, "kestrel")["ranges"] == {}
    done = advance_to(state, "combat")
    assert [e for e in done.events if e.kind == "range"] == []
    assert entry(done.state, "kestrel", "tigress") is None


def test_TR_02_the_referee_places_only_high_guard_units() -> None:
    state = ships(HULK)
    with pytest.raises(RuleError) as err:
        act(
            state,
            "traveller.set_range",
            {"ship": "hulk", "other": "kestrel", "band": "short", "reason": "set-up"},
        )
    assert err.value.message == "Hulk is not a High Guard ship or flight"
    assert err.value.field == "ship"


def test_TR_25_a_launched_flight_keeps_the_bands_it_already_has() -> None:
    """Placed at Close to its carrier and at Long to Kestrel before it launches, the flight keeps both."""
    state = place(ships(FLIGHT), "kestrel", "tigress", "medium")
    state = place(state, "red-flight", "tigress", "close")
    state = place(state, "red-flight", "kestrel", "long")
    done = act(state, "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, CARRIER_ACTOR)
    assert done.texts == ["Red Flight launches from Tigress."]
    assert band(done.state, "red-flight", "tigress") == "close"
    assert band(done.state, "red-flight", "kestrel") == "long"
