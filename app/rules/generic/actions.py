"""Actions every battle has: advancing the turn clock, referee set-up and overrides, ending."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.rules.core import Actor, Event, NoPayload, RuleError, ShipRef, Visibility
from app.rules.dice import DiceSource, end_told
from app.rules.generic.ending import DRAW, sides_of
from app.rules.messages import first_error
from app.rules.overrides import choice_at
from app.rules.ruleset import action, mark
from app.rules.state import BattleState, Ship


class AdvanceClock(BaseModel):
    """Move to the next step of the turn sequence; the steps' hooks run (pain checks, regeneration…)."""

    expect_step: str | None = Field(default=None, description="refuse if the clock is not at this step")
    reason: str = Field(default="", max_length=300, description="why, when someone is still pending")


# players_advance_clock: "when_done" (default): a commander may end a step only when nobody else is
# pending; "always": any commander at any time (a table that talks in person); False/"never": only
# the referee. The referee may always end a step; the log names who was still pending.
CLOCK_MODES = ("when_done", "always", "never")


def _ending(state: BattleState) -> str:
    """Why nothing but the dice goes while a step's end waits for a commander's die (GEN-02)."""
    return (
        f"the step is ending and waits only for the {state.game.waiting_for(state)},"
        " entered by the ship's commander or the referee"
    )


def clock_mode(state: BattleState) -> str:
    mode = state.options.get("players_advance_clock", "when_done")
    if mode is True:
        return "always"
    if mode is False:
        return "never"
    return mode if mode in CLOCK_MODES else "when_done"


def may_advance(state: BattleState, actor: Actor) -> str | None:
    """The referee always; a commander as the battle's clock option allows. Not while the step's
    end waits for a die: entering it (`step.roll`) ends the step."""
    if state.rolling is not None:
        return _ending(state)
    if actor.is_referee:
        return None
    mode = clock_mode(state)
    if mode == "never":
        return "only the referee advances the turn clock in this battle"
    if not actor.ships:
        return "only the referee or a ship's commander may advance the clock"
    due = state.game.referee_due(state)
    if mode == "when_done" and due:
        return f"the step waits on the referee: {due}"
    others = [p for p in state.game.awaited(state) if p != actor.participant_id]
    if mode == "when_done" and others:
        n = len(others)
        return f"{n} other commander{'s are' if n > 1 else ' is'} not done with this step yet; wait, or ask the referee"
    return None


def advance_clock(state: BattleState, payload: AdvanceClock, actor: Actor, dice: DiceSource) -> list[Event]:
    """GEN-01: end the current step now (refused once the clock has left `expect_step`); the clock
    line names whoever was still pending and the reason given."""
    if payload.expect_step and payload.expect_step != state.clock.step:
        raise RuleError(f"the clock is at {state.clock.step}, not {payload.expect_step}", "expect_step")
    pending = [p for p in state.game.awaited(state) if p != actor.participant_id]
    events = state.game.end_step(state, dice, actor)
    if pending:
        # Who was still pending, and why the step ended anyway: kept on the clock line (or the line
        # saying the end waits for a commander's die), which the log shows with the names.
        clock = next(e for e in events if e.kind in ("clock", "rolling"))
        clock.data.update({"pending": pending, "reason": payload.reason})
    return events


mark(advance_clock, action("clock.advance", AdvanceClock, "Advance the turn clock", permit=may_advance))


class SkipAhead(BaseModel):
    """Pass quiet repeats of a step (SFB impulses) at once; every hook still fires on the way."""

    to: int | None = Field(
        default=None, ge=1, le=1000, description="the repeat to stop at (impulse N); none: on past the last"
    )


def may_skip(state: BattleState, actor: Actor) -> str | None:
    """Who may skip: as who may move the clock, except that under readiness a commander may skip
    while others are pending — it then means "done until then" (standing readiness)."""
    reason = may_advance(state, actor)
    if state.rolling is not None:
        return reason
    if reason and clock_mode(state) == "when_done" and actor.participant_id in state.game.awaited(state):
        return None
    return reason


