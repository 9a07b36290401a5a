"""Star Trek shields: projections that absorb damage, deflectors that feed them (ST-05 … ST-16).

This module holds the data (projections, deflectors, generator), the geometry (which projection an
attack falls on, which projections are adjacent, what a deflector covers after arc extensions) and
what happens to damage: the in-arc projection fills first (ST-06), First One fire counts double
(ST-16), energy drain scores 10× and can bleed through (ST-13), a spline pick names one projection
(ST-10), and shields are down while the generator is gone (ST-11) or the ship is cloaked (ST-21,
ST-23a). Projections with no working deflector collapse when Adjust Ship Systems ends (ST-12).

Regeneration, purchases and arc extensions are in `regeneration.py`; transfers in `transfers.py`.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.rules.attack import DamageContext
from app.rules.core import Event, RuleError
from app.rules.dice import DiceSource
from app.rules.figures import Turning
from app.rules.geometry import arcs_containing, on_boundary, tiling_problems
from app.rules.ruleset import Settable, hook, mark, part
from app.rules.startrek.cloak import shields_down_by_cloak
from app.rules.startrek.common import (
    equipped,
    ratio,
    read_part,
    save_part,
    sheet_of,
    ships_with,
    system_destroyed,
)
from app.rules.state import BattleState, Ship
from app.rules.system import ADJUST

PART = "shields"
# The gate (`fits`) of the actions on a ship's shields: arc extension and regeneration (ST-14, ST-12).
SHIELDED = equipped(PART, "shields")
ALL = "all"
EXTENSION_POWER_FACTOR = 3  # "increases the power requirement by two times the current": p → 3p


@part("first_one")
class FirstOne(BaseModel):
    """Marks a First One ship: its fire counts double against shields (ST-16)."""


class Projection(BaseModel):
    """One shield projection: the directions it covers, its rating and what it still holds."""

    name: str = Field(min_length=1, max_length=30)
    arcs: list[str] = Field(default_factory=lambda: [ALL], description='directions covered, or ["all"]')
    degrees: tuple[float, float] | None = Field(
        default=None,
        description="its arc on the map: start and end, degrees clockwise from the nose (e.g. [315, 45])",
    )
    rating: int = Field(ge=0, le=1000)
    current: int | None = Field(default=None, ge=0)
    collapsed: bool = False
    collapsed_turn: int | None = None
    adjacent: list[str] | None = Field(default=None, description="neighbours; default the ring order")
    down_at_open: bool = False  # collapsed when this Ship Power segment opened (ST-15a)
    segment_base: int = 0  # value when the current transfer segment opened (ST-08)
    given: int = 0  # what it has given in this segment

    @model_validator(mode="after")
    def _fill(self) -> Projection:
        if self.degrees is not None and not all(0 <= d <= 360 for d in self.degrees):
            raise ValueError(
                f"projection {self.name!r}: degrees run from 0 to 360 (you sent {list(self.degrees)})"
            )
        if self.current is None:
            self.current = self.rating
        if self.current > self.rating:
            raise ValueError(
                f"projection {self.name!r}: current {self.current} above its rating {self.rating}"
            )
        self.arcs = [a.lower() for a in self.arcs]
        return self

    @property
    def value(self) -> int:
        return self.current or 0

    @property
    def room(self) -> int:
        return self.rating - self.value


class Deflector(BaseModel):
    """A deflector shield: free regeneration `value` into a projection it covers (ST-07)."""

    name: str = Field(min_length=1, max_length=40)
    value: int = Field(ge=0, le=100, description="listed regeneration")
    covers: list[str] = Field(min_length=1, description="projections in its arc before any extension")
    power: int = Field(default=0, ge=0, le=100, description="power requirement before extensions")
    system: str | None = Field(default=None, description="sheet system; default its name")
    extended_to: list[str] = Field(default_factory=list, description="projections added by arc extension")
    shut_down: bool = False
    regen_turn: int | None = None
    regen_to: str | None = None
    regen_given: int = 0
    regen_room: int = 0  # room its projection had when this Ship Power's free regeneration was given
    extra_bought: int = 0


PRIVATE_DEFLECTOR_FIELDS = ("regen_turn", "regen_to", "regen_given", "regen_room", "extra_bought")


def _public_shields(part: dict[str, Any], ship: Ship) -> dict[str, Any]:
    """Shield values are public (ux §0); what was bought with power this turn is not."""
    shown = dict(part)
    shown["deflectors"] = [
        {k: v for k, v in d.items() if k not in PRIVATE_DEFLECTOR_FIELDS} for d in part.get("deflectors", [])
    ]
    return shown


def _emptied(event: dict[str, Any]) -> bool:
    """A hit that drove a projection from some strength to 0."""
    data = event.get("data") or {}
    return data.get("after") == 0 and (data.get("before") or 0) > 0


@part(
    PART,
    public_view=_public_shields,
    turning=(
        Turning("shield_collapse", "shield", "Shield"),  # ST-12
        Turning("shields_fall", "shield", "Shield"),  # ST-11
        Turning("shield_absorb", "shield", "Shield", _emptied),  # a projection driven to 0 (ST-06)
    ),
    settable=(
        Settable("projections.*.current", "{name} shield", upto="rating"),
        Settable("projections.*.collapsed", "{name} shield down"),
        Settable("deflectors.*.shut_down", "{name} switched off"),
    ),
)
class Shields(BaseModel):
    projections: list[Projection] = Field(min_length=1)
    deflectors: list[Deflector] = Field(default_factory=list)
    generator: str | None = Field(default=None, description="sheet system of the shield generator")
    generator_down: bool = False

    @model_validator(mode="after")
    def _check(self) -> Shields:
        names = [p.name.lower() for p in self.projections]
        if len(set(names)) != len(names):
            raise ValueError("projection names must be unique")
        for deflector in self.deflectors:
            for name in [*deflector.covers, *deflector.extended_to]:
                if name.lower() not in names:
                    raise ValueError(f"deflector {deflector.name!r} covers unknown projection {name!r}")
        self._check_degrees()
        return self

    def _check_degrees(self) -> None:
        """ST-05: where the data gives the projections' arcs in degrees, they cover 360° once each."""
        given = [p.degrees is not None for p in self.projections]
        if not any(given):
            return
        if not all(given):
            i = given.index(False)
            self._refuse(
                i, f"give every projection its degrees, or none: {self.projections[i].name} has none"
            )
        # every projection has its degrees by now: the check above refused a part with some only
        arcs = [(p.name, p.degrees) for p in self.projections if p.degrees is not None]
        problems = tiling_problems(arcs)
        if problems:
            i, why = problems[0]
            self._refuse(
                i, f"shield projections cover each direction once, with no overlap and no gap (ST-05): {why}"
            )

    def _refuse(self, index: int, message: str) -> None:
        """A refusal that names the projection's `degrees` field, not the whole part."""
        projection = self.projections[index]
        raise ValidationError.from_exception_data(
            "Shields",
            [
                InitErrorDetails(
                    type=PydanticCustomError("value_error", message),
                    loc=("projections", index, "degrees"),
                    input=list(projection.degrees) if projection.degrees else None,
                )
            ],
        )

    def projection(self, name: str, field: str = "projection") -> Projection:
        for projection in self.projections:
            if projection.name.lower() == name.lower():
                return projection
        known = ", ".join(p.name for p in self.projections)
        raise RuleError(f"no shield projection {name!r} (projections: {known})", field)

    def deflector(self, name: str, field: str = "deflector") -> Deflector:
        for deflector in self.deflectors:
            if deflector.name.lower() == name.lower():
                return deflector
        known = ", ".join(d.name for d in self.deflectors) or "none"
        raise RuleError(f"no deflector {name!r} (deflectors: {known})", field)


