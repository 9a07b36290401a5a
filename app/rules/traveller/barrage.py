"""Barrages (TR-05 … TR-09, TR-07a, TR-02, TR-02a, TR-15 … TR-19, TR-21, TR-25).

A barrage is every mount of one weapon type aimed at one target, rolled as one 2D attack. Armour
and other defences do not soak damage: they are subtracted from the per-mount dice to give a DM
(TR-07). The net roll reads the Barrage Damage table; damage lands on the rolled section and one
adjacent section the attacker chose, 50/50; a net 8+ also rolls on each struck section's Section
Hit Table. Small craft and flights take the barrage differently (TR-09, TR-25).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, Roll, RuleError
from app.rules.dice import DiceSource, SeededDice
from app.rules.ruleset import action, mark
from app.rules.state import BattleState, Ship
from app.rules.traveller import tables as T
from app.rules.traveller.checks import DM, number, signed
from app.rules.traveller.crew import abandon_ship, can_act
from app.rules.traveller.flights import FLIGHT_BARRAGE_DM, Flight, craft_lost
from app.rules.traveller.hits import (
    Resolution,
    choose_adjacent,
    damage_section,
    needs_choice,
    preference,
    roll_location,
    system_roll,
)
from app.rules.traveller.loop import IN_THE_LOOP
from app.rules.traveller.radiation import apply_radiation
from app.rules.traveller.ranges import attack_band
from app.rules.traveller.ship import Battery, Combatant, HgShip
from app.rules.traveller.units import load_unit, save_unit, units

SYSTEM_HIT_ROLL = 8


class BarrageOrder(BaseModel):
    """One barrage: which battery, how many mounts, at whom, at what range, split toward where."""

    ship: str = Field(description="the firing ship or flight")
    battery: str = Field(description="battery id: one weapon type")
    mounts: int = Field(ge=1, le=10000)
    target: str
    range: str | None = Field(
        default=None,
        description="range band (adjacent, close, short, medium, long, very_long, distant…); taken from the"
        " range board when the pair is on it (a band that disagrees is refused), needed when it is not",
    )
    adjacent: str | None = Field(
        default=None,
        description='who takes the other half (TR-16): a standing preference, "toward fore" or "toward aft" '
        '(toward that end), or the name of a section adjacent to the one hit ("Aft" is the Aft section); '
        "without it the attacker is asked once the location is known",
    )
    dodge_dm: int = Field(default=0, ge=-3, le=0, description="entered dodge outcome (GEN-03), e.g. −2")
    target_section: str | None = Field(default=None, max_length=40, description="with Target That Section*")

    @property
    def band(self) -> str:
        """The band fired at, once the handler has taken it from the board or the typed range."""
        assert self.range is not None
        return self.range


def fire_limits(state: BattleState, shooter: Combatant, battery: Battery) -> tuple[int, int, list[str]]:
    """(mounts that may fire at this target now, mounts of the type, reasons for the cap). The
    barrage form shows it beside each weapon, so the cap is read before a refusal teaches it."""
    turn = state.clock.turn
    total = shooter.mounts_of(battery)
    fired_now = battery.fired.get(str(turn), 0)
    limits: list[tuple[int, str]] = []
    every = T.crew_step(shooter.crew_strength).fire_every or 1
    window = sum(n for r, n in battery.fired.items() if turn - every < int(r) <= turn)
    rounds = "round" if every == 1 else f"{every} rounds"
    limits.append((total - window, f"crew {T.crew_step(shooter.crew_strength).name}: once per {rounds}"))
    if shooter.round.has("maximum_speed"):
        limits.append((total // 2 - fired_now, "Maximum Speed: half the turrets and bays"))
    if (
        isinstance(shooter, HgShip)
        and battery.fire.kind in T.ENERGY_KINDS
        and shooter.power_share(total) < total
    ):
        share = shooter.power_share(total)
        limits.append(
            (share - fired_now, f"Power {shooter.power}/{shooter.power_max}: {share} energy mounts a round")
        )
    if isinstance(shooter, HgShip):
        percent = T.CONFIGURATION_BEARING[shooter.configuration]
        percent += 10 * shooter.round.count("angle_max_effect") - 20 * shooter.round.count(
            "defensive_posture"
        )
        limits.append((total * percent // 100, f"configuration {percent}%"))
    allowed = min(n for n, _ in limits)
    why = [text for n, text in limits if n == allowed]
    return max(allowed, 0), total, why


def check_shooter(state: BattleState, ship: Ship, unit: Combatant, battery: Battery, band: str) -> None:
    if not can_act(unit):
        raise RuleError(f"{ship.name}'s crew is dead and cannot act (TR-23)", "ship")
    if isinstance(unit, HgShip) and unit.disabled:
        raise RuleError(f"{ship.name} is disabled (power plant out)", "ship")
    if unit.round.has("run_silent"):
        raise RuleError(f"{ship.name} runs silent this round and may not fire", "ship")
    forced = battery.one_more_shot == state.clock.turn
    if battery.hits >= 3 and not forced:
        raise RuleError(f"{battery.label} can no longer fire (third hit)", "battery")
    if isinstance(unit, HgShip) and battery.sections:
        offline = [
            s for s in battery.sections if (sec := unit.section(s)) and sec.offline_round == state.clock.turn
        ]
        if len(offline) == len(battery.sections):
            raise RuleError(f"{battery.label} sits in offline sections this round (power failure)", "battery")
    if isinstance(unit, HgShip) and unit.systems.computer >= 3 and T.band_index(band) > T.band_index("close"):
        raise RuleError("the computer is disabled: no fire beyond Close", "range")
    for reach in (battery.max_range, battery.fire.reach):
        if reach and T.band_index(band) > T.band_index(reach):
            raise RuleError(
                f"{battery.label} reaches no further than {T.RANGE_LABELS[reach]} (TR-02a)", "range"
            )


def small_craft_shooting(unit: Combatant) -> bool:
    return isinstance(unit, Flight) or (isinstance(unit, HgShip) and unit.kind != "capital")


def attack_dms(
    state: BattleState,
    shooter: Combatant,
    target: Combatant,
    target_ship: Ship,
    battery: Battery,
    p: BarrageOrder,
    dice: DiceSource,
    rolls: list[Roll],
) -> list[DM]:
    """Every DM but the defence bracket, named as the log prints them (TR-06, TR-27)."""
    shooter_ship = state.ships[p.ship]
    fire = battery.fire
    dm = fire.range_dm(p.band, small_craft_shooting(shooter))
    assert dm is not None
    dms: list[DM] = [
        ("range", dm),
        ("FC", shooter.fire_control),
        ("Gunner", T.CREW_SKILL_DM[shooter.crew_skill]),
    ]
    step = T.crew_step(shooter.crew_strength)
    if step.dm:
        dms.append((f"crew {step.name}", step.dm))
    if fire.attack_dm:
        dms.append(("weapon", fire.attack_dm))
    if p.dodge_dm:
        dms.append(("dodge", p.dodge_dm))
    if isinstance(target, Flight):
        dms.append(("flight", FLIGHT_BARRAGE_DM))
    if battery.hits in (1, 2) and battery.one_more_shot != state.clock.turn:
        roll = dice.roll(1, 6, f"{battery.label} damage DM", ship=None)
        penalty = roll.total + (1 if battery.hits == 2 else 0)
        roll.outcome = f"−{penalty}"
        rolls.append(roll)
        dms.append((f"{T.WEAPONS[battery.weapon].mount} hits", -penalty))
    if isinstance(shooter, HgShip) and shooter.systems.computer == 1:
        dms.append(("computer", -1))
    elif isinstance(shooter, HgShip) and shooter.systems.computer == 2:
        roll = dice.roll(1, 6, "computer damage DM")
        roll.outcome = f"−{roll.total}"
        rolls.append(roll)
        dms.append(("computer", -roll.total))
    dms.extend(order_dms(state, shooter_ship, shooter, target_ship, target, p.band, bool(p.target_section)))
    return dms


def fighter_screened(state: BattleState, ship: Ship) -> bool:
    """TR-27 Fighter Screen: the screening flight itself, or a ship a friendly flight screens."""
    for other, unit in units(state):
        if not isinstance(unit, Flight) or other.side != ship.side:
            continue
        if unit.round.has("fighter_screen") and (
            other.id == ship.id or unit.round.target_of("fighter_screen") == ship.id
        ):
            return True
    return False


def order_dms(
    state: BattleState,
    ship: Ship,
    shooter: Combatant,
    target_ship: Ship,
    target: Combatant,
    band: str,
    aimed: bool,
) -> list[DM]:
    """DMs from this round's orders on either side (TR-27): Focused Fire, Damn the Torpedoes!,
    Defensive Posture, Fast Strafing Run (within Close), Roll The Ship! against aimed attacks.

    Fighter Screen: attacking small craft cannot make a Fast Strafing Run against the screened
    formation (the screening flight and the ship it screens), so neither of its DMs applies there."""
    dms: list[DM] = []
    if shooter.round.has("focused_fire"):
        dms.append(("Focused Fire", 1))
    if shooter.round.has("damn_torpedoes"):
        dms.append(("Damn the Torpedoes", 1))
    if target.round.has("damn_torpedoes"):
        dms.append(("target Damn the Torpedoes", 1))
    if target.round.has("defensive_posture"):
        dms.append(("Defensive Posture", -2))
    close = band in ("adjacent", "close")

    strafing = close and isinstance(shooter, Flight) and shooter.round.has("fast_strafing_run")
    if strafing and not fighter_screened(state, target_ship):
        dms.append(("Fast Strafing Run", 2))
    strafed = close and isinstance(target, Flight) and target.round.has("fast_strafing_run")
    if strafed and not fighter_screened(state, ship):
        dms.append(("target Fast Strafing Run", -2))
    if aimed and target.round.has("roll_ship"):
        dms.append(("Roll The Ship!", -2))
    return dms


def check_focus(state: BattleState, ship: Ship, shooter: Combatant, target: Ship) -> None:
    """Focused Fire: one target this round — the order's named ship, or the first one fired on."""
    if not shooter.round.has("focused_fire"):
        return
    rnd = shooter.round
    focus = rnd.target_of("focused_fire") or (rnd.targets[0] if rnd.targets else None)
    if focus and focus != target.id:
        raise RuleError(
            f"Focused Fire: {ship.name} may fire only at {state.ships[focus].name} this round", "target"
        )


