"""Spinal mounts (TR-10 … TR-13a).

A spinal shot is one Formidable standard check (8+ after −6) with size DMs. A meson must then
penetrate the target's screens (configuration × screen points × rating) and strikes Structure
directly, reading only Internal columns; a particle beam loses 30 per armour point and still
deals 10% of what the armour absorbed as residual damage, which rolls no systems. Each full 50
damage (residual excluded) rolls once on the section's table. Damage ÷ 6 is radiation.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, Roll, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark
from app.rules.state import BattleState, Ship
from app.rules.traveller import tables as T
from app.rules.traveller.barrage import check_focus, escorts, order_dms, take_dodge
from app.rules.traveller.checks import DM, standard_check
from app.rules.traveller.crew import can_act, crew_dms
from app.rules.traveller.hits import Resolution, damage_section, roll_location, system_roll
from app.rules.traveller.loop import IN_THE_LOOP
from app.rules.traveller.radiation import apply_radiation
from app.rules.traveller.ranges import attack_band
from app.rules.traveller.ship import HgSection, HgShip
from app.rules.traveller.units import load_unit, orders_on, other_ship, save_unit

PARTICLE_ARMOUR_FACTOR = 30
SYSTEM_ROLL_PER = 50


class SpinalShot(BaseModel):
    ship: str
    target: str
    range: str | None = Field(
        default=None, description="range band; from the range board when the pair is on it"
    )
    dodge_dm: int = Field(
        default=0, ge=-3, le=0, description="−2 if the target's Pilot check succeeded (GEN-03)"
    )
    officer: bool = Field(default=False, description="an officer of skill 4+ helps: +1 (TR-10)")


def _refuse(state: BattleState, ship_name: str, model: HgShip, band: str) -> None:
    spinal = model.spinal
    assert spinal is not None  # the gate (`_has_spinal`) refuses a ship without one
    forced = spinal.one_more_shot == state.clock.turn
    if spinal.hits >= 2 and not forced:
        raise RuleError("the spinal mount is disabled", "ship")
    if not can_act(model):
        raise RuleError(f"{ship_name}'s crew is dead and cannot act (TR-23)", "ship")
    if model.disabled:
        raise RuleError(f"{ship_name} is disabled (power plant out)", "ship")
    if model.round.has("run_silent"):
        raise RuleError(f"{ship_name} runs silent this round and may not fire", "ship")
    if orders_on(state) and not model.round.has("line_up_spinal"):
        raise RuleError("the spinal mount fires only in a round with Line up Spinal Mount! (TR-26)", "ship")
    if band not in T.RANGE_BANDS or T.spinal_range_dm(band) is None:
        raise RuleError(f"the target is out of spinal range ({T.RANGE_LABELS.get(band, band)})", "range")
    if model.systems.computer >= 3 and T.band_index(band) > T.band_index("close"):
        raise RuleError("the computer is disabled: no fire beyond Close", "range")


def _has_spinal(state: BattleState, ship: Ship) -> str | None:
    """The gate's question (offers ask it too): only a ship fitted with a spinal mount fires one."""
    hg = ship.part("hg_ship")
    if hg is None:
        return "only a High Guard ship carries a spinal mount"
    if not hg.get("spinal"):
        return f"{ship.name} has no spinal mount"
    return None


