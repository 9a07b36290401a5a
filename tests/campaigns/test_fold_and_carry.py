"""The campaign's pure parts: the fold that rebuilds fleets from the log, and what each ruleset's
parts carry from one battle to the next (values from the seeds; rule IDs named)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.rules import STANDARD
from app.rules.core import RuleError
from app.rules.dice import ScriptedDice
from app.rules.generic.actions import ShipDefinition, build_ship
from app.rules.state import BattleState
from app.services.campaigns.carry import carried_parts, destroyed
from app.services.campaigns.fold import fold, totals
from tests.helpers import ship_def


def battle_with(system: str, slug: str) -> tuple[BattleState, str]:
    state = STANDARD.new_battle(system)
    ship = build_ship(state, ShipDefinition.model_validate(ship_def(slug)), None)
    state.ships[ship.id] = ship
    return state, ship.id


# --- SH-01: the pain track starts at zero unless the set-up says otherwise ---------------------


def test_SH_01_pain_starts_the_next_battle_at_zero_unless_the_setup_carries_it() -> None:
    state, sid = battle_with("sfb", "shadow-cruiser")
    pain = state.ships[sid].parts["pain"]
    pain.update(level=7, reaction="TWO", damage_total=60, most_damage="kirk")
    before = copy.deepcopy(state.ships[sid].parts)
    fresh = carried_parts(state, sid, before, {})
    assert fresh["pain"]["level"] == 0  # "The track starts at zero when beginning a scenario"
    kept = carried_parts(state, sid, before, {"pain_carries": True})
    assert kept["pain"]["level"] == 7  # "… unless otherwise stated in the setup rules"
    # The impulse's bookkeeping and the reaction belong to the battle they happened in.
    assert "reaction" not in kept["pain"] and "damage_total" not in kept["pain"]
    assert STANDARD.game("sfb").validate_parts({"pain": kept["pain"]})["pain"]["reaction"] == "ZERO"


def test_SH_02_a_shadow_dead_of_pain_is_lost_to_its_fleet() -> None:
    state, sid = battle_with("sfb", "shadow-cruiser")
    ship = state.ships[sid]
    ship.parts["pain"].update(level=16, dead=True)
    ship.destroyed = True  # SH-02: pain 16 kills by shock
    assert destroyed(state, sid)
    assert carried_parts(state, sid, ship.parts, {"pain_carries": False})["pain"] == {
        "level": 16,
        "dead": True,
    }


# --- GEN-03/GEN-04: the sheet keeps every box the battle took ----------------------------------


def test_GEN_03_the_sheet_keeps_armour_structure_and_system_damage() -> None:
    state, sid = battle_with("b5wars", "excelsior")
    sheet = state.ships[sid].parts["sheet"]
    first = sheet["sections"][0]
    first["armour"], first["structure"] = 0, first["structure_max"] - 5
    first["systems"][0]["damage"] = 1
    definition = copy.deepcopy(ship_def("excelsior")["parts"])
    out = carried_parts(state, sid, definition, {})
    assert out["sheet"]["sections"][0]["armour"] == 0
    assert out["sheet"]["sections"][0]["structure"] == first["structure_max"] - 5
    assert out["sheet"]["sections"][0]["systems"][0]["damage"] == 1
    assert not destroyed(state, sid)


def test_ST_parts_that_declare_no_carry_start_as_the_fleet_has_them() -> None:
    """Shields regenerate, the reactor refills: a part with no carry declaration comes back as the
    fleet's own copy, whatever the battle left (ST-01 shields, ST power)."""
    state, sid = battle_with("b5wars", "excelsior")
    fleet = copy.deepcopy(state.ships[sid].parts)
    state.ships[sid].parts["shields"] = {"changed": "in battle"}
    out = carried_parts(state, sid, fleet, {})
    assert out["shields"] == fleet["shields"] and out["power"] == fleet["power"]


# --- High Guard: TR-19 damage kept, the rounds forgotten; TR-22 repairs between battles --------


def hg_after_battle() -> tuple[BattleState, str]:
    state, sid = battle_with("traveller", "tr-arbellatra-cruiser")
    hg = state.ships[sid].parts["hg_ship"]
    hg["systems"]["m_drive"] = 1
    hg["thrust"] = hg["thrust_max"] - 1  # TR-19: each M-Drive hit −1 Thrust until repaired
    hg["crew_strength"] = "weakened"  # TR-23: one crew hit
    engineering = next(s for s in hg["sections"] if s["name"] == "Engineering")
    engineering["hull"] = engineering["hull_max"] - 10
    engineering["fire"] = {"target": 9, "started": 2}  # TR-20 fire in round 2
    engineering["breach_round"] = 3
    hg["round"]["turn"], hg["round"]["initiative"] = 4, 9
    return state, sid


