"""TR-18/TR-19: a ship's data may give its own Section Hit tables; a slot naming a system the ship
does not carry (no spinal mount, no such screen or battery) is hit to no effect, and the log says so."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, beam_shot, capital, hg

KEYS = ("name", "hull_max", "structure_max", "armour_max", "hit_table")


def tigress_with_main_slot(roll: int, slot: dict[str, Any]) -> dict[str, Any]:
    """Tigress whose data gives every section's table: the usual layout, with Main's External `roll` changed."""
    laid_out = copy.deepcopy(hg(battle(capital("Tigress")), "tigress")["sections"])
    laid_out[1]["hit_table"]["external"][roll - 2] = slot
    return capital("Tigress", sections=[{k: s[k] for k in KEYS} for s in laid_out])


@pytest.mark.parametrize(
    ("slot", "effect"),
    [
        ({"label": "Spinal Weapon", "kind": "spinal"}, "no spinal mount fitted"),
        ({"label": "Screen: Meson Screen", "kind": "screen", "ref": "ghost"}, "no such screen"),
        ({"label": "Turret: Ghost", "kind": "turret", "ref": "ghost"}, "no such weapon"),
    ],
)
def test_TR_19_a_slot_naming_a_system_the_ship_lacks_does_nothing(slot: dict[str, Any], effect: str) -> None:
    """2D 6+6 = 12 + 2 + 2 − 5 = 11 → 200% → 40: location 1d6 4 Main (20), Forward (20); net 11 ≥ 8:
    Main External 2D 7 is the changed slot; Forward External 2D 7 Armour."""
    state = battle(
        capital("Kestrel"), tigress_with_main_slot(7, slot), owners=("p-kestrel", "p-tigress"), orders=False
    )
    state = advance_to(state, "combat").state
    done = act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [6, 6, 4, 3, 4, 3, 4])
    assert f"Tigress Main section hit (External, 2D 7): {slot['label']} — {effect}." in done.texts


def test_TR_18_a_given_slot_without_a_ref_is_kept_with_none_as_a_laid_out_one() -> None:
    """The part keeps every slot with its `ref`, given or laid out: the spinal slot given with
    none reads `ref: null`, as the design rules' Hull and Structure slots do."""
    given = {"label": "Spinal Weapon", "kind": "spinal"}
    main = hg(battle(tigress_with_main_slot(7, given)), "tigress")["sections"][1]["hit_table"]["external"]
    assert main[7 - 2] == {**given, "ref": None}
    assert all(set(slot) == {"label", "kind", "ref"} for slot in main)
