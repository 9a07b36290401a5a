"""The generic core: dice sources (GEN-02), turn clocks (GEN-01), entered damage on the sheet
(GEN-03), destruction (GEN-04), overrides, set-up and per-viewer views."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from app.rules import Action, Actor, apply_action, new_battle
from app.rules.core import REFEREE, NeedRoll, RuleError
from app.rules.dice import EnteredDice, ReplayDice, ScriptedDice, SeededDice, derive_roll, seed_commitment
from app.rules.registry import STANDARD
from app.rules.state import BattleState, Clock
from app.rules.views import Viewer, battle_view, event_for
from tests.helpers import simple_ship

ANN = Actor("ann", "player", frozenset({"hawk"}))


def battle_with(*ships: tuple[str, str | None], system: str = "b5wars") -> BattleState:
    state = new_battle(system)
    for name, owner in ships:
        state = apply_action(
            state,
            Action("ship.add", {"definition": simple_ship(name, system), "owner": owner}, REFEREE),
            ScriptedDice([]),
        ).state
    return state


def test_GEN_02_seeded_dice_are_reproducible_and_fair() -> None:
    seed = b"s" * 32
    a = SeededDice(seed, "b1", 7)
    rolls = [a.die(6, "test") for _ in range(600)]
    b = SeededDice(seed, "b1", 7)
    assert [b.die(6, "test") for _ in range(600)] == rolls
    assert [derive_roll(seed, "b1", 7, i, 6) for i in range(600)] == rolls
    counts = Counter(rolls)
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(60 <= n <= 140 for n in counts.values())
    assert SeededDice(seed, "b1", 8).die(100, "x") == derive_roll(seed, "b1", 8, 0, 100)
    assert seed_commitment(seed) == hashlib.sha256(seed).hexdigest()


def test_GEN_02_rolls_are_recorded_with_purpose() -> None:
    dice = ScriptedDice([4, 2])
    roll = dice.roll(2, 6, "barrage attack", ship="hawk", modifier=-1, target="8+")
    assert roll.total == 5 and roll.dice == [4, 2] and roll.expr == "2d6 − 1"
    assert dice.record == [
        {"sides": 6, "value": 4, "purpose": "barrage attack", "ship": "hawk"},
        {"sides": 6, "value": 2, "purpose": "barrage attack", "ship": "hawk"},
    ]
    assert ReplayDice(dice.record).die(6, "again") == 4


def test_GEN_02_entered_dice_ask_for_the_missing_roll() -> None:
    dice = EnteredDice([3])
    assert dice.die(6, "first") == 3
    with pytest.raises(NeedRoll) as need:
        dice.die(6, "rise amount", "ker")
    assert need.value.as_dict() == {"sides": 6, "purpose": "rise amount", "ship": "ker", "index": 1}
    with pytest.raises(RuleError) as err:
        EnteredDice([7]).die(6, "too big")
    assert err.value.field == "dice" and err.value.message == "a d6 cannot show 7 (die 1 for too big)"


def next_clock(system: str, clock: Clock) -> Clock:
    return STANDARD.systems[system].next(clock)


def test_GEN_01_turn_sequences() -> None:
    c = Clock(turn=1, step="energy_allocation")
    c = next_clock("sfb", c)
    assert (c.step, c.impulse) == ("impulse", 1)
    c = next_clock("sfb", Clock(turn=1, step="impulse", impulse=32))
    assert (c.turn, c.step, c.impulse) == (1, "end_of_turn", None)
    c = next_clock("sfb", c)
    assert (c.turn, c.step) == (2, "energy_allocation")
    steps = []
    c = Clock(turn=1, step="ship_power")
    for _ in range(4):
        steps.append(c.step)
        c = next_clock("b5wars", c)
    assert steps == ["ship_power", "movement", "combat", "adjust_systems"] and c.turn == 2
    assert new_battle("traveller").clock.step == "orders"


def test_GEN_03_damage_fills_armour_then_system_then_structure() -> None:
    state = battle_with(("Hawk", "ann"), ("Crow", "bob"))
    out = apply_action(
        state,
        Action(
            "damage.apply",
            {"target": "crow", "source": "hawk", "amount": 12, "direction": "fore", "system": "Laser"},
            ANN,
        ),
        ScriptedDice([]),
    )
    fore = out.state.ships["crow"].parts["sheet"]["sections"][1]
    assert (fore["armour"], fore["systems"][0]["damage"], fore["structure"]) == (0, 5, 17)
    assert out.events[0].text == "Hawk hits Crow for 12 (fore): 4 to armour, 8 to Fore."
    assert "Crow's Laser is destroyed." in [e.text for e in out.events]
    assert state.ships["crow"].parts["sheet"]["sections"][1]["armour"] == 4  # the old state is untouched


def test_GEN_03_overflow_reaches_primary_and_GEN_04_destroys() -> None:
    state = battle_with(("Hawk", "ann"), ("Crow", "bob"))
    out = apply_action(
        state,
        Action("damage.apply", {"target": "crow", "source": "hawk", "amount": 70, "direction": "fore"}, ANN),
        ScriptedDice([]),
    )
    crow = out.state.ships["crow"]
    assert [s["structure"] for s in crow.parts["sheet"]["sections"]] == [0, 0]
    assert crow.destroyed
    assert out.events[0].data["internal"] == 60 and "6 beyond destruction" in out.events[0].text
    with pytest.raises(RuleError, match="already destroyed"):
        apply_action(
            out.state, Action("damage.apply", {"target": "crow", "amount": 1}, REFEREE), ScriptedDice([])
        )
    out2 = apply_action(
        battle_with(("Hawk", "ann"), ("Crow", "bob")),
        Action("damage.apply", {"target": "hawk", "source": "crow", "amount": 70}, REFEREE),
        ScriptedDice([]),
    )
    with pytest.raises(RuleError, match="GEN-04"):
        apply_action(
            out2.state,
            Action("damage.apply", {"target": "crow", "source": "hawk", "amount": 3}, ANN),
            ScriptedDice([]),
        )


def test_GEN_03_only_commanders_enter_damage_and_errors_name_the_field() -> None:
    state = battle_with(("Hawk", "ann"), ("Crow", "bob"))
    eve = Actor("eve", "player", frozenset())
    with pytest.raises(RuleError) as err:
        apply_action(
            state,
            Action("damage.apply", {"target": "crow", "source": "hawk", "amount": 5}, eve),
            ScriptedDice([]),
        )
    assert err.value.field == "source"
    with pytest.raises(RuleError) as err:
        apply_action(
            state,
            Action("damage.apply", {"target": "crow", "source": "hawk", "amount": 0}, ANN),
            ScriptedDice([]),
        )
    assert err.value.field == "amount"
    with pytest.raises(RuleError, match="no section 'Keel'"):
        apply_action(
            state,
            Action("damage.apply", {"target": "crow", "source": "hawk", "amount": 5, "section": "Keel"}, ANN),
            ScriptedDice([]),
        )
    with pytest.raises(RuleError, match="spectators"):
        apply_action(state, Action("clock.advance", {}, Actor("w", "spectator")), ScriptedDice([]))


def test_override_sets_a_value_with_reason_and_validates() -> None:
    state = battle_with(("Hawk", "ann"))
    out = apply_action(
        state,
        Action(
            "override.set",
            {"path": "ships.hawk.parts.sheet.sections.0.structure", "value": 10, "reason": "misread"},
            REFEREE,
        ),
        ScriptedDice([]),
    )
    assert out.state.ships["hawk"].parts["sheet"]["sections"][0]["structure"] == 10
    assert (
        out.events[0].text
        == "⚠ OVERRIDE (Referee): ships.hawk.parts.sheet.sections.0.structure 40→10 — “misread”"
    )
    with pytest.raises(RuleError, match="not allowed"):
        apply_action(
            state,
            Action(
                "override.set",
                {"path": "ships.hawk.parts.sheet.sections.0.structure", "value": 99, "reason": "too big"},
                REFEREE,
            ),
            ScriptedDice([]),
        )
    with pytest.raises(RuleError, match="no value"):
        apply_action(
            state,
            Action("override.set", {"path": "ships.nope.name", "value": "x", "reason": "abc"}, REFEREE),
            ScriptedDice([]),
        )
    with pytest.raises(RuleError, match="only the referee"):
        apply_action(
            state,
            Action("override.set", {"path": "ships.hawk.name", "value": "x", "reason": "abc"}, ANN),
            ScriptedDice([]),
        )


def test_ship_definition_errors_are_clear() -> None:
    bad = simple_ship("Bad")
    bad["parts"]["sheet"]["sections"][0]["structure_max"] = 0
    with pytest.raises(RuleError) as err:
        apply_action(new_battle("b5wars"), Action("ship.add", {"definition": bad}, REFEREE), ScriptedDice([]))
    assert err.value.field == "definition.parts.sheet.sections.0.structure_max"
    assert err.value.message == f"{err.value.field}: must be at least 1 (you sent 0)"
    with pytest.raises(RuleError, match="unknown ship part 'warpcore'"):
        apply_action(
            new_battle("b5wars"),
            Action("ship.add", {"definition": {**simple_ship("X"), "parts": {"warpcore": {}}}}, REFEREE),
            ScriptedDice([]),
        )


def test_owner_events_are_hidden_from_others() -> None:
    from app.rules.core import Event

    secret = Event(
        kind="move",
        text="Hawk (cloaked) moves to 0405.",
        ship="hawk",
        visibility="owner",
        hidden_text="A cloaked ship moves.",
    )
    ann = Viewer("ann", "player", frozenset({"hawk"}))
    bob = Viewer("bob", "player", frozenset({"crow"}))
    assert event_for(secret, ann).text == secret.text
    assert event_for(secret, bob).text == "A cloaked ship moves."
    assert event_for(secret, Viewer("r", "referee", frozenset())).text == secret.text
    state = battle_with(("Hawk", "ann"))
    assert battle_view(state, bob)["ships"]["hawk"]["commanded"] is False


def test_an_event_about_a_ship_names_it_by_id_and_keeps_every_other_field() -> None:
    from app.rules.core import Event

    hawk = battle_with(("Hawk", "ann")).ships["hawk"]
    made = Event.about(hawk, "move", "Hawk moves.", visibility="owner", hidden_text="A ship moves.")
    assert made == Event(
        kind="move", text="Hawk moves.", ship="hawk", visibility="owner", hidden_text="A ship moves."
    )


def test_GEN_03_a_ship_is_not_entered_as_firing_on_itself() -> None:
    state = battle_with(("Hawk", "ann"), ("Crow", "bob"))
    with pytest.raises(RuleError) as err:
        apply_action(
            state,
            Action(
                "damage.apply",
                {"target": "hawk", "source": "hawk", "amount": 3},
                Actor("ann", "player", frozenset({"hawk"})),
            ),
            ScriptedDice([]),
        )
    assert (err.value.field, err.value.message) == (
        "source",
        "Hawk cannot fire on itself: choose the firing ship",
    )


def test_GEN_03_SH_09_the_target_owner_credits_the_enemy_that_fired() -> None:
    """The commander of the ship hit may enter the hit naming the enemy that fired (SH-09 counts it)."""
    state = battle_with(("Hawk", "ann"), ("Crow", "bob"))
    out = apply_action(
        state,
        Action(
            "damage.apply",
            {"target": "crow", "source": "hawk", "amount": 3},
            Actor("bob", "player", frozenset({"crow"})),
        ),
        ScriptedDice([]),
    )
    assert out.events[0].data["source"] == "hawk"