# --- geometry -------------------------------------------------------------------------------------


def adjacent(shields: Shields, name: str) -> list[str]:
    """Consecutive projections: the data's list, else the neighbours in ring order (ST-08)."""
    projection = shields.projection(name)
    if projection.adjacent is not None:
        return [shields.projection(n).name for n in projection.adjacent]
    ring = [p.name for p in shields.projections]
    if len(ring) < 2:
        return []
    i = ring.index(projection.name)
    return list(dict.fromkeys(n for n in (ring[i - 1], ring[(i + 1) % len(ring)]) if n != projection.name))


def steps_per_projection(shields: Shields) -> int:
    """90° steps to reach one adjacent projection: 1 for quadrants, 2 for halves (ST-14)."""
    return max(1, math.ceil(360 / len(shields.projections) / 90))


def extension_steps(shields: Shields, deflector: Deflector) -> int:
    return steps_per_projection(shields) * len(deflector.extended_to)


def current_value(shields: Shields, deflector: Deflector) -> int:
    """Listed value minus 1 per 90° of extension (ST-14); below 0 the deflector shuts down."""
    return deflector.value - extension_steps(shields, deflector)


def power_requirement(shields: Shields, deflector: Deflector) -> int:
    """Power × 3 per 90° step, compounding (ST-14 Decision); nothing while switched off."""
    if deflector.shut_down or current_value(shields, deflector) < 0:
        return 0
    return deflector.power * EXTENSION_POWER_FACTOR ** extension_steps(shields, deflector)


