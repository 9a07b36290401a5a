"""How a battle ends by itself, when the referee chose so at its start.

Left alone a battle ends only when the referee ends it (`battle.end`): the end reveals the dice
seed and closes undo, so it is never forced on a table that did not ask for it. Two battle options
let the rules end it as a step ends:

- `end_when_one_side_left` (GEN-04): when a step ends with ships still fighting on at most one side
  — every other side's ships destroyed or gone (warped out, jumped, dead of pain). Checked when the
  step ends, not at the hit: fire entered in the same step still counts (both sides may go down
  together: a draw) and a mistaken hit can still be undone before it ends the battle.
- `turn_limit` (GEN-01): the battle ends when that turn (round) ends, instead of the next beginning.

A side is the ships' `side`; a ship without one fights for its commander (as the Shadow's
"enemies" are counted, SH-12). A battle that never had ships on two sides does not end this way.
"""

from __future__ import annotations

from typing import Any

from app.rules.core import Event, RuleError
from app.rules.state import BattleState, Clock, Ship

ONE_SIDE_LEFT = "end_when_one_side_left"
TURN_LIMIT = "turn_limit"
MOST_TURNS = 1000
DRAW = "draw"  # the winner of a battle nobody won


def check_options(options: dict[str, Any]) -> None:
    """Refuse ending options a battle could not play by, naming the option."""
    if ONE_SIDE_LEFT in options and type(options[ONE_SIDE_LEFT]) is not bool:
        raise RuleError(f"options.{ONE_SIDE_LEFT}: true or false", f"options.{ONE_SIDE_LEFT}")
    limit = options.get(TURN_LIMIT)
    if limit is not None and (type(limit) is not int or not 1 <= limit <= MOST_TURNS):
        raise RuleError(
            f"options.{TURN_LIMIT}: the last turn, a whole number from 1 to {MOST_TURNS} (or null for none)",
            f"options.{TURN_LIMIT}",
        )


def side_of(ship: Ship) -> str:
    return f"side:{ship.side}" if ship.side else f"commander:{ship.owner or ''}"


def sides_of(state: BattleState) -> list[str]:
    """The sides the battle's ships fight on (a ship's `side`), in the order they first appear."""
    return list(dict.fromkeys(s.side for s in state.ships.values() if s.side))


def winner(event: dict[str, Any], ships: dict[str, dict[str, Any]]) -> str | None:
    """Who won, as a `battle_end` event (a log dict) records it: the side the referee named or
    "draw"; for an end by the rules, the side still fighting (a draw when none is, or at the
    turn limit); None when the end does not say (a referee's end without a winner, or the last
    ships fighting have no side). `ships`: the ships by id as a view holds them (their `side`)."""
    data = event.get("data") or {}
    if "winner" in data:
        found = data["winner"]
        return found if isinstance(found, str) else None
    if data.get("reason") == "turn_limit":
        return DRAW
    if data.get("reason") == "one_side_left":
        fighting = data.get("fighting") or []
        if not fighting:
            return DRAW
        sides = {(ships.get(sid) or {}).get("side") or "" for sid in fighting}
        return sides.pop() if len(sides) == 1 and "" not in sides else None
    return None


def _names(ships: list[Ship]) -> str:
    names = [s.name for s in ships]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def battle_over(state: BattleState, old: Clock, new: Clock) -> Event | None:
    """The battle's end as the step at `old` ends (before `new` begins), if an option ends it now."""
    if state.options.get(ONE_SIDE_LEFT):
        fighting = [s for s in state.ships.values() if not state.game.gone(s)]
        sides = {side_of(s) for s in state.ships.values()}
        left = {side_of(s) for s in fighting}
        if len(sides) >= 2 and len(left) <= 1:
            still = {s.id for s in fighting}
            out = [s for s in state.ships.values() if s.id not in still]
            data = {
                "reason": "one_side_left",
                "fighting": [s.id for s in fighting],
                "out": [s.id for s in out],
            }
            if not fighting:
                return _end("no ship is left fighting: a draw", data)
            who = f"the {fighting[0].side} side" if fighting[0].side else _names(fighting)
            return _end(f"only {who} still fights ({_names(out)} out of the battle)", data)
    limit = state.options.get(TURN_LIMIT)
    if limit is not None and new.turn != old.turn and old.turn >= limit:
        return _end(
            f"turn {old.turn} was the last (the turn limit)", {"reason": "turn_limit", "turn": old.turn}
        )
    return None


def _end(why: str, data: dict[str, Any]) -> Event:
    return Event(kind="battle_end", text=f"The battle ends: {why}.", data=data)
