"""The game kernel (`app/rules/game.py`) on a small system built here, so every clause is pinned by
what the test itself defines: three steps (Power; Impulse, played three times; End), ships Alpha
(commanded by p-a) and Bravo (p-b), and rulesets made of the hooks and answers each test needs.
The clock's sentences are the system's own words (GEN-01: "Turn 1 · Impulse 2/3"), written out."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import EnteredDice, ScriptedDice
from app.rules.game import REFEREE_SEAT, Game, Offer, _folded, _Label
from app.rules.ruleset import ActionSpec, Hook, PartSpec, Ruleset
from app.rules.state import BattleState, Clock, PendingRoll, Ship
from app.rules.system import GameSystem, Step

POWER = Step("power", "Power", "P", frozenset({"allocation"}))
IMPULSE = Step("impulse", "Impulse", "I", frozenset({"fire", "impulse_end"}), repeats=3)
END = Step("end", "End", "E", frozenset({"adjust"}))
TOY = GameSystem("toy", "Toy Battles", (POWER, IMPULSE, END), frozenset({"toy"}), ("toy",))

P_A = Actor("p-a", "player", frozenset({"alpha"}))
P_B = Actor("p-b", "player", frozenset({"bravo"}))
REF = Actor("r-1", "referee")


def said(text: str, kind: str = "hook") -> Any:
    """A step hook that says `text` each time it runs."""
    return lambda state, dice: [Event(kind=kind, text=text)]


def rolled(text: str) -> Any:
    """A step hook that rolls a d6 and says `text` with what it shows."""
    return lambda state, dice: [Event(kind="hook", text=f"{text} {dice.die(6, text)}")]


def battle(game: Game, *owners: str | None, at: Clock | None = None) -> BattleState:
    """Alpha, Bravo, Charlie… commanded by `owners` in turn, at `at` (default: the first step)."""
    state = game.new_battle()
    names = ["Alpha", "Bravo", "Charlie"]
    for name, owner in zip(names, owners, strict=False):
        state.ships[name.lower()] = Ship(id=name.lower(), name=name, owner=owner, system="toy")
    if at is not None:
        state.clock = at
    return state


def texts(events: list[Event]) -> list[str]:
    return [e.text for e in events]


class Shot(BaseModel):
    ship: str
    target: str | None = None
    amount: int = Field(default=1, ge=1)


def nothing(state: Any, payload: Any, actor: Any, dice: Any) -> list[Event]:
    return []


def act(name: str, **options: Any) -> ActionSpec:
    return ActionSpec(name, Shot, nothing, options.pop("summary", "Fire the guns"), **options)


def at_impulse(n: int, turn: int = 1) -> Clock:
    return Clock(turn=turn, step="impulse", impulse=n)


# --- putting a game together -----------------------------------------------------------------------


def test_GEN_01_a_ruleset_needing_a_moment_the_system_lacks_cannot_play_in_it():
    needy = Ruleset("needy", "Needy Rules", needs=frozenset({"orders", "fire"}))
    with pytest.raises(ValueError) as err:
        Game(TOY, [needy])
    assert str(err.value) == "Toy Battles lacks the moments ['orders'] that Needy Rules needs"
    Game(TOY, [Ruleset("fits", "Fits", needs=frozenset({"fire", "adjust"}))])  # all marked: plays


def test_GEN_01_an_action_two_playing_rulesets_define_is_refused_but_a_known_ones_is_not():
    one = Ruleset("one", "One", actions=(act("fire"),))
    two = Ruleset("two", "Two", actions=(act("fire"),))
    with pytest.raises(ValueError) as err:
        Game(TOY, [one, two])
    assert str(err.value) == "action fire defined twice"
    game = Game(TOY, [one], known=[two])
    assert list(game.actions) == ["fire"]


def test_SH_17_known_rulesets_lend_their_parts_once_each_in_order():
    """A ship may carry any known ruleset's part (a Shadow's trait in another system), and what a
    known part forbids holds there (SH-17: nobody boards a living ship)."""
    trait = PartSpec("trait", Shot)
    living = Ruleset(
        "living",
        "Living",
        parts=(trait,),
        boarding_refusals=(lambda ship, kind: f"{ship.name} cannot be boarded ({kind})",),
    )
    playing = Ruleset("toy", "Toy", parts=(PartSpec("sheet", Shot),))
    game = Game(TOY, [playing], known=[living, playing, living])
    assert game.known == (living, playing)
    assert game.rulesets == (playing,)
    assert list(game.parts) == ["trait", "sheet"]
    ship = Ship(id="s", name="Shade", system="toy")
    assert game.boarding_refusal(ship, "boarding") == "Shade cannot be boarded (boarding)"
    assert Game(TOY, [playing]).boarding_refusal(ship, "boarding") is None


def test_SH_17_the_first_refusal_that_gives_a_reason_answers():
    quiet = Ruleset("quiet", "Quiet", boarding_refusals=(lambda ship, kind: None, lambda ship, kind: ""))
    loud = Ruleset(
        "loud", "Loud", boarding_refusals=(lambda ship, kind: "first", lambda ship, kind: "second")
    )
    game = Game(TOY, [quiet, loud])
    assert game.boarding_refusal(Ship(id="s", name="S", system="toy"), "raid") == "first"


def test_GEN_01_a_new_battle_starts_at_the_first_step_with_its_options_checked():
    seen: list[dict[str, Any]] = []

    def check(options: dict[str, Any]) -> None:
        seen.append(options)
        if options.get("turns") == 0:
            raise RuleError("a battle needs a turn", "options.turns")

    game = Game(TOY, [Ruleset("plain", "Plain"), Ruleset("toy", "Toy", check_options=check)])
    given = {"turns": 5}
    state = game.new_battle(given)
    given["turns"] = 0
    assert (state.system, state.clock, state.options) == ("toy", Clock(turn=1, step="power"), {"turns": 5})
    assert state.game is game
    assert seen == [{"turns": 5}]
    assert game.new_battle().options == {}
    with pytest.raises(RuleError) as err:
        game.new_battle({"turns": 0})
    assert (err.value.field, err.value.message) == ("options.turns", "a battle needs a turn")
    loaded = game.load(state.model_dump(mode="json"))
    assert (loaded.game, loaded.options) == (game, {"turns": 5})


def test_GEN_01_a_game_is_shared_not_copied():
    import copy

    game = Game(TOY, [])
    assert copy.deepcopy(game) is game
    assert game.in_moment(battle(game, at=at_impulse(2)), "fire") is True
    assert game.in_moment(battle(game), "fire") is False


# --- the clock and its hooks (GEN-01) ----------------------------------------------------------------


def test_GEN_01_hooks_run_on_their_moment_and_side_in_ruleset_order_each_once():
    shared = said("shared")
    first = Ruleset(
        "first",
        "First",
        hooks=(
            Hook("enter", "fire", shared),
            Hook("enter", "impulse_end", shared),  # the same hook on two moments of one step: once
            Hook("leave", "fire", said("leaving")),
            Hook("enter", "adjust", said("adjusting")),
        ),
    )
    second = Ruleset("second", "Second", hooks=(Hook("enter", "fire", said("second")),))
    game = Game(TOY, [first, second])
    state = battle(game)
    dice = ScriptedDice([])
    assert texts(game.run_hooks(state, "enter", ["fire", "impulse_end"], dice)) == ["shared", "second"]
    assert texts(game.run_hooks(state, "leave", ["fire"], dice)) == ["leaving"]
    assert texts(game.run_hooks(state, "enter", ["allocation"], dice)) == []


def test_GEN_01_a_step_ends_with_its_leave_hooks_then_the_next_begins_with_its_enter_hooks():
    toy = Ruleset(
        "toy",
        "Toy",
        hooks=(
            Hook("leave", "allocation", said("power spent")),
            Hook("enter", "fire", said("guns ready")),
            Hook("leave", "turn", rolled("turn over")),
            Hook("enter", "turn", rolled("new turn")),
            Hook("enter", "allocation", said("allocate")),
        ),
    )
    game = Game(TOY, [toy])
    state = battle(game, "p-a")
    state.ready = ["p-a"]
    dice = ScriptedDice([3, 5])
    assert texts(game.advance(state, dice)) == [
        "power spent",
        "Turn 1 · Power ends; Turn 1 · Impulse 1/3 begins.",
        "guns ready",
    ]
    assert (state.clock, state.ready) == (at_impulse(1), [])
    assert texts(game.advance(state, dice)) == [
        "Turn 1 · Impulse 1/3 ends; Turn 1 · Impulse 2/3 begins.",
        "guns ready",
    ]
    state.clock = Clock(turn=1, step="end")
    assert texts(game.advance(state, dice)) == [
        "turn over 3",
        "Turn 1 · End ends; Turn 2 · Power begins.",
        "new turn 5",
        "allocate",
    ]
    assert state.clock == Clock(turn=2, step="power")


def test_GEN_02_a_battle_ended_as_a_step_ends_begins_nothing_and_reveals_its_seed():
    """GEN-01's clock stops where a battle option ends the battle; the server's dice reveal their
    seed at the end (GEN-02), a physical-dice battle's do not."""
    asked: list[tuple[Clock, Clock]] = []

    def at_turn_two(state: BattleState, old: Clock, new: Clock) -> Event | None:
        asked.append((old, new))
        return Event(kind="ended", text="The turn limit is reached.") if new.turn == 2 else None

    toy = Ruleset(
        "toy",
        "Toy",
        hooks=(Hook("leave", "adjust", said("tidy up")), Hook("leave", "turn", said("turn over"))),
        ends=at_turn_two,
    )
    game = Game(TOY, [Ruleset("plain", "Plain"), toy])
    state = battle(game, "p-a", at=Clock(turn=1, step="end"))
    state.ready, state.ready_until = ["p-a"], {"p-a": 3}
    events = game.advance(state, ScriptedDice([]))
    assert texts(events) == [
        "tidy up",
        "turn over",
        "Turn 1 · End ends.",
        "The turn limit is reached. The dice seed is revealed.",
    ]
    assert events[-1].kind == "ended"
    assert asked == [(Clock(turn=1, step="end"), Clock(turn=2, step="power"))]
    assert (state.finished, state.ready, state.ready_until, state.clock) == (
        True,
        [],
        {},
        Clock(turn=1, step="end"),
    )
    physical = battle(game, "p-a", at=Clock(turn=1, step="end"))
    told = game.advance(physical, EnteredDice([]))
    assert told[-1].text == "The turn limit is reached."
    going_on = battle(game, "p-a")
    game.advance(going_on, ScriptedDice([]))
    assert (going_on.finished, going_on.clock) == (False, at_impulse(1))


