"""Parts parsed once per action.

The state keeps each ship's parts as plain JSON: that is what the database stores, what a copy is
rebuilt from and what the views read. A rule reads a part as its typed model, and within one
action the same part is asked for many times (a barrage's gate, the combat-action loop, escorts,
the readiness check after it): parsing it each time was two-thirds of the rules core's time.

So while an action runs (`apply_action` opens the memo and closes it at the end, whatever
happens), each ship keeps the model each part was parsed into, beside the very dict it came from.
A read whose part is still that dict gets the same model back; a part written since — every save
puts a new dict in place — is parsed afresh, unless the save itself says which model it wrote.
The memo lives on the action's own ships (a private attribute, never dumped, never copied), so
nothing outlives the action and nothing is shared between battles or processes.

What this asks of a rule: a model it changed is saved before the part is read again in the same
action; a part dict is never changed in place (write a new one, as the saves do).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from app.rules.state import BattleState, Ship

M = TypeVar("M", bound=BaseModel)


def _memo(ship: Ship) -> dict[str, tuple[Any, BaseModel]] | None:
    return ship.__pydantic_private__["_parsed"]  # type: ignore[index]  # a model with private fields


def parsed(ship: Ship, name: str, model: type[M], parse: Callable[[Any], M] | None = None) -> M | None:
    """The ship's part `name` as `model` (None when the ship has no such part), parsed by `parse`
    (default `model.model_validate`) unless this action parsed the same dict already."""
    raw = ship.parts.get(name)
    if raw is None:
        return None
    memo = _memo(ship)
    if memo is not None:
        kept = memo.get(name)
        if kept is not None and kept[0] is raw and isinstance(kept[1], model):
            return kept[1]  # type: ignore[return-value]  # checked just above
    found = (parse or model.model_validate)(raw)
    if memo is not None:
        memo[name] = (raw, found)
    return found


def store(ship: Ship, name: str, part: BaseModel) -> None:
    """Write the part as JSON; in an action the model is kept as the parse of what was written."""
    raw = part.model_dump(mode="json")
    ship.parts[name] = raw
    memo = _memo(ship)
    if memo is not None:
        memo[name] = (raw, part)


def open_memo(state: BattleState) -> None:
    for ship in state.ships.values():
        if _memo(ship) is None:
            ship.__pydantic_private__["_parsed"] = {}  # type: ignore[index]


def move_memo(source: BattleState, copy: BattleState) -> None:
    """Hand the models parsed on `source` (while the gate asked its questions) to its fresh copy,
    whose parts are equal dicts: the handler changes the copy's models, so `source` keeps none."""
    for sid, ship in source.ships.items():
        memo = _memo(ship)
        ship.__pydantic_private__["_parsed"] = None  # type: ignore[index]
        twin = copy.ships.get(sid)
        if twin is None:
            continue
        twin.__pydantic_private__["_parsed"] = {  # type: ignore[index]
            name: (twin.parts[name], model)
            for name, (raw, model) in (memo or {}).items()
            if ship.parts.get(name) is raw and name in twin.parts
        }


def close_memo(state: BattleState) -> None:
    for ship in state.ships.values():
        ship.__pydantic_private__["_parsed"] = None  # type: ignore[index]
