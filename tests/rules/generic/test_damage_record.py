"""Entered damage onto the generic sheet (GEN-03) and destruction (GEN-04), as the log records it:
the section an entry names or its primary section, armour already gone, a section and then the ship
destroyed — each line naming the ship — and entries naming what the ship does not have."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import Action, apply_action, new_battle
from app.rules.core import REFEREE, Actor, NotAllowed, RuleError
from app.rules.dice import ScriptedDice
from app.rules.state import BattleState
from tests.rules.startrek.helpers import add, definition


def battle(sections: list[dict[str, Any]], **sheet: Any) -> BattleState:
    """A B5 Wars battle with one ship, the Hulk, on the sheet given."""
    definition = {
        "name": "Hulk",
        "klass": "test",
        "system": "b5wars",
        "parts": {"sheet": {"sections": sections, **sheet}},
    }
    out = apply_action(
        new_battle("b5wars"), Action("ship.add", {"definition": definition}, REFEREE), ScriptedDice([])
    )
    return out.state


def hit(state: BattleState, amount: int, **entry: Any):
    payload = {"target": "hulk", "amount": amount, **entry}
    out = apply_action(state, Action("damage.apply", payload, REFEREE), ScriptedDice([]))
    return out.state, out.events


def section(state: BattleState, index: int) -> dict[str, Any]:
    return state.ships["hulk"].parts["sheet"]["sections"][index]


FORE_AND_CORE = [
    {
        "name": "Fore",
        "arc": "fore",
        "armour_max": 2,
        "structure_max": 10,
        "systems": [{"name": "Laser", "boxes": 2}],
    },
    {
        "name": "Core",
        "structure_max": 20,
        "systems": [{"name": "Bridge", "boxes": 3}, {"name": "Reactor", "boxes": 4}],
    },
]


def test_GEN_03_an_entry_with_no_section_or_direction_lands_on_the_primary_section() -> None:
    state, events = hit(battle(FORE_AND_CORE, primary="Core"), 5)
    assert events[0].text == "An unknown attacker hits Hulk for 5: 5 to Core."
    assert (section(state, 0)["structure"], section(state, 1)["structure"]) == (10, 15)


def test_GEN_03_armour_already_gone_takes_nothing() -> None:
    state, _ = hit(battle(FORE_AND_CORE), 2, section="Fore")
    assert section(state, 0)["armour"] == 0
    state, events = hit(state, 3, section="Fore")
    assert events[0].text == "An unknown attacker hits Hulk for 3: 3 to Fore."
    assert (section(state, 0)["armour"], section(state, 0)["structure"]) == (0, 7)


def test_GEN_03_GEN_04_the_section_and_then_the_ship_destroyed_each_name_the_ship() -> None:
    """12 on the Fore (2 armour, 10 structure): the Fore is destroyed with its Laser; 20 on the
    Core (the primary section, no Excess Damage boxes): the ship is destroyed."""
    state, events = hit(battle(FORE_AND_CORE, primary="Core"), 12, section="fore")
    assert [(e.kind, e.ship, e.text) for e in events[1:]] == [
        ("section_destroyed", "hulk", "Hulk's Fore is destroyed.")
    ]
    assert section(state, 0)["systems"][0]["damage"] == 2
    state, events = hit(state, 20, section="Core")
    assert [(e.kind, e.ship, e.text) for e in events[1:]] == [
        ("section_destroyed", "hulk", "Hulk's Core is destroyed."),
        ("ship_destroyed", "hulk", "Hulk is destroyed (its Core structure is gone)."),
    ]


@pytest.mark.parametrize(
    ("entry", "refusal"),
    [
        ({"section": "Bridge"}, ("section", "no section 'Bridge'; this ship has Fore, Core")),
        (
            {"section": "Core", "system": "Laser"},
            ("system", "no system 'Laser' in Core (systems: Bridge, Reactor)"),
        ),
    ],
)
def test_GEN_03_an_entry_naming_what_the_ship_lacks_is_refused_with_what_it_has(
    entry: dict[str, Any], refusal: tuple[str, str]
) -> None:
    with pytest.raises(RuleError) as err:
        hit(battle(FORE_AND_CORE), 4, **entry)
    assert (err.value.field, err.value.message) == refusal


def test_GEN_03_a_damaged_system_takes_more_boxes() -> None:
    """The Core's Bridge has 3 boxes: 1 and then 1 more leave 1."""
    state, _ = hit(battle(FORE_AND_CORE), 1, section="Core", system="Bridge")
    state, events = hit(state, 1, section="Core", system="bridge")
    assert events[0].text == "An unknown attacker hits Hulk for 1: 1 to Core."
    assert section(state, 1)["systems"][0]["damage"] == 2


def test_GEN_03_a_system_hit_to_its_last_box_is_destroyed_and_the_line_names_the_ship() -> None:
    state, events = hit(battle(FORE_AND_CORE), 4, section="Fore", system="Laser")
    assert events[0].text == "An unknown attacker hits Hulk for 4: 2 to armour, 2 to Fore."
    assert [(e.kind, e.ship, e.text) for e in events[1:]] == [
        ("system_destroyed", "hulk", "Hulk's Laser is destroyed.")
    ]


