"""How a hit lands on a capital ship: location, section damage, system hits and criticals
(TR-15 … TR-20, TR-14). Barrages, spinals, missiles, radiation, entered hits and fires all resolve
through here; a critical rolls more section hits, so both live in this one module.

Damage comes off a section's Hull, then its Structure (mesons go straight to Structure); a section
with no Structure left is destroyed and the ship is crippled until the referee rules. System hits
read the section's own Section Hit Table — External while the section has Hull after this attack,
Internal otherwise (mesons always Internal) — and each result applies its effect from TR-19.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.rules.core import Event, Roll, RuleError
from app.rules.dice import DiceSource
from app.rules.state import BattleState, Ship
from app.rules.traveller import tables as T
from app.rules.traveller.crew import step_down
from app.rules.traveller.ship import Fire, HgSection, HgShip, Slot

THIRD_HIT_BARRED = frozenset({"m_drive", "j_drive", "power_plant", "sensors", "command"})


@dataclass
class Resolution:
    """One attack's effects on one target ship, collected as log sentences with their dice."""

    state: BattleState
    ship: Ship
    model: HgShip
    dice: DiceSource
    events: list[Event] = field(default_factory=list)
    barrage_damage: int = 0  # the attack's damage, halved by Hull and Structure results
    meson: bool = False
    core_rules: bool = False  # TR-14: a starship or small craft attacker

    def say(self, kind: str, text: str, rolls: list[Roll] | None = None, **data: Any) -> None:
        """Log one effect on the ship hit, with the dice that decided it and its figures."""
        self.events.append(Event(kind=kind, ship=self.ship.id, text=text, rolls=rolls or [], data=data))

    @property
    def turn(self) -> int:
        return self.state.clock.turn


def adjacent_sections(model: HgShip, name: str) -> list[str]:
    """Neighbours along the aft-to-fore order (TR-17 Decision)."""
    names = [s.name for s in model.sections]
    i = names.index(name)
    return [names[j] for j in (i - 1, i + 1) if 0 <= j < len(names)]


# The standing preferences, spelled so that no section is named so: "aft" is also a section of
# five- and six-section hulls (TR-15), so a bare word is read as a section first.
TOWARD = {"toward fore": "fore", "toward aft": "aft"}


def preference(model: HgShip, choice: str | None) -> str | None:
    """The standing preference a barrage's `adjacent` gives, "fore" or "aft", or None when it names a
    section (or nothing). "toward fore" and "toward aft" always mean the preference; a bare "fore" or
    "aft" means it only where the target has no section of that name (the spelling of logs and clients
    made before "toward"); a name the target's sections carry is always that section."""
    wanted = " ".join((choice or "").lower().replace("_", " ").split())
    if wanted in TOWARD:
        return TOWARD[wanted]
    if wanted in TOWARD.values() and model.section(wanted) is None:
        return wanted
    return None


def choose_adjacent(
    model: HgShip, hit: str, choice: str | None, ship_name: str = "the target", field: str = "adjacent"
) -> str | None:
    """The section that takes the other half of a turret, barbette or bay barrage (TR-16), chosen by
    the attacker once the location is known: a section adjacent to `hit`, or a standing preference
    "toward fore"/"toward aft" (toward that end; at an end of the ship, its one neighbour). With one
    neighbour there is nothing to choose; with none (a one-section ship) None. A section that is not
    adjacent is refused, and so is no choice where there are two neighbours: the attacker is asked."""
    names = [s.name for s in model.sections]
    i = names.index(hit)
    fore = names[i + 1] if i + 1 < len(names) else None
    aft = names[i - 1] if i > 0 else None
    neighbours = [n for n in (aft, fore) if n is not None]
    wanted = (choice or "").strip().lower()
    toward = preference(model, choice)
    if toward is not None:
        return (fore or aft) if toward == "fore" else (aft or fore)
    if wanted:
        section = model.section(wanted)
        if section is None:
            raise RuleError(f"{ship_name} has no section {choice!r} (TR-16)", field)
        if section.name not in neighbours:
            raise RuleError(
                f"{section.name} is not adjacent to {hit}, the section hit: the other half goes to "
                f"{' or '.join(neighbours) or 'no other section'} (TR-16)",
                field,
            )
        return section.name
    if len(neighbours) < 2:
        return neighbours[0] if neighbours else None
    raise RuleError(
        f"the barrage hit {hit}: choose the adjacent section for the other half, {aft} or {fore} "
        f'(TR-16) — send it again with the same dice and "{field}"',
        field,
    )


def needs_choice(model: HgShip) -> bool:
    """Whether some section has two neighbours, so the split may need the attacker's choice (TR-16)."""
    return len(model.sections) > 2


