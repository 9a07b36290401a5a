"""Entered damage (GEN-03) through the ship's defences onto its sheet, with destruction (GEN-04).

The pipeline: filters (shields, cloaks… each ruleset's `damage_filters`, in ruleset order) take their share first, then the
sheet takes the rest — a section's armour boxes, then the named system's boxes, then structure,
overflowing to the primary section, then any Excess Damage boxes. Listeners (`damage_listeners`: the Shadow's pain
accumulator…) then see what reached armour and internals.

An entry without a direction, fired by a ship in the battle, takes its direction from the map when
both ships stand on it (`map_bearing`): the ruleset's reading of that bearing (Star Trek: the shield
projection it falls in), else its quadrant of the target (fore, starboard, aft, port).
"""

from __future__ import annotations

from app.rules.attack import DamageContext, DamageEntry, map_bearing
from app.rules.core import Actor, Event, NotAllowed, RuleError
from app.rules.dice import DiceSource
from app.rules.generic.sheet import Section, Sheet
from app.rules.geometry import quadrant
from app.rules.ruleset import action, mark
from app.rules.state import BattleState


def ship_label(state: BattleState, ship_id: str | None) -> str:
    if ship_id is None:
        return "An unknown attacker"
    ship = state.ships.get(ship_id)
    return ship.name if ship else ship_id


def direction_note(ctx: DamageContext) -> str:
    """The log's note on where the fire came from: "(port)" as entered, "(port, from the map)" when
    the map gave it, nothing when neither did."""
    if not ctx.entry.direction:
        return ""
    return f" ({ctx.entry.direction}, from the map)" if ctx.from_map else f" ({ctx.entry.direction})"


def _pick_section(sheet: Sheet, entry: DamageEntry) -> Section:
    if entry.section:
        section = sheet.section(entry.section)
        if section is None:
            names = ", ".join(s.name for s in sheet.sections)
            raise RuleError(f"no section {entry.section!r}; this ship has {names}", "section")
        return section
    if entry.direction:
        for section in sheet.sections:
            if section.arc and section.arc.lower() == entry.direction.lower():
                return section
    return sheet.section(sheet.primary or sheet.sections[0].name)  # type: ignore[return-value]  # a name the sheet has


def _destroy_section(ctx: DamageContext, section: Section) -> None:
    for system in section.systems:
        system.damage = system.boxes
    ctx.tell("section_destroyed", f"{ctx.target.name}'s {section.name} is destroyed.")


def _mark_destroyed(ctx: DamageContext, why: str) -> None:
    if not ctx.target.destroyed:
        ctx.target.destroyed = True
        ctx.tell("ship_destroyed", f"{ctx.target.name} is destroyed ({why}).")


def allocate_to_sheet(ctx: DamageContext) -> None:
    """Put ctx.remaining onto the target's sheet; what it does is added to ctx and its events."""
    raw = ctx.target.part("sheet")
    if raw is None:
        raise RuleError(f"{ctx.target.name} has no damage sheet", "target")
    sheet = Sheet.model_validate(raw)
    left = ctx.remaining
    # SH-02 / GEN-04: with the last Excess Damage box already gone, the ship is destroyed by the next
    # point that lands on it, wherever it lands (an arc's armour or structure as much as the Core):
    # that one point is taken, the rest is beyond destruction.
    finished = sheet.excess_damage == 0
    beyond = left - 1 if finished else 0
    left -= beyond
    section = _pick_section(sheet, ctx.entry)
    primary = sheet.section(sheet.primary)  # type: ignore[arg-type]  # Sheet's validator sets it
    assert primary is not None
    ctx.sections_hit.append(section.name)
    taken = min(section.armour or 0, left)
    section.armour = (section.armour or 0) - taken
    ctx.to_armour += taken
    left -= taken
    if ctx.entry.system and left:
        system = next((s for s in section.systems if s.name.lower() == ctx.entry.system.lower()), None)
        if system is None:
            names = ", ".join(s.name for s in section.systems) or "none"
            raise RuleError(f"no system {ctx.entry.system!r} in {section.name} (systems: {names})", "system")
        hit = min(system.remaining, left)
        system.damage += hit
        ctx.to_internal += hit
        left -= hit
        if system.destroyed and hit:
            ctx.tell("system_destroyed", f"{ctx.target.name}'s {system.name} is destroyed.")
    while left > 0 and not ctx.target.destroyed:
        if section.structure:
            hit = min(section.structure, left)
            section.structure -= hit
            ctx.to_internal += hit
            left -= hit
            if section.structure == 0:
                _destroy_section(ctx, section)
            continue
        if section is not primary:
            section = primary
            ctx.sections_hit.append(primary.name)
            continue
        if sheet.excess_damage is not None:
            hit = min(sheet.excess_damage, left)
            sheet.excess_damage -= hit
            ctx.to_internal += hit
            left -= hit
            if left > 0 and sheet.excess_damage == 0:
                sheet.excess_overflow = True
                ctx.to_internal += 1
                left -= 1
                _mark_destroyed(ctx, "the last Excess Damage box is gone and one more point landed")
            continue
        _mark_destroyed(ctx, f"its {primary.name} structure is gone")
    if primary.structure == 0 and sheet.excess_damage is None:
        _mark_destroyed(ctx, f"its {primary.name} structure is gone")
    if finished and not ctx.target.destroyed:
        sheet.excess_overflow = True
        _mark_destroyed(ctx, "the last Excess Damage box is gone and one more point landed")
    ctx.lost += left + beyond
    ctx.target.parts["sheet"] = sheet.model_dump(mode="json")


