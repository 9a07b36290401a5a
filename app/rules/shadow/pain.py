"""Pain accumulation and the end-of-impulse pain check (SH-02 … SH-07).

Damage listeners add up, per Shadow ship, what reached armour and internals this impulse (shield
absorption never hurts the living hull, SH-03). When the impulse ends the check rolls, in order:
rise chance (SH-04), rise amount (SH-05), then — only if pain rose and the ship still lives —
reaction chance (SH-06) read against the new level, overriding per SH-07. Pain 16 kills at once, so
no reaction die is rolled for that impulse (SH-02); a successful roll that reads ZERO is no reaction
and changes nothing (SH-06).
"""

from __future__ import annotations

from app.rules.attack import DamageContext
from app.rules.core import Event, Roll
from app.rules.dice import DiceSource
from app.rules.ruleset import hook, mark
from app.rules.shadow.reactions import die_of_shock, expire, lift, overrides, take_effect
from app.rules.shadow.track import (
    PAIN_MAX,
    UNKNOWN,
    Band,
    LastCheck,
    PainTrack,
    When,
    band_for,
    load,
    reaction_for,
    save,
    ship_name,
)
from app.rules.state import BattleState, Ship
from app.rules.system import IMPULSE_END


def accumulate(ctx: DamageContext) -> None:
    """Damage listener: record armour and internal damage on a Shadow target by source and direction."""
    track = load(ctx.target)
    if track is not None and not track.dead:
        hurt = ctx.to_armour + ctx.to_internal
        if hurt > 0:
            source = ctx.entry.source or UNKNOWN
            direction = (ctx.entry.direction or UNKNOWN).lower()
            track.damage_total += hurt
            track.damage_by_source[source] = track.damage_by_source.get(source, 0) + hurt
            track.damage_by_direction[direction] = track.damage_by_direction.get(direction, 0) + hurt
        if ctx.target.destroyed:
            lift(track, "the ship is destroyed", ctx.state.clock.turn, keep=frozenset())
        save(ctx.target, track)
    if ctx.target.destroyed:
        release_targets(ctx.state)


def release_targets(state: BattleState) -> None:
    """Targeting obligations end the moment their target is destroyed (SH-10)."""
    for ship in state.ships.values():
        track = load(ship)
        if track is not None and track.active():
            expire(state, track, When(turn=state.clock.turn, impulse=state.clock.impulse), "check")
            save(ship, track)


def _clear_impulse(track: PainTrack, when: When) -> None:
    if track.damage_total:
        source, _ = track.largest_source()
        track.last_check = LastCheck(when=when, total=track.damage_total, most_damage=source)
    track.damage_total = 0
    track.damage_by_source = {}
    track.damage_by_direction = {}


def _chance(dice: DiceSource, ship: Ship, band: Band, what: str, hit: str, miss: str) -> Roll:
    roll = dice.roll(1, 6, f"{what}, band {band.label}", ship=ship.id, target=f"≤ {band.chance}")
    roll.outcome = hit if roll.total <= band.chance else miss
    return roll


def _rise(dice: DiceSource, ship: Ship, track: PainTrack, band: Band) -> Roll:
    """SH-05: 1d6 + band modifier, at least 1; pain capped at 16."""
    roll = dice.roll(1, 6, "rise amount", ship=ship.id, modifier=band.modifier)
    amount = max(roll.total, 1)
    track.level = min(track.level + amount, PAIN_MAX)
    floor = "at least 1 → " if roll.total < 1 else ""
    cap = " (the maximum)" if track.level == PAIN_MAX else ""
    roll.outcome = f"{floor}pain {track.level}{cap}"
    return roll


def check_ship(state: BattleState, ship: Ship, track: PainTrack, when: When, dice: DiceSource) -> list[Event]:
    """The pain check for one ship at the end of an impulse (SH-03…SH-07, SH-02)."""
    total = track.damage_total
    band = band_for(total)
    where = when.label()
    if band is None:
        if total == 0:
            return []
        text = f"{ship.name} took {total} damage to armour and internals in {where}: under 25, no pain check."
        return [Event.about(ship, "pain_check", text, data={"damage": total})]
    source, amount = track.largest_source()
    rise = _chance(dice, ship, band, "pain rise chance", "rises", "no rise")
    rolls = [rise]
    old = track.level
    if rise.outcome == "rises":
        rolls.append(_rise(dice, ship, track, band))
    said = f"pain rises {old} → {track.level}" if track.level != old else f"pain stays {old}"
    events = [
        Event.about(
            ship,
            "pain_check",
            f"{ship.name} took {total} damage to armour and internals in {where} "
            f"(most from {ship_name(state, source)}, {amount}): {said}.",
            rolls=rolls,
            data={"damage": total, "band": band.label, "old": old, "new": track.level, "most_damage": source},
        )
    ]
    if track.level == old:
        return events
    if track.level >= PAIN_MAX:
        events.append(die_of_shock(ship, track, when))
        return events
    events.append(_react(state, ship, track, band, when, dice))
    return events


