"""The Shadow's pain track as data (SH-01, SH-16): level, reaction, obligations and this impulse's
damage, plus the two tables every other module reads — the damage bands (SH-03…SH-05) and the
reaction chart (SH-06).

The part is public (pain is on the SSD for all to see), so it registers no public view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from app.rules.figures import Turning
from app.rules.parsed import parsed, store
from app.rules.ruleset import Settable, part
from app.rules.state import BattleState, Ship

PAIN_MAX = 16
SPEED_MAX = 50
PHASE_OUT_RANGE = 10
UNKNOWN = "?"  # key for damage whose source ship or direction was not entered

Reaction = Literal["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "DEATH"]
REACTIONS: tuple[Reaction, ...] = ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "DEATH")

# SH-06 chart: the lowest pain of each reaction level.
CHART_FLOORS: tuple[tuple[int, Reaction], ...] = (
    (16, "DEATH"),
    (14, "FIVE"),
    (12, "FOUR"),
    (9, "THREE"),
    (7, "TWO"),
    (5, "ONE"),
    (0, "ZERO"),
)

MOODS: dict[Reaction, str] = {
    "ZERO": "grins and bears it",
    "ONE": "flinches",
    "TWO": "is angered",
    "THREE": "is enraged",
    "FOUR": "is fearful",
    "FIVE": "is panicked",
    "DEATH": "dies of shock",
}


@dataclass(frozen=True)
class Band:
    """One column of the seed's damage chart: rise and reaction need 1d6 ≤ chance (SH-04, SH-06)."""

    floor: int
    label: str
    chance: int
    modifier: int  # added to the 1d6 of the rise amount (SH-05)


BANDS: tuple[Band, ...] = (
    Band(250, "250+", 6, 1),
    Band(200, "200–249", 5, 0),
    Band(150, "150–199", 4, -1),
    Band(100, "100–149", 3, -2),
    Band(50, "50–99", 2, -3),
    Band(25, "25–49", 1, -4),
)


def band_for(damage: int) -> Band | None:
    """The band of an impulse's damage to armour and internals; under 25 there is no check (SH-03)."""
    for band in BANDS:
        if damage >= band.floor:
            return band
    return None


def reaction_for(level: int) -> Reaction:
    """The chart reaction for a pain level (SH-06). The chart's last floor is 0 and pain is never
    below it, so the highest floor at or under the level always exists."""
    return next(name for floor, name in CHART_FLOORS if level >= floor)


def rank(reaction: Reaction) -> int:
    return REACTIONS.index(reaction)


class When(BaseModel):
    """A moment of the battle: turn and SFB impulse (None in a B5 Wars combat step)."""

    turn: int = Field(ge=1)
    impulse: int | None = Field(default=None, ge=1, le=32)

    def label(self) -> str:
        return f"turn {self.turn}" + (f" impulse {self.impulse}" if self.impulse is not None else "")


ObligationKind = Literal[
    "flinch",  # ONE: 1 hex away from the damage, keeping facing
    "target",  # TWO / THREE: must target the ship that did most damage
    "het_away",  # FOUR: immediate HET away from the damage
    "het_random",  # FIVE: immediate HET in a random direction
    "evasion",  # FOUR / FIVE: evasion plotting
    "no_fire",  # FIVE: cannot fire
    "phase_out",  # FIVE: 10+ hexes from the nearest enemy, must try to phase out
    "plot_phase_out",  # FIVE: phasing out impossible, must plot it at the next Energy Allocation
    "cutter_attack",  # SH-15: leaving THREE, the target gets one more Shadow Cutter attack
]
Until = Literal["next_movement", "end_of_turn", "target_destroyed", "met"]

# Obligations a commander marks as carried out (the others are restrictions that expire by time).
DOABLE: frozenset[str] = frozenset({"flinch", "het_away", "het_random", "cutter_attack"})


class Obligation(BaseModel):
    """What a reaction obliges the ship to do, in plain words, and until when (SH-07)."""

    id: int = Field(default=0, ge=0)  # stable number within the track, for "mark done"
    kind: ObligationKind
    level: Reaction
    text: str = Field(min_length=1, max_length=300)
    target: str | None = None  # ship id for targeting obligations
    direction: str | None = Field(default=None, max_length=20)
    since: When
    until: Until
    until_turn: int | None = Field(default=None, ge=1)  # last turn it applies, for end_of_turn
    expired: bool = False
    ended: str | None = Field(default=None, max_length=200)  # why it stopped, in plain words
    ended_turn: int | None = Field(default=None, ge=1)