def resolve_damage(
    state: BattleState, entry: DamageEntry, dice: DiceSource, actor: Actor | None = None
) -> list[Event]:
    target = state.ship(entry.target, "target")
    if target.destroyed:
        raise RuleError(f"{target.name} is already destroyed", "target")
    if entry.source == target.id:
        raise RuleError(f"{target.name} cannot fire on itself: choose the firing ship", "source")
    from_map = False
    bearing = map_bearing(state, entry) if entry.direction is None else None
    if bearing is not None:
        direction = state.game.map_direction(state, target, bearing) or quadrant(bearing)
        entry = entry.model_copy(update={"direction": direction})
        from_map = True
    ctx = DamageContext(
        state=state,
        target=target,
        entry=entry,
        dice=dice,
        remaining=entry.amount,
        actor=actor,
        from_map=from_map,
    )
    for step in state.game.damage_filters():
        step(ctx)
        if ctx.remaining <= 0:
            break
    if ctx.remaining > 0:
        allocate_to_sheet(ctx)
    where = direction_note(ctx)
    weapon = f" with {entry.weapon}" if entry.weapon else ""
    parts = []
    if ctx.absorbed:
        parts.append(f"{ctx.absorbed} absorbed by shields")
    if ctx.to_armour:
        parts.append(f"{ctx.to_armour} to armour")
    if ctx.to_internal:
        parts.append(f"{ctx.to_internal} to {' → '.join(dict.fromkeys(ctx.sections_hit)) or 'internals'}")
    if ctx.lost:
        parts.append(f"{ctx.lost} beyond destruction")
    summary = Event.about(
        target,
        "damage",
        f"{ship_label(state, entry.source)} hits {target.name}{weapon} for {entry.amount}{where}: "
        + (", ".join(parts) or "no effect")
        + ".",
        data={
            "amount": entry.amount,
            "source": entry.source,
            "direction": entry.direction,
            **({"bearing": bearing, "from_map": True} if from_map else {}),
            "absorbed": ctx.absorbed,
            "armour": ctx.to_armour,
            "internal": ctx.to_internal,
        },
    )
    for listener in state.game.damage_listeners():
        listener(ctx)
    return [summary, *ctx.events]


def _may_enter_damage(state: BattleState, entry: DamageEntry, actor: Actor) -> None:
    """The firing ship's commander enters the hit; the target's own commander may mark it too."""
    if actor.is_referee:
        return
    state.ship(entry.target, "target")
    if entry.source is not None and actor.commands(entry.source):
        return
    if actor.commands(entry.target):
        return
    raise NotAllowed("enter damage for a ship you command, or fired by one", "source")


# Two entries on one ship commute (GEN-03: each takes its share through the same defences onto the
# same boxes) unless a part of the ship reads their order (`PartSpec.ordered`).
def apply_damage(state: BattleState, entry: DamageEntry, actor: Actor, dice: DiceSource) -> list[Event]:
    """GEN-03: damage whose to-hit and location the seeds leave to the full rules is entered, then
    every rule the seeds give applies it: the rulesets' filters (shields), the sheet, then their
    listeners (pain)."""
    return resolve_damage(state, entry, dice, actor)


mark(
    apply_damage,
    action(
        "damage.apply",
        DamageEntry,
        "Enter damage",
        active=("source",),
        authorise=_may_enter_damage,
        commutes="damage",
    ),
)