def test_TR_19_TR_23_high_guard_damage_and_crew_carry_and_the_battles_rounds_do_not() -> None:
    state, sid = hg_after_battle()
    out = carried_parts(state, sid, {}, {})["hg_ship"]
    engineering = next(s for s in out["sections"] if s["name"] == "Engineering")
    assert out["systems"]["m_drive"] == 1 and out["thrust"] == out["thrust_max"] - 1
    assert out["crew_strength"] == "weakened"
    assert engineering["hull"] == engineering["hull_max"] - 10
    assert engineering["fire"] is None and engineering["breach_round"] is None
    assert out["round"]["turn"] == 0 and out["round"]["initiative"] is None
    STANDARD.game("traveller").validate_parts({"hg_ship": out})  # a part the next battle takes


def test_TR_22_repair_between_battles_is_a_standard_check_with_the_crew_dms() -> None:
    state, sid = hg_after_battle()
    part = carried_parts(state, sid, {}, {})["hg_ship"]
    mend = STANDARD.game("traveller").parts["hg_ship"].mend
    assert mend is not None
    # GEN-05: 2D + Crew Skill DM (+2 for skill 2) + crew strength DM (Weakened +0), 8+.
    failed, text, rolls = mend(copy.deepcopy(part), "Engineering", "m_drive", ScriptedDice([2, 3]))
    assert "2D 5" in text and "= 7 vs 8+ → failure" in text and failed["systems"]["m_drive"] == 1
    fixed, text, rolls = mend(copy.deepcopy(part), "Engineering", "m_drive", ScriptedDice([3, 3]))
    assert "= 8 vs 8+ → success" in text
    assert (
        fixed["systems"]["m_drive"] == 0 and fixed["thrust"] == fixed["thrust_max"]
    )  # the hit's Thrust back
    assert [r.total for r in rolls] == [8]
    with pytest.raises(RuleError) as refused:
        mend(copy.deepcopy(part), "Engineering", "sensors", ScriptedDice([6, 6]))
    assert refused.value.field == "system"


# --- the fold --------------------------------------------------------------------------------


def events(sheet_def: dict[str, Any]) -> list[tuple[int, str, dict[str, Any]]]:
    hurt = copy.deepcopy(sheet_def["parts"])
    hurt["sheet"]["sections"][0]["structure"] = 1
    return [
        (1, "campaign_created", {"name": "C", "system": "b5wars", "options": {}}),
        (2, "side_added", {"side": "Federation"}),
        (3, "player_added", {"seat": "p1", "name": "Kirk", "side": "Federation"}),
        (
            4,
            "ship_added",
            {"ship": "s1", "side": "Federation", "player": "p1", "points": 50, "definition": sheet_def},
        ),
        (5, "battle_started", {"battle": "b1", "name": "One", "ships": {"s1": "excelsior"}}),
        (
            6,
            "battle_recorded",
            {
                "battle": "b1",
                "winner": None,
                "ships": {
                    "s1": {"parts": hurt, "destroyed": False, "taken": 30, "dealt": 12, "kills": ["Raider"]}
                },
            },
        ),
        (7, "ruling", {"ship": "s1", "parts": sheet_def["parts"], "reason": "refit", "text": "refit"}),
        (8, "rewound", {"to": 6}),
    ]


def test_the_fold_rebuilds_the_fleet_from_the_log_and_rewinds() -> None:
    definition = ship_def("excelsior")
    log = events(definition)
    before = copy.deepcopy(log)
    at6 = fold(log, upto=6)
    ship = at6["ships"]["s1"]
    assert ship["status"] == "ready" and ship["parts"]["sheet"]["sections"][0]["structure"] == 1
    assert totals(ship) == {"battles": 1, "taken": 30, "dealt": 12, "kills": 1}
    assert at6["battles"]["b1"]["status"] == "recorded"
    refit = fold(log, upto=7)["ships"]["s1"]
    assert refit["parts"] == definition["parts"] and refit["repairs"][-1]["text"] == "refit"
    rewound = fold(log)
    assert rewound["rewound_to"] == 6 and rewound["seq"] == 8
    assert rewound["ships"] == at6["ships"]
    assert fold(log) == fold(copy.deepcopy(log)) and log == before  # pure: the same log, the same campaign


def test_the_fold_refuses_an_event_it_does_not_know() -> None:
    with pytest.raises(ValueError):
        fold([(1, "ship_teleported", {})])