def covered(shields: Shields, deflector: Deflector) -> list[str]:
    names = [*deflector.covers, *deflector.extended_to]
    return [shields.projection(n).name for n in names]


def generator_down(ship: Ship, shields: Shields) -> bool:
    return shields.generator_down or system_destroyed(ship, shields.generator)


def deflector_working(ship: Ship, shields: Shields, deflector: Deflector) -> bool:
    """On, intact, value not below 0, and a generator to feed."""
    if deflector.shut_down or current_value(shields, deflector) < 0 or generator_down(ship, shields):
        return False
    return not system_destroyed(ship, deflector.system or deflector.name)


def guarded(ship: Ship, shields: Shields, projection: Projection) -> bool:
    """Has a working deflector in arc (ST-12)."""
    return any(
        projection.name in covered(shields, d)
        for d in shields.deflectors
        if deflector_working(ship, shields, d)
    )


def shields_down(state: BattleState, ship: Ship, shields: Shields) -> str | None:
    """Why this ship's shields absorb nothing right now, or None."""
    if generator_down(ship, shields):
        return "its shield generator is gone (ST-11)"
    return shields_down_by_cloak(state, ship)


def projection_for(shields: Shields, direction: str | None) -> Projection:
    """ST-06/ST-10: the one projection an attack falls on.

    The direction may name a projection (a spline pick), or a direction its arcs list. A direction
    two projections share is a spline: the defender must name one projection."""
    if direction:
        wanted = direction.strip().lower()
        for projection in shields.projections:
            if projection.name.lower() == wanted:
                return projection
        parts = [w.strip() for w in wanted.replace("/", ",").split(",") if w.strip()]
        hits = [p for p in shields.projections if any(w in p.arcs for w in parts)]
        hits = list({p.name: p for p in hits}.values())
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            names = " or ".join(p.name for p in hits)
            raise RuleError(
                f"fire from {direction!r} is on a shield spline: the defender names one projection ({names}) as "
                "the direction; one unit's fire is never split (ST-10)",
                "direction",
            )
    whole = [p for p in shields.projections if ALL in p.arcs]
    if len(whole) == 1:
        return whole[0]
    if len(shields.projections) == 1:
        return shields.projections[0]
    arcs = sorted({a for p in shields.projections for a in p.arcs})
    if not direction:
        raise RuleError(
            f"say which arc the fire came from ({', '.join(arcs)}): shields need it (ST-06)", "direction"
        )
    raise RuleError(f"no shield projection covers {direction!r} (arcs: {', '.join(arcs)})", "direction")


