"""The actions every battle has, as the log records them: the referee's end naming a winner or not
(GEN-04), ships taken off the table or handed to another commander, "not done after all", and the
physical dice a step's end waits for (GEN-01 readiness, GEN-02)."""

from __future__ import annotations

from typing import Any

from app.rules import new_battle
from app.rules.core import REFEREE, Actor, NotAllowed, RuleError
from app.rules.dice import EnteredDice
from app.rules.state import BattleState, PendingRoll
from tests.rules.generic.support import act, refused, ship
from tests.rules.shadow.support import FED_PLAYER, PLAYER, at_impulse, federation, hit, tough_shadow

SEED = " The dice seed is revealed."  # the server rolled the dice: its seed is told at the end (GEN-02)
ANN = Actor("ann", "player", frozenset({"hawk"}))
BOB = Actor("bob", "player", frozenset({"crow"}))


def two_sides() -> BattleState:
    """Ann's Hawk for the Federation, Bob's Crow for the Shadows, in a B5 Wars Ship Power step."""
    state = new_battle("b5wars")
    for name, side, owner in (("Hawk", "Federation", "ann"), ("Crow", "Shadows", "bob")):
        state, _ = act(state, "ship.add", {"definition": ship(name, side), "owner": owner})
    return state


# --- the referee's end (GEN-04) -----------------------------------------------------------------------


def test_GEN_04_the_referees_end_without_a_winner_or_a_reason() -> None:
    state, events = act(two_sides(), "battle.end", {})
    assert [(e.kind, e.text, e.data) for e in events] == [("battle_end", "The battle ends." + SEED, {})]
    assert state.finished is True


def test_GEN_04_the_referees_end_with_a_reason_and_no_winner() -> None:
    state, events = act(two_sides(), "battle.end", {"reason": "out of time"})
    assert [(e.text, e.data) for e in events] == [("The battle ends: out of time." + SEED, {})]
    assert state.finished is True


def test_GEN_04_the_referee_names_the_winning_side() -> None:
    state, events = act(two_sides(), "battle.end", {"reason": "the Crow struck", "winner": "Federation"})
    assert [(e.kind, e.text, e.data) for e in events] == [
        (
            "battle_end",
            "The battle ends: the Crow struck — the Federation side wins." + SEED,
            {"reason": "referee", "winner": "Federation", "why": "the Crow struck"},
        )
    ]
    assert state.finished is True


def test_GEN_04_the_referee_calls_a_draw() -> None:
    state, events = act(two_sides(), "battle.end", {"winner": "draw"})
    assert [(e.text, e.data) for e in events] == [
        ("The battle ends — a draw." + SEED, {"reason": "referee", "winner": "draw", "why": ""})
    ]
    assert state.finished is True


def test_GEN_04_a_winner_that_is_no_side_of_the_battle_is_refused() -> None:
    assert refused(two_sides(), "battle.end", {"winner": "Klingons"}) == (
        RuleError,
        "winner",
        'winner: one of the battle\'s sides ("Federation", "Shadows") or "draw"',
    )


def test_GEN_02_a_battle_of_physical_dice_has_no_seed_to_reveal() -> None:
    _, events = act(two_sides(), "battle.end", {"winner": "Shadows"}, dice=EnteredDice([]))
    assert events[0].text == "The battle ends — the Shadows side wins."


# --- ships off the table and changing hands -----------------------------------------------------------


def test_GEN_03_the_referee_removes_a_ship() -> None:
    state, events = act(two_sides(), "ship.remove", {"ship": "crow"})
    assert [(e.kind, e.ship, e.text) for e in events] == [
        ("ship_removed", None, "Crow is removed from the battle.")
    ]
    assert list(state.ships) == ["hawk"]
    assert refused(state, "ship.remove", {"ship": "crow"})[1] == "ship"


def test_GEN_03_the_referee_hands_a_ship_to_another_commander_or_to_none() -> None:
    state, events = act(two_sides(), "ship.assign", {"ship": "crow", "owner": "ann"})
    assert [(e.kind, e.ship, e.text) for e in events] == [("ship_assigned", "crow", "Crow changes command.")]
    assert state.ships["crow"].owner == "ann"
    state, _ = act(state, "ship.assign", {"ship": "crow", "owner": None})
    assert state.ships["crow"].owner is None
    assert refused(state, "ship.assign", {"ship": "owl", "owner": "ann"})[1] == "ship"


# --- not done after all (GEN-01) ----------------------------------------------------------------------


def test_GEN_01_a_commander_takes_back_done_until_the_step_ends() -> None:
    state, _ = act(two_sides(), "step.ready", {}, ANN)
    assert state.ready == ["ann"]
    state, events = act(state, "step.unready", {}, ANN)
    assert [(e.kind, e.text, e.data) for e in events] == [
        ("ready", "Not done with this step after all.", {"participant": "ann"})
    ]
    assert state.ready == []
    assert refused(state, "step.unready", {}, ANN) == (
        NotAllowed,
        None,
        "you have not said you are done with this step",
    )


