"""What the pain template draws that the rules derive (SH-03 … SH-16): the reaction bands of the
track (from the SH-06 chart), the reaction's mood, each obligation's own form (deeds to mark done,
the phase-out to resolve), this impulse's damage band (SH-03…SH-05) and its largest source (SH-09),
whether the SH-14 roll is still open this turn, and the ship card's badge. Pure: no I/O."""

from __future__ import annotations

from typing import Any, cast

from app.rules.counters import Away, Badge, Counter
from app.rules.figures import Band, Figures, Track
from app.rules.shadow.actions import TARGETING
from app.rules.shadow.track import (
    BANDS,
    CHART_FLOORS,
    DOABLE,
    MOODS,
    PAIN_MAX,
    PainTrack,
    Reaction,
    band_for,
    ship_name,
)
from app.rules.state import BattleState, Ship

PHASE_OUT = ("phase_out", "plot_phase_out")
NO_CHECK = "under 25, no check"


def track_bands() -> list[dict[str, Any]]:
    """The chart's reactions from ZERO up, each with the pain boxes it covers (SH-06)."""
    floors = sorted(CHART_FLOORS)
    out = []
    for i, (low, name) in enumerate(floors):
        high = floors[i + 1][0] - 1 if i + 1 < len(floors) else PAIN_MAX
        out.append({"name": name, "low": low, "high": high})
    return out


def pain_figures(part: dict[str, Any]) -> Figures:
    """The report's pain chart: the level on the track, over the reaction chart's bands (SH-01, SH-06)."""
    track = Track(
        level=part["level"],
        reaction=part["reaction"],
        dead=part.get("dead", False),
        top=PAIN_MAX,
        bands=tuple(Band(**b) for b in track_bands()),
    )
    return Figures(track=track)


AWAY_KINDS = ("flinch", "het_away")  # SH-08 and SH-11's moves directly away from the damage


def pain_counter(part: dict[str, Any]) -> Counter:
    """On the map: the pain level as the counter's badge while the ship hurts (SH-01), shown before
    its structure lost; and each open flinch or HET away owed (SH-08, SH-11), with the quadrant the
    damage came from."""
    level = part.get("level")
    badge = None
    if isinstance(level, int) and level > 0:
        badge = Badge(f"P{level}", f"pain {level}", "pain", weight=1)
    away = tuple(
        Away(duty.get("direction") or "", duty.get("text") or duty["kind"])
        for duty in part.get("obligations") or []
        if duty.get("kind") in AWAY_KINDS and not duty.get("ended") and not duty.get("expired")
    )
    return Counter(badge=badge, away=away)


def mood(reaction: str) -> str:
    """The card's word for a reaction: "angered" from the chart's "is angered"."""
    return MOODS[cast(Reaction, reaction)].removeprefix("is ")  # templates pass the reaction as stored


def pain(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    track = PainTrack.model_validate(part)
    duties = [
        {**o.model_dump(mode="json"), "doable": o.kind in DOABLE, "phase": o.kind in PHASE_OUT}
        for o in track.obligations
    ]
    standing = [d for d in duties if not d["expired"]]
    band = band_for(track.damage_total)
    most_from = None
    if track.damage_by_source:
        source, amount = track.largest_source()
        most_from = {"name": ship_name(state, source), "amount": amount}
    phase_pending = any(d["phase"] for d in standing)
    step = state.game.step(state.clock)
    return {
        # what the damage is totalled over (SH-03): "impulse" in SFB, "combat step" in B5 Wars
        "interval": step.label.lower() if step.repeats else f"{step.label.lower()} step",
        "bands": track_bands(),
        "top": PAIN_MAX,  # the last box: death of shock (SH-02)
        "mood": mood(track.reaction),
        "standing": standing,
        "ended": [d for d in duties if d["expired"]],
        "targeting": any(d["kind"] in TARGETING for d in standing),
        "must_report_range": track.reaction == "FIVE" and not phase_pending,
        "band_label": band.label if band else NO_CHECK,
        "hot": band is not None,
        "scale": sorted(b.floor for b in BANDS),
        "most_from": most_from,
        "most_damage_name": ship_name(state, track.most_damage) if track.most_damage else None,
        "may_reduce": track.level > 0 and track.reduced_turn != state.clock.turn,
        "reduced_this_turn": track.reduced_turn == state.clock.turn,
        "badge": {
            "text": f"Pain {track.level} · {track.reaction}",
            "class": f"pain-badge pain-band-{track.reaction.lower()}",
        },
    }
