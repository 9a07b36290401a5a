"""Shield regeneration in the Ship Power segment (ST-07, ST-15).

When the segment opens, every working deflector gives its current value free to the projection in
its arc with the most room (a collapsed projection starts again from 0, ST-15); free points past the
rating are lost. Extra regeneration, up to twice the deflector's current value per turn, costs 1
power per point and applies at once; a purchase that would not fit under the rating is refused, so
no power is spent for nothing (ST-07 Decision).

A deflector gives its free regeneration once per Ship Power, at its value after any arc-extension
penalty (ST-07, ST-14). If its arcs or value change later in the segment (an extension, a
retraction, switching it off and on), that one regeneration is re-valued where it went: it is never
given again to another projection, and points lost at the rating stay lost. If the projection it
went to leaves its arc, or the deflector is switched off, the regeneration is withdrawn. A deflector
that had not given yet (it was off when the segment opened) gives when it is first able to.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, hook, mark, when
from app.rules.startrek import power as budget
from app.rules.startrek.common import owner_event, ratio, read_part, save_part, segment, ships_in_order
from app.rules.startrek.shields import (
    PART,
    SHIELDED,
    Deflector,
    Projection,
    Shields,
    covered,
    current_value,
    deflector_working,
    generator_check,
    generator_down,
    guarded,
)
from app.rules.state import BattleState, Ship
from app.rules.system import ALLOCATION


def best_target(shields: Shields, deflector: Deflector, prefer: str | None = None) -> Projection:
    """The covered projection with the most room; ties go to `prefer`, then to the data's order."""
    names = covered(shields, deflector)
    options = [shields.projection(n) for n in names]
    return max(options, key=lambda p: (p.room, p.name == prefer, -names.index(p.name)))


def give_free(state: BattleState, shields: Shields, deflector: Deflector, prefer: str | None = None) -> str:
    """Give the deflector's free regeneration for this Ship Power; returns how it reads in the log."""
    target = best_target(shields, deflector, prefer)
    value = max(current_value(shields, deflector), 0)
    deflector.regen_turn = state.clock.turn
    deflector.regen_to = target.name
    deflector.regen_room = target.room
    return _land(shields, deflector, target, value)


def _land(shields: Shields, deflector: Deflector, target: Projection, value: int) -> str:
    """Put `value` free points on `target`, no more than fitted when the regeneration was given."""
    given = min(value, deflector.regen_room, target.room)
    target.current = target.value + given
    target.collapsed = False
    deflector.regen_given = given
    lost = f" ({value - given} lost at the rating)" if given < value else ""
    return f"{deflector.name} +{given} → {target.name} {ratio(target.value, target.rating)}{lost}"


def given_this_segment(state: BattleState, deflector: Deflector) -> bool:
    return deflector.regen_turn == state.clock.turn and deflector.regen_to is not None


def take_back(state: BattleState, ship: Ship, shields: Shields, deflector: Deflector) -> Projection | None:
    """Remove the points this segment's free regeneration put on its projection (which stays
    recorded: the regeneration is given once per Ship Power). Returns that projection."""
    if not given_this_segment(state, deflector):
        return None
    assert deflector.regen_to is not None
    target = shields.projection(deflector.regen_to)
    target.current = target.value - min(deflector.regen_given, target.value)
    deflector.regen_given = 0
    if target.down_at_open and target.value == 0 and not guarded(ship, shields, target):
        target.collapsed = True
    return target


def rework_free(
    state: BattleState, ship: Ship, shields: Shields, deflector: Deflector, prefer: str | None = None
) -> str:
    """After a change in the Ship Power segment, re-value this segment's one free regeneration at
    the deflector's value now, on the projection it went to (ST-07, ST-14); returns a log note.
    Its callers (extend, retract, switch) act only in the Ship Power segment."""
    working = deflector_working(ship, shields, deflector)
    target = take_back(state, ship, shields, deflector)
    if target is None:
        if not working:
            return f"; {deflector.name} gives no regeneration now"
        return f"; free regeneration now {give_free(state, shields, deflector, prefer)}"
    if not working or target.name not in covered(shields, deflector):
        why = "it is not working" if not working else f"{target.name} is no longer in its arc"
        return f"; its free regeneration is withdrawn from {target.name} ({why}; given once per Ship Power, ST-07)"
    value = max(current_value(shields, deflector), 0)
    landed = _land(shields, deflector, target, value)
    return f"; its free regeneration stays on {target.name}, once per Ship Power, at its value now (ST-07): {landed}"


