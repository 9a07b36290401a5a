"""The `hg_ship` part: a High Guard ship as the tracker needs it.

Sections carry Hull, Structure and Armour and their own Section Hit Table (TR-18). The tables are
not typed in by hand: they are laid out from the ship's components by the design rules of
tables.md §1a (A/B/C slots, overflow, largest first, empty slots read Hull/Structure), so a sample
ship states what it carries and where, and the table follows. A designer may still give a table
explicitly. Systems carry hit counts; crew skill, strength step, power, thrust, fuel, screens,
configuration, initiative and this round's orders live here too.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Any, Literal, NotRequired

from pydantic import AfterValidator, BaseModel, Field, ValidationInfo, computed_field, model_validator
from typing_extensions import TypedDict

from app.rules.figures import Turning
from app.rules.ruleset import Settable, part
from app.rules.state import Ship
from app.rules.traveller import tables as T

SLOT_LABELS: dict[str, str] = {
    "hull": "Hull",
    "structure": "Structure",
    "armour": "Armour",
    "crew": "Crew",
    "critical": "Critical",
    "hold": "Hold",
    "m_drive": "M-Drive",
    "j_drive": "J-Drive",
    "power_plant": "P-Plant",
}
FIXED_KINDS: dict[str, str] = {label: kind for kind, label in SLOT_LABELS.items()}

# Validation context for a part read back from the battle state: the rules wrote it themselves from
# a model that passed every check (ship.add, a save, the referee's override all validate in full),
# so its Section Hit Tables are already laid out and already hold every combat component. Reading
# it skips only that layout check, which was half the cost of every read.
OWN_PART = {"own_part": True}


# A slot is a plain dict, not a model: a capital ship's tables hold 66 to 88 slots, and making a
# model of each was about half the cost of reading the whole `hg_ship` part, which a barrage does
# for both ships (and writes both back). The design rules lay out every slot with its `ref` (None: no component),
# and a table given by hand has it filled in (`fill_hit_tables`), so the part's JSON is as before.
class Slot(TypedDict):
    """One row of a Section Hit Table: what a 2D result hits."""

    label: Annotated[str, Field(max_length=80)]
    kind: Annotated[str, Field(max_length=40)]
    ref: NotRequired[Annotated[str | None, Field(max_length=60, json_schema_extra={"default": None})]]


class HitTable(BaseModel):
    external: list[Slot] = Field(min_length=11, max_length=11)
    internal: list[Slot] = Field(min_length=11, max_length=11)

    def slot(self, column: str, roll: int) -> Slot:
        return (self.external if column == "external" else self.internal)[roll - 2]


class Fire(BaseModel):
    target: int = Field(ge=2, le=20)
    started: int = Field(ge=0, description="round the fire broke out")


class HgSection(BaseModel):
    name: str = Field(min_length=1, max_length=40)
    hull_max: int = Field(ge=0, le=100000)
    hull: int | None = Field(default=None, ge=0)
    structure_max: int = Field(ge=1, le=100000)
    structure: int | None = Field(default=None, ge=0)
    armour_max: int = Field(default=0, ge=0, le=30)
    armour: int | None = Field(default=None, ge=0)
    metal_hydride: bool = False
    hit_table: HitTable | None = None
    destroyed: bool = False
    fire: Fire | None = None
    offline_round: int | None = None
    breach_round: int | None = None
    lost: list[str] = Field(default_factory=list, description="capacity destroyed (hold, craft, hangar…)")

    @model_validator(mode="after")
    def _defaults(self) -> HgSection:
        if self.hull is None:
            self.hull = self.hull_max
        if self.structure is None:
            self.structure = self.structure_max
        if self.armour is None:
            self.armour = self.armour_max
        if self.hull > self.hull_max or self.structure > self.structure_max:
            raise ValueError(f"section {self.name!r}: damage values above their maximum")
        return self

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use over @property
    @property
    def slug(self) -> str:
        return self.name.lower().replace(" ", "-")

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use over @property
    @property
    def column(self) -> str:
        """Which Section Hit column the next system roll reads (TR-18)."""
        return "external" if (self.hull or 0) > 0 else "internal"


class Battery(BaseModel):
    """All mounts of one barrage weapon type on the ship (TR-05 combines them per target)."""

    id: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9-]+$")
    weapon: str
    ammo: str | None = None
    mounts: int = Field(ge=1, le=10000)
    tons: float = Field(default=0, ge=0)
    sections: list[str] = Field(default_factory=list)
    max_range: str | None = Field(default=None, description="TR-02a: the longest band it can engage")
    gunners: int | None = Field(default=None, ge=0, description="average gunnery crew (TR-25)")
    hits: int = Field(default=0, ge=0, le=3)
    fired: dict[str, int] = Field(default_factory=dict, description="round → mounts fired that round")
    one_more_shot: int | None = Field(default=None, description="round it is forced to full function")

    @model_validator(mode="after")
    def _known(self) -> Battery:
        if self.weapon not in T.WEAPONS:
            raise ValueError(f"unknown weapon {self.weapon!r}; known: {', '.join(T.WEAPONS)}")
        table = T.WEAPONS[self.weapon].ammo_table
        if table is not None and (self.ammo or "standard") not in T.AMMO_TABLES[table]:
            raise ValueError(f"unknown {table} ammunition {self.ammo!r}")
        if self.max_range is not None and self.max_range not in T.RANGE_BANDS:
            raise ValueError(f"max_range must be one of {', '.join(T.RANGE_BANDS)}")
        return self

    @property
    def fire(self) -> T.Firing:
        return T.firing(self.weapon, self.ammo)

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use over @property
    @property
    def label(self) -> str:
        mount = T.WEAPONS[self.weapon].mount
        return f"{mount.title()}: {self.fire.name}"

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use over @property
    @property
    def notation(self) -> str:
        """Weapon name, range row and dice per mount, for the barrage builder."""
        fire = self.fire
        if fire.per_die > 1:
            return f"{fire.name} ({T.WEAPONS[self.weapon].mount}, 1D per {fire.per_die} mounts)"
        return f"{fire.name} ({T.WEAPONS[self.weapon].mount}, {fire.dice}D per mount)"


class Spinal(BaseModel):
    name: str = Field(default="Spinal Mount", max_length=60)
    type: Literal["meson", "particle"]
    damage: int = Field(ge=1, le=5000)
    tons: float = Field(default=0, ge=0)
    hits: int = Field(default=0, ge=0, le=2)
    one_more_shot: int | None = None

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use over @property
    @property
    def rating(self) -> str | None:
        return T.meson_rating(self.damage) if self.type == "meson" else None


class Screen(BaseModel):
    id: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9-]+$")
    kind: Literal["meson", "nuclear_damper"]
    count: int = Field(ge=1, le=50)
    tons: float = Field(default=0, ge=0)
    sections: list[str] = Field(default_factory=list)
    hits: int = Field(default=0, ge=0)

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use over @property
    @property
    def label(self) -> str:
        return "Screen: " + ("Meson Screen" if self.kind == "meson" else "Nuclear Damper")


def one_of(table: Collection[str], refusal: str) -> AfterValidator:
    """A field whose value is a key of one of the published tables; anything else is refused on
    that field with `refusal` ({value}, and {known}: the table's keys)."""

    def known(value: str) -> str:
        if value not in table:
            raise ValueError(refusal.format(value=value, known=", ".join(table)))
        return value

    return AfterValidator(known)


class Component(BaseModel):
    """Anything else that fills a Section Hit slot: fuel, hold, sensors, computer, command, craft…"""

    kind: Annotated[str, one_of(T.COMPONENT_TYPES, "unknown component kind {value!r}; known: {known}")]
    name: str = Field(min_length=1, max_length=60)
    tons: float = Field(default=0, ge=0)
    sections: list[str] = Field(default_factory=list)
    ref: str | None = None
    combat: bool = True


class SystemHits(BaseModel):
    """Hits on whole-ship systems (TR-19). Batteries, spinal and screens keep their own."""

    m_drive: int = Field(default=0, ge=0)
    j_drive: int = Field(default=0, ge=0, le=2)
    power_plant: int = Field(default=0, ge=0, le=3)
    sensors: int = Field(default=0, ge=0, le=2)
    sensors_dm: int = Field(default=0, le=0, description="rolled once on the first hit")
    computer: int = Field(default=0, ge=0, le=3)
    bridge: int = Field(default=0, ge=0, le=2)
    bridge_round: int | None = Field(default=None, description="round the bridge's first hit grounds")
    jump_dm: int = Field(default=0, le=0)


class OrderChoice(BaseModel):
    order: Annotated[str, one_of(T.ORDERS, "unknown order {value!r}")]
    target: str | None = Field(default=None, max_length=60)
    emergency: bool = False

    @property
    def spec(self) -> T.Order:
        return T.ORDERS[self.order]


class RangeEntry(BaseModel):
    """One pair's place on the range board (ranges.py): its band and the Thrust carried toward its
    next change (+ opening, − closing)."""

    band: Annotated[str, one_of(T.RANGE_BANDS, "band must be one of {known}")]
    progress: int = Field(default=0, ge=-1000, le=1000)


class RoundState(BaseModel):
    """This round's initiative, reactions, orders and fire — reset when a round begins."""

    turn: int = 0
    initiative: int | None = None
    reactions_used: int = 0
    actions: int = 0
    passed: bool = False
    energy_action: bool = False
    drafts: list[OrderChoice] = Field(default_factory=list)
    orders: list[OrderChoice] = Field(default_factory=list)
    committed: bool = False
    revealed: bool = False
    emergency_used: bool = False
    targets: list[str] = Field(default_factory=list, description="ships fired on this round")
    barrages: dict[str, list[str]] = Field(default_factory=dict, description="battery → targets this round")
    target_section_used: int = 0
    repairs: dict[str, int] = Field(default_factory=dict)
    thrust_used: int = Field(default=0, ge=0, description="thrust spent this round (manoeuvre, dodges)")
    evasive_used: int = Field(default=0, ge=0, description="Evasive Action thrust spent on dodges")
    dodge: int | None = Field(default=None, description="DM the next attack on it takes from a dodge")
    sand_gone: bool = Field(default=False, description="a shockwave barrage cleared its sand (TR-27 rows)")
    jump_tried: bool = False
    moves: dict[str, int] = Field(
        default_factory=dict, description="Thrust on range changes this round: ship id → +opening/−closing"
    )

    def in_effect(self) -> list[OrderChoice]:
        """Orders act from the reveal on (TR-26): before it, committed orders are secret and change
        nothing — not even a number other captains could read them off (Thrust, fire limits)."""
        return [c for c in self.orders if self.revealed or c.emergency]

    def has(self, order: str) -> bool:
        return any(choice.order == order for choice in self.in_effect())

    def count(self, order: str) -> int:
        return sum(1 for choice in self.in_effect() if choice.order == order)

    def target_of(self, order: str) -> str | None:
        return next((c.target for c in self.in_effect() if c.order == order), None)


class Combatant(BaseModel):
    """What a capital ship and a flight share: crew, fire control, batteries, initiative, round."""

    crew_skill: int = Field(default=1, ge=0, le=4)
    crew_strength: str = "full"
    fire_control: int = Field(default=0, ge=0, le=5)
    thrust: int = Field(default=0, ge=0, le=20)
    batteries: list[Battery] = Field(default_factory=list)
    initiative_base: int | None = None
    round: RoundState = Field(default_factory=RoundState)
    ranges: dict[str, RangeEntry] = Field(
        default_factory=dict, description="range board: bands to the ships whose ids sort after this one's"
    )

    @model_validator(mode="after")
    def _combatant(self) -> Combatant:
        if self.crew_strength not in T.CREW_STEP_KEYS:
            raise ValueError(f"crew_strength must be one of {', '.join(T.CREW_STEP_KEYS)}")
        ids = [b.id for b in self.batteries]
        if len(set(ids)) != len(ids):
            raise ValueError("battery ids must be unique")
        return self

    def battery(self, battery_id: str) -> Battery | None:
        return next((b for b in self.batteries if b.id == battery_id), None)

    def mounts_of(self, battery: Battery) -> int:
        return battery.mounts

    def current_initiative(self) -> int | None:
        return self.round.initiative if self.round.initiative is not None else self.initiative_base

    def thrust_now(self) -> int:
        return self.thrust

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use over @property
    @property
    def thrust_left(self) -> int:
        """Thrust still to spend this round (manoeuvre and dodges; TR-19, TR-27)."""
        return max(self.thrust_now() - self.round.thrust_used, 0)

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use over @property
    @property
    def reactions_allowed(self) -> int:
        """Reactions this round from the current initiative (TR-26)."""
        return T.reactions(self.current_initiative() or 0)


def _crew_lost(event: dict[str, Any]) -> bool:
    """A section hit on the crew that was not braced away (Prepare for Impact!, TR-27)."""
    return (event.get("data") or {}).get("slot") == "crew" and "crew hit ignored" not in event.get("text", "")


@part(
    "hg_ship",
    public_view=lambda part, ship: public_view(part, ship),
    turning=(
        Turning("section_destroyed", "section", "Section"),  # TR-17
        Turning("system_hit", "crew", "Crew loss", _crew_lost),  # TR-23: a crew hit that stood
        Turning("abandon_ship", "crew", "Crew loss"),  # TR-23: the survivors leave the ship
        Turning("system_hit", "system", "System hit"),  # TR-18
        Turning("critical", "critical", "Critical"),  # TR-19
    ),
    settable=(
        Settable("sections.*.hull", "{name} Hull", upto="hull_max"),
        Settable("sections.*.structure", "{name} Structure", upto="structure_max"),
        Settable("sections.*.armour", "{name} armour", upto="armour_max"),
        Settable("crew_skill", "Crew skill"),
        Settable("power", "Power", upto="power_max"),
        Settable("thrust", "Thrust", upto="thrust_max"),
        Settable("fuel_percent", "Fuel (%)"),
        Settable("disabled", "Disabled"),
    ),
    # TR-14/TR-17: hits land in sequence — which is the third drive or power hit, and whether a
    # section was already at 0 Structure, depend on the hits before.
    ordered=("damage",),
)
class HgShip(Combatant):
    kind: Literal["capital", "spacecraft", "small_craft"] = "capital"
    hull_code: str | None = None
    displacement: float | None = Field(default=None, ge=1, description="tons, for non-capital ships")
    configuration: str = "standard"
    frozen_watch_steps: int = Field(default=0, ge=0, le=8)
    frozen_watch_ready: int | None = None
    thrust_max: int | None = Field(default=None, ge=0, le=20)
    power: int = Field(default=0, ge=0)
    power_max: int | None = Field(default=None, ge=0)
    jump: int = Field(default=0, ge=0, le=6)
    fuel_percent: float = Field(default=100, ge=0, le=100)
    armour: int = Field(default=0, ge=0, le=30, description="default armour of each section")
    radiation_shielding: bool = False
    self_sealing: bool = False
    sandcasters: int = Field(default=0, ge=0)
    point_defence: int = Field(default=0, ge=0)
    sections: list[HgSection] = Field(default_factory=list)
    spinal: Spinal | None = None
    screens: list[Screen] = Field(default_factory=list)
    components: list[Component] = Field(default_factory=list)
    systems: SystemHits = Field(default_factory=SystemHits)
    disabled: bool = False
    referee_ruling: Literal["pending", "crippled", "destroyed"] | None = None
    section_lost_round: int | None = Field(default=None, description="round a section was destroyed")
    abandon_round: int | None = Field(default=None, description="round of Prepare to Abandon Ship!")
    crew_escaped: bool = False
    jumped: int | None = Field(default=None, description="round the ship jumped out of the battle")

    @model_validator(mode="after")
    def _design(self, info: ValidationInfo) -> HgShip:
        if self.configuration not in T.CONFIGURATIONS:
            raise ValueError(f"configuration must be one of {', '.join(T.CONFIGURATIONS)}")
        if self.thrust_max is None:
            self.thrust_max = self.thrust
        if self.power_max is None:
            self.power_max = self.power
        if self.kind == "capital":
            if self.hull_code not in T.HULL_CODES:
                raise ValueError(f"a capital ship needs a hull code, one of {', '.join(T.HULL_CODES)}")
            names = T.SECTIONS_BY_COUNT[T.hull_sections(self.hull_code)]
            if not self.sections:
                size = T.section_hull(self.hull_code)
                self.sections = [
                    HgSection(name=n, hull_max=size, structure_max=size, armour_max=self.armour)
                    for n in names
                ]
            if sorted(s.name for s in self.sections) != sorted(names):
                raise ValueError(f"hull code {self.hull_code} has sections {', '.join(names)}")
            self.sections.sort(key=lambda s: names.index(s.name))
            own = bool(info.context and info.context.get("own_part"))
            if not (own and all(s.hit_table is not None for s in self.sections)):
                fill_hit_tables(self)
        elif not self.sections:
            raise ValueError("a spacecraft or small craft needs one section giving its Hull and Structure")
        return self

    @property
    def is_capital(self) -> bool:
        return self.kind == "capital"

    @property
    def tons(self) -> float:
        if self.hull_code:
            return T.HULL_CODES[self.hull_code]
        return self.displacement or 0

    def section(self, name: str) -> HgSection | None:
        return next((s for s in self.sections if s.name.lower() == name.lower() or s.slug == name), None)

    def screen_points(self, kind: str) -> int:
        """Screen protection: 2 per screen, 3 under Screens to Full!, −2 per hit (TR-07, TR-19)."""
        per = 3 if self.round.has("screens_full") else 2
        return sum(max(s.count * per - 2 * s.hits, 0) for s in self.screens if s.kind == kind)

    def defence_armour(self) -> int:
        """TR-07 Decision: a barrage is rolled before its location, so it meets the ship's weakest
        current armour among its intact sections."""
        intact = [s.armour or 0 for s in self.sections if not s.destroyed]
        return min(intact) if intact else 0

    def hull_and_structure(self) -> int:
        return sum((s.hull or 0) + (s.structure or 0) for s in self.sections)

    def power_share(self, amount: int) -> int:
        """TR-19 Decision: a power plant hit lowers the Power number, and what needs power — energy
        weapons, Thrust, Jump — is cut to the same share of its full figure, rounded down."""
        if not self.power_max or self.power >= self.power_max:
            return amount
        return amount * self.power // self.power_max

    def thrust_now(self) -> int:
        """Thrust this round: M-drive hits and the power share (TR-19), +1 for Maximum Speed (TR-27)."""
        thrust = min(self.thrust, self.power_share(self.thrust_max or self.thrust))
        return thrust + (1 if self.round.has("maximum_speed") else 0)

    def jump_now(self) -> int:
        return self.power_share(self.jump)


# --- Section Hit Table layout (TR-18, tables.md §1a) ------------------------------------------------


def _slots_from_components(ship: HgShip) -> list[tuple[Component, str]]:
    """Every component that takes slots, with the slot kind it is placed as."""
    placed: list[tuple[Component, str]] = []
    for battery in ship.batteries:
        mount = T.WEAPONS[battery.weapon].mount
        comp = Component(kind=mount, name=battery.label, tons=battery.tons, sections=battery.sections)
        placed.append((comp.model_copy(update={"ref": battery.id}), mount))
    for screen in ship.screens:
        comp = Component(kind="screen", name=screen.label, tons=screen.tons, sections=screen.sections)
        placed.append((comp.model_copy(update={"ref": screen.id}), "screen"))
    for comp in ship.components:
        placed.append((comp, comp.kind))
    return placed


def _drive_sections(ship: HgShip, comp: Component, names: tuple[str, ...]) -> list[str]:
    """Drives sit in Engineering's fixed rows, plus one extra section per 10% of tonnage beyond the
    first 10% (footnote 3): the extra sections are the next ones forward."""
    if comp.sections:
        return [s for s in comp.sections if s != "Engineering"]
    percent = comp.tons * 100 / ship.tons if ship.tons else 0
    extra = int((percent - 10) // 10) if percent > 10 else 0
    return list(names[1 : 1 + extra])


def fill_hit_tables(ship: HgShip) -> None:
    """Lay out each section's table from the template and the ship's components.

    Per section and column: A components fill A slots largest first; the extra A components
    overflow into B slots after the B components, then into C slots after the C components;
    what still does not fit is left out. Empty external slots read Hull, empty internal Structure.
    A spinal weapon takes an internal B slot in every section but Engineering, and the Forward
    section's external B slot. Every combat component must land somewhere (else an error)."""
    names = tuple(s.name for s in ship.sections)
    wanted: dict[tuple[str, str], list[tuple[Component, str]]] = {}
    combat: dict[str, Component] = {}
    for comp, kind in _slots_from_components(ship):
        slot_type, column = T.COMPONENT_TYPES[kind]
        sections = _drive_sections(ship, comp, names) if kind in T.DRIVE_KINDS else comp.sections
        for name in sections:
            if name not in names:
                raise ValueError(f"{comp.name}: no section {name!r} on this hull")
            wanted.setdefault((name, column), []).append((comp, slot_type))
        if comp.combat and kind not in T.DRIVE_KINDS:
            combat[comp.ref or comp.name] = comp
    if ship.spinal is not None:
        spinal = Component(kind="spinal", name=ship.spinal.name, tons=ship.spinal.tons)
        for name in names[1:]:
            wanted.setdefault((name, "internal"), []).append((spinal, "B"))
        wanted.setdefault(("Forward", "external"), []).append((spinal, "B"))
    landed: set[str] = set()
    for section in ship.sections:
        if section.hit_table is not None:
            for slot in section.hit_table.external + section.hit_table.internal:
                slot.setdefault("ref", None)  # as every laid-out slot has it
                landed.add(slot["ref"] or slot["label"])
            continue
        columns = {}
        for column in ("external", "internal"):
            cells = _fill_column(section.name, column, wanted.get((section.name, column), []))
            columns[column] = cells
            landed.update(c["ref"] or c["label"] for c in cells)
        section.hit_table = HitTable(**columns)
    missing = [key for key, comp in combat.items() if (comp.ref or comp.name) not in landed]
    if missing:
        raise ValueError(
            f"no Section Hit slot left for {', '.join(missing)}: move it to another section or give the table"
        )


def _fill_column(section: str, column: str, comps: list[tuple[Component, str]]) -> list[Slot]:
    template = T.HIT_TEMPLATE[(T.section_kind(section), column)]
    free = {letter: [i for i, cell in enumerate(template) if cell == letter] for letter in "ABC"}
    by_type = {
        letter: sorted((c for c, t in comps if t == letter), key=lambda c: -c.tons) for letter in "ABC"
    }
    queue_a = by_type["A"]
    queue_b = by_type["B"] + queue_a[len(free["A"]) :]
    queue_c = by_type["C"] + queue_b[len(free["B"]) :]
    chosen = {"A": queue_a[: len(free["A"])], "B": queue_b[: len(free["B"])], "C": queue_c[: len(free["C"])]}
    cells: list[Slot] = []
    for cell in template:
        if cell in "ABC" and len(cell) == 1:
            comps_here = chosen[cell]
            if comps_here:
                comp = comps_here.pop(0)
                cells.append(Slot(label=comp.name, kind=comp.kind, ref=comp.ref))
            elif column == "external":
                cells.append(Slot(label="Hull", kind="hull", ref=None))
            else:
                cells.append(Slot(label="Structure", kind="structure", ref=None))
        else:
            cells.append(Slot(label=cell, kind=FIXED_KINDS[cell], ref=None))
    return cells


# --- What other players see ----------------------------------------------------------------------


def strip_orders(part: dict[str, Any]) -> dict[str, Any]:
    """Drafts are never shown to others; committed orders only once revealed (TR-26, ux §5)."""
    shown = dict(part)
    rnd = dict(shown.get("round") or {})
    rnd["drafts"] = []
    if not rnd.get("revealed"):
        rnd["orders"] = [o for o in rnd.get("orders", []) if o.get("emergency")]
    shown["round"] = rnd
    return shown


def public_view(part: dict[str, Any], ship: Ship) -> dict[str, Any]:
    return strip_orders(part)


def load(ship: Ship) -> HgShip:
    return HgShip.model_validate(ship.parts["hg_ship"])


def save(ship: Ship, model: BaseModel, name: str = "hg_ship") -> None:
    ship.parts[name] = model.model_dump(mode="json")
