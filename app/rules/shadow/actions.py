"""What a Shadow commander does with the pain track: the SH-14 reduction roll, plotting speed,
reporting the range for FIVE's phase-out (SH-12; from the map where the ships stand on it), resolving that phase-out, and marking an
immediate obligation as carried out. Each refuses with a reason a player can act on."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.rules.attack import DamageContext
from app.rules.core import Actor, Event, RuleError, ShipRef
from app.rules.dice import DiceSource
from app.rules.generic.boarding import KIND_WORDS
from app.rules.geometry import distance, hex_of
from app.rules.ruleset import Handler, action, mark, when
from app.rules.shadow.reactions import end, expire, shift_down, targeting_text
from app.rules.shadow.track import (
    DOABLE,
    PHASE_OUT_RANGE,
    SPEED_MAX,
    Obligation,
    PainTrack,
    load,
    now,
    save,
    ship_name,
)
from app.rules.state import BattleState, Ship
from app.rules.system import ALLOCATION  # the SFB Energy Allocation Phase in any system


def living_track(state: BattleState, ship_id: str) -> tuple[Ship, PainTrack]:
    ship = state.ship(ship_id)
    track = load(ship)
    assert track is not None  # every Shadow action's gate (`fits=`) refuses a ship without one first
    return ship, track


def _living(state: BattleState, ship: Ship) -> str | None:
    """The gate's question for every Shadow action (offers ask it too): a ship with a pain track."""
    if load(ship) is None:
        return f"{ship.name} is not a living ship: it has no pain track"
    return None


TrackCheck = Callable[[BattleState, Ship, PainTrack], str | None]


def _on_track(check: TrackCheck, state: BattleState, ship: Ship) -> str | None:
    """The gate of a Shadow action that reads the pain track, given by `track_action` as
    `partial(_on_track, check)`: a ship without one is refused as `_living` refuses it, any other by
    `check` on its track. (A partial, not a closure made while the module loads, so mutation testing
    reaches this body.)"""
    track = load(ship)
    return _living(state, ship) if track is None else check(state, ship, track)


def track_action(
    name: str, payload: type[BaseModel], summary: str, check: TrackCheck, **options: Any
) -> Callable[[Handler], Handler]:
    """An action of the ship named by the payload's `ship` on its own pain track, gated by `check`
    on that track (`_on_track`); `options` are the action's others (`referee_only`)."""
    return action(name, payload, summary, ship="ship", fits=partial(_on_track, check), **options)


def _may_reduce(state: BattleState, ship: Ship, track: PainTrack) -> str | None:
    if track.reduced_turn == state.clock.turn:
        return f"{ship.name} has already rolled pain reduction this turn (SH-14)"
    if track.level == 0:
        return f"{ship.name} feels no pain: there is nothing to reduce"
    return None


def _may_report_range(state: BattleState, ship: Ship, track: PainTrack) -> str | None:
    if track.reaction != "FIVE":
        return f"{ship.name} is not panicked (reaction {track.reaction}); the range matters only at FIVE"
    if any(o.kind in ("phase_out", "plot_phase_out") for o in track.active()):
        return f"{ship.name} already has to phase out"
    return None


def _may_phase_out(state: BattleState, ship: Ship, track: PainTrack) -> str | None:
    if _phase_duty(track) is None:
        return f"{ship.name} has no phase-out to resolve"
    return None


def _may_mark_done(state: BattleState, ship: Ship, track: PainTrack) -> str | None:
    active = track.active()
    if not active:
        return f"{ship.name} has no obligation to mark done"
    if not any(o.kind in DOABLE for o in active):
        return (
            f"{ship.name} owes no move or attack to mark done: each obligation it has is a restriction "
            "that ends by itself"
        )
    return None


def dead_of_pain(ship: Ship) -> str | None:
    """GEN-04 for living ships: a ship killed by its pain track takes no further actions (SH-02)."""
    if (ship.part("pain") or {}).get("dead"):
        return f"{ship.name} is destroyed and takes no further actions (GEN-04)"
    return None