def damage_section(res: Resolution, section: HgSection, amount: int, *, structure_only: bool = False) -> str:
    """Hull then Structure (TR-17); returns "Main Hull 66→58" style text. Beyond 0 Structure is lost."""
    if amount <= 0 or section.destroyed:
        return f"{section.name} {'destroyed already: the damage is lost (TR-17)' if section.destroyed else 'unharmed'}"
    parts: list[str] = []
    left = amount
    hull = section.hull or 0
    if not structure_only and hull > 0:
        taken = min(hull, left)
        section.hull = hull - taken
        left -= taken
        parts.append(f"Hull {hull}→{section.hull}")
    if left > 0:
        structure = section.structure or 0
        taken = min(structure, left)
        section.structure = structure - taken
        parts.append(f"Structure {structure}→{section.structure}")
        if section.structure == 0:
            destroy_section(res, section)
    return f"{section.name} {', '.join(parts)}"


def destroy_section(res: Resolution, section: HgSection) -> None:
    section.destroyed = True
    res.ship.crippled = True
    res.model.section_lost_round = res.turn
    if res.model.referee_ruling is None:
        res.model.referee_ruling = "pending"
    res.say(
        "section_destroyed",
        f"{res.ship.name}'s {section.name} section is destroyed: {res.ship.name} is crippled until the "
        "referee rules whether it is destroyed (TR-17).",
        section=section.name,
    )


def system_roll(res: Resolution, section: HgSection, why: str = "system damage") -> None:
    """Roll 2D on the section's table and apply what it hits (TR-18)."""
    if section.hit_table is None:  # pragma: no cover - defensive: every capital section gets a table
        return  # (fill_hit_tables), and only capital ships reach system rolls
    column = "internal" if res.meson else section.column
    roll = res.dice.roll(2, 6, f"{why}: {section.name} ({column.title()})", ship=res.ship.id)
    slot = section.hit_table.slot(column, roll.total)
    roll.outcome = slot["label"]
    effect = apply_slot(res, section, slot)
    res.say(
        "system_hit",
        f"{res.ship.name} {section.name} section hit ({column.title()}, 2D {roll.total}): {slot['label']} — {effect}.",
        [roll],
        section=section.name,
        slot=slot["kind"],
    )


def apply_slot(res: Resolution, section: HgSection, slot: Slot) -> str:
    """The effect of one Section Hit result (TR-19); returns the sentence's tail."""
    model = res.model
    kind = slot["kind"]
    if kind == "hull":
        extra = res.barrage_damage // 2
        return f"+{extra} Hull damage: {damage_section(res, section, extra)}"
    if kind == "structure":
        extra = res.barrage_damage // 2
        return f"+{extra} Structure damage: {damage_section(res, section, extra, structure_only=True)}"
    if kind == "armour":
        old = section.armour or 0
        section.armour = max(old - 1, 0)
        return f"{section.name} armour {old}→{section.armour}"
    if kind == "crew":
        return crew_hit(res)
    if kind == "critical":
        return critical(res, section)
    if kind in ("turret", "barbette", "bay"):
        return _battery_hit(res, slot)
    if kind == "spinal":
        if model.spinal is None:
            return "no spinal mount fitted"
        model.spinal.hits = min(model.spinal.hits + 1, 2)
        return "spinal −2 DM" if model.spinal.hits == 1 else "spinal mount disabled"
    if kind == "screen":
        screen = next((s for s in model.screens if s.id == slot.get("ref")), None)
        if screen is None:
            return "no such screen"
        screen.hits += 1
        return f"{screen.label} −2 protection (hits {screen.hits})"
    if kind == "fuel":
        return _fuel_hit(res, section)
    if kind in ("m_drive", "j_drive", "power_plant", "sensors", "computer", "command"):
        return ship_system_hit(res, kind)
    section.lost.append(slot["label"])
    return f"{slot['label']} capacity destroyed"


def _battery_hit(res: Resolution, slot: Slot) -> str:
    battery = res.model.battery(slot.get("ref") or "")
    if battery is None:
        return "no such weapon"
    if battery.hits >= 3:
        return f"{battery.label} already out of action"
    battery.hits += 1
    penalty = {1: "−1d6 DM", 2: "−(1d6+1) DM", 3: "can no longer fire"}[battery.hits]
    return f"{battery.label} hit {battery.hits}: {penalty}"


def _fuel_hit(res: Resolution, section: HgSection) -> str:
    roll = res.dice.roll(1, 6, "fuel lost ×5%", ship=res.ship.id)
    percent = roll.total * 5 / (2 if section.metal_hydride else 1)
    old = res.model.fuel_percent
    res.model.fuel_percent = max(old - percent, 0)
    roll.outcome = f"{percent:g}% lost"
    res.say("roll", f"Fuel hit: 1d6 {roll.total}", [roll])
    halved = " (halved: metal hydride)" if section.metal_hydride else ""
    return f"fuel {old:g}% → {res.model.fuel_percent:g}%{halved}"