def map_direction(state: BattleState, ship: Ship, bearing: float) -> str | None:
    """Fire from the map at `bearing` falls on the projection whose degrees hold it (ST-05/06); on the
    line between two projections it is a spline and the defender names one (ST-10). None where the
    projections give no degrees, or the shields absorb nothing now (the quadrant then serves)."""
    shields = read_part(ship, PART, Shields)
    if shields is None or shields_down(state, ship, shields):
        return None
    arcs = [(p.name, p.degrees) for p in shields.projections if p.degrees is not None]
    if len(arcs) != len(shields.projections):
        return None
    spline = on_boundary(bearing, arcs)
    if spline:
        raise RuleError(
            f"fire from the map at {bearing:g}° off {ship.name}'s nose is on a shield spline: the defender "
            f"names one projection ({' or '.join(spline)}) as the direction; one unit's fire is never split "
            "(ST-10)",
            "direction",
        )
    return arcs_containing(bearing, arcs)[0]


# --- damage ---------------------------------------------------------------------------------------


def is_first_one_fire(ctx: DamageContext) -> bool:
    """ST-16: a First One ship (the source carries the first_one part, or the entry says so), not fighters."""
    effects = {e.lower() for e in ctx.entry.effects}
    if "fighter" in effects:
        return False
    if "first_one" in effects:
        return True
    source = ctx.state.ships.get(ctx.entry.source) if ctx.entry.source else None
    return source is not None and source.part("first_one") is not None


def absorb(capacity: int, amount: int, multiplier: int) -> tuple[int, int]:
    """(damage absorbed, shield points used) for `amount` scored `multiplier`× against `capacity`.

    The damage needed to fill the shield rounds up (ST-16 Decision): 25 left vs double damage needs 13."""
    needed = math.ceil(capacity / multiplier)
    if amount >= needed:
        return needed, capacity
    return amount, amount * multiplier


def attack_direction(ctx: DamageContext) -> str | None:
    """The entry's direction, or else the arc of the section it names."""
    if ctx.entry.direction or not ctx.entry.section:
        return ctx.entry.direction
    sheet = sheet_of(ctx.target)
    section = sheet.section(ctx.entry.section) if sheet else None
    return section.arc if section else None


def _opening(ctx: DamageContext) -> str:
    """The shield's sentence opens with the ship alone: the damage summary just before it already
    says who hit whom with what, and the log said that opening only once since (former wordings:
    app/services/history/wordings.py)."""
    return f"{ctx.target.name}: "


def _change(projection: Projection, before: int) -> str:
    """The projection's fill before and after the hit, as the sheet writes it: "(12/20 → 4/20)"."""
    return f"({ratio(before, projection.rating)} → {ratio(projection.value, projection.rating)})"


def _shield_event(
    ctx: DamageContext, kind: str, text: str, projection: Projection, before: int, figures: dict[str, Any]
) -> None:
    """Log what the hit did to the projection: its name and value before and after, as every shield
    event's data gives them (regeneration's too), then the figures of this kind of hit."""
    data = {"projection": projection.name, "before": before, "after": projection.value, **figures}
    ctx.tell(kind, f"{_opening(ctx)}{text}", data=data)


def _drain(ctx: DamageContext, shields: Shields, projection: Projection, multiplier: int) -> None:
    """ST-13: the drain scores 10× on the shield; more than it holds bleeds through for a free to-hit."""
    before = projection.value
    scored = ctx.remaining * 10 * multiplier
    overkill = scored > before
    projection.current = max(before - scored, 0)
    ctx.absorbed += ctx.remaining
    drained = ctx.remaining
    ctx.remaining = 0
    state_text = f"{projection.name} shield {_change(projection, before)}"
    doubled = " (doubled: First One fire)" if multiplier == 2 else ""
    if overkill:
        tail = f"{scored} overkills {state_text}: the weapon bleeds through and may roll to hit again, a free shot (ST-13)."
    else:
        tail = f"{scored} scored on {state_text}; no bleed-through (ST-13)."
    text = f"energy drain scores 10×{doubled} on shields — {tail}"
    figures = {"drain": drained, "scored": scored, "free_to_hit": overkill, "source": ctx.entry.source}
    _shield_event(ctx, "shield_drain", text, projection, before, figures)