def test_GEN_01_quiet_clock_lines_fold_into_one():
    lines = [
        Event(kind="clock", text="Turn 1 · Impulse 1/3 ends; Turn 1 · Impulse 2/3 begins."),
        Event(kind="clock", text="Turn 1 · Impulse 2/3 ends; Turn 1 · Impulse 3/3 begins."),
        Event(kind="clock", text="Turn 1 · Impulse 3/3 ends; Turn 1 · End begins."),
    ]
    folded = _folded(lines)
    assert [(e.kind, e.text, e.data) for e in folded] == [
        ("clock", "Turn 1 · Impulse 1/3 to Impulse 3/3 pass quietly; Turn 1 · End begins.", {"skipped": 3})
    ]
    assert _folded(lines[:1]) == lines[:1]
    assert _folded([]) == []


def test_GEN_01_a_step_label_prints_as_given_or_lower_case():
    label = _Label("Ship Power")
    assert f"{label}|{label:lower}|{label:>12}|{label:.4}" == "Ship Power|ship power|  Ship Power|Ship"


# --- readiness and the end of a step (GEN-01) --------------------------------------------------------


def test_GEN_01_done_marks_the_actor_and_the_last_one_ends_the_step():
    game = Game(TOY, [Ruleset("toy", "Toy", hooks=(Hook("enter", "fire", said("guns ready")),))])
    state = battle(game, "p-a", "p-b")
    dice = ScriptedDice([])
    events = game.mark_ready(state, P_A, dice)
    assert [(e.kind, e.text, e.data) for e in events] == [
        ("ready", "Done with Power.", {"participant": "p-a"})
    ]
    assert (state.ready, game.awaited(state)) == (["p-a"], ["p-b"])
    assert texts(game.mark_ready(state, P_B, dice)) == [
        "Done with Power.",
        "Everyone is done with Power.",
        "Turn 1 · Power ends; Turn 1 · Impulse 1/3 begins.",
        "guns ready",
    ]
    assert (state.clock, state.ready) == (at_impulse(1), [])


