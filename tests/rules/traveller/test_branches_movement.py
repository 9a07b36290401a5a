"""Manoeuvre, dodge, jump and launch clauses (TR-19, TR-23, TR-27, GEN-01, GEN-05) not met elsewhere."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from app.rules.core import Actor, RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, capital, hg

LIBRARY = Path(__file__).resolve().parents[3] / "app" / "shipdata" / "library"
FLIGHT_ACTOR = Actor("p-flight", "player", frozenset({"red-flight"}))


def flight(side: str = "B") -> dict[str, Any]:
    data = json.loads((LIBRARY / "tr-red-flight.json").read_text())
    data["side"] = side
    return data


def sided(definition: dict[str, Any], side: str) -> dict[str, Any]:
    definition["side"] = side
    return definition


def two(**kestrel: Any) -> BattleState:
    return battle(
        sided(capital("Kestrel", **kestrel), "A"),
        sided(capital("Tigress"), "B"),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
    )


def give(state: BattleState, ship: str, *orders: str) -> BattleState:
    """This round's revealed orders, as the reveal leaves them (giving them is tested in test_orders.py)."""
    part = state.ships[ship].parts["hg_ship"]
    part["round"] = {
        **copy.deepcopy(part.get("round") or {}),
        "turn": state.clock.turn,
        "orders": [{"order": o} for o in orders],
        "committed": True,
        "revealed": True,
    }
    return state


def refused(state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = KESTREL_ACTOR) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message


MOVE = {"ship": "kestrel", "thrust": 1, "description": "turns away"}


def test_TR_23_a_dead_crew_does_not_manoeuvre() -> None:
    state = advance_to(two(crew_strength="dead"), "manoeuvre").state
    assert refused(state, "traveller.manoeuvre", MOVE) == "Kestrel's crew is dead and cannot act (TR-23)"


def test_TR_27_running_silent_the_ship_does_not_move() -> None:
    """Run Silent, Run Dark: "The ship may not move, fire or use active sensors this round"."""
    state = give(advance_to(two(), "manoeuvre").state, "kestrel", "run_silent")
    assert (
        refused(state, "traveller.manoeuvre", MOVE)
        == "Kestrel runs silent this round and may not move (TR-27)"
    )


def test_TR_19_the_thrust_refusal_names_the_M_Drive_hits() -> None:
    """Each M-Drive hit takes 1 Thrust: Thrust 4 with one hit leaves 3."""
    state = act(
        two(), "traveller.entered_hit", {"target": "kestrel", "section": "Engineering", "system": "m_drive"}
    ).state
    state = advance_to(state, "manoeuvre").state
    assert refused(state, "traveller.manoeuvre", {**MOVE, "thrust": 4}) == (
        "Kestrel has 3 Thrust left (Thrust 3 this round, M-Drive hits 1, 0 spent)"
    )


def test_TR_25_a_flights_thrust_is_its_slowest_crafts() -> None:
    """Red Flight's craft have Thrust 6 but one has 5: the flight moves at 5."""
    state = battle(sided(capital("Kestrel"), "A"), flight(), owners=("p-kestrel", "p-flight"), orders=False)
    state = advance_to(state, "manoeuvre").state
    move = {"ship": "red-flight", "thrust": 6, "description": "swings wide"}
    assert refused(state, "traveller.manoeuvre", move, FLIGHT_ACTOR) == (
        "Red Flight has 5 Thrust left (Thrust 5 this round, 0 spent)"
    )


def test_GEN_03_a_direction_needs_the_ship_whose_range_it_changes() -> None:
    state = advance_to(two(), "manoeuvre").state
    move = {"ship": "kestrel", "thrust": 1, "direction": "close"}
    assert (
        refused(state, "traveller.manoeuvre", move) == "name the ship whose range this Thrust closes or opens"
    )


def test_TR_27_a_dodge_needs_one_thrust_left() -> None:
    state = advance_to(two(), "manoeuvre").state
    state = act(state, "traveller.manoeuvre", {**MOVE, "thrust": 4}, KESTREL_ACTOR).state
    state = advance_to(state, "combat").state
    assert refused(state, "traveller.dodge", {"ship": "kestrel"}) == (
        "Kestrel has no Thrust left to dodge (Thrust 4 this round, 4 spent)"
    )