def skip_ahead(state: BattleState, payload: SkipAhead, actor: Actor, dice: DiceSource) -> list[Event]:
    """Pass the step's repeats up to `to` (or past the last), stopping early after any repeat where
    something happened besides the clock (a pain check, a reaction, an obligation). Under readiness
    a commander's skip is "done until then": the repeats pass once nobody else is pending."""
    game = state.game
    step = game.step(state.clock)
    if not step.repeats or state.clock.impulse is None:
        raise RuleError(f"{step.label} has no numbered repeats to skip", "to")
    last = step.repeats + 1 if payload.to is None else payload.to  # none: on into the next step
    if payload.to is not None and not state.clock.impulse < last <= step.repeats:
        raise RuleError(
            f"stop at a later {step.label.lower()}: {state.clock.impulse + 1} to {step.repeats}", "to"
        )
    if not actor.is_referee and clock_mode(state) == "when_done":
        return game.ready_until(state, actor, last, dice)
    first = state.clock.impulse
    events: list[Event] = []
    while state.clock.step == step.key and state.clock.impulse is not None and state.clock.impulse < last:
        happened = game.end_step(state, dice, actor)
        events.extend(happened)
        if any(e.kind != "clock" for e in happened):
            break
    return _fold_quiet(events, step.label, first)


mark(skip_ahead, action("clock.skip", SkipAhead, "Skip quiet impulses", permit=may_skip))


def _fold_quiet(events: list[Event], label: str, first: int) -> list[Event]:
    """A run of clock-only lines becomes one: "Impulses 3–17 pass quietly"."""
    quiet = [e for e in events if e.kind == "clock"]
    if len(quiet) < 2 or len(quiet) != len(events):
        return events
    last = first + len(quiet) - 1
    begins = quiet[-1].text.split("; ")[-1]
    return [
        Event(
            kind="clock", text=f"{label}s {first}–{last} pass quietly; {begins}", data={"skipped": len(quiet)}
        )
    ]


def ready(state: BattleState, payload: NoPayload, actor: Actor, dice: DiceSource) -> list[Event]:
    """The readiness handshake: the actor is done; the step ends by itself when nobody is pending."""
    return state.game.mark_ready(state, actor, dice)


mark(ready, action("step.ready", NoPayload, "Done with this step", permit=lambda s, a: _may_ready(s, a)))


def _may_ready(state: BattleState, actor: Actor) -> str | None:
    if state.rolling is not None:
        return _ending(state)
    due = state.game.referee_due(state)
    if due:  # the referee's part is the deed itself; nobody else has anything to be done with yet
        if actor.is_referee:
            return f"{due}, or advance the clock to play on without it"
        return f"the step waits on the referee: {due}"
    if actor.participant_id not in state.game.awaited(state):
        return "the step is not waiting on you"
    return None


def unready(state: BattleState, payload: NoPayload, actor: Actor, dice: DiceSource) -> list[Event]:
    """Take back "done" until the step ends."""
    state.ready.remove(actor.participant_id or "")
    return [
        Event(
            kind="ready",
            text="Not done with this step after all.",
            data={"participant": actor.participant_id},
        )
    ]


mark(unready, action("step.unready", NoPayload, "Not done after all", permit=lambda s, a: _may_unready(s, a)))


def _may_unready(state: BattleState, actor: Actor) -> str | None:
    if state.rolling is not None:
        return _ending(state)
    if actor.participant_id not in state.ready:
        return "you have not said you are done with this step"
    return None


def roll_for_step(state: BattleState, payload: NoPayload, actor: Actor, dice: DiceSource) -> list[Event]:
    """GEN-02 physical dice: the die (and those after it) a step's end waits for, entered by the
    commander of the ship it is rolled for, or the referee; the step then ends as it would have."""
    game = state.game
    events = game.end_step(state, dice, actor)
    if state.rolling is None:
        state.ready_until.clear()  # something happened at the end: standing skips stop here
        events += game.settle(state, dice, actor)
    return events


mark(
    roll_for_step,
    action(
        "step.roll", NoPayload, "Enter the dice the step's end waits for", permit=lambda s, a: _may_roll(s, a)
    ),
)


def _may_roll(state: BattleState, actor: Actor) -> str | None:
    pending = state.rolling
    if pending is None:
        return "no step's end waits for dice"
    if not actor.commands(pending.ship):
        ship = state.ships.get(pending.ship)
        return f"the dice for {ship.name if ship else pending.ship} are its commander's to enter, or the referee's"
    return None


