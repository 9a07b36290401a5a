"""Every High Guard table the rules use, as data (transcribed from shared/rules/tables.md).

The seed's tables lost their column breaks; tables.md rebuilt them cell by cell. Keeping them here
as plain data (not folded into code) lets the table tests check every row and column against the
rebuild, and lets the rules read like the book: look up, then apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# --- Range bands and weapon range DMs (TR-02) -------------------------------------------------

RANGE_BANDS: tuple[str, ...] = (
    "adjacent",
    "close",
    "short",
    "medium",
    "long",
    "very_long",
    "distant",
    "very_distant",
)
RANGE_LABELS: dict[str, str] = {
    "adjacent": "Adjacent",
    "close": "Close",
    "short": "Short",
    "medium": "Medium",
    "long": "Long",
    "very_long": "Very Long",
    "distant": "Distant",
    "very_distant": "Very Distant",
}

NA = "N/A"
OOR = "OoR"
RangeCell = int | str

# Columns: adjacent (small craft shooting), then RANGE_BANDS in order.
RANGE_COLUMNS: tuple[str, ...] = ("adjacent_small_craft", *RANGE_BANDS)
WEAPON_RANGE_DM: dict[str, tuple[RangeCell, ...]] = {
    "missile": (-2, NA, NA, -1, 0, 0, 0, -2, OOR),
    "torpedo": (-2, -3, -2, -1, 0, 0, 0, -2, OOR),
    "short": (0, -1, 0, 0, -4, OOR, OOR, OOR, OOR),
    "medium": (-1, -2, -1, 0, 0, -2, -4, OOR, OOR),
    "long": (-1, -3, -1, 0, 0, 0, -2, -4, OOR),
    "very_long": (-1, -3, -1, 0, 0, 0, 0, -2, OOR),
}


def range_cell(row: str, band: str, small_craft_shooting: bool = False) -> RangeCell:
    """The printed cell: a DM, N/A or OoR. Small craft at Adjacent read their own column."""
    column = "adjacent_small_craft" if small_craft_shooting and band == "adjacent" else band
    return WEAPON_RANGE_DM[row][RANGE_COLUMNS.index(column)]


def range_dm(row: str, band: str, small_craft_shooting: bool = False) -> int | None:
    """The range DM, or None when the weapon cannot engage at that band.

    TR-02 Decision: missiles never engage Adjacent or Close, so the printed −2 for small craft
    shooting missiles at Adjacent is not used (the footnote's ban wins)."""
    if row == "missile" and band in ("adjacent", "close"):
        return None
    cell = range_cell(row, band, small_craft_shooting)
    return cell if isinstance(cell, int) else None


def spinal_range_dm(band: str) -> int | None:
    """Spinal mounts use the Long row with a further −1 at Close or Adjacent (TR-02, TR-10)."""
    dm = range_dm("long", band)
    if dm is None:
        return None
    return dm - 1 if band in ("adjacent", "close") else dm


def band_index(band: str) -> int:
    return RANGE_BANDS.index(band)


# --- Missile to hit (TR-01; individual missile attacks only, TR-01a) ------------------------


def missile_to_hit(accuracy_effect: int) -> int:
    """Target number on 2D for a missile from the gunnery accuracy check's Effect."""
    if accuracy_effect <= -6:
        return 11
    if accuracy_effect <= -2:
        return 10
    if accuracy_effect == -1:
        return 9
    if accuracy_effect == 0:
        return 8
    if accuracy_effect <= 5:
        return 7
    return 6


# --- Barrage damage (TR-08) ------------------------------------------------------------------

BARRAGE_ROLLS: tuple[int, ...] = tuple(range(2, 18))  # 2 means "2 or less", 17 "17 or more"
BARRAGE_PERCENT: dict[int, int] = dict(
    zip(
        BARRAGE_ROLLS, (0, 10, 25, 50, 75, 100, 125, 150, 175, 200, 225, 250, 275, 300, 400, 500), strict=True
    )
)
BARRAGE_PRINTED: dict[int, tuple[int, ...]] = {
    5: (0, 0, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13, 14, 15, 20, 25),
    10: (0, 1, 3, 5, 8, 10, 13, 15, 18, 20, 23, 25, 28, 30, 40, 50),
    12: (0, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 48, 60),
    20: (0, 2, 6, 10, 16, 20, 26, 30, 36, 40, 46, 50, 56, 60, 80, 100),
    50: (0, 5, 20, 30, 40, 50, 60, 70, 80, 100, 120, 130, 140, 150, 200, 250),
}


def barrage_row(net_roll: int) -> int:
    """Clamp a net attack roll onto the table's rows (≤2 and 17+)."""
    return min(max(net_roll, 2), 17)


def barrage_percent(net_roll: int) -> int:
    return BARRAGE_PERCENT[barrage_row(net_roll)]


def barrage_damage(dice: int, net_roll: int, printed_cells: bool = False) -> int:
    """Damage for an N-dice barrage: ⌊N × %⌋ (TR-08 default), or the printed cell if the battle
    chose printed cells and N is one of the printed columns."""
    row = barrage_row(net_roll)
    if printed_cells and dice in BARRAGE_PRINTED:
        return BARRAGE_PRINTED[dice][BARRAGE_ROLLS.index(row)]
    return dice * BARRAGE_PERCENT[row] // 100


# --- Sand and point defence (TR-07) ----------------------------------------------------------

SAND_RATIO_DM = {"110_or_more": 2, "within_10": 0, "90_or_less": -2}
SAND_BOMB_PUMPED_DM = -2
PD_RATIO_DM = {"110_or_more": 2, "within_10": 0, "90_or_less": -1}
PD_BOMB_PUMPED_DM = -2
GUNNER_3_DM = 1


def ratio_row(defenders: int, incoming: int) -> str:
    """Which ratio row applies; exactly 110% or 90% takes the outer row (TR-07 Decision)."""
    if defenders * 10 >= incoming * 11:
        return "110_or_more"
    if defenders * 10 <= incoming * 9:
        return "90_or_less"
    return "within_10"


# --- Configuration (TR-05, TR-07a, TR-11) ----------------------------------------------------

CONFIGURATIONS: dict[str, str] = {
    "needle": "Needle/Wedge",
    "cone": "Cone",
    "standard": "Standard",
    "close": "Close",
    "sphere": "Sphere",
    "dispersed": "Dispersed",
    "planetoid": "Planetoid",
    "buffered_planetoid": "Buffered Planetoid",
}
CONFIGURATION_BEARING: dict[str, int] = {
    "needle": 80,
    "cone": 70,
    "standard": 80,
    "close": 70,
    "sphere": 70,
    "dispersed": 60,
    "planetoid": 50,
    "buffered_planetoid": 50,
}
MESON_CONFIGURATION_DM: dict[str, int] = {
    "dispersed": 4,
    "buffered_planetoid": 4,
    "needle": 2,
    "cone": 2,
    "standard": 2,
    "close": 0,
    "sphere": 0,
    "planetoid": 0,
}
MESON_GROUP: dict[str, str] = {
    "close": "close",
    "sphere": "close",
    "planetoid": "close",
    "needle": "cone",
    "cone": "cone",
    "standard": "cone",
    "dispersed": "dispersed",
    "buffered_planetoid": "dispersed",
}

# --- Meson gun penetration (TR-11) -------------------------------------------------------------

AP = None  # automatic penetration
PenetrationRow = tuple[int, str, tuple[int | None, ...]]  # (highest screen points, printed label, I..V)
MESON_PENETRATION: dict[str, tuple[PenetrationRow, ...]] = {
    "close": (
        (0, "0", (AP, AP, AP, AP, AP)),
        (4, "up to 4", (6, 4, AP, AP, AP)),
        (6, "6", (7, 5, 3, AP, AP)),
        (9, "8 or 9", (8, 6, 4, AP, AP)),
        (10, "10", (9, 6, 4, AP, AP)),
        (12, "12", (10, 8, 6, 4, AP)),
        (15, "15", (11, 9, 7, 5, 3)),
        (18, "18", (12, 10, 8, 6, 5)),
    ),
    "cone": (
        (0, "0", (4, AP, AP, AP, AP)),
        (4, "up to 4", (6, 4, AP, AP, AP)),
        (6, "6", (7, 5, 3, AP, AP)),
        (9, "8 or 9", (9, 6, 4, AP, AP)),
        (10, "10", (9, 7, 5, AP, AP)),
        (12, "12", (9, 8, 6, 4, AP)),  # rating I = 9 flagged in tables.md; used as printed
        (15, "15", (11, 9, 7, 5, AP)),  # rating V = AP flagged in tables.md; used as printed
        (18, "18", (12, 10, 8, 6, 5)),
    ),
    "dispersed": (
        (0, "0", (8, 6, 5, 4, AP)),
        (4, "up to 4", (8, 7, 5, 4, AP)),
        (6, "6", (9, 7, 5, 4, AP)),
        (10, "8 to 10", (10, 8, 6, 4, AP)),
        (12, "12", (11, 9, 6, 4, AP)),
        (15, "15", (11, 9, 7, 5, 3)),
        (18, "18", (12, 11, 8, 6, 5)),
    ),
}
RATINGS: tuple[str, ...] = ("I", "II", "III", "IV", "V")


def penetration_row(configuration: str, screen_points: int) -> PenetrationRow:
    """TR-11 Decision: totals between rows use the next row up; above 18, the 18 row."""
    rows = MESON_PENETRATION[MESON_GROUP[configuration]]
    for row in rows:
        if screen_points <= row[0]:
            return row
    return rows[-1]


def meson_penetration(configuration: str, screen_points: int, rating: str) -> int | None:
    """2D target to penetrate, or None for automatic penetration."""
    return penetration_row(configuration, screen_points)[2][RATINGS.index(rating)]


MESON_RATING_BANDS: tuple[tuple[int, str], ...] = (
    (460, "V"),
    (360, "IV"),
    (310, "III"),
    (260, "II"),
    (200, "I"),
)


def meson_rating(damage: int) -> str | None:
    """Penetration rating of a meson spinal from its damage [CSD]; None below 200."""
    for floor, rating in MESON_RATING_BANDS:
        if damage >= floor:
            return rating
    return None


# --- Spinal size DM (TR-10) --------------------------------------------------------------------


def spinal_size_dm(tons: float) -> int:
    """TR-10 Decision: the smallest bracket that applies."""
    if tons < 100:
        return -3
    if tons < 1000:
        return -2
    if tons < 10000:
        return -1
    return 0


SPINAL_BASE_DM = -6  # Formidable
SPINAL_OPTIMUM = "long"

# --- Hull codes and sections (TR-15, TR-17) ------------------------------------------------------

HULL_CODES: dict[str, int] = {
    "CA": 3000,
    "CB": 4000,
    "CC": 5000,
    "CD": 6000,
    "CE": 7500,
    "CF": 10000,
    "CG": 15000,
    "CH": 20000,
    "CJ": 25000,
    "CK": 30000,
    "CL": 40000,
    "CM": 50000,
    "CN": 60000,
    "CP": 75000,
    "CQ": 100000,
    "CR": 200000,
    "CS": 300000,
    "CT": 400000,
    "CU": 500000,
    "CV": 600000,
    "CW": 700000,
    "CX": 800000,
    "CY": 900000,
    "CZ": 1000000,
}

# Sections aft to fore: the Damage Location order, which is also adjacency (TR-17 Decision).
SECTIONS_BY_COUNT: dict[int, tuple[str, ...]] = {
    2: ("Engineering", "Forward"),
    3: ("Engineering", "Main", "Forward"),
    4: ("Engineering", "Amidships", "Main", "Forward"),
    5: ("Engineering", "Aft", "Amidships", "Main", "Forward"),
    6: ("Engineering", "Aft", "Lower Amidships", "Upper Amidships", "Main", "Forward"),
}
# The design chapter lists the six-section hull in this order (tables.md §1b).
DESIGN_SECTIONS_6: tuple[str, ...] = (
    "Engineering",
    "Aft",
    "Upper Amidships",
    "Lower Amidships",
    "Main",
    "Forward",
)


def hull_sections(code: str) -> int:
    """Number of sections for a hull code: CA–CE 2, CF–CK 3, CL–CQ 4, CR–CV 5, CW–CZ 6."""
    order = list(HULL_CODES)
    index = order.index(code)
    return 2 + index // 5 if index < 20 else 6


def section_hull(code: str) -> int:
    """Hull (= Structure) per section: 1 per 50 t, split evenly and rounded down."""
    return HULL_CODES[code] // 50 // hull_sections(code)


# Damage Location (1d6) by section count (CA–CE = 2 … CW–CZ = 6).
DAMAGE_LOCATION: dict[int, tuple[str, ...]] = {
    2: ("Engineering", "Engineering", "Engineering", "Forward", "Forward", "Forward"),
    3: ("Engineering", "Engineering", "Main", "Main", "Forward", "Forward"),
    4: ("Engineering", "Amidships", "Amidships", "Main", "Main", "Forward"),
    5: ("Engineering", "Aft", "Amidships", "Main", "Main", "Forward"),
    6: ("Engineering", "Aft", "Lower Amidships", "Upper Amidships", "Main", "Forward"),
}
LOCATION_COLUMNS: dict[int, str] = {2: "CA–CE", 3: "CF–CK", 4: "CL–CQ", 5: "CR–CV", 6: "CW–CZ"}


def location(sections: int, roll: int) -> str:
    return DAMAGE_LOCATION[sections][roll - 1]


# --- Section Hit Table template (TR-18, tables.md §1a) ------------------------------------------

HIT_ROWS: tuple[int, ...] = tuple(range(2, 13))
SectionKind = Literal["engineering", "forward", "other"]
# One row per 2D result 2 … 12, as tables.md prints them (a fmt: skip keeps each table on its row).
# fmt: off
_ENGINEERING_EXTERNAL = ("Hull", "C", "M-Drive", "A", "Hull", "Armour", "Hull", "A", "M-Drive", "C", "Hull")
_ENGINEERING_INTERNAL = ("Crew", "J-Drive", "P-Plant", "A", "Structure", "Hold", "Structure", "A", "J-Drive", "P-Plant", "Critical")
_SECTION_EXTERNAL = ("Hull", "C", "B", "A", "Hull", "Armour", "Hull", "A", "B", "C", "Hull")
_SECTION_INTERNAL = ("Crew", "C", "B", "A", "Structure", "Hold", "Structure", "A", "B", "C", "Critical")
# fmt: on
HIT_TEMPLATE: dict[tuple[str, str], tuple[str, ...]] = {
    ("engineering", "external"): _ENGINEERING_EXTERNAL,
    ("engineering", "internal"): _ENGINEERING_INTERNAL,
    ("forward", "external"): _SECTION_EXTERNAL,  # the forward and other sections read the same table
    ("forward", "internal"): _SECTION_INTERNAL,
    ("other", "external"): _SECTION_EXTERNAL,
    ("other", "internal"): _SECTION_INTERNAL,
}


def section_kind(name: str) -> SectionKind:
    if name == "Engineering":
        return "engineering"
    if name == "Forward":
        return "forward"
    return "other"


# Component Type table [CSD]: which slot type and column each component fills.
COMPONENT_TYPES: dict[str, tuple[str, str]] = {
    "turret": ("A", "external"),
    "barbette": ("A", "external"),
    "bay": ("A", "internal"),
    "fuel": ("A", "internal"),
    "hold": ("A", "internal"),
    "sensors": ("B", "external"),
    "craft": ("B", "external"),
    "launch_tubes": ("B", "external"),
    "m_drive": ("B", "external"),
    "spinal": ("B", "internal"),  # and External B; footnote 4 puts it in every non-Engineering section
    "hangar": ("B", "internal"),
    "power_plant": ("B", "internal"),
    "j_drive": ("B", "internal"),
    "computer": ("B", "internal"),
    "special_external": ("C", "external"),
    "screen": ("C", "internal"),
    "special_internal": ("C", "internal"),
    "command": ("C", "internal"),
}
DRIVE_KINDS: tuple[str, ...] = ("m_drive", "power_plant", "j_drive")

# --- Critical hits (TR-20) -----------------------------------------------------------------------

CRITICALS: dict[int, str] = {
    1: "Power Failure",
    2: "Structural Failure",
    3: "Hull Breach",
    4: "Internal Explosion",
    5: "Cascade Failure",
    6: "Fire",
}
FIRE_START_TARGET = 8
FIRE_SPREAD_AT = 12
FIRE_METAL_HYDRIDE_DM = -2

# --- Radiation (TR-13a, TR-21) ---------------------------------------------------------------------

AUTO = "Auto"
RadThrow = int | str | None  # 2D target, "Auto", or None (table 0: no hit possible)


@dataclass(frozen=True)
class RadiationRow:
    low: int
    high: int | None
    band: int
    crew: RadThrow
    computer: RadThrow
    sensors: RadThrow


RADIATION: tuple[RadiationRow, ...] = (
    RadiationRow(1, 10, 1, 6, None, None),
    RadiationRow(11, 15, 2, 5, None, None),
    RadiationRow(16, 20, 3, 4, 6, None),
    RadiationRow(21, 30, 4, 3, 5, None),
    RadiationRow(31, 40, 5, 2, 4, 6),
    RadiationRow(41, 50, 6, AUTO, 3, 5),
    RadiationRow(51, 60, 7, AUTO, 2, 4),
    RadiationRow(61, 80, 8, AUTO, AUTO, 3),
    RadiationRow(81, 100, 9, AUTO, AUTO, 2),
    RadiationRow(101, None, 10, AUTO, AUTO, AUTO),
)


def radiation_band(damage: int) -> int:
    """Band 1–10 for radiation damage; 0 for none. The last row has no top, so a row always fits."""
    if damage <= 0:
        return 0
    return next(row.band for row in RADIATION if row.high is None or damage <= row.high)


def radiation_row(band: int) -> RadiationRow | None:
    if band <= 0:
        return None
    return RADIATION[min(band, 10) - 1]


# --- Crew (TR-23, GEN-05) --------------------------------------------------------------------------

CREW_SKILL_NAMES: tuple[str, ...] = ("Green", "Average", "Experienced", "Elite", "Legendary")
CREW_SKILL_DM: tuple[int, ...] = (0, 1, 2, 3, 4)


@dataclass(frozen=True)
class CrewStep:
    key: str
    name: str
    percent: str
    dm: int | None  # None: cannot act
    fire_every: int | None  # each weapon fires once per N rounds; None: cannot act


CREW_STEPS: tuple[CrewStep, ...] = (
    CrewStep("dead", "Dead", "0%", None, None),
    CrewStep("survivors", "Survivors", "1–10%", -4, 5),
    CrewStep("skeleton", "Skeleton", "11–25%", -2, 3),
    CrewStep("half", "Half", "26–50%", -1, 2),
    CrewStep("weakened", "Weakened", "51–75%", 0, 1),
    CrewStep("full", "Full", "76–90%", 0, 1),
    CrewStep("battle", "Battle", "91–120%", 0, 1),
    CrewStep("overstrength", "Overstrength", "121–150%", 0, 1),
    CrewStep("massively_overstrength", "Massively Overstrength", "151%+", 0, 1),
)
CREW_STEP_KEYS: tuple[str, ...] = tuple(step.key for step in CREW_STEPS)


def crew_step(key: str) -> CrewStep:
    return CREW_STEPS[CREW_STEP_KEYS.index(key)]


# --- Task chain (TR-03 optional chained roll) -------------------------------------------------------


def task_chain_dm(effect: int) -> int:
    """MgT1 task chain: ≤−6 → −3, −2…−5 → −2, −1 → −1, 0 → +0, 1–5 → +1, 6+ → +2."""
    if effect <= -6:
        return -3
    if effect <= -2:
        return -2
    if effect == -1:
        return -1
    if effect == 0:
        return 0
    if effect <= 5:
        return 1
    return 2


# --- Reactions from initiative (TR-26) --------------------------------------------------------------


def reactions(initiative: int) -> int:
    """0–4 → 1, 5–8 → 2, 9–12 → 3, 13+ → 4; below 0 counts as the lowest row."""
    if initiative <= 4:
        return 1
    if initiative <= 8:
        return 2
    if initiative <= 12:
        return 3
    return 4


# --- Capital-ship barrage weapons [OPS] (TR-06, TR-07, TR-21) ---------------------------------------


@dataclass(frozen=True)
class Ammo:
    """What a launcher fires: dice per missile or torpedo, radiation hits, attack DM, kind."""

    name: str
    dice: int
    radiation: int
    attack_dm: int
    kind: str  # missile, nuclear_missile, torpedo, nuclear_torpedo, bomb_pumped, sand
    pd_dm: int = 0  # extra DM to point defence against it (ortillery torpedo +1)
    per_die: int = 1  # mounts that make one die of the barrage (sand 1 per 4, pebbles 1 per 2)
    reach: str | None = None  # the furthest band it engages (sand and pebbles: Close)
    optimum_adjacent: bool = False  # ortillery missiles: Adjacent is their optimum (+0)
    effect: str | None = None  # "shockwave": clears sand instead of dealing damage


MISSILE_AMMO: dict[str, Ammo] = {
    "standard": Ammo("Missile", 1, 0, 0, "missile"),
    "smart": Ammo("Smart Missile", 1, 0, 0, "missile"),
    "nuclear": Ammo("Nuclear Missile", 2, 1, 0, "nuclear_missile"),
    "long_range": Ammo("Long Range Missile", 1, 0, -1, "missile"),
    # "1d6 per missile" read as one die per missile, as the seed's own "10–Missile–Long–12" shows.
    "multi_warhead": Ammo("Multi-Warhead Missile", 1, 0, 0, "missile"),
    # [OPS] "negates sand if ≥5% damage is inflicted". Decision: a shockwave barrage is rolled like
    # missiles; it deals no damage, and at 5% or more on the Barrage Damage table (net 3+) the
    # target's sand gives no protection for the rest of the round.
    "shockwave": Ammo("Shockwave Missile", 1, 0, 0, "missile", effect="shockwave"),
    # [OPS] "Ortillery Missile (Adjacent): as normal missiles". Decision: Adjacent is its optimum
    # band (+0); every other band reads the Missile row, so Close stays out of reach.
    "ortillery": Ammo("Ortillery Missile", 1, 0, 0, "missile", optimum_adjacent=True),
}
# [OPS] "Sandcaster (Close): 1 per 4 fired; Pebbles (Close): 1 per 2 fired". Decision: a sandcaster
# barrage of N turrets is a barrage of ⌊N ÷ 4⌋ dice (⌊N ÷ 2⌋ with pebbles), each die 1; it reads the
# Short row and reaches no further than Close.
SAND_AMMO: dict[str, Ammo] = {
    "standard": Ammo("Sandcaster", 1, 0, 0, "sand", per_die=4, reach="close"),
    "pebbles": Ammo("Pebbles", 1, 0, 0, "sand", per_die=2, reach="close"),
}
TORPEDO_AMMO: dict[str, Ammo] = {
    "standard": Ammo("Torpedo", 4, 0, 0, "torpedo"),
    "nuclear": Ammo("Nuclear Torpedo", 6, 1, 0, "nuclear_torpedo"),
    "bomb_pumped": Ammo("Bomb-Pumped Torpedo", 6, 0, 0, "bomb_pumped"),
    "ortillery": Ammo("Ortillery Torpedo", 8, 0, -2, "torpedo", pd_dm=1),
}


@dataclass(frozen=True)
class Weapon:
    """One capital-ship barrage weapon type per mount: the per-mount dice are the barrage notation's D."""

    name: str
    mount: Literal["turret", "barbette", "bay"]
    range_row: str
    dice: int  # per mount, for gun weapons; launchers multiply the ammo's dice by `launches`
    radiation: int  # radiation hits per weapon (TR-21)
    attack_dm: int
    kind: str  # laser, particle, fusion, meson, railgun, or "launcher"
    launches: int = 0  # missiles or torpedoes per mount
    ammo_table: str | None = None  # "missile", "torpedo" or "sand"


WEAPONS: dict[str, Weapon] = {
    "pulse_laser": Weapon("Pulse Laser", "turret", "short", 2, 0, -2, "laser"),
    "beam_laser": Weapon("Beam Laser", "turret", "medium", 1, 0, 0, "laser"),
    "particle_beam": Weapon("Particle Beam", "turret", "long", 3, 1, 0, "particle"),
    "particle_barbette": Weapon("Particle Beam Barbette", "barbette", "long", 4, 1, 0, "particle"),
    "railgun": Weapon("Railgun", "barbette", "short", 3, 0, 0, "railgun"),
    "missile_turret": Weapon("Missile", "turret", "missile", 0, 0, 0, "launcher", 1, "missile"),
    "missile_bay_50": Weapon("Missile", "bay", "missile", 0, 0, 0, "launcher", 12, "missile"),
    "missile_bay_100": Weapon("Missile", "bay", "missile", 0, 0, 0, "launcher", 24, "missile"),
    "torpedo_bay_50": Weapon("Torpedo", "bay", "torpedo", 0, 0, 0, "launcher", 3, "torpedo"),
    "torpedo_bay_100": Weapon("Torpedo", "bay", "torpedo", 0, 0, 0, "launcher", 6, "torpedo"),
    "particle_bay_50": Weapon("Particle Beam Bay", "bay", "long", 6, 1, 0, "particle"),
    "particle_bay_100": Weapon("Particle Beam Bay", "bay", "long", 9, 1, 0, "particle"),
    "fusion_bay_50": Weapon("Fusion Gun Bay", "bay", "medium", 5, 1, 0, "fusion"),
    "fusion_bay_100": Weapon("Fusion Gun Bay", "bay", "medium", 8, 1, 0, "fusion"),
    "meson_bay_50": Weapon("Meson Gun Bay", "bay", "long", 5, 1, 0, "meson"),
    "meson_bay_100": Weapon("Meson Gun Bay", "bay", "long", 8, 1, 0, "meson"),
    # "1d6 + 2 rad / 2d6 + 1 rad": one / two dice per bay, 2 / 1 radiation hits per weapon.
    "meson_flicker_50": Weapon("Meson Flicker Bay", "bay", "long", 1, 2, 0, "meson"),
    "meson_flicker_100": Weapon("Meson Flicker Bay", "bay", "long", 2, 1, 0, "meson"),
    "railgun_bay_50": Weapon("Railgun Bay", "bay", "short", 12, 0, 0, "railgun"),
    "railgun_bay_100": Weapon("Railgun Bay", "bay", "short", 18, 0, 0, "railgun"),
    "sandcaster": Weapon("Sandcaster", "turret", "short", 0, 0, 0, "launcher", 1, "sand"),
}
AMMO_TABLES: dict[str, dict[str, Ammo]] = {
    "missile": MISSILE_AMMO,
    "torpedo": TORPEDO_AMMO,
    "sand": SAND_AMMO,
}
ENERGY_KINDS = frozenset({"laser", "particle", "fusion", "meson"})


@dataclass(frozen=True)
class Firing:
    """A weapon with its ammunition resolved: everything a barrage needs to know about it."""

    name: str
    mount: str
    range_row: str
    dice: int
    radiation: int  # radiation hits per mount
    attack_dm: int
    kind: str
    launches: int  # individual weapons per mount (missiles, torpedoes; 1 for guns)
    pd_dm: int = 0
    per_die: int = 1
    reach: str | None = None
    optimum_adjacent: bool = False
    effect: str | None = None

    def barrage_dice(self, mounts: int) -> int:
        """The barrage's N (its size in dice): one per mount, or one per 4 sandcasters…"""
        return mounts // self.per_die

    def range_dm(self, band: str, small_craft_shooting: bool = False) -> int | None:
        """TR-02 for this weapon, with an ortillery missile's Adjacent optimum."""
        if self.optimum_adjacent and band == "adjacent":
            return 0
        return range_dm(self.range_row, band, small_craft_shooting)


def firing(weapon_key: str, ammo_key: str | None = None) -> Firing:
    weapon = WEAPONS[weapon_key]
    if weapon.ammo_table is None:
        return Firing(
            weapon.name,
            weapon.mount,
            weapon.range_row,
            weapon.dice,
            weapon.radiation,
            weapon.attack_dm,
            weapon.kind,
            1,
        )
    ammo = AMMO_TABLES[weapon.ammo_table][ammo_key or "standard"]
    return Firing(
        ammo.name,
        weapon.mount,
        weapon.range_row,
        ammo.dice * weapon.launches,
        ammo.radiation * weapon.launches,
        ammo.attack_dm,
        ammo.kind,
        weapon.launches,
        ammo.pd_dm,
        ammo.per_die,
        ammo.reach,
        ammo.optimum_adjacent,
        ammo.effect,
    )


SHOCKWAVE_PERCENT = 5  # [OPS]: a shockwave barrage of 5% or more negates sand
MISSILE_KINDS = frozenset({"missile", "nuclear_missile", "torpedo", "nuclear_torpedo", "bomb_pumped"})
DAMPER_KINDS = frozenset({"nuclear_missile", "nuclear_torpedo", "fusion"})
RADIATION_STOPPED_BY_DAMPERS = frozenset({"nuclear_missile", "nuclear_torpedo", "fusion"})

# --- Orders (TR-26, TR-27, tables.md §4) --------------------------------------------------------------


@dataclass(frozen=True)
class Order:
    number: int
    name: str
    cost: int
    type: Literal["Combat", "Ship", "Special"]
    crew_skill: int = 0
    needs_spinal: bool = False
    flight_only: bool = False  # the seed: "only performed by a small craft flight"
    emergency: bool = False
    repeatable: bool = False
    effect: str = ""
    needs_target: bool = False  # names a ship when given


ORDERS: dict[str, Order] = {
    "line_up_spinal": Order(
        1,
        "Line up Spinal Mount!",
        2,
        "Combat",
        needs_spinal=True,
        emergency=True,
        effect="Without this order the spinal mount cannot be fired.",
    ),
    "all_hands": Order(
        2,
        "All Hands...Fire At Will!",
        8,
        "Combat",
        emergency=True,
        effect="All the ship's energy barrage attacks are made as a single action this round.",
    ),
    "angle_max_effect": Order(
        3,
        "Angle for Maximum Effect",
        2,
        "Combat",
        crew_skill=2,
        effect="The percentage of weapons that can be combined into a barrage is increased by 10%.",
    ),
    "blast_them": Order(
        4,
        "Blast Them As They Launch!",
        2,
        "Combat",
        crew_skill=1,
        emergency=True,
        needs_target=True,
        effect="Small craft launched from the chosen enemy this turn may not dodge attacks.",
    ),
    "board_them": Order(5, "Board Them!", 4, "Special", emergency=True, effect="No effect text in the seed."),
    "command_discipline": Order(
        6,
        "Command Discipline",
        8,
        "Ship",
        effect="Any skill checks other than Gunner checks made this round have +1 DM.",
    ),
    "damn_torpedoes": Order(
        7,
        "Damn the Torpedoes!",
        4,
        "Special",
        crew_skill=2,
        emergency=True,
        effect="All attacks on the ship gain +1 DM, and all its attacks also gain +1 DM.",
    ),
    "defensive_posture": Order(
        8,
        "Defensive Posture",
        4,
        "Combat",
        effect="Barrage percentage reduced by 20%, but all attacks on the ship suffer −2 DM.",
    ),
    "escort_defence": Order(
        9,
        "Escort Defence",
        4,
        "Combat",
        needs_target=True,
        effect="Attacks on a friendly ship within Close range may be intercepted by this ship's defences.",
    ),
    "evasive_action": Order(
        10,
        "Evasive Action*",
        4,
        "Special",
        repeatable=True,
        effect="+1 Thrust this round, spendable only on dodging; it does not count as a reaction.",
    ),
    "fast_strafing_run": Order(
        11,
        "Fast Strafing Run",
        4,
        "Special",
        flight_only=True,
        effect="Within Close range: shooting at the flight is at −2 DM and its fire gets +2 DM.",
    ),
    "fighter_screen": Order(
        12,
        "Fighter Screen",
        4,
        "Special",
        flight_only=True,
        needs_target=True,
        effect="As Escort Defence, by a flight; attacking small craft cannot use Fast Strafing Run.",
    ),
    "focused_fire": Order(
        13,
        "Focused Fire",
        6,
        "Combat",
        needs_target=True,
        effect="The ship may fire at only one target this round, but all attacks on it gain +1 DM.",
    ),
    "engines_back_online": Order(
        14,
        "Get Those Engines Back On-Line*",
        6,
        "Ship",
        crew_skill=3,
        repeatable=True,
        effect="Two extra repair rolls this round, only in the Engineering section.",
    ),
    "one_more_shot": Order(
        15,
        "I Only Need One More Shot*",
        2,
        "Special",
        crew_skill=3,
        repeatable=True,
        effect="One damaged weapon system works fully this round, then is disabled at the end of the round.",
    ),
    "maximum_speed": Order(
        16,
        "Maximum Speed",
        4,
        "Combat",
        effect="The ship may fire only half its turrets and bays (round down), but Thrust +1.",
    ),
    "opportunity_fire": Order(
        17,
        "Opportunity Fire!",
        6,
        "Combat",
        emergency=True,
        effect="No attacks until all other ships have finished firing; then all allowed attacks.",
    ),
    "abandon_ship": Order(
        18,
        "Prepare to Abandon Ship!",
        4,
        "Special",
        emergency=True,
        effect="If destroyed this round, all surviving crew reach the lifeboats or escape pods.",
    ),
    "prepare_jump": Order(
        19,
        "Prepare for Jump!",
        4,
        "Special",
        emergency=True,
        effect="Engineering (jump) or Astrogation checks this round have +2 DM.",
    ),
    "repel_boarders": Order(
        20,
        "Prepare to Repel Boarders!",
        4,
        "Special",
        emergency=True,
        effect="If boarded this round, the crew have +1 DM on the Boarding Action table.",
    ),
    "prepare_impact": Order(
        21,
        "Prepare for Impact!",
        4,
        "Special",
        emergency=True,
        effect="Roll 1d6 per Crew Hit this round; on 4+ that hit is ignored.",
    ),
    "roll_ship": Order(
        22,
        "Roll The Ship!",
        4,
        "Combat",
        crew_skill=1,
        emergency=True,
        effect="Attacks on this ship using Target That Section suffer −2 DM.",
    ),
    "run_silent": Order(
        23,
        "Run Silent, Run Dark",
        4,
        "Special",
        effect="The ship may not move, fire or use active sensors; detecting it suffers −2 DM.",
    ),
    "screens_full": Order(
        24,
        "Screens to Full!",
        4,
        "Special",
        emergency=True,
        effect="Screens give 3 points of protection per screen instead of 2.",
    ),
    "target_section": Order(
        25,
        "Target That Section*",
        4,
        "Special",
        crew_skill=1,
        repeatable=True,
        effect="One of the ship's attacks this round targets a specific section of the enemy vessel.",
    ),
}