def test_TR_26_a_dodge_needs_a_reaction_left() -> None:
    """Initiative 0–4 gives 1 reaction a round (tables.md §4); it is used already."""
    state = advance_to(two(), "combat").state
    hg(state, "kestrel")["round"] = {"turn": state.clock.turn, "reactions_used": 1}
    assert (
        refused(state, "traveller.dodge", {"ship": "kestrel"})
        == "Kestrel has no reaction left (1 this round)"
    )


def test_TR_27_command_discipline_adds_1_to_the_dodge() -> None:
    state = give(advance_to(two(), "combat").state, "kestrel", "command_discipline")
    done = act(state, "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [2, 3])
    assert done.texts == [
        "Kestrel dodges (1 Thrust, reaction 1 of 1): Pilot 2D 5 + Crew Skill +2 + Command Discipline +1 = 8 vs 8+"
        " → success (Effect 0): the next attack on it this round takes −2."
    ]


def test_GEN_01_a_flight_does_not_jump() -> None:
    state = battle(sided(capital("Kestrel"), "A"), flight(), owners=("p-kestrel", "p-flight"), orders=False)
    state = advance_to(state, "ship_action").state
    assert refused(state, "traveller.jump", {"ship": "red-flight"}, FLIGHT_ACTOR) == "a flight does not jump"


def test_GEN_01_a_ship_without_a_jump_drive_does_not_jump() -> None:
    state = advance_to(two(), "ship_action").state
    assert refused(state, "traveller.jump", {"ship": "kestrel"}) == "Kestrel has no jump drive"


def test_TR_19_a_disabled_computer_stops_the_jump() -> None:
    """Computer third hit: "the ship cannot jump"."""
    state = advance_to(two(jump=2), "ship_action").state
    hg(state, "kestrel")["systems"]["computer"] = 3
    assert (
        refused(state, "traveller.jump", {"ship": "kestrel"})
        == "Kestrel's computer is disabled: no jump (TR-19)"
    )


def test_TR_19_power_plant_hits_can_leave_no_jump() -> None:
    """Jump-1 at Power 7/10 is 0.7, rounded down to Jump-0."""
    state = advance_to(two(jump=1), "ship_action").state
    hg(state, "kestrel").update(power=7)
    assert refused(state, "traveller.jump", {"ship": "kestrel"}) == "Power 7/10 leaves no Jump (TR-19)"


def test_TR_27_command_discipline_adds_1_to_the_jump() -> None:
    state = give(advance_to(two(jump=2), "ship_action").state, "kestrel", "command_discipline")
    done = act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR, [2, 3])
    assert done.texts == [
        "Kestrel attempts to jump: Engineering (jump) 2D 5 + Crew Skill +2 + Command Discipline +1 = 8 vs 8+"
        " → success (Effect 0): Kestrel jumps out of the battle (Jump-2)."
    ]


def launching() -> BattleState:
    state = battle(
        sided(capital("Kestrel"), "A"),
        sided(capital("Tigress"), "B"),
        flight("B"),
        owners=("p-kestrel", "p-tigress", "p-flight"),
        orders=False,
    )
    return advance_to(state, "combat").state


def test_TR_27_only_a_flight_launches() -> None:
    state = launching()
    actor = Actor("p-both", "player", frozenset({"kestrel", "tigress"}))
    payload = {"flight": "kestrel", "carrier": "tigress"}
    assert refused(state, "traveller.launch", payload, actor) == "Kestrel is not a flight"


def test_TR_27_a_flight_launches_from_a_friendly_ship() -> None:
    state = launching()
    payload = {"flight": "red-flight", "carrier": "kestrel"}
    assert refused(state, "traveller.launch", payload, FLIGHT_ACTOR) == (
        "a flight launches from a friendly ship still in the fight"
    )


def test_TR_27_a_flight_launches_once() -> None:
    state = launching()
    payload = {"flight": "red-flight", "carrier": "tigress"}
    state = act(state, "traveller.launch", payload, FLIGHT_ACTOR).state
    assert (
        refused(state, "traveller.launch", payload, FLIGHT_ACTOR)
        == "Red Flight has launched already (round 1)"
    )