def test_GEN_01_an_actor_without_a_participant_id_is_marked_as_nobody():
    game = Game(TOY, [])
    state = battle(game, "p-a")
    game.mark_ready(state, Actor(None, "player"), ScriptedDice([]))
    assert state.ready == [""]
    assert game.ready_until(state, Actor(None, "player"), 2, ScriptedDice([]))[0].data == {
        "participant": "",
        "until": 2,
    }


def test_TR_04_a_ruleset_that_orders_the_step_says_what_done_means():
    """TR-04: where a ruleset orders the step, "done" is its own meaning (passing the acting ship);
    the first ruleset that answers decides, and no plain mark is made."""
    asked: list[tuple[str | None, str]] = []

    def pass_turn(state: BattleState, actor: Actor, step: Step, dice: Any) -> list[Event] | None:
        asked.append((actor.participant_id, step.key))
        roll = dice.die(6, "pass")
        return [Event(kind="passed", text=f"{actor.participant_id} passes in {state.clock.step} ({roll}).")]

    silent = Ruleset("silent", "Silent", on_ready=lambda state, actor, step, dice: None)
    first = Ruleset("first", "First", on_ready=pass_turn)
    second = Ruleset(
        "second", "Second", on_ready=lambda state, actor, step, dice: [Event(kind="x", text="no")]
    )
    game = Game(TOY, [Ruleset("plain", "Plain"), silent, first, second])
    state = battle(game, "p-a", "p-b")
    assert texts(game.mark_ready(state, P_A, ScriptedDice([4]))) == ["p-a passes in power (4)."]
    assert (asked, state.ready) == ([("p-a", "power")], [])


def test_GEN_01_done_until_a_later_impulse_or_the_last():
    game = Game(TOY, [])
    state = battle(game, "p-a", "p-b", at=at_impulse(1))
    dice = ScriptedDice([])
    events = game.ready_until(state, P_A, 3, dice)
    assert [(e.kind, e.text, e.data) for e in events] == [
        ("ready", "Done until impulse 3.", {"participant": "p-a", "until": 3})
    ]
    assert (state.ready, state.ready_until) == (["p-a"], {"p-a": 3})
    assert texts(game.ready_until(state, P_A, 4, dice)) == ["Done until the end of impulses."]
    assert (state.ready, state.ready_until) == (["p-a"], {"p-a": 4})  # marked once


def skips(game: Game, alpha_until: int, bravo_until: int) -> tuple[BattleState, list[Event]]:
    """At Impulse 1/3, p-a says done until `alpha_until`, then p-b until `bravo_until`: p-b's events."""
    state = battle(game, "p-a", "p-b", at=at_impulse(1))
    dice = ScriptedDice([])
    game.ready_until(state, P_A, alpha_until, dice)
    return state, game.ready_until(state, P_B, bravo_until, dice)


def test_GEN_01_skips_carry_everyone_through_quiet_impulses_folded_into_one_line():
    game = Game(TOY, [])
    state, events = skips(game, 3, 3)
    assert [(e.kind, e.text) for e in events] == [
        ("ready", "Done until impulse 3."),
        ("ready", "Everyone is done with Impulse 1/3."),
        ("clock", "Turn 1 · Impulse 1/3 to Impulse 2/3 pass quietly; Turn 1 · Impulse 3/3 begins."),
    ]
    assert events[-1].data == {"skipped": 2}
    assert (state.clock, state.ready, state.ready_until) == (at_impulse(3), [], {})
    assert game.awaited(state) == ["p-a", "p-b"]


def test_GEN_01_a_skip_short_of_the_others_stops_the_carry_there():
    game = Game(TOY, [])
    state, events = skips(game, 4, 2)
    assert texts(events)[-1] == "Turn 1 · Impulse 1/3 ends; Turn 1 · Impulse 2/3 begins."  # one: not folded
    assert (state.clock, state.ready, state.ready_until) == (at_impulse(2), ["p-a"], {"p-a": 4})
    assert game.awaited(state) == ["p-b"]


def test_GEN_01_something_besides_the_clock_happening_cancels_the_skips():
    """A repeat where something happens (a pain check, a reaction) stops the skips there."""

    def on_impulse_two(state: BattleState, dice: Any) -> list[Event]:
        return [Event(kind="pain", text="Pain rises.")] if state.clock.impulse == 2 else []

    game = Game(TOY, [Ruleset("toy", "Toy", hooks=(Hook("enter", "fire", on_impulse_two),))])
    state, events = skips(game, 4, 4)
    assert texts(events) == [
        "Done until the end of impulses.",
        "Everyone is done with Impulse 1/3.",
        "Turn 1 · Impulse 1/3 ends; Turn 1 · Impulse 2/3 begins.",
        "Pain rises.",
    ]
    assert (state.clock, state.ready, state.ready_until) == (at_impulse(2), [], {})