def shield_filter(ctx: DamageContext) -> None:
    """Fill the in-arc projection first (ST-06); only the overflow reaches the ship."""
    shields = read_part(ctx.target, PART, Shields)
    if shields is None:
        return
    down = shields_down(ctx.state, ctx.target, shields)
    if down:
        ctx.tell("shields_down", f"{ctx.target.name}'s shields absorb nothing: {down}.")
        return
    projection = projection_for(shields, attack_direction(ctx))
    multiplier = 2 if is_first_one_fire(ctx) else 1
    if "energy_drain" in {e.lower() for e in ctx.entry.effects}:
        _drain(ctx, shields, projection, multiplier)
        save_part(ctx.target, PART, shields)
        return
    before = projection.value
    if before == 0:
        state_text = "is DOWN" if projection.collapsed else "is empty"
        ctx.tell(
            "shield_empty",
            f"{ctx.target.name}'s {projection.name} shield {state_text}: all {ctx.remaining} reach the ship.",
        )
        return
    taken, used = absorb(before, ctx.remaining, multiplier)
    projection.current = before - used
    ctx.absorbed += taken
    ctx.remaining -= taken
    save_part(ctx.target, PART, shields)
    change = _change(projection, before)
    if ctx.remaining:
        body = f"{taken} fill {projection.name} shield {change}, {ctx.remaining} reach the ship."
    elif multiplier == 2:
        body = f"{projection.name} shield takes {used} {change}; nothing reaches the ship."
    else:
        body = f"{projection.name} shield absorbs all {taken} {change}; nothing reaches the ship."
    prefix = "First One fire counts double on shields — " if multiplier == 2 else ""
    figures = {"absorbed": taken, "through": ctx.remaining, "multiplier": multiplier}
    _shield_event(ctx, "shield_absorb", prefix + body, projection, before, figures)


def drop_all(ship: Ship, shields: Shields, turn: int, why: str) -> Event:
    """Every projection falls at once (ST-11). Called once: generator_check skips a generator already down."""
    shields.generator_down = True
    for projection in shields.projections:
        projection.current = 0
        projection.collapsed = True
        projection.collapsed_turn = turn
    save_part(ship, PART, shields)
    return Event.about(ship, "shields_fall", f"{ship.name}'s {why}: every shield projection falls (ST-11).")


def generator_check(state: BattleState, ship: Ship) -> list[Event]:
    shields = read_part(ship, PART, Shields)
    if shields is None or shields.generator_down or not system_destroyed(ship, shields.generator):
        return []
    return [drop_all(ship, shields, state.clock.turn, f"shield generator ({shields.generator}) is destroyed")]


def generator_listener(ctx: DamageContext) -> None:
    """ST-11 after the sheet took its share: a destroyed generator drops every projection at once."""
    ctx.events.extend(generator_check(ctx.state, ctx.target))


def collapse_unguarded(state: BattleState, dice: DiceSource) -> list[Event]:
    """ST-12: a projection with no working deflector in arc collapses as Adjust Ship Systems ends."""
    events: list[Event] = []
    for ship, _ in ships_with(state, PART, Shields):
        if ship.destroyed:
            continue
        events.extend(generator_check(state, ship))
        shields = read_part(ship, PART, Shields)
        assert shields is not None
        fallen = []
        for projection in shields.projections:
            if projection.collapsed or guarded(ship, shields, projection):
                continue
            projection.current = 0
            projection.collapsed = True
            projection.collapsed_turn = state.clock.turn
            fallen.append(projection.name)
        if fallen:
            save_part(ship, PART, shields)
            names = ", ".join(fallen)
            verb = "shield collapses" if len(fallen) == 1 else "shields collapse"
            events.append(
                Event.about(
                    ship,
                    "shield_collapse",
                    f"{ship.name}'s {names} {verb}: no working deflector in arc (ST-12).",
                )
            )
    return events


mark(collapse_unguarded, hook("leave", ADJUST))
