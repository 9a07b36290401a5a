"""Parts parsed once per action.

The state keeps each ship's parts as plain JSON: that is what the database stores, what a copy is
rebuilt from and what the views read. A rule reads a part as its typed model, and within one
action the same part is asked for many times (a barrage's gate, the combat-action loop, escorts,
the readiness check after it): parsing it each time was two-thirds of the rules core's time.

So while an action runs (`apply_action` opens the memo and drops it at the end, whatever happens),
each part read is kept with the very dict it was parsed from. A read whose part is still that
dict gets the same model back; a part written since — every save puts a new dict in place — is
parsed afresh, unless the save itself says which model it wrote. The memo belongs to the one
action: it is held in a context variable (each thread and task has its own, a nested action
gets a fresh one), so nothing outlives the action or passes between battles; outside an action
every read parses, as before. A reader needs only the ship (the helpers `load(ship)` and
`save(ship, …)` never had the state), hence a context rather than an attribute of the state.

What this asks of a rule: a model it changed is saved before the same part is read again in the
same action; a part dict is never changed in place (write a new one, as the saves do). The
handler's copy of the state relies on that too: it shares the dicts of the parts the gate parsed
with the state it was copied from (`copy_for_handler`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from pydantic import BaseModel

from app.rules.state import BattleState, Ship

M = TypeVar("M", bound=BaseModel)

# (ship id, part name) → (the part dict it was parsed from, its model), for the running action.
Memo = dict[tuple[str, str], tuple[Any, BaseModel]]
_ACTION: ContextVar[Memo | None] = ContextVar("parsed_parts", default=None)


@contextmanager
def parse_once() -> Iterator[None]:
    """Parts read inside are parsed once (`apply_action` runs each action inside one)."""
    token = _ACTION.set({})
    try:
        yield
    finally:
        _ACTION.reset(token)


def parsed(ship: Ship, name: str, model: type[M], parse: Callable[[Any], M] | None = None) -> M | None:
    """The ship's part `name` as `model` (None when the ship has no such part), parsed by `parse`
    (default `model.model_validate`) unless this action parsed the same dict already."""
    raw = ship.parts.get(name)
    if raw is None:
        return None
    memo = _ACTION.get()
    if memo is not None:
        kept = memo.get((ship.id, name))
        if kept is not None and kept[0] is raw:
            cached = kept[1]
            if isinstance(cached, model):  # narrows it to the model asked for
                return cached
    found = (parse or model.model_validate)(raw)
    if memo is not None:
        memo[(ship.id, name)] = (raw, found)
    return found


def store(ship: Ship, name: str, part: BaseModel) -> None:
    """Write the part as JSON; in an action the model is kept as the parse of what was written."""
    raw = part.model_dump(mode="json")
    ship.parts[name] = raw
    memo = _ACTION.get()
    if memo is not None:
        memo[(ship.id, name)] = (raw, part)


def copy_for_handler(source: BattleState) -> BattleState:
    """The handler's private copy of `source`. The parts this action parsed (while the gate asked
    its questions) are not copied: a part dict is never changed in place, so the copy holds the
    very same dicts, and their models serve the copy (the handler changes the models and saves
    new dicts; `source` keeps its own). Copying them was most of a barrage's copy: the ships'
    High Guard parts are nearly all of a Traveller state."""
    memo = _ACTION.get()
    if not memo:
        return source.copy_deep()
    shared: list[tuple[str, str]] = []
    for (sid, name), (raw, _) in list(memo.items()):
        ship = source.ships.get(sid)
        if ship is None or ship.parts.get(name) is not raw:
            del memo[(sid, name)]
        else:
            shared.append((sid, name))
    return source.copy_deep(shared)