def test_GEN_01_quiet_repeats_before_an_eventful_one_are_told_in_full():
    def on_impulse_three(state: BattleState, dice: Any) -> list[Event]:
        return [Event(kind="pain", text="Pain rises.")] if state.clock.impulse == 3 else []

    game = Game(TOY, [Ruleset("toy", "Toy", hooks=(Hook("enter", "fire", on_impulse_three),))])
    state = battle(game, "p-a", at=at_impulse(1))
    events = game.ready_until(state, P_A, 4, ScriptedDice([]))
    assert texts(events) == [
        "Done until the end of impulses.",
        "Everyone is done with Impulse 1/3.",
        "Turn 1 · Impulse 1/3 ends; Turn 1 · Impulse 2/3 begins.",
        "Turn 1 · Impulse 2/3 ends; Turn 1 · Impulse 3/3 begins.",
        "Pain rises.",
    ]


def test_GEN_01_a_skip_ends_at_a_step_that_does_not_repeat():
    game = Game(TOY, [])
    state = battle(game, "p-a", at=at_impulse(3))
    events = game.ready_until(state, P_A, 9, ScriptedDice([]))
    assert texts(events)[-1] == "Turn 1 · Impulse 3/3 ends; Turn 1 · End begins."
    assert (state.clock, state.ready, state.ready_until) == (Clock(turn=1, step="end"), [], {})
    broken = battle(game, "p-a", at=Clock(turn=1, step="impulse"))  # a repeating step without its count
    broken.ready_until = {"p-a": 9}
    game._carry(broken)
    assert (broken.ready, broken.ready_until) == ([], {})


def test_GEN_01_the_clock_does_not_run_by_itself():
    """Nobody commands a ship still fighting, or the battle is over: done ends nothing."""
    game = Game(TOY, [])
    unowned = battle(game, None, None)
    assert game.mark_ready(unowned, REF, ScriptedDice([]))[-1].text == "Done with Power."
    assert unowned.clock == Clock(turn=1, step="power")
    wrecked = battle(game, "p-a")
    wrecked.ships["alpha"].destroyed = True
    game.mark_ready(wrecked, P_A, ScriptedDice([]))
    assert wrecked.clock == Clock(turn=1, step="power")
    over = battle(game, "p-a")
    over.finished = True
    assert texts(game.mark_ready(over, P_A, ScriptedDice([]))) == ["Done with Power."]
    assert over.clock == Clock(turn=1, step="power")


# --- a step's end waiting for another commander's die (GEN-02) ---------------------------------------


def two_dice(state: BattleState, dice: Any) -> list[Event]:
    """On entering an impulse: a d6 for Alpha, then a d6 for Bravo."""
    first, second = dice.die(6, "alpha's check", "alpha"), dice.die(6, "bravo's check", "bravo")
    return [Event(kind="check", text=f"rolled {first} and {second}")]


def test_GEN_02_a_die_for_another_commanders_ship_makes_the_end_wait_and_leaves_no_trace():
    game = Game(TOY, [Ruleset("toy", "Toy", hooks=(Hook("enter", "fire", two_dice),))])
    state = battle(game, "p-a", "p-b")
    state.ready = ["p-b"]
    events = game.end_step(state, EnteredDice([4]), P_A)
    assert [(e.kind, e.ship, e.text, e.data) for e in events] == [
        (
            "rolling",
            "bravo",
            "Turn 1 · Power ends once Bravo's commander (or the referee) enters 1d6 for bravo's check.",
            {"sides": 6, "purpose": "bravo's check"},
        )
    ]
    assert state.rolling == PendingRoll(ship="bravo", sides=6, purpose="bravo's check", dice=[4])
    assert (state.clock, state.ready) == (Clock(turn=1, step="power"), ["p-b"])
    assert game.awaited(state) == ["p-b"]
    events = game.end_step(state, EnteredDice([5]), P_B)
    assert texts(events) == ["Turn 1 · Power ends; Turn 1 · Impulse 1/3 begins.", "rolled 4 and 5"]
    assert (state.clock, state.rolling, state.ready) == (at_impulse(1), None, [])


def test_GEN_02_a_die_for_a_ship_gone_from_the_battle_is_asked_by_its_id():
    def for_a_stranger(state: BattleState, dice: Any) -> list[Event]:
        dice.die(20, "salvage", "hulk")
        return []

    game = Game(TOY, [Ruleset("toy", "Toy", hooks=(Hook("enter", "fire", for_a_stranger),))])
    state = battle(game, "p-a")
    events = game.end_step(state, EnteredDice([]), P_A)
    assert (
        events[0].text
        == "Turn 1 · Power ends once hulk's commander (or the referee) enters 1d20 for salvage."
    )
    assert game.awaited(state) == [REFEREE_SEAT]
    assert game.waiting_for(state) == "dice for hulk: 1d20 for salvage"


def test_GEN_02_a_die_entered_for_another_commanders_ship_is_refused_naming_the_ship():
    game = Game(TOY, [Ruleset("toy", "Toy", hooks=(Hook("enter", "fire", two_dice),))])
    state = battle(game, "p-a", "p-b")
    with pytest.raises(RuleError) as err:
        game.end_step(state, EnteredDice([4, 5]), P_A)
    assert (err.value.field, err.value.message) == (
        "dice",
        "the die for bravo's check is rolled for Bravo by its commander or the referee;"
        " enter only the dice of your own ships",
    )
    assert (state.clock, state.rolling) == (Clock(turn=1, step="power"), None)
    del state.ships["bravo"]  # a die for a ship no longer in the battle is named by its id
    with pytest.raises(RuleError, match="is rolled for bravo by its commander"):
        game.end_step(state, EnteredDice([4, 5]), P_A)


