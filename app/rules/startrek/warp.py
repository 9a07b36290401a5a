"""Warp drives (ST-17 … ST-20).

The warp delay counts turns until the ship may go to warp again. A ship declares warp at the start
of a turn (the Ship Power segment); every working nacelle is checked at once on d100 against its
destroyed boxes (ST-18), and a failure resets the delay to its full current value. A successful
ship fires nothing that turn (`fire_blocked_by_warp` is the flag other rules read) and leaves the
battle at the end of the turn, as a Shadow phases out (ST-17). Each destroyed nacelle adds 2 to the
delay (ST-19); a shut-down nacelle adds 1 and is skipped in the check (ST-20).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.attack import DamageContext
from app.rules.core import Actor, Event, Roll, RuleError, ShipRef
from app.rules.dice import DiceSource
from app.rules.ruleset import Settable, action, hook, mark, part, when
from app.rules.startrek.common import (
    need_part,
    read_part,
    save_part,
    segment,
    sheet_system,
    ships_in_order,
    ships_with,
    system_destroyed,
    systems_of_kind,
)
from app.rules.state import BattleState, Ship
from app.rules.system import ADJUST, ALLOCATION

PART = "warp"
DESTROYED_NACELLE_DELAY = 2
SHUTDOWN_NACELLE_DELAY = 1


@part(PART, settable=(Settable("counter", "Warp turns still to wait"), Settable("departed", "Gone to warp")))
class Warp(BaseModel):
    """Warp delay and nacelles. `delay` is the ship's listed delay; `counter` the turns still to wait."""

    delay: int = Field(ge=0, le=50)
    counter: int = Field(default=0, ge=0)
    nacelles: list[str] | None = Field(default=None, description="sheet systems; default every 'nacelle'")
    shut_down: list[str] = Field(default_factory=list)
    destroyed_counted: list[str] = Field(default_factory=list)
    last_shutdown_turn: int | None = None
    reset_turn: int | None = None
    declared_turn: int | None = None
    departed: bool = False


def turns(n: int) -> str:
    return f"{n} turn" if n == 1 else f"{n} turns"


def nacelle_names(ship: Ship, warp: Warp) -> list[str]:
    if warp.nacelles is not None:
        return list(warp.nacelles)
    return [s.name for s in systems_of_kind(ship, "nacelle")]


def full_delay(warp: Warp) -> int:
    """The delay a failure resets to: listed + 2 per destroyed + 1 per shut-down nacelle."""
    return (
        warp.delay
        + DESTROYED_NACELLE_DELAY * len(warp.destroyed_counted)
        + SHUTDOWN_NACELLE_DELAY * len(warp.shut_down)
    )


def working_nacelles(ship: Ship, warp: Warp) -> list[str]:
    """Nacelles neither destroyed nor shut down: the ones that count and are checked."""
    return [n for n in nacelle_names(ship, warp) if n not in warp.shut_down and not system_destroyed(ship, n)]


def fire_blocked_by_warp(state: BattleState, ship: Ship) -> str | None:
    """ST-17: in the turn a ship goes to warp none of its weapons fire, offensively or defensively."""
    warp = read_part(ship, PART, Warp)
    if warp is None:
        return None
    if warp.declared_turn == state.clock.turn:
        return f"{ship.name} is going to warp this turn and may not fire (ST-17)"
    return None


def count_destroyed_nacelles(ship: Ship) -> list[Event]:
    """ST-19: each newly destroyed nacelle adds 2 turns to the delay (without resetting it)."""
    warp = read_part(ship, PART, Warp)
    if warp is None:
        return []
    events: list[Event] = []
    for name in nacelle_names(ship, warp):
        if name in warp.destroyed_counted or not system_destroyed(ship, name):
            continue
        warp.destroyed_counted.append(name)
        warp.counter += DESTROYED_NACELLE_DELAY
        events.append(
            Event.about(
                ship,
                "warp_delay",
                f"{ship.name}'s {name} is destroyed: warp delay +{DESTROYED_NACELLE_DELAY}, "
                f"{turns(warp.counter)} to wait (ST-19).",
            )
        )
    if events:
        save_part(ship, PART, warp)
    return events


def nacelle_listener(ctx: DamageContext) -> None:
    ctx.events.extend(count_destroyed_nacelles(ctx.target))


def _nacelle_check(ship: Ship, name: str, dice: DiceSource) -> tuple[bool, Roll | None, str]:
    """ST-18: fail on d100 at or under the destroyed boxes (capped at 100); none destroyed, no roll."""
    system = sheet_system(ship, name)
    damaged = min(system.damage if system else 0, 100)
    if damaged == 0:
        return True, None, f"{name} is undamaged (0% failure)"
    roll = dice.roll(1, 100, f"{name} warp check", ship=ship.id, target=f"> {damaged} to hold")
    held = roll.total > damaged
    roll.outcome = "holds" if held else "fails"
    return held, roll, f"{name} ({damaged}% failure) rolls {roll.total}: {roll.outcome}"