# --- the dice a step's end waits for (GEN-02) ---------------------------------------------------------

WAITING = (
    "the step is ending and waits only for the dice for Ker: 1d6 for pain rise chance, band 50–99,"
    " entered by the ship's commander or the referee"
)


def waiting_for_kers_dice() -> BattleState:
    """SH-03 in an SFB battle with physical dice: 60 damage on Ker in impulse 1; its commander is
    done until impulse 5, and the Federation commander, the last pending, ends the impulse, which
    then waits for the pain check's dice — Ker's commander's (or the referee's) to enter. The skip
    still stands while the end waits."""
    state, _ = hit(at_impulse(), 60)
    state, events = act(state, "clock.skip", {"to": 5}, PLAYER, EnteredDice([]))
    state, events = act(state, "clock.advance", {}, FED_PLAYER, EnteredDice([]))
    assert state.ready_until == {"p-shadow": 5}
    assert events[-1].text == (
        "Turn 1 · Impulse 1/32 ends once Ker's commander (or the referee) enters 1d6 for pain rise chance,"
        " band 50–99."
    )
    assert state.rolling is not None
    return state


def test_GEN_02_while_the_end_waits_for_a_die_nothing_but_the_die_goes() -> None:
    state = waiting_for_kers_dice()
    for kind, payload in (
        ("clock.advance", {}),
        ("clock.skip", {}),
        ("step.ready", {}),
        ("step.unready", {}),
    ):
        for actor in (PLAYER, FED_PLAYER):
            assert refused(state, kind, payload, actor, EnteredDice([])) == (NotAllowed, None, WAITING)
    assert refused(state, "clock.advance", {}, REFEREE, EnteredDice([])) == (NotAllowed, None, WAITING)


def test_GEN_02_the_die_is_its_ships_commanders_to_enter() -> None:
    state = waiting_for_kers_dice()
    assert refused(state, "step.roll", {}, FED_PLAYER, EnteredDice([2, 6, 1])) == (
        NotAllowed,
        None,
        "the dice for Ker are its commander's to enter, or the referee's",
    )
    state.rolling = PendingRoll(ship="gone", sides=6, purpose="a test")
    assert refused(state, "step.roll", {}, FED_PLAYER, EnteredDice([2]))[2] == (
        "the dice for gone are its commander's to enter, or the referee's"
    )


def test_GEN_02_no_die_awaited_no_die_entered() -> None:
    assert refused(at_impulse(), "step.roll", {}, PLAYER, EnteredDice([2])) == (
        NotAllowed,
        None,
        "no step's end waits for dice",
    )


def test_GEN_02_SH_03_the_commanders_die_ends_the_step_and_stops_standing_skips() -> None:
    """SH-04/SH-05: rise 2 (≤ 2 in band 50–99) → amount 6 − 3 = 3 → pain 3; SH-06: reaction 1 at
    pain 3 is ZERO. The impulse then ends, and the skip to impulse 5 stops there (something
    happened): both commanders are awaited in impulse 2."""
    state = waiting_for_kers_dice()
    state, events = act(state, "step.roll", {}, PLAYER, EnteredDice([2, 6, 1]))
    assert [e.kind for e in events][-1] == "clock"
    assert events[-1].text == "Turn 1 · Impulse 1/32 ends; Turn 1 · Impulse 2/32 begins."
    assert state.ships["ker"].parts["pain"]["level"] == 3
    assert (state.clock.impulse, state.rolling, state.ready, state.ready_until) == (2, None, [], {})
    assert state.game.awaited(state) == ["p-fed", "p-shadow"]


# --- a referee's skip through quiet impulses (GEN-01) -------------------------------------------------


def skip(state: BattleState, to: int | None = None) -> list[tuple[str, str, dict[str, Any]]]:
    _, events = act(state, "clock.skip", {} if to is None else {"to": to})
    return [(e.kind, e.text, e.data) for e in events]


def test_GEN_01_two_quiet_impulses_fold_into_one_line_and_one_stays_its_own() -> None:
    state = at_impulse()
    assert skip(state, 3) == [
        ("clock", "Impulses 1–2 pass quietly; Turn 1 · Impulse 3/32 begins.", {"skipped": 2})
    ]
    assert skip(state, 2) == [("clock", "Turn 1 · Impulse 1/32 ends; Turn 1 · Impulse 2/32 begins.", {})]


def test_GEN_01_SH_07_a_skip_that_stops_where_something_happened_keeps_every_line() -> None:
    """Ker flinched at impulse 1 (SH-07 ONE, due in the movement after it): impulse 1 ends quietly,
    the flinch ends with impulse 2 and the skip stops there; no line is folded."""
    flinch = {
        "id": 1,
        "kind": "flinch",
        "level": "ONE",
        "text": "flinch one hex away",
        "since": {"turn": 1, "impulse": 1},
        "until": "next_movement",
    }
    state = at_impulse()
    state, _ = act(
        state,
        "override.set",
        {"path": "ships.ker.parts.pain.obligations", "value": [flinch], "reason": "test"},
    )
    assert skip(state, 10) == [
        ("clock", "Turn 1 · Impulse 1/32 ends; Turn 1 · Impulse 2/32 begins.", {}),
        ("pain_obligation_expired", "Ker is no longer bound: flinch one hex away.", {}),
        ("clock", "Turn 1 · Impulse 2/32 ends; Turn 1 · Impulse 3/32 begins.", {}),
    ]