def test_GEN_02_the_servers_dice_roll_every_die_at_once():
    game = Game(TOY, [Ruleset("toy", "Toy", hooks=(Hook("enter", "fire", two_dice),))])
    state = battle(game, "p-a", "p-b")
    assert texts(game.end_step(state, ScriptedDice([2, 6]), P_A))[-1] == "rolled 2 and 6"
    assert (state.clock, state.rolling) == (at_impulse(1), None)


# --- who the step waits on ---------------------------------------------------------------------------


def test_GEN_01_every_commander_of_a_ship_still_fighting_once_in_ship_order_less_those_done():
    game = Game(
        TOY, [Ruleset("warp", "Warp", gone=lambda ship: "warped out" if ship.id == "charlie" else None)]
    )
    state = battle(game, "p-b", None, "p-c")
    state.ships["delta"] = Ship(id="delta", name="Delta", owner="p-a", system="toy")
    state.ships["echo"] = Ship(id="echo", name="Echo", owner="p-b", system="toy")
    assert game.awaited(state) == ["p-b", "p-a"]  # alpha (p-b), bravo (nobody), charlie gone, delta
    assert game.later(state) == []
    assert game.waiting_for(state) is None
    state.ready = ["p-b"]
    assert game.awaited(state) == ["p-a"]
    assert game.waits_on(state, "p-a", referee=False) is True
    assert game.waits_on(state, "p-b", referee=True) is False
    assert game.waits_on(state, None, referee=True) is False


def test_TR_04_a_ruleset_names_the_ships_whose_turn_it_is_and_who_comes_later():
    """TR-04: ships act in the ruleset's order; the step waits on the commanders of the ships it
    names now, and those of the ships further down the order come later, once each."""
    seen: list[str] = []

    def acting(state: BattleState, step: Step) -> frozenset[str] | None:
        seen.append(step.key)
        return frozenset({"bravo", "ghost"}) if step.key == "impulse" else None

    def order(state: BattleState, step: Step) -> list[str] | None:
        return (
            ["bravo", "ghost", "charlie", "alpha", "delta"]
            if state.clock.step == step.key == "impulse"
            else None
        )

    game = Game(
        TOY,
        [
            Ruleset("plain", "Plain"),
            Ruleset("none", "None", acting=lambda state, step: None, turn_order=lambda state, step: None),
            Ruleset("toy", "Toy", acting=acting, turn_order=order),
            Ruleset(
                "late", "Late", acting=lambda s, st: frozenset({"alpha"}), turn_order=lambda s, st: ["alpha"]
            ),
        ],
    )
    state = battle(game, "p-a", "p-b", "p-c", at=at_impulse(1))
    state.ships["delta"] = Ship(id="delta", name="Delta", owner="p-a", system="toy")
    assert game.acting(state) == frozenset({"bravo", "ghost"})
    assert game.turn_order(state) == ["bravo", "ghost", "charlie", "alpha", "delta"]
    assert game.awaited(state) == ["p-b"]
    assert game.later(state) == ["p-c", "p-a"]
    state.ready = ["p-c"]
    assert game.later(state) == ["p-a"]
    state.ready = ["p-b"]
    assert game.awaited(state) == []
    assert game.later(state) == ["p-c", "p-a"]
    assert seen[0] == "impulse"
    power = battle(game, "p-a", at=Clock(turn=1, step="power"))
    assert game.acting(power) == frozenset({"alpha"})
    assert game.turn_order(power) == ["alpha"]


def test_TR_03_while_the_referee_must_act_first_every_commander_comes_later():
    """TR-03: the referee rolls the engagement's initiative before anyone else acts."""

    def due(state: BattleState, step: Step) -> str | None:
        return "roll initiative for the engagement (TR-03)" if step.key == "power" else None

    game = Game(
        TOY,
        [
            Ruleset("plain", "Plain"),
            Ruleset("blank", "Blank", referee_due=lambda state, step: ""),
            Ruleset("toy", "Toy", referee_due=due),
            Ruleset("late", "Late", referee_due=lambda state, step: "not this one"),
        ],
    )
    state = battle(game, "p-b", "p-a", "p-b")
    state.ships["delta"] = Ship(id="delta", name="Delta", owner="p-c", system="toy", destroyed=True)
    assert game.referee_due(state) == "roll initiative for the engagement (TR-03)"
    assert game.awaited(state) == [REFEREE_SEAT]
    assert game.waiting_for(state) == "roll initiative for the engagement (TR-03)"
    assert game.later(state) == ["p-b", "p-a"]
    assert game.waits_on(state, "r-1", referee=True) is True
    assert game.seats(game.awaited(state), ["r-1", "r-2"]) == ["r-1", "r-2"]


def test_GEN_02_a_pending_die_is_awaited_from_its_ships_commander_or_the_referee():
    game = Game(TOY, [])
    state = battle(game, "p-a", None)
    state.rolling = PendingRoll(ship="alpha", sides=6, purpose="pain")
    assert (game.awaited(state), game.waiting_for(state)) == (["p-a"], "dice for Alpha: 1d6 for pain")
    state.rolling = PendingRoll(ship="bravo", sides=100, purpose="nacelle")
    assert (game.awaited(state), game.waiting_for(state)) == (
        [REFEREE_SEAT],
        "dice for Bravo: 1d100 for nacelle",
    )


# --- the gate ----------------------------------------------------------------------------------------


def ship_game(*actions: ActionSpec, **fields: Any) -> Game:
    return Game(TOY, [Ruleset("toy", "Toy", actions=actions, **fields)])