def in_allocation(state: BattleState) -> bool:
    return state.game.in_moment(state, ALLOCATION)


def allocation_name(state: BattleState) -> str:
    return state.game.system.where(ALLOCATION)


def reduce(state: BattleState, ship: Ship, track: PainTrack, dice: DiceSource) -> Event:
    """SH-14 roll (1d6, floor 0, public) and the SH-15 shift that follows."""
    when = now(state)
    expire(state, track, when, "check")
    roll = dice.roll(1, 6, "pain reduction", ship=ship.id)
    old_level, old_reaction = track.level, track.reaction
    track.level = max(track.level - roll.total, 0)
    track.reduced_turn = when.turn
    roll.outcome = f"pain {old_level} → {track.level}"
    steps = shift_down(state, ship, track, when)
    if steps:
        shifted = f"; reaction {old_reaction} → {track.reaction} (" + "; ".join(steps) + ")"
    else:
        shifted = f"; reaction stays {track.reaction}"
    save(ship, track)
    return Event.about(
        ship,
        "pain_reduction",
        f"{ship.name} rolls pain reduction: pain {old_level} → {track.level}{shifted}.",
        rolls=[roll],
        data={"old": old_level, "new": track.level, "reaction": track.reaction},
    )


def reduce_pain(state: BattleState, p: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """SH-14, SH-15: the pain-reduction roll, once a turn in the Energy Allocation Phase; the reaction
    level falls with the pain."""
    ship, track = living_track(state, p.ship)  # a second roll this turn, or none at pain 0: `_may_reduce`
    return [reduce(state, ship, track, dice)]


mark(
    reduce_pain,
    track_action("shadow.reduce_pain", ShipRef, "Roll pain reduction", _may_reduce),
    when(ALLOCATION, refusal="pain reduction is rolled during {step} (SH-14)", field="ship"),
)


class PlotSpeed(BaseModel):
    ship: str
    speed: int = Field(ge=0, le=SPEED_MAX, description="speed plotted for this turn (maximum 50)")


def plot_speed(state: BattleState, p: PlotSpeed, actor: Actor, dice: DiceSource) -> list[Event]:
    """The tracker keeps the speed so FOUR/FIVE can raise it (cap 50) and DEATH can cut it (SH-11…13)."""
    ship, track = living_track(state, p.ship)
    track.speed = p.speed
    save(ship, track)
    return [Event.about(ship, "pain_speed", f"{ship.name} is plotted at speed {p.speed}.")]


mark(
    plot_speed,
    action("shadow.plot_speed", PlotSpeed, "Record the ship's speed", ship="ship", fits=_living),
    when(ALLOCATION, referee_anytime=True, refusal="speed is plotted during {step}", field="speed"),
)


class ReportRange(BaseModel):
    ship: str
    range: int | None = Field(
        default=None, ge=0, le=1000, description="hexes to the nearest enemy ship; default: from the map"
    )


def enemies(state: BattleState, ship: Ship) -> list[Ship]:
    """Ships still fighting on the other side (by side where both have one, else by commander)."""
    return [
        other
        for other in state.ships.values()
        if other.id != ship.id
        and state.game.gone(other) is None
        and (other.side != ship.side if ship.side and other.side else other.owner != ship.owner)
    ]


def range_from_map(state: BattleState, ship: Ship) -> tuple[int, Ship]:
    """SH-12's range from the map: hexes to the nearest enemy whose counter is on the board (a cloaked
    ship's is not). Refused, naming `range`, where the positions do not answer it."""
    here = None if state.game.position_hidden(ship) else hex_of(ship.position)
    if here is None:
        raise RuleError(
            f"range: {ship.name} has no hex on the map; enter the range to the nearest enemy", "range"
        )
    seen = [e for e in enemies(state, ship) if not state.game.position_hidden(e)]
    if not seen:
        raise RuleError("range: there is no enemy ship on the board; enter the range", "range")
    unplaced = [e.name for e in seen if hex_of(e.position) is None]
    if unplaced:
        raise RuleError(
            f"range: {', '.join(unplaced)} {'has' if len(unplaced) == 1 else 'have'} no hex on the map; "
            "enter the range to the nearest enemy",
            "range",
        )
    placed = [(distance(here, at), e) for e in seen if (at := hex_of(e.position)) is not None]
    return min(placed, key=lambda pair: pair[0])


def report_range(state: BattleState, p: ReportRange, actor: Actor, dice: DiceSource) -> list[Event]:
    """SH-12: a panicked ship 10+ hexes from the nearest enemy must try to phase out."""
    ship, track = living_track(state, p.ship)  # not at FIVE, or a phase-out owed: `_may_report_range`
    rng, note, data = p.range, "", {}
    if rng is None:
        rng, nearest = range_from_map(state, ship)
        note, data = f" ({nearest.name}, from the map)", {"nearest": nearest.id, "from_map": True}
    if rng < PHASE_OUT_RANGE:
        text = f"{ship.name} is {rng} hexes from the nearest enemy{note}: under {PHASE_OUT_RANGE}, it keeps evading."
        return [Event.about(ship, "pain_range", text, data={"range": rng, **data})]
    track.add(
        Obligation(
            kind="phase_out",
            level="FIVE",
            text=f"must attempt to phase out now ({rng} hexes from the nearest enemy)",
            since=now(state),
            until="met",
        )
    )
    save(ship, track)
    text = f"{ship.name} is {rng} hexes from the nearest enemy{note} and must attempt to phase out (SH-12)."
    return [Event.about(ship, "pain_phase_out", text, data={"range": rng, **data})]


mark(
    report_range,
    track_action(
        "shadow.report_range", ReportRange, "Report the range to the nearest enemy", _may_report_range
    ),
)


class PhaseOut(BaseModel):
    ship: str
    result: Literal["phased_out", "impossible"] = Field(description="what happened at the table")


def _phase_duty(track: PainTrack) -> Obligation | None:
    return next((o for o in track.active() if o.kind in ("phase_out", "plot_phase_out")), None)


def phase_out(state: BattleState, p: PhaseOut, actor: Actor, dice: DiceSource) -> list[Event]:
    """SH-12: phase out now; if impossible, plot it at the next Energy Allocation; if that is still
    impossible through damage, the ship makes its normal reduction roll and plays on."""
    ship, track = living_track(state, p.ship)
    duty = _phase_duty(track)
    assert duty is not None  # the gate (`_may_phase_out`) refuses a ship with no phase-out owed
    when = now(state)
    if p.result == "phased_out":
        end(duty, f"met: phased out ({when.label()})", when.turn)
        track.phased_out = True
        save(ship, track)
        return [Event.about(ship, "pain_phase_out", f"{ship.name} phases out and leaves the battle.")]
    if duty.kind == "phase_out":
        end(duty, "phasing out was not possible", when.turn)
        track.add(
            Obligation(
                kind="plot_phase_out",
                level="FIVE",
                text=f"must plot phasing out at the next {allocation_name(state)}",
                since=when,
                until="met",
            )
        )
        save(ship, track)
        text = f"{ship.name} cannot phase out now and must plot it at the next {allocation_name(state)}."
        return [Event.about(ship, "pain_phase_out", text)]
    if not in_allocation(state):
        raise RuleError(f"phasing out is plotted during {allocation_name(state)}", "result")
    end(duty, "still impossible through damage", when.turn)
    events = [
        Event.about(
            ship,
            "pain_phase_out",
            f"{ship.name} still cannot phase out through damage; it rolls pain reduction and plays on.",
        )
    ]
    if track.reduced_turn != when.turn and track.level > 0:
        events.append(reduce(state, ship, track, dice))
    else:
        save(ship, track)
    return events


mark(phase_out, track_action("shadow.phase_out", PhaseOut, "Resolve the phase-out attempt", _may_phase_out))


class ObligationDone(BaseModel):
    ship: str
    obligation: int = Field(ge=0, description="the obligation's id on the pain track")


def obligation_done(state: BattleState, p: ObligationDone, actor: Actor, dice: DiceSource) -> list[Event]:
    """SH-16: the commander marks an owed move or attack (a flinch, a HET, the Shadow Cutter attack)
    carried out; a restriction ends by itself instead."""
    ship, track = living_track(state, p.ship)
    duty = track.find(p.obligation)
    if duty is None:
        raise RuleError(f"{ship.name} has no obligation number {p.obligation}", "obligation")
    if duty.expired:
        raise RuleError(f"that obligation has already ended ({duty.ended})", "obligation")
    if duty.kind not in DOABLE:
        raise RuleError(
            "that obligation is a restriction that ends by itself, not a deed to mark done", "obligation"
        )
    end(duty, f"done ({now(state).label()})", state.clock.turn)
    save(ship, track)
    return [Event.about(ship, "pain_obligation_done", f"{ship.name} has done what it must: {duty.text}.")]


mark(
    obligation_done,
    track_action(
        "shadow.obligation_done", ObligationDone, "Mark a reaction's move or attack done", _may_mark_done
    ),
)


class SetTarget(BaseModel):
    """SH-09 decision: the referee may rule which ship the Shadow must target."""

    ship: str = Field(description="the Shadow ship under a targeting obligation")
    target: str = Field(description="id of the ship it must target instead")
    reason: str = Field(min_length=3, max_length=300)


TARGETING = ("target", "cutter_attack")


def _may_retarget(state: BattleState, ship: Ship, track: PainTrack) -> str | None:
    if not any(o.kind in TARGETING for o in track.active()):
        return f"{ship.name} has no targeting obligation to change"
    return None


def set_target(state: BattleState, p: SetTarget, actor: Actor, dice: DiceSource) -> list[Event]:
    """Rewrites every standing targeting obligation (TWO, THREE, the owed Shadow Cutter attack) and
    the recorded most-damaging ship, so the sheet, SH-10's release on destruction and the log agree.
    A generic override of `obligations.N.target` would leave the sheet naming the old ship."""
    ship, track = living_track(state, p.ship)
    duties = [o for o in track.active() if o.kind in TARGETING]  # one at least: `_may_retarget`
    target = state.ship(p.target, "target")
    if target.id == ship.id:
        raise RuleError("a ship cannot be obliged to target itself", "target")
    if target.destroyed:
        raise RuleError(f"{target.name} is destroyed", "target")
    old = duties[0].target
    for duty in duties:
        duty.target = target.id
        duty.text = targeting_text(state, duty)
    track.most_damage, track.most_damage_amount = target.id, 0
    save(ship, track)
    before = ship_name(state, old)
    return [
        Event.about(
            ship,
            "override",
            f"⚠ OVERRIDE (Referee): {ship.name} must now target {target.name} instead of {before} — "
            f"“{p.reason}”",
            data={
                "path": f"ships.{ship.id}.parts.pain.target",
                "old": old,
                "new": target.id,
                "reason": p.reason,
            },
        )
    ]


mark(
    set_target,
    track_action("shadow.set_target", SetTarget, "Set a reaction's target", _may_retarget, referee_only=True),
)


def living_ship_refusal(target: Ship, kind: str) -> str | None:
    """SH-17: the ship is alive and merged with its pilot; nobody boards or raids it, in any battle."""
    if "pain" not in target.parts:
        return None
    return f"{target.name} is a Shadow living ship: {KIND_WORDS[kind]} against it is not possible (SH-17)"


def refuse_panicked_fire(ctx: DamageContext) -> None:
    """SH-12: a panicked ship cannot fire for the rest of the turn, so fire entered from it is refused
    while its FIVE fire ban stands (it ends with the turn, or when a reduction takes it to FOUR)."""
    source = ctx.state.ships.get(ctx.entry.source) if ctx.entry.source else None
    track = load(source) if source is not None else None
    if source is None or track is None:
        return
    turn = ctx.state.clock.turn
    ban = next(
        (o for o in track.active() if o.kind == "no_fire" and (o.until_turn is None or o.until_turn >= turn)),
        None,
    )
    if ban is not None:
        raise RuleError(f"{source.name} is panicked and {ban.text} (SH-12)", "source")
