"""Who may move the clock and skip (GEN-01: the battle's `players_advance_clock` option), a ship's
move as the log records it (in the open, or cloaked, ST-22), and the referee's override (GEN-03,
ux §6): the log line's data, a value hidden from other players kept from them (ST-07), and values
the battle cannot take refused."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import new_battle
from app.rules.core import Actor, Event, NotAllowed, RuleError
from app.rules.state import BattleState
from tests.rules.generic.support import act, refused, ship
from tests.rules.startrek.helpers import add, definition
from tests.rules.startrek.test_cloak import BOP, cloaked_battle
from tests.rules.traveller.helpers import KESTREL_ACTOR, capital
from tests.rules.traveller.helpers import battle as traveller_battle

ANN = Actor("ann", "player", frozenset({"hawk"}))
BOB = Actor("bob", "player", frozenset({"crow"}))
BOB_PENDING = "1 other commander is not done with this step yet; wait, or ask the referee"


def at_impulse_1(**options: Any) -> BattleState:
    """An SFB battle at impulse 1: Ann commands the Hawk, Bob the Crow."""
    state = new_battle("sfb", options)
    for name, owner in (("Hawk", "ann"), ("Crow", "bob")):
        state, _ = act(state, "ship.add", {"definition": ship(name, system="sfb"), "owner": owner})
    state, _ = act(state, "clock.advance", {})
    assert (state.clock.step, state.clock.impulse) == ("impulse", 1)
    return state


def override(state: BattleState, path: str, value: Any) -> tuple[BattleState, list[Event]]:
    return act(state, "override.set", {"path": path, "value": value, "reason": "table ruling"})


# --- who moves the clock (GEN-01) ---------------------------------------------------------------------


@pytest.mark.parametrize("option", [None, "when_done", "sometimes"])
def test_GEN_01_by_default_or_unknown_a_commander_waits_for_the_others(option: str | None) -> None:
    state = at_impulse_1(**({} if option is None else {"players_advance_clock": option}))
    assert refused(state, "clock.advance", {}, ANN) == (NotAllowed, None, BOB_PENDING)


@pytest.mark.parametrize("option", [True, "always"])
def test_GEN_01_always_lets_a_commander_end_the_step_with_others_pending(option: Any) -> None:
    state, events = act(at_impulse_1(players_advance_clock=option), "clock.advance", {"reason": "slow"}, ANN)
    assert state.clock.impulse == 2
    assert events[-1].data == {"pending": ["bob"], "reason": "slow"}


def test_GEN_01_under_readiness_a_commander_may_skip_while_others_are_pending() -> None:
    """A skip then means "done until impulse 5"; done already, the commander may not skip again
    while Bob is pending."""
    state, events = act(at_impulse_1(), "clock.skip", {"to": 5}, ANN)
    assert [e.text for e in events] == ["Done until impulse 5."]
    assert (state.ready, state.ready_until, state.clock.impulse) == (["ann"], {"ann": 5}, 1)
    assert refused(state, "clock.skip", {"to": 6}, ANN) == (NotAllowed, None, BOB_PENDING)


def test_GEN_01_when_only_the_referee_moves_the_clock_a_commander_may_not_skip() -> None:
    state = at_impulse_1(players_advance_clock="never")
    assert refused(state, "clock.skip", {"to": 5}, ANN) == (
        NotAllowed,
        None,
        "only the referee advances the turn clock in this battle",
    )


def test_GEN_01_done_twice_is_refused() -> None:
    state, _ = act(at_impulse_1(), "step.ready", {}, ANN)
    assert refused(state, "step.ready", {}, ANN) == (NotAllowed, None, "the step is not waiting on you")


def test_GEN_01_skips_stop_at_a_later_impulse_up_to_the_last() -> None:
    state = at_impulse_1()
    after, events = act(state, "clock.skip", {"to": 32})
    assert (after.clock.impulse, events[0].data) == (32, {"skipped": 31})
    assert refused(state, "clock.skip", {"to": 1}) == (RuleError, "to", "stop at a later impulse: 2 to 32")
    state, events = act(state, "clock.skip", {}, ANN)
    assert events[0].data == {"participant": "ann", "until": 33}  # past impulse 32: the end of impulses
    b5 = new_battle("b5wars")
    assert refused(b5, "clock.skip", {}) == (RuleError, "to", "Ship Power has no numbered repeats to skip")


def test_GEN_01_an_override_may_put_the_clock_at_the_last_impulse() -> None:
    state, _ = override(at_impulse_1(), "clock.impulse", 32)
    assert state.clock.impulse == 32


# --- a ship's move (ST-22 cloaked) --------------------------------------------------------------------


def test_GEN_03_a_move_is_recorded_for_all_to_see() -> None:
    state, events = act(
        at_impulse_1(),
        "ship.move",
        {"ship": "hawk", "position": {"hex": "0405", "facing": 2, "speed": 10}},
        ANN,
    )
    assert [(e.kind, e.ship, e.visibility, e.text, e.data) for e in events] == [
        (
            "move",
            "hawk",
            "public",
            "Hawk moves: hex 0405, facing 2, speed 10.",
            {"position": {"hex": "0405", "facing": 2, "speed": 10}},
        )
    ]
    assert state.ships["hawk"].position == {"hex": "0405", "facing": 2, "speed": 10}


def test_ST_22_a_cloaked_move_is_its_commanders_until_the_end() -> None:
    state, _ = cloaked_battle()
    state, events = act(state, "ship.move", {"ship": "kor-vaq", "position": {"hex": "0917"}}, BOP)
    assert [(e.kind, e.ship, e.visibility, e.hidden_text, e.data) for e in events] == [
        (
            "move",
            "kor-vaq",
            "owner",
            "A cloaked ship moves.",
            {"position": {"hex": "0917"}, "reveal_at_end": True, "commander": "p-kor-vaq"},
        )
    ]


# --- the referee's override (GEN-03) ------------------------------------------------------------------


def test_GEN_03_an_override_in_the_open_records_the_path_and_both_values() -> None:
    state = add(new_battle("b5wars"), definition("excelsior"))
    state, events = override(state, "ships.excelsior.parts.sheet.sections.0.structure", 12)
    assert [(e.kind, e.ship, e.visibility, e.data) for e in events] == [
        (
            "override",
            None,
            "public",
            {
                "path": "ships.excelsior.parts.sheet.sections.0.structure",
                "old": 30,
                "new": 12,
                "reason": "table ruling",
            },
        )
    ]


def test_GEN_03_a_whole_list_item_may_be_overridden() -> None:
    state = add(new_battle("b5wars"), definition("excelsior"))
    section = state.ships["excelsior"].parts["sheet"]["sections"][1] | {"structure": 5}
    state, _ = override(state, "ships.excelsior.parts.sheet.sections.1", section)
    assert state.ships["excelsior"].parts["sheet"]["sections"][1]["structure"] == 5


def test_GEN_03_a_value_the_ship_cannot_hold_is_refused_on_value() -> None:
    state = add(new_battle("b5wars"), definition("excelsior"))
    assert refused(
        state,
        "override.set",
        {"path": "ships.excelsior.parts.sheet.sections.0.structure", "value": -1, "reason": "typo"},
    ) == (
        RuleError,
        "value",
        "value: that value is not allowed — sections.0.structure: must be at least 0 (you sent -1)",
    )


@pytest.mark.parametrize(
    "path", ["ships.excelsior.parts.power.output", "ships.excelsior.parts.shields.deflectors.1.regen_given"]
)
def test_ST_07_an_override_of_a_value_other_players_do_not_see_is_kept_from_them(path: str) -> None:
    """The power budget is secret, and so is what a deflector regenerated this turn: the log line
    is the commander's, revealed at the end."""
    state = add(new_battle("b5wars"), definition("excelsior"))
    state, events = override(state, path, 2)
    assert [(e.kind, e.ship, e.visibility, e.hidden_text) for e in events] == [
        ("override", "excelsior", "owner", "⚠ OVERRIDE (Referee): a value hidden from you was corrected.")
    ]
    assert events[0].data["reveal_at_end"] is True
    assert (events[0].data["path"], events[0].data["new"]) == (path, 2)


