"""A ruleset as one object: its parts, its actions (declared once with where they may play), its hooks
keyed by moment, its damage stages in an explicit order, who must act for it and why a ship has left.

A ruleset module marks what it defines with the marks below: a handler by a `mark(handler, action(…),
when(…))` statement right after its def (or `hook(…)`), a part's model with `@part`; the package's
`__init__.py` gathers its modules into one `Ruleset`. Nothing is registered anywhere by
importing a module: `app/rules/registry.py` holds the one list of rulesets and systems.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from app.rules import counters, figures
from app.rules.attack import DamageContext
from app.rules.core import Actor, Event, Roll
from app.rules.dice import DiceSource
from app.rules.state import BattleState, Clock, Ship
from app.rules.system import Step

Handler = Callable[[BattleState, Any, Actor, DiceSource], list[Event]]
Authoriser = Callable[[BattleState, Any, Actor], None]
Permit = Callable[[BattleState, Actor], str | None]
Fits = Callable[[BattleState, Ship], str | None]
StepHook = Callable[[BattleState, DiceSource], list[Event]]
DamageStage = Callable[[DamageContext], None]
PublicView = Callable[[dict[str, Any], Ship], dict[str, Any] | None]
Display = Callable[[dict[str, Any], Ship, BattleState], dict[str, Any]]
# What of a part outlives its battle in a campaign fleet: the part as it ended and the campaign's
# set-up options → the part as the ship's next battle starts it.
Carry = Callable[[dict[str, Any], Mapping[str, Any]], dict[str, Any]]
# A repair between battles by the part's own rules: the part, the section and system named, the
# dice → the part after the attempt, the log's sentence and the rolls (RuleError when it may not).
Mend = Callable[[dict[str, Any], str, str, DiceSource], tuple[dict[str, Any], str, list[Roll]]]
When = Literal["enter", "leave"]
Marked = TypeVar("Marked", bound=Callable[..., Any])


@dataclass(frozen=True)
class ActionSpec:
    """One action: its payload, its handler, and what the engine checks before the handler runs.

    `ship` names the payload field of the acting ship: the engine checks the actor commands it, that
    it is not destroyed (GEN-04) and has not left the battle. `during`/`not_during` are moments (step
    marks) the action belongs to; outside them the engine refuses with `outside` ({step}: the steps
    it belongs to, {now}: the current step) on `outside_field`. `referee_anytime` lets the referee act
    outside them. `permit` is a check that needs no payload, so pages can offer the action; `fits`
    is the same for the acting ship (it lacks the equipment, or the step's condition on it is unmet)."""

    name: str
    payload: type[BaseModel]
    handler: Handler
    summary: str
    referee_only: bool = False
    ship: str | None = None
    active: tuple[str, ...] = ()  # other payload fields naming ships that must still be fighting
    during: frozenset[str] = frozenset()
    not_during: frozenset[str] = frozenset()
    outside: str = "{action} happens in the {step} step; it is now {now}"
    outside_field: str | None = None
    referee_anytime: bool = False
    in_turn: bool = False  # taken in turn order: the ruleset's out_of_turn may refuse the ship
    permit: Permit | None = None
    # Why this ship cannot take the action now, whatever the payload (no pain track, no cloaking
    # device, no collapsed projection to shore up in Ship Power): the gate asks it of the acting
    # ship, so the actions offered for a ship are the ones the gate admits for it.
    fits: Fits | None = None
    authorise: Authoriser | None = None
    # Which payloads are drafts (secret orders saved before the commit): the service keeps them
    # outside the log, for their author and the referee only, and folds them in at the author's
    # next action.
    draft: Callable[[Any], bool] | None = None
    # The kind of change this action makes to the ships it names when two such changes give the
    # same battle in either order ("damage": an entry on a ship's sheet; simultaneous fire on one
    # target is the common case at a table). The write path lets the second of two made at once
    # apply after the first instead of refusing it as stale, unless a part of a ship both name
    # reads their order (`PartSpec.ordered`). None: the action never commutes.
    commutes: str | None = None


@dataclass(frozen=True)
class Settable:
    """One value of a part the referee may set by picking: its place in the part (`*` for every item
    of a list), how the picker names it (formatted with the item's own fields, e.g. "{name} armour"),
    and the sibling field capping it (a section's armour by its `armour_max`). Its kind and range
    come from the part's own model, so the picker never offers what the rules would refuse."""

    where: str
    label: str
    upto: str | None = None


@dataclass(frozen=True)
class PartSpec:
    """A ship part, speaking for itself to every consumer: its schema, what non-commanders see of
    it, the values its template draws, whether it hides the ship's position, and the values the
    referee may set by picking (`settable`, in the order the picker lists them: the values a table
    corrects, not the bookkeeping the rules keep for themselves), what it tells the battle report
    (`report`: its figures as a viewer sees the part; `turning`: its event kinds that are turning
    points), and what it adds to the ship's counter on the map (`counter`: badge, ring, firing
    arcs, owed moves, last known place; `counter_events`: its event kinds that place, hide or show
    the counter)."""

    name: str
    schema: type[BaseModel]
    public_view: PublicView | None = None
    display: Display | None = None
    hides_position: Callable[[Ship], bool] | None = None
    settable: tuple[Settable, ...] = ()
    report: figures.Report | None = None
    turning: tuple[figures.Turning, ...] = ()
    counter: counters.Draw | None = None
    counter_events: tuple[counters.CounterEvent, ...] = ()
    # Kinds of commuting change (`ActionSpec.commutes`) whose order this part reads, so two of them
    # on a ship carrying it do not commute (the Shadow's per-impulse pain total and its first
    # largest source, High Guard's section sequence).
    ordered: tuple[str, ...] = ()
    # Campaigns (app/services/campaigns/carry.py): what of the part a fleet keeps when its battle
    # ends (None: the part starts each battle as the fleet's definition has it), and a repair
    # between battles by the part's own rules (None: only a referee's ruling mends it).
    carry: Carry | None = None
    mend: Mend | None = None


@dataclass(frozen=True)
class Hook:
    when: When  # "enter" or "leave"
    moment: str  # a step mark ("impulse_end"…) or "turn"
    run: StepHook


@dataclass(frozen=True)
class Ruleset:
    key: str
    name: str
    parts: tuple[PartSpec, ...] = ()
    actions: tuple[ActionSpec, ...] = ()
    hooks: tuple[Hook, ...] = ()
    needs: frozenset[str] = frozenset()  # moments a system must mark for this ruleset to play in it
    damage_filters: tuple[DamageStage, ...] = ()  # in order, before the sheet takes the rest
    damage_listeners: tuple[DamageStage, ...] = ()  # in order, after the sheet
    boarding_refusals: tuple[Callable[[Ship, str], str | None], ...] = ()
    gone: Callable[[Ship], str | None] | None = None  # why a ship has left the battle (warp, jump)
    # Which direction fire arriving at a bearing (degrees clockwise from the target's nose, from the
    # map) comes from, where this ruleset's parts decide it (Star Trek: the shield projection); None
    # leaves it to the next ruleset, then to the quadrant (fore, starboard, aft, port).
    map_direction: Callable[[BattleState, Ship, float], str | None] | None = None
    acting: Callable[[BattleState, Step], frozenset[str] | None] | None = None  # ships whose turn it is
    # What the referee must do before anyone else has something to do in this step (High Guard:
    # roll initiative for the engagement, TR-03); None when the step does not wait on the referee.
    referee_due: Callable[[BattleState, Step], str | None] | None = None
    out_of_turn: Callable[[BattleState, Ship], str | None] | None = None  # why a ship must wait its turn
    # Weapon traits a damage entry may carry for this ruleset's rules: (trait, what the form calls it).
    damage_traits: tuple[tuple[str, str], ...] = ()
    # What "done with this step" means for an actor where the ruleset orders the step (passing the
    # acting ship, committing the orders drafted); None where plain readiness applies.
    # The values of the ruleset's battle-wide panel (templates/rulesets/<key>.html), for controls
    # that belong to no one ship (High Guard's initiative roll and orders reveal).
    panel: Callable[[BattleState], dict[str, Any]] | None = None
    turn_order: Callable[[BattleState, Step], list[str] | None] | None = None  # who acts next, in order
    on_ready: Callable[[BattleState, Actor, Step, DiceSource], list[Event] | None] | None = None
    # Whether the battle ends as the step at the first clock ends (a battle option chose so): the
    # end's event, or None to go on to the second clock. Checked after the step's leave hooks.
    ends: Callable[[BattleState, Clock, Clock], Event | None] | None = None
    check_options: Callable[[dict[str, Any]], None] | None = None  # raises RuleError for a bad option
    # The board this ruleset keeps where its system's board is range bands (High Guard's range
    # board): the values templates/partials/range_board.html draws.
    range_board: Callable[[BattleState], dict[str, Any]] | None = None
    # Its event kinds that are turning points of the battle and belong to no part (a ship removed
    # by the referee), as parts declare theirs (`PartSpec.turning`).
    turning: tuple[figures.Turning, ...] = ()


# --- marking what a module defines -----------------------------------------------------------
# A handler is a plain function holding its rule; the statement right after it marks it:
# `mark(engage, action(...), when(...))`. mutmut does not mutate decorated functions, so the marks
# are not decorators: mutmut puts its trampoline where the def was, the statement marks that, and
# every rule body stays inside the mutation score.

_SPEC = "__starboard_action__"
_HOOKS = "__starboard_hooks__"
_PART = "__starboard_part__"


def mark(fn: Marked, *marks: Callable[[Marked], Marked]) -> Marked:
    """Apply `marks` to a plain function in the order given, as decorators listed bottom-up would
    (`action` before the `when` that places it): `mark(engage, action(...), when(...))`."""
    for apply in marks:
        fn = apply(fn)
    return fn


def action(name: str, payload: type[BaseModel], summary: str, **options: Any) -> Callable[[Handler], Handler]:
    """Mark a handler as an action; `options` are ActionSpec fields (ship, outside…). The moments it
    belongs to are `when`'s, applied after this."""

    def stamp(handler: Handler) -> Handler:
        if hasattr(handler, _SPEC):  # gather would still find it once, but as only one of the two
            raise TypeError(f"{handler.__name__} is marked as an action twice")
        setattr(handler, _SPEC, ActionSpec(name, payload, handler, summary, **options))
        return handler

    return stamp


def when(
    *moments: str,
    refusal: str | None = None,
    field: str | None = None,
    not_in: Iterable[str] = (),
    in_turn: bool = False,
    referee_anytime: bool = False,
) -> Callable[[Handler], Handler]:
    """Put an action (marked by `action` before this) in the moments of the turn it belongs to:
    outside them the gate refuses it with `refusal` ({step}, {now}, or a moment's name) on `field`.
    `not_in`: moments it never belongs to; `in_turn`: taken in turn order (TR-04)."""

    def stamp(handler: Handler) -> Handler:
        spec = spec_of(handler)
        setattr(
            handler,
            _SPEC,
            replace(
                spec,
                during=frozenset(moments),
                not_during=frozenset(not_in),
                outside=refusal or spec.outside,
                outside_field=field,
                in_turn=in_turn,
                referee_anytime=referee_anytime,
            ),
        )
        return handler

    return stamp


def hook(when: When, moment: str) -> Callable[[StepHook], StepHook]:
    """Mark a function to run on entering or leaving every step that carries `moment` (or "turn")."""

    def stamp(fn: StepHook) -> StepHook:
        if (when, moment) in getattr(fn, _HOOKS, []):  # it would run twice at every such step
            raise TypeError(f"{fn.__name__} is marked as a hook on {when} {moment} twice")
        setattr(fn, _HOOKS, [*getattr(fn, _HOOKS, []), (when, moment)])
        return fn

    return stamp


def part(
    name: str,
    public_view: PublicView | None = None,
    display: Display | None = None,
    hides_position: Callable[[Ship], bool] | None = None,
    **declared: Any,
) -> Callable[[type[BaseModel]], type[BaseModel]]:
    """Mark a model as the schema of a ship part; the other arguments are PartSpec fields (what the
    part says to each consumer: `settable`, `report`, `turning`…)."""

    def stamp(model: type[BaseModel]) -> type[BaseModel]:
        spec = PartSpec(name, model, public_view, display, hides_position)
        setattr(model, _PART, replace(spec, **_tuples(declared)))
        return model

    return stamp


def _tuples(fields: dict[str, Any]) -> dict[str, Any]:
    """Declared lists as tuples (a spec stays frozen and hashable)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}


def spec_of(handler: Handler) -> ActionSpec:
    return getattr(handler, _SPEC)


def _members(modules: Iterable[ModuleType]) -> list[Any]:
    seen: set[int] = set()
    found = []
    for module in modules:
        for value in vars(module).values():
            if id(value) in seen or getattr(value, "__module__", None) != module.__name__:
                continue
            seen.add(id(value))
            found.append(value)
    return found


def gather(
    key: str, name: str, modules: Iterable[ModuleType], *, parts: dict[str, Any] | None = None, **fields: Any
) -> Ruleset:
    """Build a ruleset from what its modules mark, in module order, then definition order.
    `parts` adds display or public-view functions to parts by name (defined beside their templates)."""
    members = _members(list(modules))
    found_parts = [getattr(m, _PART) for m in members if isinstance(m, type) and hasattr(m, _PART)]
    for extra_name, extra in (parts or {}).items():
        found_parts = [replace(p, **_tuples(extra)) if p.name == extra_name else p for p in found_parts]
    actions = [getattr(m, _SPEC) for m in members if callable(m) and hasattr(m, _SPEC)]
    hooks = [Hook(w, mo, m) for m in members if callable(m) for (w, mo) in getattr(m, _HOOKS, [])]
    return Ruleset(
        key=key, name=name, parts=tuple(found_parts), actions=tuple(actions), hooks=tuple(hooks), **fields
    )