# --- boarding and raids (GEN-03) ----------------------------------------------------------------------


def test_GEN_03_a_boarding_action_is_recorded_with_the_tables_outcome() -> None:
    state, events = act(
        two_sides(),
        "boarding.declare",
        {"kind": "hit_and_run", "attacker": "hawk", "target": "crow", "outcome": "the tractor is wrecked"},
        ANN,
    )
    assert [(e.kind, e.ship, e.text, e.data) for e in events] == [
        (
            "boarding",
            "crow",
            "Hawk makes a hit-and-run raid against Crow: the tractor is wrecked",
            {
                "kind": "hit_and_run",
                "attacker": "hawk",
                "target": "crow",
                "outcome": "the tractor is wrecked",
            },
        )
    ]


def test_GEN_03_boarding_names_the_missing_ship() -> None:
    board = {"kind": "boarding", "attacker": "hawk", "target": "owl", "outcome": "held"}
    assert refused(two_sides(), "boarding.declare", board)[1:] == ("target", "no ship 'owl' in this battle")
    assert (
        refused(two_sides(), "boarding.declare", board | {"attacker": "owl", "target": "crow"})[1]
        == "attacker"
    )
    assert refused(two_sides(), "boarding.declare", board | {"target": "hawk"})[1:] == (
        "target",
        "a ship cannot board itself",
    )


def test_GEN_01_GEN_02_who_was_pending_is_kept_on_the_line_saying_the_end_waits_for_a_die() -> None:
    """Commanders may always end a step here: the Federation commander ends impulse 1 while Ker's
    commander is still pending, and the end waits for Ker's pain check die (SH-03); that line
    records who was pending and why the step ended anyway."""
    state = new_battle("sfb", {"players_advance_clock": "always"})
    for data, owner in ((tough_shadow(), "p-shadow"), (federation("Excalibur"), "p-fed")):
        state, _ = act(state, "ship.add", {"definition": data, "owner": owner})
    state, _ = act(state, "clock.advance", {})  # Energy Allocation → Impulse 1
    state, _ = hit(state, 60)
    state, events = act(
        state, "clock.advance", {"reason": "Ker's player stepped out"}, FED_PLAYER, EnteredDice([])
    )
    assert [(e.kind, e.data) for e in events] == [
        (
            "rolling",
            {
                "sides": 6,
                "purpose": "pain rise chance, band 50–99",
                "pending": ["p-shadow"],
                "reason": "Ker's player stepped out",
            },
        )
    ]


# --- ships joining the battle (GEN-04) ----------------------------------------------------------------


def test_GEN_04_ships_of_one_name_get_numbered_ids_and_the_log_names_their_class() -> None:
    state = new_battle("b5wars")
    for klass in ("Frigate", "", "Frigate"):
        state, events = act(state, "ship.add", {"definition": ship("Hawk") | {"klass": klass}})
    assert list(state.ships) == ["hawk", "hawk-2", "hawk-3"]
    assert [s.klass for s in state.ships.values()] == ["Frigate", "", "Frigate"]
    assert [(e.kind, e.ship, e.text) for e in events] == [
        ("ship_added", "hawk-3", "Hawk (Frigate) joins the battle.")
    ]
    _, events = act(state, "ship.add", {"definition": ship("Kite") | {"klass": ""}})
    assert events[0].text == "Kite (b5wars) joins the battle."


def test_GEN_04_a_ships_id_is_its_name_in_at_most_40_letters_digits_and_dashes() -> None:
    state, _ = act(
        new_battle("b5wars"),
        "ship.add",
        {"definition": ship("The Very Long Name of a Minbari War Cruiser, Mk II")},
    )
    state, _ = act(state, "ship.add", {"definition": ship("★ ★")})
    assert list(state.ships) == ["the-very-long-name-of-a-minbari-war-crui", "ship"]


def test_GEN_04_a_battle_names_every_fleet_it_takes() -> None:
    traveller = ship("Hawk") | {"system": "traveller"}
    assert refused(new_battle("b5wars"), "ship.add", {"definition": traveller}) == (
        RuleError,
        "definition.system",
        "definition.system: a Babylon 5 Wars battle takes ships written for “b5wars” or “sfb”; "
        "this one is for “traveller”",
    )


def test_GEN_01_two_other_commanders_pending_are_counted() -> None:
    state = two_sides()
    state, _ = act(state, "ship.add", {"definition": ship("Kite"), "owner": "cy"})
    assert refused(state, "clock.advance", {}, ANN) == (
        NotAllowed,
        None,
        "2 other commanders are not done with this step yet; wait, or ask the referee",
    )