class ShipDefinition(BaseModel):
    """A ship as the library or a referee's JSON gives it."""

    name: str = Field(min_length=1, max_length=80)
    klass: str = Field(default="", max_length=80)
    system: str
    side: str = Field(default="", max_length=40)
    sample: bool = False
    parts: dict[str, Any] = Field(default_factory=dict)


class Position(BaseModel):
    """Where a ship is, as the forms ask it: hex (four digits, column then row), facing (hex side 1–6,
    as printed on the form; stored as given, never 0–5) and speed. Other keys (x, y, heading) are
    kept as sent."""

    model_config = ConfigDict(extra="allow")

    hex: str | None = Field(
        default=None,
        max_length=4,
        pattern=r"^[0-9]{4}$",
        description="four digits, column then row (e.g. 0405)",
    )
    facing: int | None = Field(default=None, ge=1, le=6, description="hex side 1–6")
    speed: int | None = Field(default=None, ge=0, le=99)

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class AddShip(BaseModel):
    definition: ShipDefinition
    owner: str | None = Field(default=None, description="participant id of the commanding player")
    position: Position | None = None


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "ship"


def check_fleet(state: BattleState, definition: ShipDefinition) -> None:
    """A battle takes the ship families its game system lists (B5 Wars: b5wars and SFB-family ships)."""
    system = state.game.system
    if definition.system not in system.fleets:
        takes = " or ".join(f"“{f}”" for f in sorted(system.fleets))
        raise RuleError(
            f"definition.system: a {system.name} battle takes ships written for {takes}; "
            f"this one is for “{definition.system}”",
            "definition.system",
        )


# Ships a battle may hold: every action loads, checks and stores them all, so a battle the size of
# a flood would slow every process that serves it (docs/security.md, "Bounds").
MAX_SHIPS_PER_BATTLE = 100


def build_ship(state: BattleState, definition: ShipDefinition, owner: str | None) -> Ship:
    """A ship for this battle, of a fleet its system takes, its parts checked against their schemas;
    refused once the battle holds MAX_SHIPS_PER_BATTLE."""
    if len(state.ships) >= MAX_SHIPS_PER_BATTLE:
        raise RuleError(f"a battle holds at most {MAX_SHIPS_PER_BATTLE} ships", "definition")
    check_fleet(state, definition)
    base = slug(definition.name)
    ship_id, n = base, 2
    while ship_id in state.ships:
        ship_id, n = f"{base}-{n}", n + 1
    parts: dict[str, Any] = {}
    for name, data in definition.parts.items():  # one part at a time, so an error names its part
        try:
            parts.update(state.game.validate_parts({name: data}))
        except ValidationError as exc:
            where, text = first_error(exc, f"definition.parts.{name}")
            raise RuleError(text, where) from None
    return Ship(
        id=ship_id,
        name=definition.name,
        owner=owner,
        side=definition.side,
        system=definition.system,
        klass=definition.klass,
        parts=parts,
    )


