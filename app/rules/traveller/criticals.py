"""Critical hits and fire (TR-20).

A Critical result on a Section Hit Table rolls 1d6 here. Fires outlive the attack: each later
round the crew makes a Discipline check (a standard check with crew DMs, GEN-05) in the ship
action step; failure costs another section hit and raises the target by 1, and once the target
reaches 12 the fire also spreads to a neighbouring section, starting at 8+ there.
"""

from __future__ import annotations

from app.rules.core import Event, Roll
from app.rules.dice import DiceSource
from app.rules.ruleset import hook, mark
from app.rules.state import BattleState
from app.rules.system import SHIP_ACTION
from app.rules.traveller import tables as T
from app.rules.traveller.checks import standard_check
from app.rules.traveller.crew import computer_dms, crew_dms
from app.rules.traveller.hits import Resolution, adjacent_sections, fire_start, system_roll
from app.rules.traveller.ship import Fire, HgSection, HgShip, save
from app.rules.traveller.units import ships_by_id


def fight_fires(state: BattleState, dice: DiceSource) -> list[Event]:
    """Every fire older than this round: Discipline check; failure means another section hit,
    +1 to the target, and at 12+ the fire spreads to a neighbour (1d6: 1–3 aft, 4–6 fore)."""
    events: list[Event] = []
    for ship in ships_by_id(state):
        if ship.destroyed or "hg_ship" not in ship.parts:
            continue
        model = HgShip.model_validate(ship.parts["hg_ship"])
        res = Resolution(state, ship, model, dice)
        burning = [s for s in model.sections if s.fire is not None and s.fire.started < state.clock.turn]
        for section in burning:
            _fight_fire(res, section)
        save(ship, model)
        events.extend(res.events)
    return events


mark(fight_fires, hook("enter", SHIP_ACTION))


def _fight_fire(res: Resolution, section: HgSection) -> None:
    fire = section.fire
    assert fire is not None
    dms = crew_dms(res.model)
    if res.model.round.turn == res.turn and res.model.round.has("command_discipline"):
        dms.append(("Command Discipline", 1))
    rolls: list[Roll] = []
    dms += computer_dms(res.model, res.dice, res.ship.id, rolls)
    check = standard_check(
        res.dice, f"Discipline against fire in {section.name}", dms, ship=res.ship.id, target=fire.target
    )
    rolls.append(check.roll)
    if check.success:
        section.fire = None
        res.say("fire", f"{res.ship.name} puts out the fire in {section.name}: {check.sentence()}.", rolls)
        return
    res.say("fire", f"The fire in {res.ship.name}'s {section.name} rages on: {check.sentence()}.", rolls)
    res.barrage_damage = 0
    if not section.destroyed:
        system_roll(res, section, "fire section hit")
    section.fire.target += 1
    if section.fire.target >= T.FIRE_SPREAD_AT:
        _spread(res, section)


def _spread(res: Resolution, section: HgSection) -> None:
    model = res.model
    neighbours = [
        n
        for n in adjacent_sections(model, section.name)
        if (near := model.section(n)) is not None and not near.destroyed
    ]
    candidates = [n for n in neighbours if (near := model.section(n)) is not None and near.fire is None]
    if not candidates:
        return
    if len(candidates) == 2:
        roll = res.dice.roll(1, 6, "fire spreads (1–3 aft, 4–6 fore)", ship=res.ship.id)
        name = candidates[0] if roll.total <= 3 else candidates[1]
        roll.outcome = name
        rolls = [roll]
    else:
        name, rolls = candidates[0], []
    target = model.section(name)
    assert target is not None
    target.fire = Fire(target=fire_start(target), started=res.turn)
    res.say(
        "fire",
        f"The fire in {res.ship.name}'s {section.name} reaches Discipline {section.fire.target}+ "  # type: ignore[union-attr]  # `section` is the one burning
        f"and spreads to {name} (Discipline {target.fire.target}+ there).",
        rolls,
        section=name,
    )