def ship_system_hit(res: Resolution, kind: str) -> str:
    """Hits on whole-ship systems. Under TR-14 (starship or small craft attacker) no third hit can
    land on drives, power plant, sensors or bridge."""
    model = res.model
    hits = model.systems
    if res.core_rules and kind in THIRD_HIT_BARRED and _hits(model, kind) >= 2:
        return "no third hit on a capital ship's drive, power plant, sensors or bridge (TR-14)"
    if kind == "m_drive":
        hits.m_drive += 1
        model.thrust = max(model.thrust - 1, 0)
        return f"M-Drive hit {hits.m_drive}: Thrust {model.thrust}"
    if kind == "j_drive":
        return _dm_hit(res, "j_drive", "jump_dm", "J-Drive", "jump", "jumps")
    if kind == "power_plant":
        if hits.power_plant >= 3:
            return "power plant already disabled"
        hits.power_plant += 1
        if hits.power_plant == 3:
            model.disabled = True
            return "power plant disabled: the whole ship is disabled"
        cut = 1 if hits.power_plant == 1 else 2
        model.power = max(model.power - cut, 0)
        return f"power plant hit {hits.power_plant}: Power −{cut} → {model.power}"
    if kind == "sensors":
        return _dm_hit(
            res, "sensors", "sensors_dm", "sensors", "sensors", "Sensors checks", roll_name="sensor"
        )
    if kind == "computer":
        if hits.computer >= 3:
            return "computer already disabled"
        hits.computer += 1
        return {
            1: "computer hit 1: −1 DM to all rolls",
            2: "computer hit 2: −1d6 DM to all rolls, rerolled each time",
            3: "computer disabled: no jump, no fire beyond Close",
        }[hits.computer]
    # command takes the Bridge effects (TR-19 Decision)
    if hits.bridge >= 2:
        return "bridge already destroyed"
    hits.bridge += 1
    if hits.bridge == 1:
        hits.bridge_round = res.turn + 1
        return f"bridge hit 1: no manoeuvre or jump in round {res.turn + 1}"
    if model.initiative_base is not None:
        model.initiative_base //= 2
    if model.round.initiative is not None:
        model.round.initiative //= 2
    return "bridge destroyed: command transfers, initiative halved"


def _dm_hit(
    res: Resolution,
    kind: str,
    dm_field: str,
    name: str,
    dm_name: str,
    applies: str,
    roll_name: str | None = None,
) -> str:
    """TR-19 for the J-Drive and the sensors: the first hit rolls 1d6 for a lasting −DM, the second
    disables the system, and a third finds nothing more to break."""
    hits = res.model.systems
    count = getattr(hits, kind)
    if count >= 2:
        return f"{name} already disabled"
    setattr(hits, kind, count + 1)
    if count + 1 == 2:
        return f"{name} disabled"
    label = roll_name or name
    roll = res.dice.roll(1, 6, f"{label} hit DM", ship=res.ship.id)
    setattr(hits, dm_field, -roll.total)
    roll.outcome = f"{dm_name} DM −{roll.total}"
    text = f"{label[0].upper()}{label[1:]} DM: 1d6 {roll.total}"
    res.say("roll", text, [roll])
    return f"{name} hit 1: −{roll.total} DM to {applies}"


def _hits(model: HgShip, kind: str) -> int:
    return getattr(model.systems, "bridge" if kind == "command" else kind)


def crew_hit(res: Resolution) -> str:
    """One step down the crew ladder; Prepare for Impact! saves it on 4+ (TR-23, TR-27)."""
    if res.model.round.has("prepare_impact"):
        roll = res.dice.roll(1, 6, "Prepare for Impact!", ship=res.ship.id, target="4+")
        saved = roll.total >= 4
        roll.outcome = "crew hit ignored" if saved else "crew hit stands"
        res.say("roll", f"{res.ship.name} braced for impact: 1d6 {roll.total} → {roll.outcome}.", [roll])
        if saved:
            return "crew hit ignored (Prepare for Impact!)"
    old, new = step_down(res.model)
    return f"crew {old} → {new}"


def roll_location(res: Resolution) -> tuple[str, Roll]:
    """TR-15: 1d6 on the hull code's column."""
    roll = res.dice.roll(1, 6, "location", ship=res.ship.id)
    name = T.location(len(res.model.sections), roll.total)
    roll.outcome = name
    return name, roll


# --- Entered hits and the referee's ruling ---------------------------------------------------------


def fire_start(section: HgSection) -> int:
    return T.FIRE_START_TARGET + (T.FIRE_METAL_HYDRIDE_DM if section.metal_hydride else 0)


def critical(res: Resolution, section: HgSection) -> str:
    roll = res.dice.roll(1, 6, f"critical: {section.name}", ship=res.ship.id)
    name = T.CRITICALS[roll.total]
    roll.outcome = name
    text = f"{res.ship.name} {section.name}: critical 1d6 {roll.total}: {name}."
    res.say("critical", text, [roll], section=section.name, critical=name)
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
        res.say("roll", f"Internal explosion: 6d6 {roll.total}.", [roll])
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
