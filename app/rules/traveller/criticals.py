"""Critical hits and fire (TR-20).

A Critical result on a Section Hit Table rolls 1d6 here. Fires outlive the attack: each later
round the crew makes a Discipline check (a standard check with crew DMs, GEN-05) in the ship
action step; failure costs another section hit and raises the target by 1, and once the target
reaches 12 the fire also spreads to a neighbouring section, starting at 8+ there.
"""

from __future__ import annotations

from app.rules.core import Event, Roll
from app.rules.dice import DiceSource
from app.rules.registry import on_step
from app.rules.state import BattleState
from app.rules.traveller import tables as T
from app.rules.traveller.checks import standard_check
from app.rules.traveller.crew import computer_dms, crew_dms
from app.rules.traveller.damage import (
    Resolution,
    adjacent_sections,
    crew_hit,
    damage_section,
    system_roll,
)
from app.rules.traveller.ship import Fire, HgSection, HgShip, save
from app.rules.traveller.units import ships_by_id


def fire_start(section: HgSection) -> int:
    return T.FIRE_START_TARGET + (T.FIRE_METAL_HYDRIDE_DM if section.metal_hydride else 0)


def critical(res: Resolution, section: HgSection) -> str:
    roll = res.dice.roll(1, 6, f"critical: {section.name}", ship=res.ship.id)
    name = T.CRITICALS[roll.total]
    roll.outcome = name
    res.events.append(
        Event(
            kind="critical",
            ship=res.ship.id,
            text=f"{res.ship.name} {section.name}: critical 1d6 {roll.total}: {name}.",
            rolls=[roll],
            data={"section": section.name, "critical": name},
        )
    )
    return f"critical: {name} — {_effect(res, section, roll.total)}"


def _effect(res: Resolution, section: HgSection, result: int) -> str:
    if result == 1:
        section.offline_round = res.turn + 1
        return f"{section.name} offline in round {res.turn + 1}"
    if result == 2:
        if (section.hull or 0) > 0:
            loss = (section.hull or 0) // 2
            return f"structural failure: {damage_section(res, section, loss)}"
        loss = (section.structure or 0) // 2
        return f"structural failure: {damage_section(res, section, loss, structure_only=True)}"
    if result == 3:
        text = crew_hit(res)
        if res.model.self_sealing:
            return f"hull breach sealed at once (self-sealing hull); {text}"
        section.breach_round = res.turn
        return f"hull breach: no repairs in {section.name} this round; {text}"
    if result == 4:
        roll = res.dice.roll(6, 6, "internal explosion", ship=res.ship.id)
        roll.outcome = f"{roll.total} Structure damage"
        res.events.append(
            Event(kind="roll", ship=res.ship.id, text=f"Internal explosion: 6d6 {roll.total}.", rolls=[roll])
        )
        text = damage_section(res, section, roll.total, structure_only=True)
        if not section.destroyed:
            system_roll(res, section, "internal explosion section hit")
        return f"internal explosion {roll.total}: {text}"
    if result == 5:
        for _ in range(2):
            if not section.destroyed:
                system_roll(res, section, "cascade failure section hit")
        return "cascade failure: two more section hits"
    if section.fire is not None:
        return f"fire in {section.name} already burns (Discipline {section.fire.target}+)"
    section.fire = Fire(target=fire_start(section), started=res.turn)
    return f"fire in {section.name}: Discipline {section.fire.target}+ next round"


@on_step("traveller:enter:ship_action")
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
    if section.fire is None:
        return
    section.fire.target += 1
    if section.fire.target >= T.FIRE_SPREAD_AT:
        _spread(res, section)


def _spread(res: Resolution, section: HgSection) -> None:
    model = res.model
    neighbours = [
        n
        for n in adjacent_sections(model, section.name)
        if not model.section(n).destroyed  # type: ignore[union-attr]
    ]
    candidates = [n for n in neighbours if model.section(n).fire is None]  # type: ignore[union-attr]
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
        f"The fire in {res.ship.name}'s {section.name} reaches Discipline {section.fire.target}+ "  # type: ignore[union-attr]
        f"and spreads to {name} (Discipline {target.fire.target}+ there).",
        rolls,
        section=name,
    )
