"""The generic ship sheet as the map draws it (GEN-03 sheets): the share of structure lost on the
counter, and each working weapon's arc — its own degrees from the nose, else its section's quadrant
(fore 315°–45°, starboard 45°–135°, aft 135°–225°, port 225°–315°)."""

from __future__ import annotations

from typing import Any

from app.rules.counters import Badge, FiringArc
from app.rules.generic.sheet import Sheet, sheet_carry, sheet_counter


def stored(sections: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    """The sheet as a ship's part holds it (validated, every default written out)."""
    return Sheet.model_validate({"sections": sections, **more}).model_dump(mode="json")


def gun(name: str, boxes: int = 3, damage: int = 0, **more: Any) -> dict[str, Any]:
    return {"name": name, "kind": "weapon", "boxes": boxes, "damage": damage, **more}


def test_GEN_03_a_damaged_weapon_still_fires_and_a_destroyed_one_does_not() -> None:
    sheet = stored(
        [
            {
                "name": "Fore",
                "arc": "Fore",
                "structure_max": 10,
                "systems": [gun("Laser", 3, 2), gun("Phaser", 2, 2), {"name": "Bridge", "boxes": 2}],
            }
        ]
    )
    assert sheet_counter(sheet).arcs == (FiringArc("Fore", "fore", 315.0, 45.0, ("Laser",)),)


def test_GEN_03_a_weapons_own_arc_is_drawn_alone_and_not_again_in_its_quadrant() -> None:
    sheet = stored(
        [
            {
                "name": "Aft",
                "arc": "aft",
                "structure_max": 10,
                "systems": [gun("Turret", 4, 1, arc=[270, 90]), gun("Tube"), gun("Mount", arc=[90, 180])],
            },
            {
                "name": "Port wing",
                "arc": "port",
                "structure_max": 10,
                "systems": [gun("Lance", arc=[200, 340])],
            },
        ]
    )
    assert sheet_counter(sheet).arcs == (
        FiringArc("Aft", "own", 270.0, 90.0, ("Turret",), "270°–90°"),
        FiringArc("Aft", "own", 90.0, 180.0, ("Mount",), "90°–180°"),
        FiringArc("Aft", "aft", 135.0, 225.0, ("Tube",)),
        FiringArc("Port wing", "own", 200.0, 340.0, ("Lance",), "200°–340°"),
    )


def test_GEN_03_a_section_without_a_quadrant_draws_only_its_weapons_own_arcs() -> None:
    sheet = stored(
        [{"name": "Core", "structure_max": 10, "systems": [gun("Spike", arc=[0, 360]), gun("Spur")]}]
    )
    assert sheet_counter(sheet).arcs == (FiringArc("Core", "own", 0.0, 360.0, ("Spike",), "0°–360°"),)


def test_GEN_03_the_counter_shows_the_share_of_structure_lost() -> None:
    """30 of 40 structure boxes left over two sections: 25% lost."""
    sheet = stored(
        [
            {"name": "Fore", "structure_max": 30, "structure": 22},
            {"name": "Aft", "structure_max": 10, "structure": 8},
        ]
    )
    assert sheet_counter(sheet).badge == Badge("25%", "25% of structure lost", "damage")
    assert sheet_counter(stored([{"name": "Hull", "structure_max": 30}])).badge is None


def test_GEN_03_a_campaign_fleet_keeps_every_box_the_battle_took() -> None:
    sheet = stored(
        [{"name": "Hull", "armour_max": 4, "armour": 1, "structure_max": 30, "structure": 7}],
        excess_damage_max=5,
        excess_damage=2,
    )
    assert sheet_carry(sheet, None) == sheet
