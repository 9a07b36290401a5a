"""Repairs (TR-22, GEN-05) system by system, and the attempts the rules refuse.

A repair takes one hit off: the J-Drive's and sensors' first-hit DM stays until that first hit is
repaired (seed: "until repaired", "it remains until repaired"); a power plant's third hit disabled
the whole ship, so repairing it brings the ship back; a screen lost 2 points per hit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.rules.core import Actor, RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, capital, hg

LIBRARY = Path(__file__).resolve().parents[3] / "app" / "shipdata" / "library"
GIG_ACTOR = Actor("p-gig", "player", frozenset({"gig"}))
FLIGHT_ACTOR = Actor("p-red-flight", "player", frozenset({"red-flight"}))


def kestrel(**changes: Any) -> BattleState:
    """Kestrel at the ship action step: a jump drive, a damper in Main and a particle spinal mount."""
    data = capital(
        "Kestrel",
        jump=2,
        screens=[{"id": "damper", "kind": "nuclear_damper", "count": 1, "sections": ["Main"]}],
        spinal={"type": "particle", "damage": 100},
    )
    state = battle(data, owners=("p-kestrel",), **changes)
    return advance_to(state, "ship_action").state


def repair(state: BattleState, section: str, system: str, dice: list[int] = (), actor: Actor = KESTREL_ACTOR):
    return act(
        state, "traveller.repair", {"ship": "kestrel", "section": section, "system": system}, actor, dice
    )


def refused(state: BattleState, section: str, system: str) -> str:
    with pytest.raises(RuleError) as err:
        repair(state, section, system)
    return err.value.message


def test_TR_22_repairing_the_last_j_drive_hit_clears_its_jump_DM() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"].update(j_drive=1, jump_dm=-4)
    done = repair(state, "Engineering", "j_drive", [4, 2])
    assert done.texts == [
        "Kestrel repairs J-Drive in Engineering: 2D 6 + Crew Skill +2 = 8 vs 8+ → success (Effect 0): J-Drive hits 0."
    ]
    assert hg(done.state, "kestrel")["systems"]["j_drive"] == 0
    assert hg(done.state, "kestrel")["systems"]["jump_dm"] == 0


def test_TR_22_repairing_the_second_j_drive_hit_keeps_the_first_hits_DM() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"].update(j_drive=2, jump_dm=-4)
    done = repair(state, "Engineering", "j_drive", [4, 2])
    assert done.texts[0].endswith(": J-Drive hits 1.")
    assert hg(done.state, "kestrel")["systems"]["jump_dm"] == -4


def test_TR_22_repairing_the_last_sensors_hit_clears_its_DM() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"].update(sensors=1, sensors_dm=-3)
    done = repair(state, "Forward", "sensors", [4, 2])
    assert done.texts == [
        "Kestrel repairs sensors in Forward: 2D 6 + Crew Skill +2 = 8 vs 8+ → success (Effect 0): sensors hits 0."
    ]
    assert hg(done.state, "kestrel")["systems"]["sensors_dm"] == 0


def test_TR_22_repairing_disabled_sensors_keeps_the_first_hits_DM() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"].update(sensors=2, sensors_dm=-3)
    done = repair(state, "Forward", "sensors", [4, 2])
    assert done.texts[0].endswith(": sensors hits 1.")
    assert hg(done.state, "kestrel")["systems"]["sensors_dm"] == -3


def test_TR_22_repairing_a_power_plants_third_hit_ends_the_disablement() -> None:
    """Third hit disabled the ship; Power was already 10 − 1 − 2 = 7 from the first two."""
    state = kestrel()
    part = hg(state, "kestrel")
    part["systems"]["power_plant"] = 3
    part.update(power=7, disabled=True)
    done = repair(state, "Engineering", "power_plant", [4, 2])
    assert done.texts[0].endswith(": power plant hits 2, Power 7.")
    assert hg(done.state, "kestrel")["disabled"] is False


def test_TR_22_a_spinal_mount_is_repaired_hit_by_hit() -> None:
    state = kestrel()
    hg(state, "kestrel")["spinal"]["hits"] = 2
    done = repair(state, "Main", "spinal", [4, 2])
    assert done.texts == [
        "Kestrel repairs spinal mount in Main: 2D 6 + Crew Skill +2 = 8 vs 8+ → success (Effect 0):"
        " spinal mount hits 1."
    ]


def test_TR_22_a_screen_is_repaired_in_its_section() -> None:
    state = kestrel()
    hg(state, "kestrel")["screens"][0]["hits"] = 1
    done = repair(state, "Main", "damper", [4, 2])
    assert done.texts[0].endswith(": Screen: Nuclear Damper hits 0.")
    assert hg(done.state, "kestrel")["screens"][0]["hits"] == 0


def test_TR_22_hull_is_not_repaired_in_battle() -> None:
    assert refused(kestrel(), "Main", "hull") == "no repairable system 'hull'"


def test_TR_22_only_a_working_section_of_the_ship_is_repaired() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"]["computer"] = 1
    assert refused(state, "Bridge", "computer") == "Kestrel has no working section 'Bridge'"
    hg(state, "kestrel")["sections"][1]["destroyed"] = True
    assert refused(state, "Main", "computer") == "Kestrel has no working section 'Main'"


def test_TR_22_an_undamaged_system_needs_no_repair() -> None:
    assert refused(kestrel(), "Main", "computer") == "computer is not damaged"


def test_TR_22_a_dead_crew_makes_no_repairs() -> None:
    state = kestrel()
    hg(state, "kestrel")["systems"]["computer"] = 1
    hg(state, "kestrel")["crew_strength"] = "dead"
    assert refused(state, "Main", "computer") == "Kestrel cannot make repairs"


def test_TR_27_command_discipline_adds_1_to_a_repair() -> None:
    """Command Discipline: "Any skill checks other than Gunner checks made this round have +1 DM"."""
    state = kestrel()
    part = hg(state, "kestrel")
    part["systems"]["computer"] = 1
    part["round"] = {
        **part["round"],
        "turn": state.clock.turn,
        "committed": True,
        "revealed": True,
        "orders": [{"order": "command_discipline"}],
    }
    done = repair(state, "Main", "computer", [3, 3])
    assert done.texts == [
        "Kestrel repairs computer in Main: 2D 6 + Crew Skill +2 + Command Discipline +1 + computer −1 = 8 vs 8+"
        " → success (Effect 0): computer hits 0."
    ]


def test_TR_19_a_second_computer_hit_rolls_1d6_against_the_repair() -> None:
    """Computer second hit: "All rolls made by the capital ship suffer a –1d6DM, rerolled each time"."""
    state = kestrel()
    hg(state, "kestrel")["systems"]["computer"] = 2
    done = repair(state, "Main", "computer", [3, 5, 5])
    assert done.texts == [
        "Kestrel repairs computer in Main: 2D 10 + Crew Skill +2 + computer −3 = 9 vs 8+ → success (Effect +1):"
        " computer hits 1."
    ]
    first = done.events[0].rolls[0]
    assert (first.purpose, first.dice, first.outcome) == ("computer damage DM", [3], "−3")


def gig() -> dict[str, Any]:
    return {
        "name": "Gig",
        "klass": "test",
        "system": "traveller",
        "parts": {
            "hg_ship": {
                "kind": "spacecraft",
                "displacement": 400,
                "crew_skill": 1,
                "fire_control": 1,
                "thrust": 6,
                "sections": [{"name": "Hull", "hull_max": 8, "structure_max": 8}],
            }
        },
    }


def test_TR_22_a_spacecraft_section_has_no_capital_hit_table_to_repair_from() -> None:
    """Section Hit tables are the capital ship's (TR-14: other craft take the normal damage rules)."""
    state = advance_to(battle(gig(), owners=("p-gig",)), "ship_action").state
    state.ships["gig"].parts["hg_ship"]["systems"]["m_drive"] = 1
    with pytest.raises(RuleError) as err:
        act(state, "traveller.repair", {"ship": "gig", "section": "Hull", "system": "m_drive"}, GIG_ACTOR)
    assert err.value.message == "m_drive is not in Hull"


def test_TR_22_a_fighter_flight_is_not_repaired_in_battle() -> None:
    """Repairs are a capital ship's Ship Action (seed: "A capital ship may attempt to repair")."""
    data = json.loads((LIBRARY / "tr-red-flight.json").read_text())
    state = advance_to(battle(data, owners=("p-red-flight",)), "ship_action").state
    with pytest.raises(RuleError) as err:
        act(
            state,
            "traveller.repair",
            {"ship": "red-flight", "section": "Hull", "system": "m_drive"},
            FLIGHT_ACTOR,
        )
    assert err.value.message == "flights are not repaired in battle"
