"""Turn sequences of the three game systems (GEN-01) and advancing through them with hooks."""

from __future__ import annotations

from app.rules.core import Event
from app.rules.dice import DiceSource
from app.rules.registry import STEP_HOOKS
from app.rules.state import BattleState, Clock

IMPULSES = 32

SEQUENCES: dict[str, list[str]] = {
    # Star Fleet Battles: Energy Allocation, impulses 1–32, end of turn.
    "sfb": ["energy_allocation", "impulse", "end_of_turn"],
    # Babylon 5 Wars: initial actions (Ship Power), movement, combat, end of turn (Adjust Ship Systems).
    "b5wars": ["ship_power", "movement", "combat", "adjust_systems"],
    # High Guard: secret orders, manoeuvre, combat-action loop, ship action, end of round.
    "traveller": ["orders", "manoeuvre", "combat", "ship_action", "end_of_round"],
}

STEP_LABELS: dict[str, str] = {
    "energy_allocation": "Energy Allocation",
    "impulse": "Impulse",
    "end_of_turn": "End of turn",
    "ship_power": "Ship Power",
    "movement": "Movement",
    "combat": "Combat",
    "adjust_systems": "Adjust Ship Systems",
    "orders": "Orders",
    "manoeuvre": "Manoeuvre",
    "ship_action": "Ship action",
    "end_of_round": "End of round",
}


def initial_clock(system: str) -> Clock:
    first = SEQUENCES[system][0]
    return Clock(turn=1, step=first, impulse=None)


def describe(clock: Clock) -> str:
    label = STEP_LABELS.get(clock.step, clock.step)
    if clock.impulse is not None:
        label += f" {clock.impulse}/{IMPULSES}"
    return f"Turn {clock.turn} · {label}"


STEP_SHORT: dict[str, str] = {
    "energy_allocation": "EA",
    "impulse": "I",
    "end_of_turn": "End",
    "ship_power": "Power",
    "movement": "Move",
    "combat": "Fire",
    "adjust_systems": "Adjust",
    "orders": "Orders",
    "manoeuvre": "Manoeuvre",
    "ship_action": "Ship action",
    "end_of_round": "End",
}


def short(clock: Clock) -> str:
    """The log's time stamp: "T4 I17", "T2 Power"."""
    step = STEP_SHORT.get(clock.step, clock.step)
    return f"T{clock.turn} {step}{clock.impulse}" if clock.impulse is not None else f"T{clock.turn} {step}"


def next_clock(system: str, clock: Clock) -> Clock:
    steps = SEQUENCES[system]
    if clock.step == "impulse" and clock.impulse is not None and clock.impulse < IMPULSES:
        return Clock(turn=clock.turn, step="impulse", impulse=clock.impulse + 1)
    index = steps.index(clock.step)
    if index + 1 < len(steps):
        step = steps[index + 1]
        return Clock(turn=clock.turn, step=step, impulse=1 if step == "impulse" else None)
    return Clock(turn=clock.turn + 1, step=steps[0], impulse=1 if steps[0] == "impulse" else None)


def run_hooks(state: BattleState, key: str, dice: DiceSource) -> list[Event]:
    events: list[Event] = []
    for hook in STEP_HOOKS.get(key, []):
        events.extend(hook(state, dice))
    return events


def advance(state: BattleState, dice: DiceSource) -> list[Event]:
    """Leave the current step (its hooks run), then enter the next (its hooks run)."""
    old = state.clock
    events = run_hooks(state, f"{state.system}:leave:{old.step}", dice)
    new = next_clock(state.system, old)
    if new.turn != old.turn:
        events.extend(run_hooks(state, f"{state.system}:leave:turn", dice))
    state.clock = new
    events.append(Event(kind="clock", text=f"{describe(old)} ends; {describe(new)} begins."))
    if new.turn != old.turn:
        events.extend(run_hooks(state, f"{state.system}:enter:turn", dice))
    events.extend(run_hooks(state, f"{state.system}:enter:{new.step}", dice))
    return events
