"""Ship data the Traveller rules cannot read is refused when the ship is added, naming the field.

Each refusal guards a table the rules read: the hull-code column (TR-15) and its sections (TR-17),
the Section Hit template (TR-18), the barrage weapons (TR-05, TR-06) and their bands (TR-02a),
configurations (TR-07a), crew strength steps (TR-23), orders (TR-27) and the range bands.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import battle, capital, hg

BANDS = "adjacent, close, short, medium, long, very_long, distant, very_distant"


def refused(**part: Any) -> tuple[str, str]:
    with pytest.raises(RuleError) as err:
        battle(capital("Kestrel", **part))
    return err.value.field, err.value.message


def three(**first: Any) -> list[dict[str, Any]]:
    return [
        {"name": "Engineering", "hull_max": 10, "structure_max": 10, **first},
        {"name": "Main", "hull_max": 10, "structure_max": 10},
        {"name": "Forward", "hull_max": 10, "structure_max": 10},
    ]


def test_TR_17_a_section_cannot_start_above_its_maximum_hull() -> None:
    assert refused(sections=three(hull=11)) == (
        "definition.parts.hg_ship.sections.0",
        "definition.parts.hg_ship.sections.0: section 'Engineering': damage values above their maximum",
    )


def test_TR_17_a_section_cannot_start_above_its_maximum_structure() -> None:
    assert refused(sections=three(structure=12))[1].endswith(
        "section 'Engineering': damage values above their maximum"
    )


def test_TR_06_a_battery_names_a_weapon_from_the_barrage_table() -> None:
    field, message = refused(batteries=[{"id": "x", "weapon": "phaser", "mounts": 1}])
    assert field == "definition.parts.hg_ship.batteries.0"
    assert message.startswith(
        "definition.parts.hg_ship.batteries.0: unknown weapon 'phaser'; known: pulse_laser,"
    )


def test_TR_06_missile_ammunition_comes_from_the_missile_table() -> None:
    field, message = refused(
        batteries=[{"id": "x", "weapon": "missile_turret", "mounts": 1, "ammo": "custard"}]
    )
    assert message == "definition.parts.hg_ship.batteries.0: unknown missile ammunition 'custard'"


def test_TR_02a_a_maximum_range_is_one_of_the_bands() -> None:
    field, message = refused(batteries=[{"id": "x", "weapon": "beam_laser", "mounts": 1, "max_range": "far"}])
    assert message == f"definition.parts.hg_ship.batteries.0: max_range must be one of {BANDS}"


def test_TR_05_battery_ids_are_unique_so_a_barrage_names_one() -> None:
    beam = {"id": "x", "weapon": "beam_laser", "mounts": 1}
    assert refused(batteries=[beam, beam]) == (
        "definition.parts.hg_ship",
        "definition.parts.hg_ship: battery ids must be unique",
    )


def test_TR_18_a_component_is_a_kind_from_the_section_hit_template() -> None:
    field, message = refused(components=[{"kind": "jacuzzi", "name": "Spa", "tons": 1}])
    assert message.startswith(
        "definition.parts.hg_ship.components.0.kind: unknown component kind 'jacuzzi'; known: turret,"
    )


def test_TR_18_a_component_sits_in_a_section_of_the_hull() -> None:
    field, message = refused(
        components=[{"kind": "sensors", "name": "Sensors", "tons": 5, "sections": ["Bow"]}]
    )
    assert message == "definition.parts.hg_ship: Sensors: no section 'Bow' on this hull"


def test_TR_18_a_drive_given_sections_sits_in_Engineering_and_in_them() -> None:
    """Drives always take Engineering's fixed rows (template footnote 3); sections named for a drive add
    its slots there (Main's external B slot, row 4)."""
    state = battle(
        capital(
            "Kestrel",
            components=[
                {"kind": "m_drive", "name": "M-Drive", "tons": 10, "sections": ["Main", "Engineering"]}
            ],
        )
    )
    main = hg(state, "kestrel")["sections"][1]
    assert main["name"] == "Main"
    assert [slot["kind"] for slot in main["hit_table"]["external"]].count("m_drive") == 1
    engineering = hg(state, "kestrel")["sections"][0]
    assert [slot["kind"] for slot in engineering["hit_table"]["external"]].count("m_drive") == 2


def test_TR_18_every_combat_component_must_land_in_a_slot() -> None:
    """Forward's external column has two A, two B and two C slots (rows 5/9, 4/10, 3/11); turret batteries
    overflow from A into B then C, so a seventh has nowhere to go."""
    turrets = [
        {"id": f"t{i}", "weapon": "beam_laser", "mounts": 1, "sections": ["Forward"]} for i in range(1, 8)
    ]
    field, message = refused(batteries=turrets, components=[])
    assert message == (
        "definition.parts.hg_ship: no Section Hit slot left for t7: move it to another section or give the table"
    )


def test_TR_07a_a_configuration_is_one_of_the_table() -> None:
    assert refused(configuration="saucer")[1] == (
        "definition.parts.hg_ship: configuration must be one of needle, cone, standard, close, sphere, dispersed,"
        " planetoid, buffered_planetoid"
    )


def test_TR_15_a_capital_ship_has_a_hull_code_column() -> None:
    assert refused(hull_code="ZZ")[1].startswith(
        "definition.parts.hg_ship: a capital ship needs a hull code, one of CA,"
    )


def test_TR_17_a_hull_code_fixes_the_sections() -> None:
    """CF–CK: Engineering – Main – Forward (TR-17)."""
    assert refused(sections=[{"name": "Bow", "hull_max": 10, "structure_max": 10}])[1] == (
        "definition.parts.hg_ship: hull code CF has sections Engineering, Main, Forward"
    )


def test_TR_14_a_spacecraft_needs_its_one_section() -> None:
    assert refused(kind="spacecraft", hull_code=None, displacement=400)[1] == (
        "definition.parts.hg_ship: a spacecraft or small craft needs one section giving its Hull and Structure"
    )


def test_TR_23_crew_strength_is_a_step_of_the_ladder() -> None:
    assert refused(crew_strength="ample")[1] == (
        "definition.parts.hg_ship: crew_strength must be one of dead, survivors, skeleton, half, weakened, full,"
        " battle, overstrength, massively_overstrength"
    )


def test_TR_27_an_order_is_one_of_the_25() -> None:
    assert refused(round={"orders": [{"order": "make_it_so"}]}) == (
        "definition.parts.hg_ship.round.orders.0.order",
        "definition.parts.hg_ship.round.orders.0.order: unknown order 'make_it_so'",
    )


def test_TR_02_a_range_board_entry_is_one_of_the_bands() -> None:
    assert refused(ranges={"tigress": {"band": "far"}})[1] == (
        f"definition.parts.hg_ship.ranges.tigress.band: band must be one of {BANDS}"
    )
