"""The generic B5 Wars / SFB ship sheet: sections with armour and structure boxes, systems with
boxes, and optional Excess Damage boxes (the Shadow's second way to die, SH-02)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from app.rules.counters import Badge, Counter, FiringArc
from app.rules.figures import Figures, Turning
from app.rules.geometry import QUADRANTS
from app.rules.ruleset import Settable, part


class SystemBoxes(BaseModel):
    name: str = Field(min_length=1, max_length=60)
    kind: str = ""  # e.g. "weapon", "impulse_thruster", "deflector", "shield_generator", "nacelle"
    boxes: int = Field(ge=1, le=500)
    damage: int = Field(default=0, ge=0)
    called_shot: bool = True  # impulse thrusters cannot be called-shot targets (ST-04)
    arc: tuple[float, float] | None = Field(
        default=None,
        description="a weapon's firing arc on the map: start and end, degrees clockwise from the nose,"
        " wrapping past 360 (e.g. [270, 90]); without one it fires in its section's quadrant",
    )

    @property
    def destroyed(self) -> bool:
        return self.damage >= self.boxes

    @property
    def remaining(self) -> int:
        return max(self.boxes - self.damage, 0)

    @model_validator(mode="after")
    def _damage_fits(self) -> SystemBoxes:
        if self.arc is not None and not all(0 <= d <= 360 for d in self.arc):
            raise ValueError(
                f"system {self.name!r}: arc degrees run from 0 to 360 (you sent {list(self.arc)})"
            )
        if self.arc is not None and self.arc[0] % 360 == self.arc[1] % 360 and self.arc != (0, 360):
            raise ValueError(
                f"system {self.name!r}: an arc needs two different ends ([0, 360] for all round)"
            )
        if self.damage > self.boxes:
            raise ValueError(
                f"system {self.name!r} has more damage ({self.damage}) than boxes ({self.boxes})"
            )
        return self


class Section(BaseModel):
    name: str = Field(min_length=1, max_length=40)
    arc: str | None = None  # the facing this section covers, e.g. "fore", "aft", "port", "starboard"
    armour_max: int = Field(default=0, ge=0, le=1000)
    armour: int | None = Field(default=None, ge=0)
    structure_max: int = Field(ge=1, le=5000)
    structure: int | None = Field(default=None, ge=0)
    systems: list[SystemBoxes] = Field(default_factory=list)

    @model_validator(mode="after")
    def _fill_defaults(self) -> Section:
        if self.armour is None:
            self.armour = self.armour_max
        if self.structure is None:
            self.structure = self.structure_max
        if self.armour > self.armour_max:
            raise ValueError(
                f"section {self.name!r}: armour {self.armour} above its maximum {self.armour_max}"
            )
        if self.structure > self.structure_max:
            raise ValueError(f"section {self.name!r}: structure above its maximum")
        return self

    @property
    def destroyed(self) -> bool:
        return self.structure == 0


def sheet_figures(sheet: dict[str, Any]) -> Figures:
    """What damage can still take off the ship: its armour, structure, system and Excess Damage
    boxes left."""
    boxes = sum(
        (s.get("armour") or 0)
        + (s.get("structure") or 0)
        + sum(max(x["boxes"] - x.get("damage", 0), 0) for x in s.get("systems", []))
        for s in sheet["sections"]
    )
    return Figures(points=boxes + (sheet.get("excess_damage") or 0))


# The systems that fire (a Star Trek photon launcher sits on the sheet as its own kind).
FIRING_KINDS = ("weapon", "photon_launcher")


def _damage_badge(sections: list[dict[str, Any]]) -> Badge | None:
    """The share of structure lost; None while unhurt."""
    total = sum(s.get("structure_max") or 0 for s in sections)
    left = sum(
        s.get("structure") if s.get("structure") is not None else s.get("structure_max") or 0
        for s in sections
    )
    if total and left < total:
        lost = round(100 * (total - left) / total)
        return Badge(f"{lost}%", f"{lost}% of structure lost", "damage")
    return None


def _firing_arcs(sections: list[dict[str, Any]]) -> tuple[FiringArc, ...]:
    """Each working weapon's arc: its own (`arc` in the ship data, degrees from the nose), else the
    quadrant of the section it sits in (fore, port…)."""
    bounds = {name: (start, end) for name, start, end in QUADRANTS}
    out = []
    for s in sections:
        arc = (s.get("arc") or "").lower()
        working = [
            w
            for w in s.get("systems") or []
            if w.get("kind") in FIRING_KINDS and w.get("damage", 0) < w.get("boxes", 1)
        ]
        for w in working:
            if w.get("arc"):
                start, end = (float(d) for d in w["arc"])
                out.append(FiringArc(s.get("name"), "own", start, end, (w["name"],), f"{start:g}°–{end:g}°"))
        weapons = tuple(w["name"] for w in working if not w.get("arc"))
        if arc in bounds and weapons:
            start, end = bounds[arc]
            out.append(FiringArc(s.get("name"), arc, float(start), float(end), weapons))
    return tuple(out)


def sheet_counter(sheet: dict[str, Any]) -> Counter:
    """On the map: the share of structure lost as the counter's badge, and the weapons' arcs."""
    sections = sheet.get("sections") or []
    return Counter(badge=_damage_badge(sections), arcs=_firing_arcs(sections))


def sheet_carry(sheet: dict[str, Any], setup: Any) -> dict[str, Any]:
    """A campaign fleet keeps every box the battle took: armour, structure, system damage and
    Excess Damage (nothing on the sheet heals by itself between battles)."""
    return dict(sheet)


@part(
    "sheet",
    report=sheet_figures,
    carry=sheet_carry,
    counter=sheet_counter,
    turning=(
        Turning("section_destroyed", "section", "Section"),  # GEN-03
        Turning("system_destroyed", "system", "System hit"),  # GEN-03
        Turning("ship_destroyed", "destroyed", "Destroyed"),  # GEN-04
    ),
    settable=(
        Settable("sections.*.armour", "{name} armour", upto="armour_max"),
        Settable("sections.*.structure", "{name} structure", upto="structure_max"),
        Settable("sections.*.systems.*.damage", "{name} damage", upto="boxes"),
        Settable("excess_damage", "Excess Damage boxes", upto="excess_damage_max"),
    ),
)
class Sheet(BaseModel):
    sections: list[Section] = Field(min_length=1)
    primary: str | None = None  # section that takes overflow; the first section by default
    excess_damage_max: int | None = Field(default=None, ge=1)
    excess_damage: int | None = Field(default=None, ge=0)
    excess_overflow: bool = False  # the "+1" past the last Excess Damage box has landed

    @model_validator(mode="after")
    def _check(self) -> Sheet:
        names = [s.name for s in self.sections]
        if len(set(names)) != len(names):
            raise ValueError("section names must be unique")
        if self.primary is None:
            self.primary = names[0]
        if self.primary not in names:
            raise ValueError(f"primary section {self.primary!r} is not one of {names}")
        if self.excess_damage_max is not None and self.excess_damage is None:
            self.excess_damage = self.excess_damage_max
        return self

    def section(self, name: str) -> Section | None:
        for section in self.sections:
            if section.name.lower() == name.lower():
                return section
        return None

    def systems_of_kind(self, kind: str) -> list[SystemBoxes]:
        return [s for sec in self.sections for s in sec.systems if s.kind == kind]
