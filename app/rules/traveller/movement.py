"""Thrust, dodges, jumps and launches (TR-19, TR-27, GEN-01, GEN-03).

Each round a ship has its Thrust to spend: in the manoeuvre step on range changes (toward a pair on
the range board, which moves when the step ends: ranges.py; or on what the players settle, GEN-03),
and in the combat step on dodges. What it has comes from the M-drive
hits and the power plant's share (TR-19), +1 under *Maximum Speed* (TR-27); *Evasive Action*
adds a point per order that only dodges may use, and that costs no reaction. A bridge hit grounds
the ship for the next round: no manoeuvre, no dodge, no jump (TR-19); *Run Silent, Run Dark*
forbids moving. A jump is an Engineering (jump) check in the ship action step with the J-drive's
DM and *Prepare for Jump!*'s +2; on success the ship leaves the battle.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, Roll, RuleError, ShipRef
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark, when
from app.rules.state import BattleState, Ship
from app.rules.system import FIRE, MOVEMENT, SHIP_ACTION
from app.rules.traveller import tables as T
from app.rules.traveller.barrage import blasted
from app.rules.traveller.checks import DM, standard_check
from app.rules.traveller.crew import can_act, computer_dms, crew_dms
from app.rules.traveller.flights import Flight
from app.rules.traveller.ranges import allocate, launch_ranges
from app.rules.traveller.ship import Combatant, HgShip
from app.rules.traveller.units import load_unit, save_unit

DODGE_DM = -2  # a successful Pilot check: the attack takes −2 (tables.md §1b [SRD], [MGF])
PREPARE_FOR_JUMP_DM = 2
COMMAND_DISCIPLINE_DM = 1


def _may_move(state: BattleState, ship: Ship, unit: Combatant, what: str) -> None:
    if not can_act(unit):
        raise RuleError(f"{ship.name}'s crew is dead and cannot act (TR-23)", "ship")
    if isinstance(unit, HgShip):
        if unit.disabled:
            raise RuleError(f"{ship.name} is disabled (power plant out)", "ship")
        if unit.systems.bridge_round == state.clock.turn:
            raise RuleError(f"the bridge hit grounds {ship.name} this round: no {what} (TR-19)", "ship")
    if unit.round.has("run_silent"):
        raise RuleError(f"{ship.name} runs silent this round and may not move (TR-27)", "ship")


def _thrust_left(unit: Combatant) -> int:
    return max(unit.thrust_now() - unit.round.thrust_used, 0)


def _thrust_why(unit: Combatant) -> str:
    parts = [f"Thrust {unit.thrust_now()} this round"]
    if isinstance(unit, HgShip):
        if unit.systems.m_drive:
            parts.append(f"M-Drive hits {unit.systems.m_drive}")
        if unit.power_max and unit.power < unit.power_max:
            parts.append(f"Power {unit.power}/{unit.power_max}")
    if unit.round.has("maximum_speed"):
        parts.append("+1 Maximum Speed")
    parts.append(f"{unit.round.thrust_used} spent")
    return ", ".join(parts)


class Manoeuvre(BaseModel):
    """Thrust spent in the manoeuvre step: toward a pair on the range board (target and direction),
    or on something else the players settle (description; GEN-03)."""

    ship: str
    thrust: int = Field(ge=1, le=40, description="Thrust spent")
    target: str | None = Field(
        default=None, description="the other ship of the pair whose range this changes"
    )
    direction: Literal["close", "open"] | None = Field(default=None, description="close or open the range")
    description: str | None = Field(
        default=None, min_length=3, max_length=200, description="what it does, e.g. lines up behind the moon"
    )


def manoeuvre(state: BattleState, p: Manoeuvre, actor: Actor, dice: DiceSource) -> list[Event]:
    """Thrust on a range change goes to the pair on the board and moves it when the step ends
    (ranges.py, the core rules' Range Table); other manoeuvres are the players' to settle (GEN-03)."""
    ship = state.ship(p.ship)
    unit = load_unit(state, ship)
    _may_move(state, ship, unit, "manoeuvre")
    if p.target is None and p.direction is not None:
        raise RuleError("name the ship whose range this Thrust closes or opens", "target")
    if p.target is not None and p.direction is None:
        raise RuleError("say whether the Thrust closes or opens the range", "direction")
    if p.target is None and p.description is None:
        raise RuleError("name the ship whose range this Thrust changes, or say what it does", "description")
    does = allocate(state, ship, p.target, p.direction) if p.target and p.direction else ""
    left = _thrust_left(unit)
    if p.thrust > left:
        raise RuleError(f"{ship.name} has {left} Thrust left ({_thrust_why(unit)})", "thrust")
    unit.round.thrust_used += p.thrust
    data: dict[str, object] = {"thrust": p.thrust}
    if p.target and p.direction:
        signed_thrust = p.thrust if p.direction == "open" else -p.thrust
        unit.round.moves[p.target] = unit.round.moves.get(p.target, 0) + signed_thrust
        data.update(target=p.target, direction=p.direction)
    save_unit(ship, unit)
    what = "; ".join(x for x in (does, p.description or "") if x)
    return [
        Event.about(
            ship,
            "manoeuvre",
            f"{ship.name} spends {p.thrust} Thrust: {what} ({left - p.thrust} left this round).",
            data=data,
        )
    ]


mark(
    manoeuvre,
    action("traveller.manoeuvre", Manoeuvre, "Spend Thrust", ship="ship"),
    when(MOVEMENT, refusal="Thrust for range changes is spent in the {step:lower} step", field="ship"),
)


def dodge(state: BattleState, p: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """A reaction against the next attack on the ship this round: one Thrust and one reaction, then
    a Pilot check (GEN-05); success gives that attack −2 (core rules, tables.md §1b). Evasive
    Action's extra Thrust pays for it without a reaction (TR-27)."""
    ship = state.ship(p.ship)
    unit = load_unit(state, ship)
    _may_move(state, ship, unit, "dodging")
    blaster = blasted(state, ship, unit)
    if blaster is not None:
        raise RuleError(
            f"{blaster} blasts the craft launching from {state.ships[unit.carrier].name}: {ship.name} may"  # type: ignore[attr-defined, index]  # a launching craft is a Flight
            " not dodge this round (Blast Them As They Launch!)",
            "ship",
        )
    if unit.round.dodge is not None:
        raise RuleError(f"{ship.name} has a dodge waiting for the next attack already", "ship")
    evasive = unit.round.count("evasive_action") - unit.round.evasive_used
    if evasive > 0:
        unit.round.evasive_used += 1
        paid = f"Evasive Action Thrust ({evasive - 1} left), no reaction"
    else:
        if _thrust_left(unit) < 1:
            raise RuleError(f"{ship.name} has no Thrust left to dodge ({_thrust_why(unit)})", "ship")
        allowed = T.reactions(unit.current_initiative() or 0)
        if unit.round.reactions_used >= allowed:
            raise RuleError(f"{ship.name} has no reaction left ({allowed} this round)", "ship")
        unit.round.thrust_used += 1
        unit.round.reactions_used += 1
        paid = f"1 Thrust, reaction {unit.round.reactions_used} of {allowed}"
    rolls: list[Roll] = []
    dms: list[DM] = crew_dms(unit)
    if unit.round.has("command_discipline"):
        dms.append(("Command Discipline", COMMAND_DISCIPLINE_DM))
    dms += computer_dms(unit, dice, ship.id, rolls)
    check = standard_check(dice, "Pilot (dodge)", dms, ship=ship.id)
    rolls.append(check.roll)
    unit.round.dodge = DODGE_DM if check.success else 0
    save_unit(ship, unit)
    result = "the next attack on it this round takes −2" if check.success else "no effect"
    return [
        Event.about(
            ship,
            "dodge",
            f"{ship.name} dodges ({paid}): Pilot {check.sentence()}: {result}.",
            rolls=rolls,
            data={"dodge_dm": unit.round.dodge},
        )
    ]


mark(
    dodge,
    action("traveller.dodge", ShipRef, "Dodge the next attack", ship="ship"),
    when(FIRE, refusal="dodges are reactions in the {step:lower} step", field="ship"),
)


def jump(state: BattleState, p: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """GEN-01: jumps happen in the ship action step. The Engineering (jump) check is a standard check
    with the crew DMs, the J-drive hit's DM (TR-19), Prepare for Jump! +2 and Command Discipline +1
    (TR-27) and the computer's DMs; success takes the ship out of the battle. What a failure means
    (misjump, nothing) is the core rules' (GEN-03)."""
    ship = state.ship(p.ship)
    unit = load_unit(state, ship)
    if not isinstance(unit, HgShip):
        raise RuleError("a flight does not jump", "ship")
    _may_move(state, ship, unit, "jump")
    systems = unit.systems
    if unit.jump <= 0:
        raise RuleError(f"{ship.name} has no jump drive", "ship")
    if systems.j_drive >= 2:
        raise RuleError(f"{ship.name}'s J-Drive is disabled (TR-19)", "ship")
    if systems.computer >= 3:
        raise RuleError(f"{ship.name}'s computer is disabled: no jump (TR-19)", "ship")
    if unit.jump_now() < 1:
        raise RuleError(f"Power {unit.power}/{unit.power_max} leaves no Jump (TR-19)", "ship")
    if unit.round.jump_tried:
        raise RuleError(f"{ship.name} has made its jump attempt this round", "ship")
    unit.round.jump_tried = True
    rolls: list[Roll] = []
    dms: list[DM] = crew_dms(unit)
    if systems.jump_dm:
        dms.append(("J-Drive hit", systems.jump_dm))
    if unit.round.has("prepare_jump"):
        dms.append(("Prepare for Jump!", PREPARE_FOR_JUMP_DM))
    if unit.round.has("command_discipline"):
        dms.append(("Command Discipline", COMMAND_DISCIPLINE_DM))
    dms += computer_dms(unit, dice, ship.id, rolls)
    check = standard_check(dice, "Engineering (jump)", dms, ship=ship.id)
    rolls.append(check.roll)
    if check.success:
        unit.jumped = state.clock.turn
        outcome = f"{ship.name} jumps out of the battle (Jump-{unit.jump_now()})"
    else:
        outcome = "the jump fails (what that means is the core rules')"
    save_unit(ship, unit)
    return [
        Event.about(
            ship,
            "jump",
            f"{ship.name} attempts to jump: Engineering (jump) {check.sentence()}: {outcome}.",
            rolls=rolls,
            data={"jumped": check.success},
        )
    ]


mark(
    jump,
    action("traveller.jump", ShipRef, "Jump out of the battle", ship="ship"),
    when(SHIP_ACTION, refusal="ships jump in the {step:lower} step", field="ship"),
)


class Launch(BaseModel):
    flight: str
    carrier: str = Field(description="the ship it launches from")


def _may_launch(state: BattleState, ship: Ship) -> str | None:
    """The gate's question: a flight not yet launched (TR-27's Blast Them As They Launch! reads it)."""
    flight = ship.part("flight")
    if flight is None:
        return f"{ship.name} is not a flight"
    if flight.get("launched_round") is not None:
        return f"{ship.name} has launched already (round {flight['launched_round']})"
    return None


def launch(state: BattleState, p: Launch, actor: Actor, dice: DiceSource) -> list[Event]:
    """Records where and when a flight launched, which Blast Them As They Launch! reads (TR-27)."""
    ship = state.ship(p.flight, "flight")
    carrier = state.ship(p.carrier, "carrier")
    unit = load_unit(state, ship, "flight")
    # The gate (`_may_launch`) refuses a unit that is no flight or has launched already.
    assert isinstance(unit, Flight) and unit.launched_round is None
    if carrier.id == ship.id or carrier.destroyed or carrier.side != ship.side:
        raise RuleError("a flight launches from a friendly ship still in the fight", "carrier")
    unit.carrier, unit.launched_round = carrier.id, state.clock.turn
    save_unit(ship, unit)
    placed = launch_ranges(state, ship, carrier)
    board = f" It starts on the range board at its carrier's bands ({placed})." if placed else ""
    return [
        Event.about(
            ship, "launch", f"{ship.name} launches from {carrier.name}.{board}", data={"carrier": carrier.id}
        )
    ]


mark(launch, action("traveller.launch", Launch, "Launch a flight", ship="flight", fits=_may_launch))
