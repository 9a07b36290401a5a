"""Core clauses not met elsewhere: dice sources (GEN-02), the clock (GEN-01), ship data and the
damage sheet (GEN-03, GEN-04), boarding (SH-17's action), referee overrides, hex geometry and arcs
(ST-05), the humane validation messages, and the wiring that refuses a misbuilt game."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest
from pydantic import BaseModel, Field, ValidationError

from app.rules import Action, apply_action, new_battle
from app.rules.core import REFEREE, Actor, NeedRoll, Roll, RuleError
from app.rules.dice import ReplayDice, ScriptedDice, _uniform
from app.rules.geometry import Arc, check_facing, tiling_problems
from app.rules.messages import first_error
from app.rules.state import BattleState

PLAIN = {
    "name": "Hulk",
    "klass": "test",
    "system": "b5wars",
    "parts": {"sheet": {"sections": [{"name": "Hull", "structure_max": 20}]}},
}


def act(state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = REFEREE, dice=()):
    out = apply_action(state, Action(kind, payload, actor), ScriptedDice(list(dice)))
    return out.state, out.events


def refused(
    state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = REFEREE
) -> tuple[str | None, str]:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.field, err.value.message


def with_ship(data: dict[str, Any] = PLAIN, owner: str | None = None) -> BattleState:
    state, _ = act(new_battle("b5wars"), "ship.add", {"definition": data, "owner": owner})
    return state


# --- dice (GEN-02) ------------------------------------------------------------------------------------


def test_GEN_02_a_die_cannot_show_a_face_it_does_not_have():
    with pytest.raises(ValueError, match="a d6 cannot show 7"):
        ScriptedDice([7]).die(6, "test")


def test_GEN_02_scripted_dice_say_when_they_run_out():
    with pytest.raises(AssertionError, match=r"scripted dice ran out at test \(d6\)"):
        ScriptedDice([]).die(6, "test")


def test_GEN_02_a_rebuild_hands_back_only_the_recorded_dice_of_the_same_size():
    with pytest.raises(NeedRoll, match="roll needed: 1d6 for test"):  # the end waits for it again
        ReplayDice([]).die(6, "test")
    with pytest.raises(AssertionError, match="log recorded a d100 where the rule asks for d6"):
        ReplayDice([{"sides": 100, "value": 5}]).die(6, "test")


def test_GEN_02_server_dice_reject_the_uneven_tail_rather_than_bias_a_face():
    """With 2**63 + 1 sides only one whole run of faces fits in 2**64: a 64-bit value at or above it
    is thrown away and the next one read (four per HMAC-SHA256, then the next attempt)."""
    sides = 2**63 + 1
    key = b"k"

    def chunks(message: str, attempt: int) -> list[int]:
        digest = hmac.new(key, f"{message}:{attempt}".encode(), hashlib.sha256).digest()
        return [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]

    message = next(m for m in (f"m{i}" for i in range(1000)) if all(v >= sides for v in chunks(m, 0)))
    expected = next(v for attempt in range(1, 50) for v in chunks(message, attempt) if v < sides) % sides + 1
    assert _uniform(key, message, sides) == expected


def test_GEN_02_a_roll_without_an_outcome_reads_without_an_arrow():
    roll = Roll(expr="1d6", dice=[4], total=4, purpose="test", target="4+")
    assert roll.sentence() == "test: 1d6 = 4, needs 4+"


# --- clock (GEN-01) -----------------------------------------------------------------------------------


def test_GEN_01_an_advance_that_expects_another_step_is_refused():
    assert refused(new_battle("b5wars"), "clock.advance", {"expect_step": "combat"}) == (
        "expect_step",
        "the clock is at ship_power, not combat",
    )


# --- ships, sheets, damage (GEN-03, GEN-04) -------------------------------------------------------------


def test_GEN_04_ships_of_the_same_name_get_their_own_ids():
    state, _ = act(with_ship(), "ship.add", {"definition": PLAIN})
    assert sorted(state.ships) == ["hulk", "hulk-2"]


def sheet_refused(sheet: dict[str, Any]) -> str:
    data = {**PLAIN, "parts": {"sheet": sheet}}
    return refused(new_battle("b5wars"), "ship.add", {"definition": data})[1]


def test_GEN_03_a_damage_sheet_starts_within_its_boxes():
    system = {"name": "Reactor", "kind": "reactor", "boxes": 5, "damage": 6}
    assert sheet_refused({"sections": [{"name": "Hull", "structure_max": 20, "systems": [system]}]}) == (
        "definition.parts.sheet.sections.0.systems.0: system 'Reactor' has more damage (6) than boxes (5)"
    )
    assert sheet_refused(
        {"sections": [{"name": "Hull", "structure_max": 20, "armour_max": 2, "armour": 3}]}
    ) == ("definition.parts.sheet.sections.0: section 'Hull': armour 3 above its maximum 2")


def test_GEN_03_a_damage_sheet_names_its_sections_once_and_its_primary_among_them():
    hull = {"name": "Hull", "structure_max": 20}
    assert sheet_refused({"sections": [hull, hull]}) == "definition.parts.sheet: section names must be unique"
    assert sheet_refused({"sections": [hull], "primary": "Core"}) == (
        "definition.parts.sheet: primary section 'Core' is not one of ['Hull']"
    )


def test_GEN_03_damage_needs_a_sheet_to_land_on():
    state = with_ship({"name": "Ghost", "klass": "test", "system": "b5wars", "parts": {}})
    assert refused(state, "damage.apply", {"target": "ghost", "amount": 5}) == (
        "target",
        "Ghost has no damage sheet",
    )


def test_GEN_03_an_entered_system_hit_names_a_system_of_the_section():
    assert refused(with_ship(), "damage.apply", {"target": "hulk", "amount": 5, "system": "Bridge"}) == (
        "system",
        "no system 'Bridge' in Hull (systems: none)",
    )


def test_GEN_03_a_hit_on_a_system_already_destroyed_goes_on_to_structure():
    data = {
        **PLAIN,
        "parts": {
            "sheet": {
                "sections": [
                    {
                        "name": "Hull",
                        "structure_max": 20,
                        "systems": [{"name": "Bridge", "kind": "bridge", "boxes": 3, "damage": 3}],
                    }
                ]
            }
        },
    }
    state, events = act(with_ship(data), "damage.apply", {"target": "hulk", "amount": 5, "system": "Bridge"})
    assert [e.kind for e in events] == ["damage"]
    assert events[0].data["internal"] == 5
    assert state.ships["hulk"].parts["sheet"]["sections"][0]["structure"] == 15


def test_SH_17_a_ship_does_not_board_itself():
    state = with_ship(owner="p-hulk")
    payload = {"attacker": "hulk", "target": "hulk", "kind": "boarding", "outcome": "repelled"}
    assert refused(state, "boarding.declare", payload) == ("target", "a ship cannot board itself")


# --- referee overrides --------------------------------------------------------------------------------


def test_an_override_names_a_value_that_exists_and_keeps_its_shape():
    state = with_ship()
    missing = {"path": "ships.hulk.parts.sheet.nothing", "value": 1, "reason": "test"}
    assert refused(state, "override.set", missing) == ("path", "no value at 'ships.hulk.parts.sheet.nothing'")
    reshaped = {"path": "ships.hulk.parts.sheet.sections", "value": 3, "reason": "test"}
    assert refused(state, "override.set", reshaped) == (
        "value",
        "the new value must have the same shape as the old one",
    )


# --- geometry (ST-05) ---------------------------------------------------------------------------------


def test_ST_05_an_arc_from_a_bearing_to_itself_covers_nothing():
    assert Arc(90, 90).span == 0.0
    assert tiling_problems([("Fore", (90, 90)), ("Aft", (90, 270))]) == [
        (0, "Fore's arc (90°–90°) covers nothing")
    ]


def test_ST_05_two_arcs_starting_together_overlap():
    assert tiling_problems([("Fore", (0, 180)), ("Wide", (0, 180))]) == [
        (1, "Wide's arc starts where Fore's does (0°): they overlap"),
        (0, "Fore's arc starts where Wide's does (0°): they overlap"),
    ]


def test_ST_05_no_arcs_have_nothing_to_tile():
    assert tiling_problems([]) == []


def test_a_facing_is_a_hex_side():
    assert check_facing(6) == 6
    with pytest.raises(ValueError, match="a facing is a hex side 1–6, not 7"):
        check_facing(7)


# --- humane messages ----------------------------------------------------------------------------------


class Sample(BaseModel):
    ratio: float = 0
    flag: bool = False
    name: str = ""
    tags: list[str] = Field(default_factory=list, max_length=2)
    when: int = Field(default=0, multiple_of=5)


def message_for(**data: Any) -> str:
    with pytest.raises(ValidationError) as err:
        Sample.model_validate(data)
    return first_error(err.value)[1]


def test_validation_messages_read_as_sentences():
    assert message_for(ratio="x").startswith("ratio: must be a number")
    assert message_for(flag="maybe").startswith("flag: must be true or false")
    assert message_for(name=5).startswith("name: must be text")
    assert message_for(tags="a").startswith("tags: must be a list ([…])")
    assert message_for(tags=["a", "b", "c"]) == "tags: may have at most 2 items"
    assert message_for(when=7) == "when: input should be a multiple of 5"


def test_a_validation_error_with_no_line_items_is_still_explained():
    assert first_error(ValidationError.from_exception_data("Sample", [])) == (None, "the input is not valid")


# --- wiring: a misbuilt game is refused when it is built ----------------------------------------------


def test_a_battle_state_read_back_without_its_game_says_so():
    state = BattleState.model_validate(new_battle("b5wars").model_dump(mode="json"))
    with pytest.raises(RuntimeError, match="this battle state is not bound to its game"):
        assert state.game is None  # never reached: reading it raises


def test_a_system_naming_an_unknown_ruleset_is_refused():
    from dataclasses import replace

    from app.rules.registry import RULESETS, SFB, Rules

    with pytest.raises(ValueError, match=r"names unknown rulesets \['chess'\]"):
        Rules([replace(SFB, rulesets=(*SFB.rulesets, "chess"))], RULESETS)


def test_a_ruleset_whose_moments_the_system_lacks_is_refused():
    from dataclasses import replace

    from app.rules.game import Game
    from app.rules.registry import SFB, STARTREK

    with pytest.raises(ValueError, match="lacks the moments"):
        Game(SFB, [replace(STARTREK, needs=frozenset({"no-such-moment"}))], [])


def test_an_action_defined_by_two_rulesets_is_refused():
    from dataclasses import replace

    from app.rules.game import Game
    from app.rules.registry import GENERIC, SFB

    with pytest.raises(ValueError, match=r"action clock.advance defined twice"):
        Game(SFB, [GENERIC, replace(GENERIC, key="copy", hooks=())], [])


def test_an_override_of_every_ship_is_public_when_no_ship_has_anything_hidden():
    """Nothing of a plain damage-sheet ship is hidden from other players, so the log shows the change."""
    state = with_ship()
    ships = state.model_dump(mode="json")["ships"]
    ships["hulk"]["crippled"] = True
    state, events = act(
        state, "override.set", {"path": "ships", "value": ships, "reason": "restore the table"}
    )
    assert events[0].visibility == "public"
    assert state.ships["hulk"].crippled is True