def test_ST_07_an_override_of_a_deflectors_listed_value_is_public() -> None:
    state = add(new_battle("b5wars"), definition("excelsior"))
    state, events = override(state, "ships.excelsior.parts.shields.deflectors.1.value", 2)
    assert (events[0].visibility, events[0].ship, events[0].data["old"]) == ("public", None, 3)


def test_GEN_01_TR_03_nobody_is_done_before_the_referee_rolls_initiative() -> None:
    """High Guard: initiative is rolled once per engagement, by the referee, before anything else
    of the first round's Orders step."""
    state = traveller_battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"))
    due = "roll initiative for the engagement (TR-03)"
    assert refused(state, "step.ready", {}, KESTREL_ACTOR) == (
        NotAllowed,
        None,
        f"the step waits on the referee: {due}",
    )
    assert refused(state, "step.ready", {}) == (
        NotAllowed,
        None,
        f"{due}, or advance the clock to play on without it",
    )


def test_GEN_01_TR_03_a_commander_may_not_advance_before_the_referee_rolls_initiative() -> None:
    state = traveller_battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"))
    assert refused(state, "clock.advance", {}, KESTREL_ACTOR) == (
        NotAllowed,
        None,
        "the step waits on the referee: roll initiative for the engagement (TR-03)",
    )