def refusal(game: Game, state: BattleState, spec: ActionSpec, actor: Actor, ship: str | None, **payload: Any):
    with pytest.raises(RuleError) as err:
        game.gate(state, spec, actor, ship, Shot(ship=ship or "alpha", **payload) if payload else None)
    return type(err.value).__name__, err.value.field, err.value.message


def test_GEN_03_an_unknown_action_and_a_bad_payload_are_named_on_their_fields():
    spec = act("fire", ship="ship")
    game = ship_game(spec)
    assert game.spec("fire") is spec
    with pytest.raises(RuleError) as err:
        game.spec("warp")
    assert (err.value.field, err.value.message) == ("type", "unknown action 'warp'")
    assert game.parse(spec, {"ship": "alpha", "amount": 2}) == Shot(ship="alpha", amount=2)
    with pytest.raises(RuleError) as err:
        game.parse(spec, {"ship": "alpha", "amount": 0})
    assert (err.value.field, err.value.message) == ("amount", "amount: must be at least 1 (you sent 0)")


def test_GEN_04_who_may_act_at_all():
    spec = act("fire", summary="Fire The Guns", referee_only=True)
    game = ship_game(spec)
    state = battle(game, "p-a")
    assert refusal(game, state, spec, P_A, None) == ("NotAllowed", None, "only the referee may fire the guns")
    assert refusal(game, state, spec, Actor("s-1", "spectator"), None) == (
        "NotAllowed",
        None,
        "spectators watch; they cannot act",
    )
    game.gate(state, spec, REF)
    state.finished = True
    assert refusal(game, state, spec, REF, None) == ("RuleError", "battle", "the battle has ended")


def test_GEN_04_the_acting_ship_is_commanded_and_still_fighting():
    spec = act("fire", ship="ship")
    game = ship_game(spec, gone=lambda ship: f"{ship.name} has warped out" if ship.id == "bravo" else None)
    state = battle(game, "p-a", "p-b", "p-a")
    state.ships["charlie"].destroyed = True
    assert refusal(game, state, spec, P_A, "bravo") == ("NotAllowed", "ship", "you do not command that ship")
    assert refusal(game, state, spec, REF, "bravo") == ("RuleError", "ship", "Bravo has warped out")
    assert refusal(game, state, spec, Actor("p-a", "player", frozenset({"charlie"})), "charlie") == (
        "RuleError",
        "ship",
        "Charlie is destroyed and takes no further actions (GEN-04)",
    )
    assert refusal(game, state, spec, REF, "zulu") == ("RuleError", "ship", "no ship 'zulu' in this battle")
    game.gate(state, spec, P_A, "alpha")
    game.gate(state, spec, P_A, None)  # no ship named yet: the ship's checks wait for one
    unshipped = act("note")
    game.gate(state, unshipped, P_A, "bravo")  # an action for no ship asks nothing of one


def test_GEN_04_other_ships_an_action_names_must_still_be_fighting():
    spec = act("fire", ship="ship", active=("target",))
    game = ship_game(spec)
    state = battle(game, "p-a", "p-b")
    state.ships["bravo"].destroyed = True
    assert refusal(game, state, spec, P_A, "alpha", target="bravo") == (
        "RuleError",
        "target",
        "Bravo is destroyed and takes no further actions (GEN-04)",
    )
    assert refusal(game, state, spec, P_A, "alpha", target="zulu") == (
        "RuleError",
        "target",
        "no ship 'zulu' in this battle",
    )
    game.gate(state, spec, P_A, "alpha", Shot(ship="alpha"))  # no target named


def test_GEN_01_an_action_outside_its_moments_is_refused_naming_the_steps():
    fire = act("fire", ship="ship", during=frozenset({"fire", "adjust"}))
    game = ship_game(fire)
    state = battle(game, "p-a")
    assert refusal(game, state, fire, P_A, "alpha") == (
        "RuleError",
        None,
        "Fire the guns happens in the End or Impulse step; it is now Power",
    )
    state.clock = at_impulse(2)
    game.gate(state, fire, P_A, "alpha")
    state.clock = Clock(turn=1, step="end")
    game.gate(state, fire, P_A, "alpha")


def test_GEN_01_a_moment_an_action_never_belongs_to_and_the_refusals_own_words():
    never = act(
        "plot",
        not_during=frozenset({"fire"}),
        outside="{action} waits: not in {now:lower} ({step}); fire is {fire:lower}",
        outside_field="plot",
    )
    game = ship_game(never)
    state = battle(game, "p-a", at=at_impulse(2))
    assert refusal(game, state, never, P_A, None) == (
        "RuleError",
        "plot",
        "Fire the guns waits: not in impulse 2/3 (another); fire is impulse",
    )
    state.clock = Clock(turn=1, step="end")
    game.gate(state, never, P_A)
    both = act("both", during=frozenset({"fire"}), not_during=frozenset({"impulse_end"}))
    with pytest.raises(RuleError):
        ship_game(both).gate(battle(game, at=at_impulse(1)), both, P_A)


def test_GEN_01_the_referee_may_act_anytime_only_where_the_action_says_so():
    anytime = act("fix", during=frozenset({"adjust"}), referee_anytime=True)
    strict = act("fix2", during=frozenset({"adjust"}))
    game = ship_game(anytime, strict)
    state = battle(game, "p-a")
    game.gate(state, anytime, REF)
    with pytest.raises(RuleError):
        game.gate(state, anytime, P_A)
    with pytest.raises(RuleError):
        game.gate(state, strict, REF)