def open_ship_power(state: BattleState, dice: DiceSource) -> list[Event]:
    """ST-07/ST-15: free regeneration from every working deflector, then the segment's transfer base."""
    events: list[Event] = []
    for ship in ships_in_order(state):
        if ship.destroyed or ship.part(PART) is None or (ship.part("warp") or {}).get("departed"):
            continue
        events.extend(generator_check(state, ship))
        shields = read_part(ship, PART, Shields)
        assert shields is not None
        for projection in shields.projections:
            projection.down_at_open = projection.collapsed
        notes = []
        for deflector in shields.deflectors:
            deflector.extra_bought = 0
            deflector.regen_given = 0
            deflector.regen_room = 0
            deflector.regen_to = None
            if deflector_working(ship, shields, deflector):
                notes.append(give_free(state, shields, deflector))
        for projection in shields.projections:
            projection.segment_base = projection.value
            projection.given = 0
        save_part(ship, PART, shields)
        if notes:
            said = f"{ship.name}'s deflectors regenerate its shields: {'; '.join(notes)} (ST-07)."
        elif generator_down(ship, shields):
            said = f"{ship.name} has no shield generator: no regeneration."
        else:
            continue
        events.append(Event.about(ship, "shield_regeneration", said))
    return events


mark(open_ship_power, hook("enter", ALLOCATION))


class BuyRegeneration(BaseModel):
    ship: str
    deflector: str
    points: int = Field(ge=1, le=200)
    projection: str | None = Field(
        default=None, description="default: the projection its free points went to"
    )


def buy(state: BattleState, p: BuyRegeneration, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-07: up to 2× the deflector's current value, 1 power a point, applied at once."""
    ship = state.ship(p.ship)
    shields = read_part(ship, PART, Shields)
    assert shields is not None  # the gate (`fits=SHIELDED`) refuses a ship without them
    deflector = shields.deflector(p.deflector)
    if not deflector_working(ship, shields, deflector):
        raise RuleError(f"{deflector.name} is not working (off, destroyed, or no generator)", "deflector")
    if p.projection:
        target = shields.projection(p.projection)
    else:
        reach = covered(shields, deflector)
        target = (
            shields.projection(deflector.regen_to)
            if deflector.regen_to in reach
            else best_target(shields, deflector)
        )
    if target.name not in covered(shields, deflector):
        raise RuleError(f"{target.name} is not in {deflector.name}'s arc", "projection")
    value = current_value(shields, deflector)
    cap = 2 * value
    if deflector.extra_bought + p.points > cap:
        left = cap - deflector.extra_bought
        raise RuleError(
            f"{deflector.name} (value {value}) may add at most {cap} extra a turn; {left} left (ST-07)",
            "points",
        )
    if p.points > target.room:
        raise RuleError(
            f"{target.name} shield is at {ratio(target.value, target.rating)}: only {target.room} more fit under its "
            "rating, so no power is spent (ST-07)",
            "points",
        )
    left = budget.spend(ship, f"{deflector.name} regeneration", p.points, shields)
    before = target.value
    target.current = before + p.points
    target.collapsed = False
    deflector.extra_bought += p.points
    save_part(ship, PART, shields)
    change = f"{target.name} shield {ratio(before, target.rating)} → {ratio(target.value, target.rating)}"
    return [
        owner_event(
            ship,
            "shield_purchase",
            f"{ship.name} buys {p.points} regeneration through {deflector.name} for {p.points} power: {change} "
            f"({left} power left; {cap - deflector.extra_bought} more may be bought from it this turn).",
            f"{ship.name} reinforces its shields: {change}.",
            data={"projection": target.name, "before": before, "after": target.value, "power": p.points},
        )
    ]


mark(
    buy,
    action(
        "startrek.buy_regeneration", BuyRegeneration, "Buy shield regeneration", ship="ship", fits=SHIELDED
    ),
    when(ALLOCATION, refusal=segment("Buying shield regeneration")),
)