def escorts(state: BattleState, target_ship: Ship) -> list[tuple[Ship, Combatant]]:
    """TR-27 Escort Defence and Fighter Screen: friendly units whose order this round names the target.
    Decision: "within Close range" is the captain's to judge when giving the order (GEN-03)."""
    found = []
    for other, unit in units(state):
        if other.id == target_ship.id or other.side != target_ship.side:
            continue  # (units() already leaves out a ship that jumped out of the battle)
        orders = ("fighter_screen",) if isinstance(unit, Flight) else ("escort_defence",)
        if any(c.order in orders and c.target == target_ship.id for c in unit.round.in_effect()):
            found.append((other, unit))
    return found


def _laser_mounts(unit: Combatant) -> int:
    return sum(unit.mounts_of(b) for b in unit.batteries if b.fire.kind == "laser" and b.hits < 3)


def defences(
    target: Combatant,
    battery: Battery,
    p: BarrageOrder,
    dice: DiceSource,
    rolls: list[Roll],
    guards: Sequence[tuple[Ship, Combatant]] = (),
) -> list[DM]:
    """TR-07/TR-07a: the protection subtracted from the per-mount dice.

    Escorts (TR-27) intercept with their own defences. Decisions: an escort's sandcasters and
    point-defence lasers join the target's (one cloud, one ratio); screens do not add up — the
    strongest screen of that kind covers the target; a screening flight's laser mounts serve as
    point-defence lasers; Crew Gunner 3+ counts if any defending crew has Crew Skill 3+."""
    fire = battery.fire
    if not isinstance(target, HgShip):
        return [("armour", 0)]
    if p.target_section and (section := target.section(p.target_section)) is not None:
        armour = section.armour or 0
    else:
        armour = target.defence_armour()
    found: list[DM] = [("armour", armour)]
    incoming = p.mounts * fire.launches
    ships = [target] + [u for _, u in guards if isinstance(u, HgShip)]
    names = ", ".join(s.name for s, _ in guards)
    with_escort = f" (with {names})" if guards else ""
    gunner3 = T.GUNNER_3_DM if any(u.crew_skill >= 3 for u in [target, *(u for _, u in guards)]) else 0
    sandcasters = 0 if target.round.sand_gone else sum(u.sandcasters for u in ships)
    point_defence = sum(u.point_defence for u in ships)
    point_defence += sum(_laser_mounts(u) for _, u in guards if isinstance(u, Flight))
    bomb = fire.kind == "bomb_pumped"
    sand_works = fire.kind == "laser" or bomb
    sand_works |= fire.kind in T.MISSILE_KINDS and T.band_index(p.band) >= T.band_index("medium")
    if sandcasters and sand_works:
        roll = dice.roll(1, 6, "sand", ship=None)
        value = roll.total + T.SAND_RATIO_DM[T.ratio_row(sandcasters, incoming)] + gunner3
        value += T.SAND_BOMB_PUMPED_DM if bomb else 0
        roll.outcome = f"sand {max(value, 0)}"
        rolls.append(roll)
        found.append(("sand" + (with_escort if sandcasters > target.sandcasters else ""), max(value, 0)))
    if fire.kind in T.DAMPER_KINDS:
        best = max(u.screen_points("nuclear_damper") for u in ships)
        if best:
            found.append(
                ("screens" + ("" if best == target.screen_points("nuclear_damper") else with_escort), best)
            )
    if fire.kind == "meson":
        best = max(u.screen_points("meson") for u in ships)
        if best:
            found.append(("screens" + ("" if best == target.screen_points("meson") else with_escort), best))
        found.append(("configuration", T.MESON_CONFIGURATION_DM[target.configuration]))
    if point_defence and fire.kind in T.MISSILE_KINDS:
        roll = dice.roll(1, 6, "point defence", ship=None)
        value = roll.total + T.PD_RATIO_DM[T.ratio_row(point_defence, incoming)] + gunner3 + fire.pd_dm
        value += T.PD_BOMB_PUMPED_DM if bomb else 0
        roll.outcome = f"point defence {max(value, 0)}"
        rolls.append(roll)
        label = "point defence" + (with_escort if point_defence > target.point_defence else "")
        found.append((label, max(value, 0)))
    return found