def declare_refusal(state: BattleState, ship: Ship) -> str | None:
    """Why `ship` may not declare warp now, or None (ST-17, ST-19): a warp drive, not yet declared
    this turn, its delay run out, and enough working nacelles. The gate asks it for every offer and
    every declaration, and the ship card reads it, so what is offered is what is taken."""
    warp = read_part(ship, PART, Warp)
    if warp is None:
        return f"{ship.name} has no warp drive"
    if warp.declared_turn == state.clock.turn:
        return f"{ship.name} has already declared warp this turn"
    if warp.counter > 0:
        return f"{ship.name}'s warp delay has {turns(warp.counter)} to run"
    active = working_nacelles(ship, warp)
    needed = 2 if len(nacelle_names(ship, warp)) > 1 else 1
    if len(active) < needed:
        return (
            f"{ship.name} has {len(active)} working nacelle{'' if len(active) == 1 else 's'} and needs {needed} "
            "to go to warp (ST-19)"
        )
    return None


def declare(state: BattleState, p: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-17/18/19: declare at the start of the turn (the gate has asked `declare_refusal`); check
    every working nacelle."""
    ship = state.ship(p.ship)
    warp = need_part(ship, PART, Warp, "warp drive")
    active = working_nacelles(ship, warp)
    rolls: list[Roll] = []
    notes: list[str] = []
    failed = False
    for name in active:
        held, roll, note = _nacelle_check(ship, name, dice)
        failed = failed or not held
        notes.append(note)
        if roll is not None:
            rolls.append(roll)
    checks = "; ".join(notes)
    if failed:
        warp.counter = full_delay(warp)
        warp.reset_turn = state.clock.turn
        kind, data = "warp_failed", {"success": False, "counter": warp.counter}
        text = (
            f"{ship.name} tries to go to warp: {checks}. The attempt fails and the warp delay resets "
            f"to {turns(warp.counter)} (ST-18)."
        )
    else:
        warp.declared_turn = state.clock.turn
        kind, data = "warp_declared", {"success": True}
        text = (
            f"{ship.name} goes to warp: {checks}. No weapon fires this turn; it leaves at the end of the "
            "turn (ST-17)."
        )
    save_part(ship, PART, warp)
    return [Event.about(ship, kind, text, rolls=rolls, data=data)]


mark(
    declare,
    action("startrek.declare_warp", ShipRef, "Declare warp", ship="ship", fits=declare_refusal),
    when(ALLOCATION, refusal=segment("Declaring warp")),
)


class ShutDownNacelle(BaseModel):
    ship: str
    nacelle: str


def shutdown_refusal(state: BattleState, ship: Ship) -> str | None:
    """Why `ship` may shut down no nacelle now, whichever it names, or None (ST-20): a warp drive,
    more than two working nacelles, and none shut down yet this turn. The gate asks it for every
    offer and every shut-down, and the ship card reads it, so what is offered is what is taken."""
    warp = read_part(ship, PART, Warp)
    if warp is None:
        return f"{ship.name} has no warp drive"
    if len(working_nacelles(ship, warp)) <= 2:
        return f"{ship.name} needs more than two working nacelles to shut one down (ST-20)"
    if warp.last_shutdown_turn == state.clock.turn:
        return f"{ship.name} has already shut down a nacelle this turn; one a turn (ST-20)"
    return None


def shut_down(state: BattleState, p: ShutDownNacelle, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-20: with more than two working nacelles, shut one down per turn (the gate has asked
    `shutdown_refusal`); the delay grows by 1."""
    ship = state.ship(p.ship)
    warp = need_part(ship, PART, Warp, "warp drive")
    names = {n.lower(): n for n in nacelle_names(ship, warp)}
    name = names.get(p.nacelle.lower())
    if name is None:
        raise RuleError(f"{ship.name} has no nacelle {p.nacelle!r} ({', '.join(names.values())})", "nacelle")
    if name not in working_nacelles(ship, warp):
        raise RuleError(f"{name} is already shut down or destroyed", "nacelle")
    warp.shut_down.append(name)
    warp.last_shutdown_turn = state.clock.turn
    warp.counter += SHUTDOWN_NACELLE_DELAY
    save_part(ship, PART, warp)
    return [
        Event.about(
            ship,
            "nacelle_shutdown",
            f"{ship.name} shuts down {name}: warp delay +1, {turns(warp.counter)} to wait; it is skipped "
            "in warp checks (ST-20).",
        )
    ]


mark(
    shut_down,
    action(
        "startrek.shutdown_nacelle",
        ShutDownNacelle,
        "Shut down a nacelle",
        ship="ship",
        fits=shutdown_refusal,
    ),
    when(ALLOCATION, refusal=segment("Shutting down a nacelle")),
)


def leave_for_warp(state: BattleState, dice: DiceSource) -> list[Event]:
    """ST-17: a ship that went to warp this turn leaves the battle at its end."""
    events: list[Event] = []
    for ship, warp in ships_with(state, PART, Warp):
        if warp.departed or warp.declared_turn != state.clock.turn or ship.destroyed:
            continue
        warp.departed = True
        save_part(ship, PART, warp)
        events.append(Event.about(ship, "warp_departed", f"{ship.name} goes to warp and leaves the battle."))
    return events


mark(leave_for_warp, hook("leave", ADJUST))


def count_down(state: BattleState, dice: DiceSource) -> list[Event]:
    """ST-17: one turn of the delay passes at each turn's end (not the turn of a reset); nacelles
    destroyed by a referee's override are counted here too (ST-19)."""
    events: list[Event] = []
    for ship in ships_in_order(state):
        events.extend(count_destroyed_nacelles(ship))
        warp = read_part(ship, PART, Warp)
        if warp is None or warp.counter == 0 or warp.reset_turn == state.clock.turn:
            continue
        warp.counter -= 1
        save_part(ship, PART, warp)
    return events


mark(count_down, hook("leave", "turn"))