def test_TR_04_a_ship_out_of_its_turn_is_refused_on_the_ship_field():
    def wait(state: BattleState, ship: Ship) -> str | None:
        return f"{ship.name} waits for its turn (TR-04)" if ship.id == "bravo" else None

    in_turn = act("attack", ship="attacker", in_turn=True)
    anytime = act("scan", ship="attacker")
    game = Game(
        TOY,
        [
            Ruleset("plain", "Plain"),
            Ruleset("blank", "Blank", out_of_turn=lambda state, ship: ""),
            Ruleset("toy", "Toy", actions=(in_turn, anytime), out_of_turn=wait),
        ],
    )
    state = battle(game, "p-a", "p-b")
    assert refusal(game, state, in_turn, REF, "bravo") == (
        "RuleError",
        "attacker",
        "Bravo waits for its turn (TR-04)",
    )
    game.gate(state, in_turn, REF, "alpha")
    game.gate(state, anytime, REF, "bravo")
    game.gate(state, in_turn, REF, None)


def test_GEN_04_an_actions_permit_and_the_ships_fit():
    def permit(state: BattleState, actor: Actor) -> str | None:
        return "not before the battle's second turn" if state.clock.turn < 2 else None

    def fits(state: BattleState, ship: Ship) -> str | None:
        return f"{ship.name} has no cloaking device" if ship.id == "bravo" else ""

    cloak = act("cloak", ship="ship", fits=fits)
    gated = act("late", permit=permit)
    game = ship_game(cloak, gated)
    state = battle(game, "p-a", "p-b")
    assert refusal(game, state, gated, P_A, None) == (
        "NotAllowed",
        None,
        "not before the battle's second turn",
    )
    assert refusal(game, state, cloak, REF, "bravo") == ("RuleError", "ship", "Bravo has no cloaking device")
    game.gate(state, cloak, REF, "alpha")
    game.gate(state, cloak, REF, None)
    state.clock = Clock(turn=2, step="power")
    game.gate(state, gated, P_A)


def test_GEN_04_offers_are_what_the_gate_admits_for_each_ship_in_ship_order():
    fire = act("fire", ship="ship", summary="Fire")
    note = act("note", summary="Write a note")
    referee = act("rule", summary="Rule", referee_only=True)
    cloak = act("cloak", ship="ship", summary="Cloak", fits=lambda state, ship: "no device")
    game = ship_game(fire, note, referee, cloak)
    state = battle(game, "p-a", "p-b", "p-a")
    assert game.offers(state, P_A) == [Offer("fire", "Fire", ("alpha",)), Offer("note", "Write a note")]
    pa = Actor("p-a", "player", frozenset({"charlie", "alpha"}))
    assert game.offers(state, pa)[0] == Offer("fire", "Fire", ("alpha", "charlie"))
    assert [o.action for o in game.offers(state, REF)] == ["fire", "note", "rule"]
    assert game.offers(state, REF)[0].ships == ("alpha", "bravo", "charlie")
    assert game.offers(state, Actor("s", "spectator")) == []


# --- ship data and what others see -------------------------------------------------------------------


class Cloak(BaseModel):
    active: bool = False
    signature: int = 3


class Sensor(BaseModel):
    arc: tuple[int, int] = (0, 90)


def test_GEN_03_ship_parts_are_checked_and_stored_in_their_full_shape():
    parts = (PartSpec("cloak", Cloak), PartSpec("shot", Shot), PartSpec("sensor", Sensor))
    game = Game(TOY, [Ruleset("toy", "Toy", parts=parts)])
    assert game.validate_parts({"cloak": {"active": True}}) == {"cloak": {"active": True, "signature": 3}}
    assert game.validate_parts({"sensor": {}}) == {"sensor": {"arc": [0, 90]}}  # stored as JSON: a list
    with pytest.raises(RuleError) as err:
        game.validate_parts({"cloak": {}, "pain": {}})
    assert (err.value.field, err.value.message) == (
        "parts.pain",
        "unknown ship part 'pain'; known: cloak, sensor, shot",
    )


def hide_when_cloaked(ship: Ship) -> bool:
    return bool((ship.parts.get("cloak") or {}).get("active"))


def test_ST_22_a_cloaked_ships_place_and_private_parts_are_kept_from_others():
    """ST-22: a cloaked ship's counter leaves the board for everyone but its owner; parts show others
    only what their public view gives (None: nothing), unknown parts as stored."""
    parts = (
        PartSpec(
            "cloak",
            Cloak,
            public_view=lambda value, ship: {"active": value["active"]},
            hides_position=hide_when_cloaked,
        ),
        PartSpec("secret", Cloak, public_view=lambda value, ship: None),
        PartSpec("plain", Cloak),
        PartSpec("other", Cloak, hides_position=lambda ship: False),
    )
    game = Game(TOY, [Ruleset("toy", "Toy", parts=parts)])
    ship = Ship(
        id="k",
        name="Kestrel",
        system="toy",
        position={"hex": "0405", "facing": 1},
        parts={
            "cloak": {"active": True, "signature": 3},
            "secret": {"active": False, "signature": 9},
            "plain": {"active": False, "signature": 2},
            "stray": {"x": 1},
        },
    )
    shown = game.public_ship(ship)
    assert shown["position"] is None
    assert shown["parts"] == {
        "cloak": {"active": True},
        "plain": {"active": False, "signature": 2},
        "stray": {"x": 1},
    }
    assert (shown["id"], shown["name"], shown["owner"]) == ("k", "Kestrel", None)
    assert ship.position == {"hex": "0405", "facing": 1}  # the ship itself is untouched
    ship.parts["cloak"]["active"] = False
    assert game.position_hidden(ship) is False
    assert game.public_ship(ship)["position"] == {"hex": "0405", "facing": 1}
    carried = Ship(id="c", name="C", system="toy", parts={"plain": {}}, position={"hex": "0101", "facing": 1})
    uncloaked = Game(
        TOY, [Ruleset("toy", "Toy", parts=(PartSpec("cloak", Cloak, hides_position=lambda s: True),))]
    )
    assert uncloaked.position_hidden(carried) is False  # a part the ship does not carry hides nothing


