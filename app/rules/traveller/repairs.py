"""Repairs in the ship action step (TR-22, GEN-05).

One attempt per section per Ship Action phase (two more in Engineering per *Get Those Engines Back
On-Line*); a system that spans several sections may be tried in each. An attempt is a standard
check with the crew DMs; success takes one hit off the system and gives back what that hit took.
A hull breach stops repairs in its section for the round unless the hull is self-sealing. Hull,
Structure, armour, fuel and crew losses are not repaired in battle.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark, when
from app.rules.state import BattleState
from app.rules.system import SHIP_ACTION
from app.rules.traveller.checks import DM, standard_check
from app.rules.traveller.crew import can_act, crew_dms
from app.rules.traveller.ship import HgSection, HgShip, SystemHits
from app.rules.traveller.units import load_unit, save_unit

SHIP_SYSTEMS = ("m_drive", "j_drive", "power_plant", "sensors", "computer")
NAMES = {
    "m_drive": "M-Drive",
    "j_drive": "J-Drive",
    "power_plant": "power plant",
    "sensors": "sensors",
    "computer": "computer",
    "spinal": "spinal mount",
}


class Repair(BaseModel):
    ship: str
    section: str
    system: str = Field(
        description="m_drive, j_drive, power_plant, sensors, computer, spinal, or a battery/screen id"
    )


def in_section(section: HgSection, system: str) -> bool:
    """Does the system sit in this section (has a slot in its Section Hit Table)?"""
    table = section.hit_table
    if table is None:
        return False
    return any(
        slot["kind"] == system or slot.get("ref") == system for slot in table.external + table.internal
    )


def _hits(model: HgShip, system: str) -> int:
    if system in SHIP_SYSTEMS:
        return getattr(model.systems, system)
    if system == "spinal":
        return model.spinal.hits if model.spinal else 0
    battery = model.battery(system)
    if battery is not None:
        return battery.hits
    screen = next((s for s in model.screens if s.id == system), None)
    if screen is not None:
        return screen.hits
    raise RuleError(f"no repairable system {system!r}", "system")


def _dm_repair(hits: SystemHits, system: str, dm: str, label: str) -> str:
    """One hit off a system whose first hit rolled a lasting DM (J-Drive, sensors: hits.py's
    `_dm_hit`); with no hit left the DM goes too. Returns the sentence's tail."""
    left = getattr(hits, system) - 1
    setattr(hits, system, left)
    if left == 0:
        setattr(hits, dm, 0)
    return f"{label} hits {left}"


def _undo(model: HgShip, system: str) -> str:
    """Take one hit off and give back what it took; returns the sentence's tail."""
    hits = model.systems
    if system == "m_drive":
        hits.m_drive -= 1
        model.thrust = min(model.thrust + 1, model.thrust_max or model.thrust + 1)
        return f"M-Drive hits {hits.m_drive}, Thrust {model.thrust}"
    if system == "j_drive":
        return _dm_repair(hits, "j_drive", "jump_dm", "J-Drive")
    if system == "power_plant":
        before = hits.power_plant
        hits.power_plant -= 1
        if before == 3:
            model.disabled = False
        else:
            model.power = min(model.power + (2 if before == 2 else 1), model.power_max or model.power)
        return f"power plant hits {hits.power_plant}, Power {model.power}"
    if system == "sensors":
        return _dm_repair(hits, "sensors", "sensors_dm", "sensors")
    if system == "computer":
        hits.computer -= 1
        return f"computer hits {hits.computer}"
    if system == "spinal":
        assert model.spinal is not None
        model.spinal.hits -= 1
        return f"spinal mount hits {model.spinal.hits}"
    battery = model.battery(system)
    if battery is not None:
        battery.hits -= 1
        return f"{battery.label} hits {battery.hits}"
    screen = next(s for s in model.screens if s.id == system)
    screen.hits -= 1
    return f"{screen.label} hits {screen.hits}"


def refusal(
    state: BattleState, model: HgShip, ship_name: str, section_name: str, system: str
) -> tuple[str, str] | None:
    """Why this repair attempt may not be made now (message, field), or None: the handler refuses
    with it, and the sheet offers only the attempts that pass (display.repair_options)."""
    section = model.section(section_name)
    if section is None or section.destroyed:
        return f"{ship_name} has no working section {section_name!r}", "section"
    if section.breach_round == state.clock.turn and not model.self_sealing:
        return f"a hull breach stops repairs in {section.name} this round (TR-20)", "section"
    allowed = 1 + (2 * model.round.count("engines_back_online") if section.name == "Engineering" else 0)
    if model.round.repairs.get(section.name, 0) >= allowed:
        return f"{section.name} has had its repair attempt this round (TR-22)", "section"
    if not in_section(section, system):
        return f"{system} is not in {section.name}", "system"
    try:
        damaged = _hits(model, system) > 0
    except RuleError as exc:
        return exc.message, "system"
    if not damaged:
        return f"{system} is not damaged", "system"
    return None


def repair(state: BattleState, p: Repair, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-22, GEN-05: one repair attempt per section per Ship Action phase, a standard check with the
    crew's DMs."""
    ship = state.ship(p.ship)
    model = load_unit(state, ship)
    if not isinstance(model, HgShip):
        raise RuleError("flights are not repaired in battle", "ship")
    if not can_act(model):
        raise RuleError(f"{ship.name} cannot make repairs", "ship")
    problem = refusal(state, model, ship.name, p.section, p.system)
    if problem is not None:
        raise RuleError(*problem)
    section = model.section(p.section)
    assert section is not None
    used = model.round.repairs.get(section.name, 0)
    dms: list[DM] = crew_dms(model)
    if model.round.has("command_discipline"):
        dms.append(("Command Discipline", 1))
    if model.systems.computer == 1:
        dms.append(("computer", -1))
    rolls = []
    if model.systems.computer == 2:
        roll = dice.roll(1, 6, "computer damage DM", ship=ship.id)
        roll.outcome = f"−{roll.total}"
        rolls.append(roll)
        dms.append(("computer", -roll.total))
    label = NAMES.get(p.system) or p.system
    check = standard_check(dice, f"repair {label} in {section.name}", dms, ship=ship.id)
    rolls.append(check.roll)
    model.round.repairs[section.name] = used + 1
    result = _undo(model, p.system) if check.success else "no progress"
    save_unit(ship, model)
    return [
        Event.about(
            ship,
            "repair",
            f"{ship.name} repairs {label} in {section.name}: {check.sentence()}: {result}.",
            rolls=rolls,
        )
    ]


mark(
    repair,
    action("traveller.repair", Repair, "Attempt a repair", ship="ship"),
    when(SHIP_ACTION, refusal="repairs happen in the {step:lower} step (TR-22)", field="system"),
)