def _defence_text(dice_per_mount: int, found: list[DM]) -> str:
    return f"({dice_per_mount}" + "".join(f" − {label} {value}" for label, value in found) + ")"


def barrage(state: BattleState, p: BarrageOrder, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-05 … TR-09: one barrage against one target: the attack roll, protection, the damage table,
    then the hits."""
    ship = state.ship(p.ship)
    target_ship = state.ship(p.target, "target")
    if target_ship.id == ship.id:
        raise RuleError("a ship cannot fire on itself", "target")
    if target_ship.destroyed:
        raise RuleError(f"{target_ship.name} is already destroyed", "target")
    p = p.model_copy(update={"range": attack_band(state, ship, target_ship, p.range)})
    shooter = load_unit(state, ship)
    target = load_unit(state, target_ship, "target")
    if isinstance(target, HgShip) and target.jumped is not None:
        raise RuleError(f"{target_ship.name} has jumped out of the battle", "target")
    battery = shooter.battery(p.battery)
    if battery is None:
        raise RuleError(f"{ship.name} has no battery {p.battery!r}", "battery")
    fire = battery.fire
    check_shooter(state, ship, shooter, battery, p.band)
    if fire.range_dm(p.band, small_craft_shooting(shooter)) is None:
        raise RuleError(f"{fire.name} cannot engage at {T.RANGE_LABELS[p.band]} range (TR-02)", "range")
    if target_ship.id in shooter.round.barrages.get(battery.id, []):
        raise RuleError(
            f"{battery.label} already fired at {target_ship.name}: combine them into one barrage (TR-05)",
            "target",
        )
    check_focus(state, ship, shooter, target_ship)
    allowed, total, why = fire_limits(state, shooter, battery)
    if p.mounts > allowed:
        raise RuleError(
            f"only {allowed} of {total} {battery.label} mounts may fire at this target ({'; '.join(why)})",
            "mounts",
        )
    minimum = min(10, total, allowed)
    if p.mounts < minimum:
        raise RuleError(
            f"a barrage needs at least {minimum} mounts: ten, or all of the type if fewer (TR-05)", "mounts"
        )
    n_dice = fire.barrage_dice(p.mounts)
    if n_dice < 1:
        raise RuleError(f"{fire.name}: {fire.per_die} mounts make one die of a barrage", "mounts")
    p = p.model_copy(update={"dodge_dm": take_dodge(state, ship, target_ship, target, p.dodge_dm)})
    if p.target_section:
        if not isinstance(target, HgShip) or target.section(p.target_section) is None:
            raise RuleError(f"{target_ship.name} has no section {p.target_section!r}", "target_section")
        if shooter.round.count("target_section") <= shooter.round.target_section_used:
            raise RuleError(
                "aiming at one section needs a Target That Section order this round", "target_section"
            )
        shooter.round.target_section_used += 1
    if isinstance(target, HgShip) and target.kind == "capital" and fire.effect != "shockwave":
        check_split(target_ship, target, p, dice)

    rolls: list[Roll] = []
    dms = attack_dms(state, shooter, target, target_ship, battery, p, dice, rolls)
    found = defences(target, battery, p, dice, rolls, escorts(state, target_ship))
    defence_dm = fire.dice - sum(v for _, v in found)
    attack = dice.roll(2, 6, "barrage attack", ship=ship.id, modifier=sum(v for _, v in dms) + defence_dm)
    rolls.append(attack)
    natural = sum(attack.dice)
    net = attack.total
    percent = T.barrage_percent(net)
    printed = bool(state.options.get("printed_cells", False))
    damage = T.barrage_damage(n_dice, net, printed)
    # TR-08: a battle on the printed cells has them only for 5, 10, 12, 20 and 50 dice; any other
    # size reads ⌊N × %⌋, and the log says that this replaced a printed cell.
    computed = printed and n_dice not in T.BARRAGE_PRINTED and fire.effect != "shockwave"
    cell = f" (no printed column for {n_dice} dice: ⌊{n_dice} × {percent}%⌋, TR-08)" if computed else ""
    if fire.effect == "shockwave":
        damage = 0
    attack.outcome = f"{percent}% → {damage} damage{cell}"
    parts = (
        [f"2D {natural}"] + [f"{label} {signed(v)}" for label, v in dms] + [_defence_text(fire.dice, found)]
    )
    fired = f" ({p.mounts} mounts, 1 die per {fire.per_die})" if fire.per_die > 1 else ""
    line = (
        f"barrage {n_dice}–{fire.name}–{T.RANGE_LABELS[p.band]}–{fire.dice}{fired} at {target_ship.name}: "
        + " + ".join(parts)
        + f" = {number(net)} → {percent}%"
        + ("" if fire.effect == "shockwave" else f" → {damage} damage{cell}")
    )
    _record_fire(state, shooter, battery, p, target_ship)
    save_unit(ship, shooter)
    data = {
        "mounts": p.mounts,
        "battery": battery.id,
        "net": net,
        "percent": percent,
        "damage": damage,
        "range": p.band,
    }
    if printed:
        data["cell"] = "computed" if computed else "printed"
    if fire.effect == "shockwave":
        return _shockwave(target_ship, target, line, rolls, percent, data)
    if isinstance(target, Flight):
        return _on_flight(target_ship, target, battery, p, line, rolls, damage, data)
    assert isinstance(target, HgShip)
    if target.kind != "capital":
        return _on_small_craft(state, target_ship, target, line, rolls, damage, data)
    res = Resolution(state, target_ship, target, dice, barrage_damage=damage, meson=fire.kind == "meson")
    struck = _land(res, p, damage, rolls, data)
    events = [Event.about(ship, "barrage", line + struck, rolls=rolls, data=data)]
    if net >= SYSTEM_HIT_ROLL and damage > 0:
        for name in data["struck"]:
            section = target.section(name)
            if section is not None and not section.destroyed:
                system_roll(res, section)
    rad = p.mounts * fire.radiation * percent // 100
    if rad:
        cut = target.screen_points("meson") if fire.kind == "meson" else target.defence_armour()
        label = "screens" if fire.kind == "meson" else "armour"
        apply_radiation(res, rad, cut, label, fire.kind, target.defence_armour())
    save_unit(target_ship, target)
    return events + res.events


mark(barrage, action("traveller.barrage", BarrageOrder, "Fire a barrage", ship="ship"), IN_THE_LOOP)


def _record_fire(
    state: BattleState, shooter: Combatant, battery: Battery, p: BarrageOrder, target: Ship
) -> None:
    turn = str(state.clock.turn)
    battery.fired[turn] = battery.fired.get(turn, 0) + p.mounts
    shooter.round.barrages.setdefault(battery.id, []).append(target.id)
    if target.id not in shooter.round.targets:
        shooter.round.targets.append(target.id)
    energy = battery.fire.kind in T.ENERGY_KINDS
    if shooter.round.has("all_hands") and energy:
        if not shooter.round.energy_action:
            shooter.round.actions += 1
            shooter.round.energy_action = True
    else:
        shooter.round.actions += 1


def _land(res: Resolution, p: BarrageOrder, damage: int, rolls: list[Roll], data: dict) -> str:
    """Location, then the 50/50 split with the attacker's adjacent section (TR-15, TR-16)."""
    model = res.model
    if p.target_section:
        hit = model.section(p.target_section).name  # type: ignore[union-attr]  # the order's check named it
        text = f" → location {hit} (Target That Section)"
    else:
        hit, roll = roll_location(res)
        rolls.append(roll)
        text = f" → location 1d6 {roll.total}: {hit}"
    data["location"] = hit
    # TR-16: the attacker chooses the adjacent section once the location is known (asked for here
    # unless the barrage carries a choice); half of 0 or 1 goes nowhere, so nothing is asked then.
    choice = p.adjacent if p.adjacent or damage // 2 > 0 else "toward fore"
    adjacent = choose_adjacent(model, hit, choice, res.ship.name)
    data["adjacent"] = adjacent
    first, second = (damage - damage // 2, damage // 2) if adjacent else (damage, 0)
    data["struck"] = []
    pieces: list[str] = []
    for name, amount in ((hit, first), (adjacent, second)):
        if amount <= 0 or name is None:
            continue
        section = model.section(name)
        assert section is not None
        if section.destroyed:
            # TR-17: damage beyond 0 Structure is lost, and a destroyed section has none left: its
            # share goes nowhere else, and it is not struck (no Section Hit roll, TR-18).
            pieces.append(f"{amount} lost: {name} is destroyed already (TR-17)")
            data["lost"] = data.get("lost", 0) + amount
            continue
        pieces.append(f"{amount} to {damage_section(res, section, amount, structure_only=res.meson)}")
        data["struck"].append(name)
    return text + ("; " + "; ".join(pieces) if pieces else "")


def check_split(target_ship: Ship, target: HgShip, p: BarrageOrder, dice: DiceSource) -> None:
    """TR-16 before any die is rolled: with Target That Section the location is known, so the choice
    is checked (or asked for) now. With server dice the location is rolled as the barrage fires, and a
    refusal after it would show a roll of a barrage that never happened; so the split must come with
    the barrage as a standing preference, fore or aft, whenever some section has two neighbours."""
    if p.target_section:
        hit = target.section(p.target_section)
        assert hit is not None
        choose_adjacent(target, hit.name, p.adjacent, target_ship.name)
        return
    if isinstance(dice, SeededDice) and needs_choice(target) and preference(target, p.adjacent) is None:
        raise RuleError(
            "with server dice the location is rolled as the barrage fires, so give the split with it: "
            'adjacent "toward fore" or "toward aft", the way the other half goes from the section hit (TR-16)',
            "adjacent",
        )


def _on_flight(
    ship: Ship,
    flight: Flight,
    battery: Battery,
    p: BarrageOrder,
    line: str,
    rolls: list[Roll],
    total: int,
    data: dict,
) -> list[Event]:
    """TR-25: the flight loses craft whose Hull + Structure add to the barrage total, capped."""
    lost, cap, excess = craft_lost(flight, total, p.mounts, battery.gunners)
    flight.lost += lost
    if flight.remaining == 0:
        ship.destroyed = True
    ship.parts["flight"] = flight.model_dump(mode="json")
    text = (
        f"{line} → {ship.name} loses {lost} craft ({flight.craft_points} Hull+Structure each, at most {cap}); "
        f"{flight.remaining} of {flight.craft} left"
    )
    if excess:
        text += f"; {excess} excess damage to resolve as normal hits (GEN-03)"
    data.update({"craft_lost": lost, "excess": excess})
    events = [Event.about(ship, "barrage", text, rolls=rolls, data=data)]
    if ship.destroyed:
        events.append(Event.about(ship, "ship_destroyed", f"Flight {ship.name} is wiped out."))
    return events


def _on_small_craft(
    state: BattleState, ship: Ship, model: HgShip, line: str, rolls: list[Roll], total: int, data: dict
) -> list[Event]:
    """TR-09: annihilated when the barrage total beats Hull + Structure left; else ×3 as core hits."""
    remaining = model.hull_and_structure()
    events: list[Event] = []
    if total > remaining:
        ship.destroyed = True
        for section in model.sections:
            section.hull, section.structure, section.destroyed = 0, 0, True
        text = f"{line} > {remaining} Hull+Structure left → {ship.name} is annihilated (TR-09)"
        data["annihilated"] = True
        escaped = abandon_ship(state, ship, model)
        if escaped is not None:
            events.append(escaped)
    else:
        text = f"{line} × 3 = {total * 3} damage to resolve as hits by the core rules (GEN-03)"
        data["core_damage"] = total * 3
    ship.parts["hg_ship"] = model.model_dump(mode="json")
    return [Event.about(ship, "barrage", text, rolls=rolls, data=data), *events]


def _shockwave(
    ship: Ship, target: Combatant, line: str, rolls: list[Roll], percent: int, data: dict
) -> list[Event]:
    """Shockwave missiles (TR-27 rows, tables.md [OPS]): no damage; 5%+ clears the target's sand."""
    if percent >= T.SHOCKWAVE_PERCENT and isinstance(target, HgShip):
        target.round.sand_gone = True
        line += (
            f" ≥ {T.SHOCKWAVE_PERCENT}% → {ship.name}'s sand gives no protection for the rest of the round"
        )
    else:
        line += (
            f" < {T.SHOCKWAVE_PERCENT}% → the sand holds"
            if isinstance(target, HgShip)
            else " → no sand to clear"
        )
    data["sand_cleared"] = isinstance(target, HgShip) and target.round.sand_gone
    save_unit(ship, target)
    return [Event.about(ship, "barrage", line, rolls=rolls, data=data)]


def take_dodge(state: BattleState, shooter: Ship, target_ship: Ship, target: Combatant, entered: int) -> int:
    """The dodge DM this attack meets: the target's own dodge (traveller.dodge) if it has one waiting,
    used up by this attack, else the entered outcome (GEN-03). Craft that Blast Them As They Launch!
    caught may not dodge at all (TR-27)."""
    blaster = blasted(state, target_ship, target)
    if blaster is not None:
        if entered:
            raise RuleError(
                f"{target_ship.name} launched from a ship {blaster} named in Blast Them As They Launch!:"
                " it may not dodge this round",
                "dodge_dm",
            )
        target.round.dodge = None
        return 0
    if target.round.dodge is None:
        return entered
    if entered:
        raise RuleError(f"{target_ship.name} has dodged: its own Pilot check sets the dodge DM", "dodge_dm")
    pending, target.round.dodge = target.round.dodge, None
    return pending


def blasted(state: BattleState, ship: Ship, unit: Combatant) -> str | None:
    """TR-27 Blast Them As They Launch!: the name of the enemy that trained its weapons on the vessel
    this flight launched from this round, or None."""
    if not isinstance(unit, Flight) or unit.carrier is None or unit.launched_round != state.clock.turn:
        return None
    for other, enemy in units(state):
        if other.side != ship.side and enemy.round.target_of("blast_them") == unit.carrier:
            return other.name
    return None
