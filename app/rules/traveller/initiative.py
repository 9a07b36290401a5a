"""Initiative, once per engagement (TR-03, TR-03a), and the combat-action loop's moves (TR-04).

Capital ships roll 1d6 + Crew Skill; other craft roll 2D (+1 for the faster); the fleet
commander's Tactics Effect adds to the whole side — or, with the chained roll, becomes a DM on
each captain's own Tactics check, whose Effect is added instead. Orders then lower each round's
initiative (TR-26c); the loop itself is in loop.py.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError, ShipRef
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark, when
from app.rules.state import BattleState, Ship
from app.rules.system import FIRE
from app.rules.traveller import tables as T
from app.rules.traveller.checks import DM, dm_text, standard_check
from app.rules.traveller.crew import computer_dms
from app.rules.traveller.loop import IN_THE_LOOP, loop_order
from app.rules.traveller.ship import Combatant, HgShip
from app.rules.traveller.units import load_unit, other_ship, save_unit, units


class RollInitiative(BaseModel):
    fleet_tactics: dict[str, int] = Field(
        default_factory=dict, description="side → the fleet commander's Tactics (naval) DM; a check is rolled"
    )
    chained: bool = Field(default=False, description="TR-03 optional chained roll")
    captain_tactics: dict[str, int] = Field(
        default_factory=dict,
        description="ship → captain's Tactics DM for the chained roll (default: Crew Skill)",
    )


def _faster(unit: Combatant, ship: Ship, others: list[tuple[Ship, Combatant]]) -> bool:
    """TR-03a Decision: +1 when its Thrust beats every opposing unit's Thrust."""
    rivals = [u.thrust for s, u in others if s.side != ship.side]
    return bool(rivals) and unit.thrust > max(rivals)


def roll_initiative(state: BattleState, p: RollInitiative, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-03, TR-03a: initiative for the engagement, rolled once: each fleet commander's Tactics
    check, then every ship's own roll."""
    everyone = units(state)
    pending = [(s, u) for s, u in everyone if u.initiative_base is None]
    if not pending:
        raise RuleError("initiative is rolled once per engagement, and every ship has it (TR-03)")
    events: list[Event] = []
    effects: dict[str, int] = {}
    for side, dm in sorted(p.fleet_tactics.items()):
        check = standard_check(dice, f"fleet Tactics ({side or 'no side'})", [("Tactics", dm)])
        effects[side] = check.effect
        events.append(
            Event(
                kind="initiative",
                text=f"Fleet commander ({side or 'no side'}) Tactics: {check.sentence()}.",
                rolls=[check.roll],
            )
        )
    for ship, unit in sorted(pending, key=lambda pair: pair[0].id):
        capital = isinstance(unit, HgShip) and unit.is_capital
        roll = dice.roll(1 if capital else 2, 6, "initiative", ship=ship.id)
        dms: list[DM] = [("Crew Skill", T.CREW_SKILL_DM[unit.crew_skill])] if capital else []
        if not capital and _faster(unit, ship, everyone):
            dms.append(("faster", 1))
        rolls = [roll]
        dms += computer_dms(unit, dice, ship.id, rolls)  # TR-19: all the capital ship's rolls
        fleet = effects.get(ship.side)
        if fleet is not None and p.chained:
            captain = p.captain_tactics.get(ship.id, T.CREW_SKILL_DM[unit.crew_skill])
            check = standard_check(
                dice,
                f"captain Tactics ({ship.name})",
                [("Tactics", captain), ("chain", T.task_chain_dm(fleet))],
                ship=ship.id,
            )
            rolls.append(check.roll)
            dms.append(("captain Tactics", check.effect))
        elif fleet is not None:
            dms.append(("fleet Tactics", fleet))
        total = roll.total + sum(v for _, v in dms)
        roll.outcome = f"initiative {total}"
        unit.initiative_base = total
        unit.round.initiative = total
        save_unit(ship, unit)
        events.append(
            Event.about(
                ship,
                "initiative",
                f"{ship.name} initiative: {len(roll.dice)}D {roll.total}{dm_text(dms)} = {total}"
                f" → reactions {T.reactions(total)}.",
                rolls=rolls,
                data={"initiative": total},
            )
        )
    return events


mark(
    roll_initiative,
    action("traveller.initiative", RollInitiative, "Roll initiative for the engagement", referee_only=True),
)


def pass_turn(state: BattleState, p: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-04: a ship that has done all it wishes leaves the loop for this round."""
    ship = state.ship(p.ship)
    unit = load_unit(state, ship)
    unit.round.passed = True
    save_unit(ship, unit)
    after = [s.name for s, _ in loop_order(state)]
    nxt = f" Next: {after[0]}." if after else " Every ship has finished."
    return [Event.about(ship, "loop", f"{ship.name} has finished its combat actions this round.{nxt}")]


mark(
    pass_turn,
    action("traveller.pass", ShipRef, "Finish combat actions this round", ship="ship"),
    when(FIRE, refusal="ships pass in the {step:lower} step", field="ship"),
)


class OtherAction(BaseModel):
    ship: str
    description: str = Field(
        min_length=3, max_length=200, description="boarding, moving… (outcome entered, GEN-03)"
    )


def other_action(state: BattleState, p: OtherAction, actor: Actor, dice: DiceSource) -> list[Event]:
    """A combat action the tracker does not resolve (boarding, moving): it takes the ship's turn."""
    ship = state.ship(p.ship)
    unit = load_unit(state, ship)
    unit.round.actions += 1
    save_unit(ship, unit)
    return [Event.about(ship, "combat_action", f"{ship.name}: {p.description}.")]


mark(
    other_action,
    action("traveller.combat_action", OtherAction, "Take another combat action", ship="ship"),
    IN_THE_LOOP,
)


class Board(BaseModel):
    ship: str = Field(description="the ship sending boarding parties")
    target: str
    outcome: str = Field(min_length=1, max_length=300, description="the Boarding Action result (GEN-03)")


def board(state: BattleState, p: Board, actor: Actor, dice: DiceSource) -> list[Event]:
    """Boarding is one of the combat actions ships trade in the loop (TR-04). The Boarding Action
    table is not in the seeds, so its result is entered (GEN-03); the log states the orders that
    bear on it: Board Them! (no effect text in the seed: recorded, TR-27 Decision) and the
    defender's Prepare to Repel Boarders!, +1 DM on the Boarding Action table."""
    ship = state.ship(p.ship)
    target_ship = other_ship(state, ship, p.target, "board another ship still in the fight")
    unit = load_unit(state, ship)
    target = load_unit(state, target_ship, "target")
    reason = state.game.boarding_refusal(target_ship, "boarding")
    if reason:
        raise RuleError(reason, "target")
    unit.round.actions += 1
    save_unit(ship, unit)
    notes = []
    if unit.round.has("board_them"):
        notes.append("Board Them! ordered")
    repel = 1 if target.round.has("repel_boarders") else 0
    if repel:
        notes.append(f"Boarding Action table: {target_ship.name} +1 DM (Prepare to Repel Boarders!)")
    said = f" — {'; '.join(notes)}" if notes else ""
    return [
        Event.about(
            target_ship,
            "boarding",
            f"{ship.name} boards {target_ship.name}: {p.outcome.rstrip('.')}{said}.",
            data={
                "attacker": ship.id,
                "target": target_ship.id,
                "repel_dm": 1 if notes and target.round.has("repel_boarders") else 0,
            },
        )
    ]


mark(board, action("traveller.board", Board, "Board an enemy ship", ship="ship"), IN_THE_LOOP)
