"""Moving shield strength between consecutive projections (ST-08, ST-15a).

In the Adjust Ship Systems segment (end of turn) a projection may give up to half (rounded down) of
what it held when the segment opened, to adjacent projections, split as the player likes; a
transfer the recipient cannot hold under its rating is refused. In the Ship Power segment the same
transfer may shore up only a projection that had collapsed (ST-15a).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, hook, mark, when
from app.rules.startrek.common import ratio, read_part, save_part, ships_with
from app.rules.startrek.shields import PART, Shields, adjacent, generator_down
from app.rules.state import BattleState, Ship
from app.rules.system import ADJUST, ALLOCATION


def open_adjust_systems(state: BattleState, dice: DiceSource) -> list[Event]:
    """ST-08 Decision: the 50% bound is taken of each donor's value when the segment opens."""
    for ship, shields in ships_with(state, PART, Shields):
        for projection in shields.projections:
            projection.segment_base = projection.value
            projection.given = 0
        save_part(ship, PART, shields)
    return []


mark(open_adjust_systems, hook("enter", ADJUST))


def _may_transfer(state: BattleState, ship: Ship) -> str | None:
    """Shields to move strength between, and in Ship Power a projection that collapsed to shore up
    (ST-15a): without one the transfer belongs to the Adjust Ship Systems segment only."""
    shields = read_part(ship, PART, Shields)
    if shields is None:
        return f"{ship.name} has no shields"
    if state.game.in_moment(state, ALLOCATION) and not any(p.down_at_open for p in shields.projections):
        return (
            f"in the {state.game.system.where(ALLOCATION)} segment strength may only go to a projection that "
            f"collapsed; none of {ship.name}'s did: transfers belong to the {state.game.system.where(ADJUST)} "
            "segment (ST-15a, ST-08)"
        )
    return None


class Transfer(BaseModel):
    ship: str
    source: str = Field(description="projection giving strength")
    target: str = Field(description="adjacent projection receiving it")
    points: int = Field(ge=1, le=1000)


def transfer(state: BattleState, p: Transfer, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-08, ST-15a: strength moves to an adjacent projection, half of what the donor held when the
    segment opened in all; in Ship Power only to a projection that collapsed last turn."""
    ship = state.ship(p.ship)
    shields = read_part(ship, PART, Shields)
    assert shields is not None  # the gate (`_may_transfer`) refuses a ship without them
    source = shields.projection(p.source, "source")
    target = shields.projection(p.target, "target")
    if state.game.in_moment(state, ALLOCATION) and not target.down_at_open:
        raise RuleError(
            f"in the {state.game.system.where(ALLOCATION)} segment strength may only go to a projection that "
            f"collapsed; {target.name} did not (ST-15a)",
            "target",
        )
    if generator_down(ship, shields):
        raise RuleError(f"{ship.name}'s shield generator is gone: its shields are down (ST-11)", "ship")
    if target.name not in adjacent(shields, source.name):
        raise RuleError(f"{target.name} is not next to {source.name} (ST-08)", "target")
    bound = source.segment_base // 2
    if source.given + p.points > bound:
        raise RuleError(
            f"{source.name} held {source.segment_base} when the segment opened: it may give {bound} in all, "
            f"{bound - source.given} more (ST-08)",
            "points",
        )
    if p.points > source.value:
        raise RuleError(f"{source.name} holds only {source.value}", "points")
    if p.points > target.room:
        raise RuleError(
            f"{target.name} is at {ratio(target.value, target.rating)}: only {target.room} more fit (ST-08)",
            "points",
        )
    before = (source.value, target.value)
    source.current = source.value - p.points
    source.given += p.points
    target.current = target.value + p.points
    target.collapsed = False
    save_part(ship, PART, shields)
    rule = "ST-15a" if state.game.in_moment(state, ALLOCATION) else "ST-08"
    return [
        Event.about(
            ship,
            "shield_transfer",
            f"{ship.name} moves {p.points} shield strength from {source.name} to {target.name}: {source.name} "
            f"{ratio(before[0], source.rating)} → {ratio(source.value, source.rating)}, {target.name} "
            f"{ratio(before[1], target.rating)} → {ratio(target.value, target.rating)} ({rule}).",
            data={"source": source.name, "target": target.name, "points": p.points},
        )
    ]


mark(
    transfer,
    action(
        "startrek.transfer_shields", Transfer, "Transfer shield strength", ship="ship", fits=_may_transfer
    ),
    when(
        ADJUST,
        ALLOCATION,
        refusal="shield strength moves in the {adjust} segment (or, to a collapsed projection, in {allocation})",
    ),
)