def test_SH_02_GEN_04_past_the_last_excess_damage_box_one_more_point_destroys_the_ship() -> None:
    """SH-02: a Core of 2 structure boxes and 3 Excess Damage boxes takes 10: 2 structure, 3 Excess
    Damage, the one more point that destroys the ship, and 4 beyond destruction."""
    state, events = hit(battle([{"name": "Core", "structure_max": 2}], excess_damage_max=3), 10)
    assert events[0].text == "An unknown attacker hits Hulk for 10: 6 to Core, 4 beyond destruction."
    assert events[0].data["internal"] == 6
    assert [(e.kind, e.ship, e.text) for e in events[1:]] == [
        ("section_destroyed", "hulk", "Hulk's Core is destroyed."),
        (
            "ship_destroyed",
            "hulk",
            "Hulk is destroyed (the last Excess Damage box is gone and one more point landed).",
        ),
    ]
    sheet = state.ships["hulk"].parts["sheet"]
    assert (sheet["sections"][0]["structure"], sheet["excess_damage"], sheet["excess_overflow"]) == (
        0,
        0,
        True,
    )


def test_SH_02_damage_that_only_empties_the_excess_damage_boxes_leaves_the_ship_fighting() -> None:
    state, events = hit(battle([{"name": "Core", "structure_max": 2}], excess_damage_max=3), 5)
    assert events[0].text == "An unknown attacker hits Hulk for 5: 5 to Core."
    sheet = state.ships["hulk"].parts["sheet"]
    assert (sheet["excess_damage"], sheet["excess_overflow"], state.ships["hulk"].destroyed) == (
        0,
        False,
        False,
    )


def test_GEN_03_GEN_04_damage_needs_a_target_in_the_battle_and_still_fighting() -> None:
    state = battle(FORE_AND_CORE)
    with pytest.raises(RuleError) as err:
        hit(state, 4, target="owl")
    assert (err.value.field, err.value.message) == ("target", "no ship 'owl' in this battle")
    state, _ = hit(state, 13, section="Fore")  # the primary section (first): 2 armour, 10 structure, 1 more
    assert state.ships["hulk"].destroyed is True
    with pytest.raises(RuleError) as err:
        hit(state, 1)
    assert (err.value.field, err.value.message) == ("target", "Hulk is already destroyed")


def test_ST_06_damage_the_shields_absorb_whole_never_reaches_the_sheet() -> None:
    """ST-06: 5 on the Excelsior's fore projection (rating 40) is absorbed whole, so the section it
    was aimed at is never looked for on the sheet."""
    state = add(new_battle("b5wars"), definition("excelsior"))
    payload = {"target": "excelsior", "amount": 5, "direction": "fore", "section": "Bridge"}
    out = apply_action(state, Action("damage.apply", payload, REFEREE), ScriptedDice([]))
    assert out.events[0].text == "An unknown attacker hits Excelsior for 5 (fore): 5 absorbed by shields."
    assert out.state.ships["excelsior"].parts["sheet"] == state.ships["excelsior"].parts["sheet"]


def test_GEN_03_the_log_line_names_the_weapon_and_every_section_the_hit_went_through() -> None:
    """15 with a laser on the Fore (2 armour, 10 structure) of a ship whose primary section is the
    Core: 2 to armour, then 10 destroy the Fore and 3 overflow to the Core."""
    state, events = hit(battle(FORE_AND_CORE, primary="Core"), 15, section="Fore", weapon="Laser")
    assert (events[0].kind, events[0].ship, events[0].text) == (
        "damage",
        "hulk",
        "An unknown attacker hits Hulk with Laser for 15: 2 to armour, 13 to Fore → Core.",
    )
    assert events[0].data == {
        "amount": 15,
        "source": None,
        "direction": None,
        "absorbed": 0,
        "armour": 2,
        "internal": 13,
    }


def test_GEN_03_a_commander_enters_damage_only_for_a_ship_in_the_battle_they_command_or_fired_by_one() -> (
    None
):
    state = battle(FORE_AND_CORE)
    for name, owner in (("Crow", "bob"), ("Wren", "cy")):
        definition = {
            "name": name,
            "klass": "test",
            "system": "b5wars",
            "parts": {"sheet": {"sections": FORE_AND_CORE}},
        }
        state = apply_action(
            state, Action("ship.add", {"definition": definition, "owner": owner}, REFEREE), ScriptedDice([])
        ).state
    bob = Actor("bob", "player", frozenset({"crow"}))
    for payload, refusal in (
        ({"target": "owl", "source": "crow"}, (RuleError, "target", "no ship 'owl' in this battle")),
        (
            {"target": "hulk", "source": "wren"},
            (NotAllowed, "source", "enter damage for a ship you command, or fired by one"),
        ),
    ):
        with pytest.raises(RuleError) as err:
            apply_action(state, Action("damage.apply", {"amount": 1, **payload}, bob), ScriptedDice([]))
        assert (type(err.value), err.value.field, err.value.message) == refusal


def test_GEN_04_damage_past_the_primary_sections_structure_destroys_the_ship_and_is_lost() -> None:
    """25 on the Core (the primary section, 20 structure, no Excess Damage boxes): 20 destroy it and
    the ship, 5 are beyond destruction."""
    state, events = hit(battle(FORE_AND_CORE, primary="Core"), 25, section="Core")
    assert events[0].text == "An unknown attacker hits Hulk for 25: 20 to Core, 5 beyond destruction."
    assert [(e.kind, e.text) for e in events[1:]] == [
        ("section_destroyed", "Hulk's Core is destroyed."),
        ("ship_destroyed", "Hulk is destroyed (its Core structure is gone)."),
    ]