class LastCheck(BaseModel):
    """The last impulse whose damage was checked, kept so the sheet can still show it."""

    when: When
    total: int = Field(ge=0)
    most_damage: str | None = None


def _took_hold(event: dict[str, Any]) -> bool:
    """A reaction that reads ZERO is none (SH-06)."""
    return (event.get("data") or {}).get("reaction") not in (None, "ZERO")


@part(
    "pain",
    turning=(
        Turning("pain_reaction", "pain", "Pain", _took_hold),  # SH-06
        Turning("pain_death", "pain", "Pain"),  # SH-02
    ),
    settable=(
        Settable("level", "Pain level"),
        Settable("reaction", "Pain reaction"),
        Settable("speed", "Speed"),
        Settable("dead", "Dead of shock"),
    ),
    # SH-03/SH-09: the impulse's pain check reads its total, and a tie for the largest source goes to
    # the first to hit.
    ordered=("damage",),
)
class PainTrack(BaseModel):
    """A Shadow living ship's pain part. `level` may start above 0 if the scenario says so (SH-01)."""

    level: int = Field(default=0, ge=0, le=PAIN_MAX)
    reaction: Reaction = "ZERO"
    reaction_since: When | None = None
    last_reaction_turn: int | None = Field(
        default=None, ge=1
    )  # turn of the last reaction roll that took effect
    obligations: list[Obligation] = Field(default_factory=list)
    damage_total: int = Field(default=0, ge=0)  # this impulse, to armour and internals only (SH-03)
    damage_by_source: dict[str, int] = Field(default_factory=dict)
    damage_by_direction: dict[str, int] = Field(default_factory=dict)
    most_damage: str | None = None  # SH-09: largest single source in the impulse that caused the reaction
    most_damage_amount: int = Field(default=0, ge=0)
    last_check: LastCheck | None = None
    speed: int | None = Field(default=None, ge=0, le=SPEED_MAX)
    dead: bool = False  # died of shock (SH-02); final
    reduced_turn: int | None = Field(default=None, ge=1)  # turn the SH-14 roll was used
    phased_out: bool = False

    @model_validator(mode="after")
    def _dead_is_final(self) -> PainTrack:
        if self.dead and self.level != PAIN_MAX:
            raise ValueError("a ship dead of shock has pain 16 (SH-02)")
        return self

    def add(self, obligation: Obligation) -> None:
        obligation.id = max((o.id for o in self.obligations), default=0) + 1
        self.obligations.append(obligation)

    def find(self, obligation_id: int) -> Obligation | None:
        return next((o for o in self.obligations if o.id == obligation_id), None)

    def active(self) -> list[Obligation]:
        return [o for o in self.obligations if not o.expired]

    def dominant_direction(self) -> str | None:
        known = {d: n for d, n in self.damage_by_direction.items() if d != UNKNOWN}
        return max(known, key=lambda d: known[d]) if known else None

    def largest_source(self) -> tuple[str | None, int]:
        """SH-09 decision: the single largest source this impulse; a tie goes to the first to hit."""
        if not self.damage_by_source:
            return None, 0
        best = max(self.damage_by_source, key=lambda s: self.damage_by_source[s])
        return (None if best == UNKNOWN else best), self.damage_by_source[best]


def load(ship: Ship) -> PainTrack | None:
    """The pain track, parsed once per action (app/rules/parsed.py)."""
    return parsed(ship, "pain", PainTrack)


def save(ship: Ship, track: PainTrack) -> None:
    store(ship, "pain", track)


def now(state: BattleState) -> When:
    return When(turn=state.clock.turn, impulse=state.clock.impulse)


def ship_name(state: BattleState, ship_id: str | None) -> str:
    if ship_id is None:
        return "an unrecorded attacker"
    ship = state.ships.get(ship_id)
    return ship.name if ship else ship_id


def living_shadows(state: BattleState) -> list[tuple[Ship, PainTrack]]:
    """Every ship with a pain track that is still in the game."""
    found = []
    for ship in state.ships.values():
        track = load(ship)
        if track is not None and not ship.destroyed and not track.dead:
            found.append((ship, track))
    return found