def _react(
    state: BattleState, ship: Ship, track: PainTrack, band: Band, when: When, dice: DiceSource
) -> Event:
    level = reaction_for(track.level)
    hit = (
        f"reacts at pain {track.level}: {level}"
        if level != "ZERO"
        else f"pain {track.level} reads ZERO: no reaction"
    )
    roll = _chance(dice, ship, band, "reaction chance", hit, "no reaction")
    if roll.total > band.chance:
        return Event.about(ship, "pain_reaction", f"{ship.name} does not react to the pain.", rolls=[roll])
    if level == "ZERO":
        # SH-06 Decision: a successful roll that reads ZERO is no reaction. It takes no effect,
        # overrides nothing and ends no standing obligation (an owed Shadow Cutter attack stays owed).
        text = (
            f"{ship.name} grins and bears it: pain {track.level} reads ZERO, which is no reaction "
            "(nothing changes, SH-06)."
        )
        return Event.about(ship, "pain_reaction", text, rolls=[roll], data={"reaction": "ZERO"})
    if not overrides(track, level, when.turn):
        text = (
            f"{ship.name} reacts at {level}, which does not override its {track.reaction} "
            f"reaction already taken in turn {when.turn} (SH-07)."
        )
        return Event.about(ship, "pain_reaction", text, rolls=[roll], data={"reaction": level})
    track.most_damage, track.most_damage_amount = track.largest_source()
    event = take_effect(state, ship, track, level, when, dice)
    event.rolls.insert(0, roll)
    return event


# The pain check runs as every step marked `impulse_end` ends: an SFB impulse, a B5 Wars combat
# step. Decision (SH-03): damage entered outside an impulse — a referee's late entry at Energy
# Allocation or the end of the turn, a B5 Wars critical at Adjust Ship Systems — is checked when that
# step ends (the systems mark those steps too), so it never joins the next impulse's total (or the
# next turn's). B5 Wars movement (ramming) is part of the turn's one "impulse" and is checked with
# the combat step.
def end_of_impulse(state: BattleState, dice: DiceSource) -> list[Event]:
    """Run at the end of every SFB impulse and every B5 Wars combat step (SH-03)."""
    when = When(turn=state.clock.turn, impulse=state.clock.impulse)
    events: list[Event] = []
    for ship in state.ships.values():
        if _quiet(ship):
            continue
        track = load(ship)
        if track is None:
            continue
        if not ship.destroyed and not track.dead:
            for text in expire(state, track, when, "movement" if when.impulse is not None else "check"):
                events.append(_expired(ship, text))
            if track.level >= PAIN_MAX:
                events.append(die_of_shock(ship, track, when))
            else:
                events.extend(check_ship(state, ship, track, when, dice))
        _clear_impulse(track, when)
        save(ship, track)
    return events


mark(end_of_impulse, hook("leave", IMPULSE_END))


def _quiet(ship: Ship) -> bool:
    """Nothing for this impulse's end to do, read from the part as stored: no damage to check or
    clear, no obligation still running that could end, no pain at the death mark. The track would
    be saved just as it is, so it is not parsed and written at all (in a long SFB battle most
    impulses are quiet, and the two were a third of an impulse's end)."""
    raw = ship.part("pain")
    if raw is None:
        return True
    return (
        not raw.get("damage_total")
        and not raw.get("damage_by_source")
        and not raw.get("damage_by_direction")
        and all(o.get("expired") for o in raw.get("obligations") or ())
        and (ship.destroyed or bool(raw.get("dead")) or (raw.get("level") or 0) < PAIN_MAX)
    )


def _expired(ship: Ship, text: str) -> Event:
    return Event.about(ship, "pain_obligation_expired", f"{ship.name} is no longer bound: {text}.")