def test_GEN_01_a_parts_template_values_come_from_its_display():
    seen: list[tuple[Any, ...]] = []

    def display(shown: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
        seen.append((shown, ship.id, state.system))
        return {"boxes": shown["signature"] * 2}

    game = Game(
        TOY,
        [Ruleset("toy", "Toy", parts=(PartSpec("cloak", Cloak, display=display), PartSpec("plain", Cloak)))],
    )
    state = battle(game, "p-a")
    ship = state.ships["alpha"]
    assert game.display(state, ship, "cloak", {"signature": 4}) == {"boxes": 8}
    assert seen == [({"signature": 4}, "alpha", "toy")]
    assert game.display(state, ship, "plain", {"signature": 4}) == {}
    assert game.display(state, ship, "stray", {"signature": 4}) == {}


def test_GEN_01_a_range_board_only_where_the_system_has_range_bands():
    bands = GameSystem("bands", "Band Battles", (POWER,), frozenset({"toy"}), ("toy",), board="range_bands")
    board = Ruleset("toy", "Toy", range_board=lambda state: {"bands": ["Close", "Long"]})
    later = Ruleset("later", "Later", range_board=lambda state: {"bands": []})
    game = Game(bands, [Ruleset("plain", "Plain"), board, later])
    assert game.range_board(game.new_battle()) == {"bands": ["Close", "Long"]}
    assert Game(bands, [Ruleset("plain", "Plain")]).range_board(game.new_battle()) is None
    on_hexes = Game(TOY, [board])
    assert on_hexes.range_board(on_hexes.new_battle()) is None


def test_GEN_03_damage_stages_run_in_ruleset_order():
    def stage(name: str) -> Any:
        return lambda context: name

    a, b, c, d = stage("a"), stage("b"), stage("c"), stage("d")
    game = Game(
        TOY,
        [
            Ruleset("one", "One", damage_filters=(a, b), damage_listeners=(c,)),
            Ruleset("two", "Two", damage_filters=(d,), damage_listeners=(b, a)),
        ],
    )
    assert game.damage_filters() == [a, b, d]
    assert game.damage_listeners() == [c, b, a]


def test_ST_21_fire_comes_from_the_direction_the_first_ruleset_reads():
    """ST-21/ST-05: a ruleset whose parts read the direction of fire (the shield projection) answers;
    one that has no answer leaves it to the next."""
    asked: list[tuple[str, float]] = []

    def projection(state: BattleState, ship: Ship, bearing: float) -> str | None:
        asked.append((ship.id, bearing))
        return "aft projection" if bearing > 90 else None

    game = Game(
        TOY,
        [
            Ruleset("plain", "Plain"),
            Ruleset("blank", "Blank", map_direction=lambda state, ship, bearing: ""),
            Ruleset("shields", "Shields", map_direction=projection),
            Ruleset("late", "Late", map_direction=lambda state, ship, bearing: "late"),
        ],
    )
    state = battle(game, "p-a")
    assert game.map_direction(state, state.ships["alpha"], 180.0) == "aft projection"
    assert game.map_direction(state, state.ships["alpha"], 10.0) == "late"
    assert asked == [("alpha", 180.0), ("alpha", 10.0)]
    assert Game(TOY, []).map_direction(state, state.ships["alpha"], 10.0) is None


def test_GEN_04_a_ship_gone_says_why_in_the_first_rulesets_words():
    game = Game(
        TOY,
        [
            Ruleset("plain", "Plain"),
            Ruleset("blank", "Blank", gone=lambda ship: ""),
            Ruleset("warp", "Warp", gone=lambda ship: f"{ship.name} went to warp (ST-17)"),
            Ruleset("jump", "Jump", gone=lambda ship: "jumped"),
        ],
    )
    ship = Ship(id="e", name="Excelsior", system="toy")
    assert game.gone(ship) == "Excelsior went to warp (ST-17)"
    ship.destroyed = True
    assert game.gone(ship) == "Excelsior is destroyed and takes no further actions (GEN-04)"
    assert (
        Game(TOY, [Ruleset("blank", "Blank", gone=lambda ship: "")]).gone(
            Ship(id="x", name="X", system="toy")
        )
        is None
    )


# --- commuting changes -------------------------------------------------------------------------------


def test_GEN_03_two_entries_commute_unless_a_part_of_their_ships_reads_their_order():
    """GEN-03's entered damage on one ship commutes (simultaneous fire), unless a part of a ship both
    name reads the order of such entries (the Shadow's first largest source, SH-09)."""
    pain = PartSpec("pain", Cloak, ordered=("damage",))
    sheet = PartSpec("sheet", Cloak, ordered=("repair",))
    game = Game(
        TOY,
        [
            Ruleset(
                "toy",
                "Toy",
                parts=(pain, sheet),
                actions=(
                    act("hit", commutes="damage"),
                    act("hit2", commutes="damage"),
                    act("fix", commutes="repair"),
                    act("note"),
                ),
            )
        ],
    )
    state = battle(game, "p-a", "p-b")
    state.ships["alpha"].parts = {"sheet": {}, "stray": {}}
    state.ships["bravo"].parts = {"pain": {}}
    assert game.commute(state, "hit", "hit2", ["alpha"]) is True
    assert game.commute(state, "hit", "hit", []) is True
    assert game.commute(state, "hit", "hit2", ["alpha", "bravo"]) is False
    assert game.commute(state, "fix", "fix", ["bravo"]) is True
    assert game.commute(state, "fix", "fix", ["alpha"]) is False
    assert game.commute(state, "hit", "fix", ["bravo"]) is False
    assert game.commute(state, "note", "note", ["alpha"]) is False
    assert game.commute(state, "hit", "warp", ["alpha"]) is False
    assert game.commute(state, "warp", "hit", ["alpha"]) is False
    assert game.commute(state, "hit", "hit", ["alpha", "zulu"]) is False