def add_ship(state: BattleState, payload: AddShip, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee brings a ship into the battle from its definition, placed on the map if a
    position is given."""
    ship = build_ship(state, payload.definition, payload.owner)
    ship.position = payload.position.stored() if payload.position is not None else None
    state.ships[ship.id] = ship
    return [Event.about(ship, "ship_added", f"{ship.name} ({ship.klass or ship.system}) joins the battle.")]


mark(add_ship, action("ship.add", AddShip, "Add a ship", referee_only=True))


def remove_ship(state: BattleState, payload: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee takes a ship out of the battle altogether (a destroyed one stays on the sheet
    instead, GEN-04)."""
    ship = state.ship(payload.ship)
    del state.ships[ship.id]
    return [Event(kind="ship_removed", text=f"{ship.name} is removed from the battle.")]


mark(remove_ship, action("ship.remove", ShipRef, "Remove a ship", referee_only=True))


class AssignShip(BaseModel):
    ship: str
    owner: str | None = Field(description="participant id, or null to leave the ship unassigned")


def assign_ship(state: BattleState, payload: AssignShip, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee hands a ship's command to another participant, or to no one."""
    ship = state.ship(payload.ship)
    ship.owner = payload.owner
    return [Event.about(ship, "ship_assigned", f"{ship.name} changes command.")]


mark(assign_ship, action("ship.assign", AssignShip, "Assign a ship", referee_only=True))


class Override(BaseModel):
    """Set any value of the state; the reason goes in the log (ux §6)."""

    path: str = Field(
        min_length=1, max_length=200, description="dotted path, e.g. ships.ker.parts.pain.level"
    )
    value: Any = Field(description="the new value (JSON)")
    reason: str = Field(min_length=3, max_length=300)
    named: bool = Field(
        default=False,
        description="the log names the ship and the value in words, as the referee's picker does "
        "(a path the picker offers; app/rules/overrides.py)",
    )


def _index(key: str) -> int:
    """A list index in an override path: ASCII digits only (`int` also takes '٣' and '１')."""
    if not (key.isascii() and key.isdigit()):
        raise ValueError(key)
    return int(key)


def _walk(tree: Any, keys: list[str]) -> tuple[Any, str | int]:
    node = tree
    for key in keys[:-1]:
        node = node[_index(key)] if isinstance(node, list) else node[key]
    last: str | int = _index(keys[-1]) if isinstance(node, list) else keys[-1]
    if isinstance(node, dict) and last not in node:
        raise KeyError(last)
    return node, last


def override(state: BattleState, payload: Override, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee sets any value of the state (ux §6): refused where the battle it would give fails
    its models, changes its game system or puts the clock at a step the system lacks; the log line
    says what changed, from what, and why."""
    tree = state.model_dump(mode="json")
    try:
        node, last = _walk(tree, payload.path.split("."))
        old = node[last]
    except (KeyError, IndexError, ValueError, TypeError):
        raise RuleError(f"no value at {payload.path!r}", "path") from None
    if isinstance(old, (dict, list)) != isinstance(payload.value, (dict, list)):
        raise RuleError("the new value must have the same shape as the old one", "value")
    node[last] = payload.value
    game = state.game
    try:
        fresh = game.load(tree)
        for ship in fresh.ships.values():
            game.validate_parts(ship.parts)
    except ValidationError as exc:
        raise RuleError(f"value: that value is not allowed — {first_error(exc)[1]}", "value") from None
    _check_clock(state, fresh)
    visibility, hidden_ship = _secrecy(state, fresh, payload.path)
    for name in BattleState.model_fields:
        setattr(state, name, getattr(fresh, name))
    shown = json.dumps(old), json.dumps(payload.value)
    text = f"⚠ OVERRIDE (Referee): {payload.path} {shown[0]}→{shown[1]} — “{payload.reason}”"
    named = choice_at(state, payload.path) if payload.named else None
    if named is not None:  # target, value, old → new in words; the path stays for the record
        target = state.ships[named.ship].name
        change = f"{named.words(old)} → {named.words(payload.value)}"
        text = (
            f"⚠ OVERRIDE (Referee): {target} — {named.label}: {change} — “{payload.reason}” ({payload.path})"
        )
    data = {"path": payload.path, "old": old, "new": payload.value, "reason": payload.reason}
    if visibility != "public":
        # The value is hidden from other players: so are its old and new values and the reason.
        return [
            Event(
                kind="override",
                ship=hidden_ship,
                visibility=visibility,
                text=text,
                hidden_text="⚠ OVERRIDE (Referee): a value hidden from you was corrected.",
                data={**data, "reveal_at_end": True},
            )
        ]
    return [Event(kind="override", text=text, data=data)]


mark(override, action("override.set", Override, "Override a value", referee_only=True))


def _check_clock(before: BattleState, after: BattleState) -> None:
    """An override keeps the battle playable: its system, and a clock at a step the system has."""
    if after.system != before.system:
        raise RuleError("a battle's game system cannot be changed; create a new battle", "value")
    system = before.game.system
    if not system.has_step(after.clock.step):
        steps = ", ".join(s.key for s in system.steps)
        raise RuleError(f"{system.name} has no step {after.clock.step!r}; its steps are {steps}", "value")
    step = system.step(after.clock)
    if step.repeats and (after.clock.impulse is None or not 1 <= after.clock.impulse <= step.repeats):
        raise RuleError(f"{step.label} runs from 1 to {step.repeats}", "value")
    if not step.repeats and after.clock.impulse is not None:
        raise RuleError(f"{step.label} has no numbered repeats", "value")
    if after.clock.turn < 1:
        raise RuleError("turns are counted from 1", "value")


ABSENT = object()


def value_at(tree: Any, keys: list[str]) -> Any:
    """The value at a dotted override path's keys (list indexes as digits), or ABSENT."""
    for key in keys:
        if isinstance(tree, list) and key.isascii() and key.isdigit() and int(key) < len(tree):
            tree = tree[int(key)]
        elif isinstance(tree, dict) and key in tree:
            tree = tree[key]
        else:
            return ABSENT
    return tree


def _secrecy(before: BattleState, after: BattleState, path: str) -> tuple[Visibility, str | None]:
    """Who may read an override of `path`: the value before or after it is hidden from other
    players when what they see there (a ship's public view) differs from what is stored — a cloaked
    position, a power budget, secret orders — at any depth, a whole ship or every ship included.
    Returns ("owner", ship id), ("referee", None) when it spans every ship, or ("public", None)."""
    public_ship = before.game.public_ship
    keys = path.split(".")
    if keys[0] != "ships":
        return "public", None
    if len(keys) == 1:
        every = [*before.ships.values(), *after.ships.values()]
        if any(public_ship(ship) != ship.model_dump(mode="json") for ship in every):
            return "referee", None
        return "public", None
    for state in (before, after):
        ship = state.ships.get(keys[1])
        if ship is not None and value_at(public_ship(ship), keys[2:]) != value_at(
            ship.model_dump(mode="json"), keys[2:]
        ):
            return "owner", ship.id
    return "public", None


class EndBattle(BaseModel):
    reason: str = Field(default="", max_length=200)
    winner: str | None = Field(
        default=None, max_length=60, description='the side that won, or "draw"; none: not said'
    )


def end_battle(state: BattleState, payload: EndBattle, actor: Actor, dice: DiceSource) -> list[Event]:
    """The referee ends the battle, naming a side as the winner, a draw, or neither."""
    why = f": {payload.reason}" if payload.reason else ""
    if payload.winner is None:  # as every end was logged before a winner could be named
        state.finished = True
        return [Event(kind="battle_end", text=end_told(f"The battle ends{why}.", dice))]
    sides = sides_of(state)
    if payload.winner != DRAW and payload.winner not in sides:
        named = ", ".join(f'"{s}"' for s in sides) or "none: no ship has a side"
        raise RuleError(f'winner: one of the battle\'s sides ({named}) or "{DRAW}"', "winner")
    state.finished = True
    said = "a draw" if payload.winner == DRAW else f"the {payload.winner} side wins"
    data = {"reason": "referee", "winner": payload.winner, "why": payload.reason}
    return [Event(kind="battle_end", text=end_told(f"The battle ends{why} — {said}.", dice), data=data)]


mark(end_battle, action("battle.end", EndBattle, "End the battle", referee_only=True))


class MoveShip(BaseModel):
    """Record where a ship now is (the map lives on the table; the tracker keeps what it needs)."""

    ship: str
    position: Position = Field(description='e.g. {"hex": "0405", "facing": 2, "speed": 10}')


def move_ship(state: BattleState, payload: MoveShip, actor: Actor, dice: DiceSource) -> list[Event]:
    """Place a ship on the map. A ship whose position is hidden (cloaked, ST-22) moves in its owner's
    log only; the others read the move when the battle ends."""
    ship = state.ship(payload.ship)
    position = payload.position.stored()
    ship.position = position
    where = ", ".join(f"{k} {v}" for k, v in position.items())
    if state.game.position_hidden(ship):
        return [
            Event.about(
                ship,
                "move",
                f"{ship.name} (cloaked) moves: {where}.",
                visibility="owner",
                hidden_text="A cloaked ship moves.",
                data={"position": position, "reveal_at_end": True},
            )
        ]
    return [Event.about(ship, "move", f"{ship.name} moves: {where}.", data={"position": position})]


mark(move_ship, action("ship.move", MoveShip, "Move a ship", ship="ship"))
