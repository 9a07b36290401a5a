"""Radiation damage (TR-13, TR-13a, TR-21).

Radiation becomes a band on the Radiation Damage table, and each band names the 2D throws for a
crew hit, a computer hit and a sensor hit ("Auto" needs no throw). Barrages lower the band by the
target's armour (by its meson screen points for mesons); spinal radiation is not lowered, but in
both cases armour 8+ stops everything except mesons, and nuclear dampers or radiation shielding
stop radiation from nuclear weapons and fusion guns.
"""

from __future__ import annotations

from app.rules.core import Roll
from app.rules.traveller import tables as T
from app.rules.traveller.checks import number
from app.rules.traveller.hits import Resolution, crew_hit, ship_system_hit

ARMOUR_STOPS_RADIATION = 8


def immune(res: Resolution, kind: str, armour: int) -> str | None:
    """Why this radiation does nothing, or None when it can bite."""
    model = res.model
    if kind in T.RADIATION_STOPPED_BY_DAMPERS:
        if model.radiation_shielding:
            return "radiation shielding"
        if any(s.kind == "nuclear_damper" for s in model.screens):
            return "nuclear dampers"
    if kind != "meson" and armour >= ARMOUR_STOPS_RADIATION:
        return f"armour {armour}"
    return None


def apply_radiation(
    res: Resolution, damage: int, band_cut: int, cut_label: str, kind: str, armour: int
) -> None:
    """Look up the band (lowered by `band_cut`), throw for crew, computer and sensor hits."""
    if damage <= 0:
        return
    why = immune(res, kind, armour)
    if why is not None:
        res.say("radiation", f"{res.ship.name} shrugs off {damage} radiation: {why} (TR-21).")
        return
    raw = T.radiation_band(damage)
    band = raw - band_cut
    cut = f" − {cut_label} {band_cut} = {number(raw - band_cut)}" if band_cut else ""
    if band <= 0:
        res.say("radiation", f"{res.ship.name} radiation {damage}: band {raw}{cut} → no effect.")
        return
    row = T.radiation_row(band)
    assert row is not None
    results: list[str] = []
    rolls: list[Roll] = []
    for what, throw in (("crew", row.crew), ("computer", row.computer), ("sensors", row.sensors)):
        if throw is None:
            continue
        if throw == T.AUTO:
            hit = True
            shown = "Auto"
        else:
            roll = res.dice.roll(2, 6, f"radiation {what} hit", ship=res.ship.id, target=f"{throw}+")
            hit = roll.total >= int(throw)
            roll.outcome = "hit" if hit else "no hit"
            rolls.append(roll)
            shown = f"2D {roll.total} vs {throw}+"
        if not hit:
            results.append(f"{what} {shown}: no hit")
        elif what == "crew":
            results.append(f"crew {shown}: {crew_hit(res)}")
        elif what == "computer":
            results.append(f"computer {shown}: {ship_system_hit(res, 'computer')}")
        else:
            results.append(f"sensors {shown}: {ship_system_hit(res, 'sensors')}")
    res.say(
        "radiation",
        f"{res.ship.name} radiation {damage}: band {raw}{cut}; " + "; ".join(results) + ".",
        rolls,
        band=band,
    )
