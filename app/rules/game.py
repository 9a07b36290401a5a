"""A game: one system with the rulesets that play in it. The one gate every action passes, the clock
with its hooks, the damage stages in order, what a viewer may do now, and what others may see.

Every cross-cutting check lives in `Game.gate`: unknown action, finished battle, spectator,
referee-only, the acting ship commanded by the actor, GEN-04 (destroyed or departed), the action's
moment in the turn, and whose turn it is. Handlers keep only their own rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from app.rules.core import Actor, Event, NotAllowed, RuleError
from app.rules.dice import Deferred, DiceSource, SeatedDice, end_told
from app.rules.messages import first_error
from app.rules.parsed import parse_once
from app.rules.ruleset import ActionSpec, PartSpec, Ruleset, StepHook, When
from app.rules.state import BattleState, Clock, PendingRoll, Ship
from app.rules.system import GameSystem, Step


def validation_error(exc: ValidationError) -> RuleError:
    """A pydantic error as the rules answer it: the first problem in the user's words, naming its
    field ("amount: must be at least 1 (you sent 0)", field "amount")."""
    where, text = first_error(exc)
    return RuleError(text, where)


def _folded(clock_lines: list[Event]) -> list[Event]:
    """A run of quiet clock lines as one: "Turn 1 · Impulse 2/32 … 9/32 pass quietly; … begins"."""
    if len(clock_lines) < 2:
        return clock_lines
    start = clock_lines[0].text.split(" ends; ")[0]
    begins = clock_lines[-1].text.split("; ")[-1]
    return [
        Event(
            kind="clock",
            text=f"{start} to {clock_lines[-1].text.split(' ends; ')[0].split(' · ')[-1]} pass quietly; {begins}",
            data={"skipped": len(clock_lines)},
        )
    ]


class _Label(str):
    """A step label in a refusal: `{step}` as the game prints it, `{step:lower}` inside a sentence."""

    def __format__(self, spec: str) -> str:
        return self.lower() if spec == "lower" else format(str(self), spec)


# In `Game.awaited`: the step waits on the referee (whoever holds a referee seat), not on a commander.
REFEREE_SEAT = "referee"


@dataclass(frozen=True)
class Offer:
    """An action a viewer may take now, and for which of their ships (empty: not for a ship)."""

    action: str
    summary: str
    ships: tuple[str, ...] = ()
    schema: dict[str, Any] | None = None


class Game:
    def __init__(
        self, system: GameSystem, rulesets: Iterable[Ruleset], known: Iterable[Ruleset] = ()
    ) -> None:
        """`rulesets` play here: their actions, hooks and damage stages. `known` are every ruleset
        a server has: a ship may carry their parts anywhere (a Shadow's First One trait in an SFB
        battle: validated and shown, never acted on), and what a part forbids holds in every battle
        (SH-17: nobody boards a living ship)."""
        self.system = system
        self.rulesets = tuple(rulesets)
        everyone = [*known, *self.rulesets]
        self.known = tuple(r for i, r in enumerate(everyone) if all(r is not o for o in everyone[:i]))
        marks = system.marks()
        for ruleset in self.rulesets:
            missing = ruleset.needs - marks
            if missing:
                raise ValueError(
                    f"{system.name} lacks the moments {sorted(missing)} that {ruleset.name} needs"
                )
        self.actions: dict[str, ActionSpec] = {}
        self.parts: dict[str, PartSpec] = {p.name: p for r in self.known for p in r.parts}
        for ruleset in self.rulesets:
            for spec in ruleset.actions:
                if spec.name in self.actions:
                    raise ValueError(f"action {spec.name} defined twice")
                self.actions[spec.name] = spec
        self._hooks = [h for ruleset in self.rulesets for h in ruleset.hooks]

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self  # a game is immutable; states carry it by reference

    # --- battles --------------------------------------------------------------------------

    def new_battle(self, options: dict[str, Any] | None = None) -> BattleState:
        options = dict(options or {})
        for ruleset in self.rulesets:
            if ruleset.check_options is not None:
                ruleset.check_options(options)
        return self.bind(BattleState(system=self.system.key, clock=self.system.first(), options=options))

    def bind(self, state: BattleState) -> BattleState:
        state.bind(self)
        return state

    def load(self, data: dict[str, Any]) -> BattleState:
        return self.bind(BattleState.model_validate(data))

    # --- the clock (GEN-01) ---------------------------------------------------------------

    def step(self, clock: Clock) -> Step:
        return self.system.step(clock)

    def in_moment(self, state: BattleState, mark: str) -> bool:
        """Whether the battle's current step carries this moment."""
        return mark in self.step(state.clock).marks

    def run_hooks(
        self, state: BattleState, when: When, moments: Iterable[str], dice: DiceSource
    ) -> list[Event]:
        """The hooks on any of these moments, in ruleset order, each once."""
        wanted = set(moments)
        done: set[StepHook] = set()
        events: list[Event] = []
        for h in self._hooks:
            if h.when == when and h.moment in wanted and h.run not in done:
                done.add(h.run)
                events.extend(h.run(state, dice))
        return events

    def advance(self, state: BattleState, dice: DiceSource) -> list[Event]:
        """Leave the current step (its hooks run), then enter the next (its hooks run) — unless a
        ruleset ends the battle as this step ends (a battle option chose so): then nothing begins."""
        old = state.clock
        old_step = self.step(old)
        events = self.run_hooks(state, "leave", old_step.marks, dice)
        new = self.system.next(old)
        if new.turn != old.turn:
            events.extend(self.run_hooks(state, "leave", ["turn"], dice))
        for ruleset in self.rulesets:
            end = ruleset.ends(state, old, new) if ruleset.ends is not None else None
            if end is not None:
                state.finished = True
                state.ready = []
                state.ready_until.clear()
                told = end.model_copy(update={"text": end_told(end.text, dice)})
                return [*events, Event(kind="clock", text=f"{self.system.describe(old)} ends."), told]
        state.clock = new
        state.ready = []
        events.append(
            Event(kind="clock", text=f"{self.system.describe(old)} ends; {self.system.describe(new)} begins.")
        )
        if new.turn != old.turn:
            events.extend(self.run_hooks(state, "enter", ["turn"], dice))
        events.extend(self.run_hooks(state, "enter", self.step(new).marks, dice))
        return events

    def end_step(self, state: BattleState, dice: DiceSource, actor: Actor) -> list[Event]:
        """End the step (`advance`) for `actor`, the dice its rules roll for a ship asked of that
        ship's commander (GEN-02): with physical dice, a die for a ship the actor does not command
        makes the end wait, pending, for its commander or the referee (`state.rolling`, with the
        dice drawn before it); nothing else of the end happens until the die is entered. Those who
        said they are done stay done. The server's dice roll every die at once, as before."""
        pending = state.rolling
        seated = SeatedDice(
            dice,
            actor.commands,
            pending.dice if pending is not None else (),
            lambda sid: state.ships[sid].name if sid in state.ships else sid,
        )
        trial = state.copy_deep() if dice.may_lack else state  # a wait leaves no trace
        trial.rolling = None
        try:
            events = self.advance(trial, seated)
        except Deferred as wait:
            state.rolling = PendingRoll(
                ship=wait.ship, sides=wait.sides, purpose=wait.purpose, dice=wait.drawn
            )
            ship = state.ships.get(wait.ship)
            name = ship.name if ship is not None else wait.ship
            return [
                Event(
                    kind="rolling",
                    ship=wait.ship,
                    text=f"{self.system.describe(state.clock)} ends once {name}'s commander (or the referee)"
                    f" enters 1d{wait.sides} for {wait.purpose}.",
                    data={"sides": wait.sides, "purpose": wait.purpose},
                )
            ]
        if trial is not state:
            for name in type(state).model_fields:
                setattr(state, name, getattr(trial, name))
        return events

    # --- the gate -------------------------------------------------------------------------

    def spec(self, action_type: str) -> ActionSpec:
        spec = self.actions.get(action_type)
        if spec is None:
            raise RuleError(f"unknown action {action_type!r}", "type")
        return spec

    def commute(self, state: BattleState, mine: str, theirs: str, ships: Iterable[str]) -> bool:
        """Whether action `mine`, made before action `theirs` was applied, still means the same
        after it although both name `ships`: both declare the same kind of commuting change and
        no part of those ships reads that kind's order (finding the conflict is the write path's;
        which changes commute is the rules')."""
        a, b = self.actions.get(mine), self.actions.get(theirs)
        if a is None or b is None or a.commutes is None or a.commutes != b.commutes:
            return False
        for sid in ships:
            ship = state.ships.get(sid)
            if ship is None:
                return False
            for name in ship.parts:
                part = self.parts.get(name)
                if part is not None and a.commutes in part.ordered:
                    return False
        return True

    def gone(self, ship: Ship) -> str | None:
        """Why a ship can no longer act (GEN-04 destroyed, or departed by a ruleset's rule)."""
        if ship.destroyed:
            return f"{ship.name} is destroyed and takes no further actions (GEN-04)"
        for ruleset in self.rulesets:
            if ruleset.gone is not None:
                reason = ruleset.gone(ship)
                if reason:
                    return reason
        return None

    def map_direction(self, state: BattleState, ship: Ship, bearing: float) -> str | None:
        """The direction of fire on `ship` from `bearing` as a ruleset playing here reads it, or None."""
        for ruleset in self.rulesets:
            if ruleset.map_direction is not None:
                direction = ruleset.map_direction(state, ship, bearing)
                if direction:
                    return direction
        return None

    def acting(self, state: BattleState) -> frozenset[str] | None:
        """The ships whose turn it is, when a ruleset orders the step (TR-04); None: no order."""
        step = self.step(state.clock)
        for ruleset in self.rulesets:
            if ruleset.acting is not None:
                ships = ruleset.acting(state, step)
                if ships is not None:
                    return ships
        return None

    def referee_due(self, state: BattleState) -> str | None:
        """What the referee must do before the step has anything for the commanders (TR-03: roll
        initiative for the engagement), or None."""
        step = self.step(state.clock)
        for ruleset in self.rulesets:
            if ruleset.referee_due is not None:
                due = ruleset.referee_due(state, step)
                if due:
                    return due
        return None

    def awaited(self, state: BattleState) -> list[str]:
        """Who the current step waits on (participant ids, in ship order): the commander of the ship
        whose die the step's end waits for (the referee where it has none); the referee alone
        (`REFEREE_SEAT`) while a ruleset says the referee must act first; else the commanders of the
        ships a ruleset names (whose turn it is, whose orders are not committed), else every
        commander of a ship still fighting; less those who said they are done."""
        if state.rolling is not None:
            roller = state.ships.get(state.rolling.ship)
            return [roller.owner if roller is not None and roller.owner else REFEREE_SEAT]
        if self.referee_due(state):
            return [REFEREE_SEAT]
        ships = self.acting(state)
        if ships is None:
            pool = [s for s in state.ships.values() if not self.gone(s)]
        else:
            pool = [state.ships[sid] for sid in ships if sid in state.ships]
        waiting: list[str] = []
        for ship in sorted(pool, key=lambda s: s.id):
            if ship.owner and ship.owner not in waiting and ship.owner not in state.ready:
                waiting.append(ship.owner)
        return waiting

    def waiting_for(self, state: BattleState) -> str | None:
        """What the step waits for when that is not plain "done": the die its end needs, the
        referee's task, or None."""
        if state.rolling is not None:
            pending = state.rolling
            ship = state.ships.get(pending.ship)
            return f"dice for {ship.name if ship else pending.ship}: 1d{pending.sides} for {pending.purpose}"
        return self.referee_due(state)

    def later(self, state: BattleState) -> list[str]:
        """Commanders the step will wait on but not yet, so neither pending nor done: every commander
        while the referee must act first, else those whose ships' turn in the step's order (TR-04)
        has not come."""
        now = set(self.awaited(state))
        if state.rolling is not None:
            return []  # the step is ending: only its dice are awaited
        if REFEREE_SEAT in now:
            ships = [s.id for s in sorted(state.ships.values(), key=lambda s: s.id) if not self.gone(s)]
        else:
            ships = self.turn_order(state) or []
        found: list[str] = []
        for sid in ships:
            owner = state.ships[sid].owner if sid in state.ships else None
            if owner and owner not in now and owner not in found and owner not in state.ready:
                found.append(owner)
        return found

    def seats(self, awaited: list[str], referees: Iterable[str]) -> list[str]:
        """`awaited` as participant ids, the referee's seat as the ids of the battle's referees."""
        out: list[str] = []
        for who in awaited:
            for pid in list(referees) if who == REFEREE_SEAT else [who]:
                if pid not in out:
                    out.append(pid)
        return out

    def waits_on(self, state: BattleState, participant_id: str | None, referee: bool) -> bool:
        """Whether the step waits on this participant (a referee, when it waits on the referee)."""
        awaited = self.awaited(state)
        return participant_id in awaited or (referee and REFEREE_SEAT in awaited)

    def mark_ready(self, state: BattleState, actor: Actor, dice: DiceSource) -> list[Event]:
        """The actor is done with this step: the ruleset's meaning of it where it orders the step,
        else a mark; the step ends by itself when it waits on nobody more."""
        step = self.step(state.clock)
        events: list[Event] | None = None
        for ruleset in self.rulesets:
            if ruleset.on_ready is not None:
                events = ruleset.on_ready(state, actor, step, dice)
                if events is not None:
                    break
        if events is None:
            state.ready.append(actor.participant_id or "")
            events = [
                Event(
                    kind="ready",
                    text=f"Done with {step.title(state.clock)}.",
                    data={"participant": actor.participant_id},
                )
            ]
        return events + self.settle(state, dice, actor)

    def ready_until(self, state: BattleState, actor: Actor, until: int, dice: DiceSource) -> list[Event]:
        """Standing readiness in a repeated step: the actor is done until repeat `until` (a skip
        to impulse N, or past the last one); quiet repeats pass once everyone is carried."""
        step = self.step(state.clock)
        who = actor.participant_id or ""
        state.ready_until[who] = until
        if who not in state.ready:
            state.ready.append(who)
        upto = (
            f"{step.label.lower()} {until}"
            if step.repeats and until <= step.repeats
            else f"the end of {step.label.lower()}s"
        )
        events = [Event(kind="ready", text=f"Done until {upto}.", data={"participant": who, "until": until})]
        return events + self.settle(state, dice, actor)

    def settle(self, state: BattleState, dice: DiceSource, actor: Actor) -> list[Event]:
        """End the step when it waits on nobody, and go on while standing readiness (skips) carries
        everyone through quiet repeats; stop after a repeat where something besides the clock
        happened (a pain check, a reaction), which cancels the skips."""
        events: list[Event] = []
        quiet: list[Event] = []
        first = self.step(state.clock).title(state.clock)
        while not state.finished and not self.awaited(state) and self._anyone_commands(state):
            happened = self.end_step(state, dice, actor)
            if any(e.kind != "clock" for e in happened):
                state.ready_until.clear()
                events.extend(quiet + happened)
                quiet = []
                break
            quiet.extend(happened)
            self._carry(state)
        if quiet:
            events.extend(_folded(quiet))
        if events:
            events.insert(0, Event(kind="ready", text=f"Everyone is done with {first}."))
        return events

    def _anyone_commands(self, state: BattleState) -> bool:
        """Someone commands a ship still fighting: otherwise no step could ever wait on anyone,
        and the clock must not run on by itself."""
        return any(s.owner for s in state.ships.values() if not self.gone(s))

    def _carry(self, state: BattleState) -> None:
        """Into the next repeat: those whose skip reaches it are done again; past it, skips end."""
        step = self.step(state.clock)
        if not step.repeats or state.clock.impulse is None:
            state.ready_until.clear()
            return
        for who, until in list(state.ready_until.items()):
            if state.clock.impulse < until:
                state.ready.append(who)
            else:
                del state.ready_until[who]

    def turn_order(self, state: BattleState) -> list[str] | None:
        """The ships in the order they act now (TR-04's loop), where a ruleset keeps one."""
        for ruleset in self.rulesets:
            if ruleset.turn_order is not None:
                order = ruleset.turn_order(state, self.step(state.clock))
                if order is not None:
                    return order
        return None

    def check_moment(self, state: BattleState, spec: ActionSpec, actor: Actor) -> None:
        """The action belongs to moments of the turn (step marks); refuse it elsewhere."""
        if not spec.during and not spec.not_during:
            return
        if spec.referee_anytime and actor.is_referee:
            return
        step = self.step(state.clock)
        if (not spec.during or step.marks & spec.during) and not step.marks & spec.not_during:
            return
        where = " or ".join(self.system.where(m) for m in sorted(spec.during)) or "another"
        names = {m: _Label(self.system.where(m)) for m in self.system.marks()}
        text = spec.outside.format(
            action=spec.summary, step=_Label(where), now=_Label(step.title(state.clock)), **names
        )
        raise RuleError(text, spec.outside_field)

    def check_turn(self, state: BattleState, spec: ActionSpec, ship: Ship) -> None:
        """Actions taken in turn order refuse a ship whose turn it is not (TR-04)."""
        for ruleset in self.rulesets:
            if ruleset.out_of_turn is not None:
                reason = ruleset.out_of_turn(state, ship)
                if reason:
                    raise RuleError(reason, spec.ship)

    def admit(self, state: BattleState, spec: ActionSpec, actor: Actor) -> None:
        """Who may act at all: not after the end, not a spectator, the referee for referee actions."""
        if state.finished:
            raise RuleError("the battle has ended", "battle")
        if actor.role == "spectator":
            raise NotAllowed("spectators watch; they cannot act")
        if spec.referee_only and not actor.is_referee:
            raise NotAllowed(f"only the referee may {spec.summary.lower()}")

    def gate(
        self,
        state: BattleState,
        spec: ActionSpec,
        actor: Actor,
        ship_id: str | None = None,
        payload: BaseModel | None = None,
    ) -> None:
        """Every check that is not the action's own rule, in the order players meet them:
        who acts, the acting ship (command, GEN-04, departed), other ships the action needs still
        fighting, the moment, whose turn, the action's own permit, and whether the acting ship
        can take it at all now (`fits`: its equipment, the step's condition on it)."""
        self.admit(state, spec, actor)
        if spec.ship is not None and ship_id is not None:
            self._ship_may_act(state, spec, actor, ship_id)
        for name in spec.active if payload is not None else ():
            other = getattr(payload, name)
            if other is not None:
                self._still_fighting(state.ship(other, name), name)
        self.check_moment(state, spec, actor)
        if spec.in_turn and spec.ship is not None and ship_id is not None:
            self.check_turn(state, spec, state.ship(ship_id, spec.ship))
        if spec.permit is not None:
            reason = spec.permit(state, actor)
            if reason:
                raise NotAllowed(reason)
        if spec.fits is not None and spec.ship is not None and ship_id is not None:
            reason = spec.fits(state, state.ship(ship_id, spec.ship))
            if reason:
                raise RuleError(reason, spec.ship)

    def _ship_may_act(self, state: BattleState, spec: ActionSpec, actor: Actor, ship_id: str) -> None:
        assert spec.ship is not None
        ship = state.ship(ship_id, spec.ship)
        if not actor.commands(ship_id):
            raise NotAllowed("you do not command that ship", spec.ship)
        self._still_fighting(ship, spec.ship)

    def _still_fighting(self, ship: Ship, field: str) -> None:
        reason = self.gone(ship)
        if reason:
            raise RuleError(reason, field)

    def parse(self, spec: ActionSpec, raw: dict[str, Any]) -> BaseModel:
        try:
            return spec.payload.model_validate(raw)
        except ValidationError as exc:
            raise validation_error(exc) from None

    # --- what a viewer may do now ---------------------------------------------------------

    def offers(self, state: BattleState, actor: Actor) -> list[Offer]:
        """The actions this actor may submit now, each with the ships it may name: what the gate
        admits, asked of the gate itself for each ship (a spectator's page asks no ship at all), so a
        page or a bot is never offered what the rules would refuse for that ship at this step. The
        gate without a ship (who, the moment, the permit) is asked first: what fails it fails for
        every ship. The state is the same for every question, so each part is parsed once for all
        of them (app/rules/parsed.py)."""
        with parse_once():
            return self._offers(state, actor)

    def _offers(self, state: BattleState, actor: Actor) -> list[Offer]:
        found: list[Offer] = []
        for spec in self.actions.values():
            if not self._passes(state, spec, actor, None):
                continue
            if spec.ship is None:
                found.append(Offer(spec.name, spec.summary))
                continue
            ships = tuple(sid for sid in sorted(state.ships) if self._passes(state, spec, actor, sid))
            if ships:
                found.append(Offer(spec.name, spec.summary, ships))
        return found

    def _passes(self, state: BattleState, spec: ActionSpec, actor: Actor, ship_id: str | None) -> bool:
        try:
            self.gate(state, spec, actor, ship_id)
        except RuleError:
            return False
        return True

    # --- parts and what others may see ----------------------------------------------------

    def validate_parts(self, parts: dict[str, Any]) -> dict[str, Any]:
        """Check every part of a ship definition against its schema; unknown parts are errors."""
        clean: dict[str, Any] = {}
        for name, data in parts.items():
            spec = self.parts.get(name)
            if spec is None:
                raise RuleError(
                    f"unknown ship part {name!r}; known: {', '.join(sorted(self.parts))}", f"parts.{name}"
                )
            clean[name] = spec.schema.model_validate(data).model_dump(mode="json")
        return clean

    def position_hidden(self, ship: Ship) -> bool:
        return any(
            p.hides_position(ship)
            for p in self.parts.values()
            if p.hides_position is not None and p.name in ship.parts
        )

    def public_ship(self, ship: Ship) -> dict[str, Any]:
        """The ship as those who do not command it may see it: its stored shape, hidden things out."""
        data = ship.model_dump(mode="json")
        if self.position_hidden(ship):
            data["position"] = None
        parts: dict[str, Any] = {}
        for name, value in ship.parts.items():
            spec = self.parts.get(name)
            shown = value if spec is None or spec.public_view is None else spec.public_view(value, ship)
            if shown is not None:
                parts[name] = shown
        data["parts"] = parts
        return data

    def display(self, state: BattleState, ship: Ship, part: str, shown: dict[str, Any]) -> dict[str, Any]:
        """The values a part's template draws (derived by the rules, so templates hold no rule tables)."""
        spec = self.parts.get(part)
        if spec is None or spec.display is None:
            return {}
        return spec.display(shown, ship, state)

    def range_board(self, state: BattleState) -> dict[str, Any] | None:
        """Where the system's board is range bands, the board a playing ruleset keeps (its values
        for templates/partials/range_board.html); None on a hex map or without one."""
        if self.system.board != "range_bands":
            return None
        return next((r.range_board(state) for r in self.rulesets if r.range_board is not None), None)

    # --- damage and boarding --------------------------------------------------------------

    def damage_filters(self) -> list[Any]:
        return [stage for r in self.rulesets for stage in r.damage_filters]

    def damage_listeners(self) -> list[Any]:
        return [stage for r in self.rulesets for stage in r.damage_listeners]

    def boarding_refusal(self, target: Ship, kind: str) -> str | None:
        for ruleset in self.known:
            for rule in ruleset.boarding_refusals:
                reason = rule(target, kind)
                if reason:
                    return reason
        return None