def fire_spinal(state: BattleState, p: SpinalShot, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-10 … TR-13: a spinal mount's shot: to-hit, a meson gun's penetration, damage and radiation."""
    ship = state.ship(p.ship)
    target_ship = other_ship(state, ship, p.target, "choose another ship still in the fight")
    model = load_unit(state, ship)
    assert isinstance(model, HgShip)  # the gate (`_has_spinal`) refuses any other unit
    target = load_unit(state, target_ship, "target")
    if not isinstance(target, HgShip):
        raise RuleError("spinal mounts fire at ships, not at flights", "target")
    if target.jumped is not None:
        raise RuleError(f"{target_ship.name} has jumped out of the battle", "target")
    band = attack_band(state, ship, target_ship, p.range)
    _refuse(state, ship.name, model, band)
    check_focus(state, ship, model, target_ship)
    spinal = model.spinal
    assert spinal is not None
    dms: list[DM] = [("Formidable", T.SPINAL_BASE_DM), ("FC", model.fire_control)]
    dms += crew_dms(model, "Gunner")
    if p.officer:
        dms.append(("officer", 1))
    dms.append(("range", T.spinal_range_dm(band) or 0))
    dodge = take_dodge(state, ship, target_ship, target, p.dodge_dm)
    if dodge:
        dms.append(("dodge", dodge))
    dms.append(("size", T.spinal_size_dm(target.tons)))
    rolls: list[Roll] = []
    if spinal.hits == 1 and spinal.one_more_shot != state.clock.turn:
        dms.append(("spinal hit", -2))
    if model.systems.computer == 1:
        dms.append(("computer", -1))
    elif model.systems.computer == 2:
        roll = dice.roll(1, 6, "computer damage DM", ship=ship.id)
        roll.outcome = f"−{roll.total}"
        rolls.append(roll)
        dms.append(("computer", -roll.total))
    dms += order_dms(state, ship, model, target_ship, target, band, False)
    check = standard_check(dice, "spinal attack", dms, ship=ship.id)
    rolls.append(check.roll)
    model.round.actions += 1
    if target_ship.id not in model.round.targets:
        model.round.targets.append(target_ship.id)
    save_unit(ship, model)
    line = f"spinal {spinal.name} at {target_ship.name}: {check.sentence()}"
    if not check.success:
        save_unit(target_ship, target)  # a dodge it met is used up
        return [Event.about(ship, "spinal", line + " → miss", rolls=rolls, data={"hit": False})]
    if target.kind != "capital":
        # The size DM lets a spinal fire at small craft, but location and sections are capital-ship
        # rules: core damage to a non-capital ship is entered at the table (GEN-03), as TR-09 does.
        line += f" → hit: {spinal.damage} damage to resolve as hits by the core rules (GEN-03)"
        data = {"hit": True, "core_damage": spinal.damage}
        save_unit(target_ship, target)  # a dodge it met is used up
        return [Event.about(ship, "spinal", line, rolls=rolls, data=data)]
    res = Resolution(state, target_ship, target, dice, meson=spinal.type == "meson")
    name, where = roll_location(res)
    rolls.append(where)
    section = target.section(name)
    assert section is not None
    line += f" → hit → location 1d6 {where.total}: {name}"
    if spinal.type == "meson":
        events = _meson(res, spinal.damage, spinal.rating or "I", section, line, rolls, ship.id)
    else:
        events = _particle(res, spinal.damage, section, line, rolls, ship.id)
    save_unit(target_ship, target)
    return events + res.events


mark(
    fire_spinal,
    action("traveller.spinal", SpinalShot, "Fire the spinal mount", ship="ship", fits=_has_spinal),
    IN_THE_LOOP,
)


def _meson(
    res: Resolution, damage: int, rating: str, section: HgSection, line: str, rolls: list[Roll], ship_id: str
) -> list[Event]:
    """TR-11: penetrate the screens, then Structure only, Internal rolls, radiation. An escort's
    meson screens intercept too (Escort Defence, TR-27): the strongest screen covers the target."""
    guards = [u for _, u in escorts(res.state, res.ship) if isinstance(u, HgShip)]
    points = max(u.screen_points("meson") for u in [res.model, *guards])
    needed = T.meson_penetration(res.model.configuration, points, rating)
    if needed is None:
        line += f"; penetration {rating} vs {points} screen points: automatic"
    else:
        roll = res.dice.roll(2, 6, "meson penetration", ship=res.ship.id, target=f"{needed}+")
        through = roll.total >= needed
        roll.outcome = "penetrates" if through else "decays outside the hull"
        rolls.append(roll)
        line += f"; penetration {rating} vs {points} screen points: 2D {roll.total} vs {needed}+"
        if not through:
            return [Event(kind="spinal", ship=ship_id, text=line + " → decays outside the hull", rolls=rolls)]
    line += f" → {damage} damage: {damage_section(res, section, damage, structure_only=True)}"
    events = [Event(kind="spinal", ship=ship_id, text=line, rolls=rolls, data={"damage": damage})]
    _system_rolls(res, section, damage)
    _radiation(res, damage, "meson", section)
    return events


def _particle(
    res: Resolution, damage: int, section: HgSection, line: str, rolls: list[Roll], ship_id: str
) -> list[Event]:
    """TR-12: −30 per armour point; 10% of the absorbed damage as residual on the same section."""
    armour = section.armour or 0
    absorbed = min(damage, armour * PARTICLE_ARMOUR_FACTOR)
    dealt = damage - absorbed
    residual = absorbed // 10
    line += f" → {damage} − armour {armour}×{PARTICLE_ARMOUR_FACTOR} = {dealt} damage"
    if dealt:
        line += f": {damage_section(res, section, dealt)}"
    if residual:
        line += f"; residual {residual} (10% of {absorbed}): {damage_section(res, section, residual)}"
    events = [
        Event(
            kind="spinal", ship=ship_id, text=line, rolls=rolls, data={"damage": dealt, "residual": residual}
        )
    ]
    _system_rolls(res, section, dealt)
    _radiation(res, dealt + residual, "particle", section)
    return events


def _system_rolls(res: Resolution, section: HgSection, damage: int) -> None:
    """TR-18: one roll per full 50 damage; Hull and Structure results add half the spinal damage."""
    res.barrage_damage = damage
    for _ in range(damage // SYSTEM_ROLL_PER):
        if section.destroyed:
            break
        system_roll(res, section, "spinal system damage")


def _radiation(res: Resolution, inflicted: int, kind: str, section: HgSection) -> None:
    """TR-13: inflicted ÷ 6, halved by radiation shielding; TR-13a: band not lowered by armour."""
    rad = inflicted // 6
    if res.model.radiation_shielding:
        rad //= 2
    apply_radiation(res, rad, 0, "", kind, section.armour or 0)
