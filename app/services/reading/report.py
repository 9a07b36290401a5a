"""The battle report: per turn (a round in Traveller), the figures each ruleset's state already
holds — pain and reaction, shield strength, each section's hull and structure — the damage each
ship took and dealt, the turning points, and the dice against their expected spread.

Every figure and turning point is what a part declares (`PartSpec.report`, `PartSpec.turning`, in
the shapes of `app/rules/figures.py`): this module names no ruleset and no part. A track is charted
under `pain`, gauges under `shields` and sections under `sections` (the names the report's JSON was
published with), any other value under `figures`.

Built for one viewer from what that viewer may see and nothing else: every state is read through
`battle_view` (a ship's public view for the ships they do not command), every event through
`event_for`. The states come from the log: the real actions still in effect (`history.stacks`) are
replayed in order with their own dice, so an undone or rewound action leaves nothing behind, and
the state after each turn's last action is the turn's end — the same state `history.state_at` gives
for that seq. No rule is worked out again here: the figures are the parts' own fields."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant
from app.rules import STANDARD, Rules
from app.rules.core import Event, RuleError
from app.rules.figures import Gauge, Section, Track, Turning, Value
from app.rules.generic.ending import winner
from app.rules.ruleset import PartSpec
from app.rules.state import BattleState
from app.rules.views import Viewer, battle_view, event_for, viewer_for
from app.services.errors import Invalid
from app.services.history.replay import LogRow, log_rows, replay, stacks
from app.services.reading.report_cache import ReportCache
from app.services.reading.report_story import EndOut, StoryTurn, headline, tell
from app.services.reading.views import visible_events

# --- the report's shape (the JSON of GET /api/v1/battles/{id}/report) ----------------------------


class TurnOut(BaseModel):
    number: int = Field(description="the turn (a round in Traveller)")
    label: str = Field(description='"Turn 2", "Round 2"')
    first_seq: int = Field(description="the turn's first action in effect")
    end_seq: int = Field(description="the turn's last action in effect: its figures are the state after it")
    clock: str = Field(description="where the clock stood after that action")
    actions: int = Field(
        description="actions in effect made in it (0: none yet; then both seqs are the last before it)"
    )
    running: bool = Field(description="the turn the battle is in now (its figures are so far)")
    steps: str = Field(
        default="",
        description='the steps its actions were made in, as the log names them: "Turn 2 · Orders to Turn 2 · Combat"',
    )


class ShipOut(BaseModel):
    id: str
    name: str
    side: str


class PainPoint(BaseModel):
    turn: int
    level: int
    reaction: str
    dead: bool


class Band(BaseModel):
    name: str
    low: int
    high: int


class PainSeries(BaseModel):
    ship: str
    name: str
    max: int = Field(description="the top of the pain track (SH-01)")
    bands: list[Band] = Field(description="the reaction chart's pain boxes (SH-06)")
    points: list[PainPoint]


class ShieldPoint(BaseModel):
    turn: int
    strength: int
    rating: int
    collapsed: bool


class ShieldSeries(BaseModel):
    ship: str
    name: str
    projection: str
    rating: int
    points: list[ShieldPoint]


class SectionPoint(BaseModel):
    turn: int
    hull: int
    structure: int
    destroyed: bool


class SectionSeries(BaseModel):
    ship: str
    name: str
    section: str
    hull_max: int
    structure_max: int
    points: list[SectionPoint]


class DamagePoint(BaseModel):
    turn: int
    taken: int = Field(description="armour, structure, system and Excess boxes, or hull and structure, lost")
    dealt: int = Field(description="what the ships it fired on took from its actions")


class DamageSeries(BaseModel):
    ship: str
    name: str
    points: list[DamagePoint]


class FigurePoint(BaseModel):
    turn: int
    value: float


class FigureSeries(BaseModel):
    ship: str
    name: str
    figure: str = Field(description="what the part calls the value")
    most: float | None = Field(description="the most it can be (None: no ceiling)")
    points: list[FigurePoint]


class TurningPoint(BaseModel):
    seq: int
    turn: int
    ship: str | None
    ship_name: str | None
    kind: str = Field(description="what turned, as the part declares it: shield, section, pain, critical…")
    label: str = Field(description='the kind as the report heads it: "Shield", "System hit"')
    event: str = Field(description="the rule's event kind, e.g. shield_collapse, critical")
    text: str = Field(description="the log's sentence, as this viewer reads it")


class DieBin(BaseModel):
    label: str
    low: int
    high: int
    observed: int
    expected: float


class DieType(BaseModel):
    sides: int
    count: int
    bins: list[DieBin]
    chi_square: float = Field(description="Σ (observed − expected)² / expected over the bins")
    degrees_of_freedom: int


class DicePanel(BaseModel):
    source: Literal["record", "visible"] = Field(
        description="record: every die of the log (after the end, or for the referee); "
        "visible: the dice of the log lines this viewer may read"
    )
    total: int
    types: list[DieType]


class ViewerOut(BaseModel):
    participant_id: str
    name: str
    role: str


class Report(BaseModel):
    battle_id: str
    name: str
    system: str
    status: str
    seq: int
    finished: bool
    viewer: ViewerOut
    period: Literal["Turn", "Round"] = Field(description='"Turn": the word the log uses for every system')
    headline: str = Field(default="", description="who fought and how it ended (or how far it has come)")
    ending: EndOut | None = Field(default=None, description="the end, once the battle has ended")
    story: list[StoryTurn] = Field(default_factory=list, description="each turn in sentences")
    turns: list[TurnOut]
    ships: list[ShipOut]
    pain: list[PainSeries]
    shields: list[ShieldSeries]
    sections: list[SectionSeries]
    figures: list[FigureSeries] = Field(description="any other value a part reports, per turn")
    damage: list[DamageSeries]
    turning_points: list[TurningPoint]
    dice: DicePanel


# --- what one view of one state says ------------------------------------------------------------


@dataclass
class ShipFigures:
    """One ship's figures in one viewer's view of one state: what its parts report."""

    name: str
    side: str
    points: int | None  # what damage can still take off it: its fall is damage taken
    track: Track | None = None
    gauges: list[Gauge] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)


def _parts_of(view: dict[str, Any], parts: Mapping[str, PartSpec] | None) -> Mapping[str, PartSpec]:
    """The part declarations to read a view with: the battle's game's, else the standard rules'."""
    return parts if parts is not None else STANDARD.game(view["system"]).parts


def figures(view: dict[str, Any], parts: Mapping[str, PartSpec] | None = None) -> dict[str, ShipFigures]:
    """Each ship's figures in a viewer's view (battle_view): what each of its parts reports of
    itself as that view holds it, and nothing else."""
    specs = _parts_of(view, parts)
    out = {}
    for sid, ship in view["ships"].items():
        f = ShipFigures(name=ship["name"], side=ship.get("side") or "", points=None)
        for name, part in (ship.get("parts") or {}).items():
            spec = specs.get(name)
            if spec is None or spec.report is None or not isinstance(part, dict):
                continue
            told = spec.report(part)
            if told.points is not None:
                f.points = (f.points or 0) + told.points
            f.track = f.track or told.track
            f.gauges += told.gauges
            f.sections += told.sections
            f.values += told.values
        out[sid] = f
    return out


# --- turning points and dice ---------------------------------------------------------------------


def turning_points(parts: Mapping[str, PartSpec], more: tuple[Turning, ...] = ()) -> dict[str, list[Turning]]:
    """The event kinds the parts (and then `more`: the rulesets' own) declare turning points, by
    event kind, each kind's declarations in order: the first that holds for an event names it."""
    found: dict[str, list[Turning]] = {}
    for turning in [t for spec in parts.values() for t in spec.turning] + list(more):
        found.setdefault(turning.event, []).append(turning)
    return found


def turning_kind(event: dict[str, Any], turning: Mapping[str, list[Turning]]) -> Turning | None:
    """Whether a visible event is a turning point, and of which kind."""
    return next((t for t in turning.get(event.get("kind", ""), []) if t.of(event)), None)


EXPR = re.compile(r"^\s*(\d+)d(\d+)")
MAX_BINS = 20  # a die with more faces is shown in MAX_BINS // 2 equal ranges


def _bins(sides: int) -> list[tuple[int, int]]:
    if sides <= MAX_BINS:
        return [(face, face) for face in range(1, sides + 1)]
    width = -(-sides // (MAX_BINS // 2))
    return [(low, min(low + width - 1, sides)) for low in range(1, sides + 1, width)]


def dice_panel(values: list[tuple[int, int]], source: Literal["record", "visible"]) -> DicePanel:
    """Each die type's observed faces against a fair die's: n / sides per face."""
    by_sides: dict[int, Counter[int]] = {}
    for sides, value in values:
        by_sides.setdefault(sides, Counter())[value] += 1
    types = []
    for sides in sorted(by_sides):
        seen = by_sides[sides]
        count = sum(seen.values())
        bins = [
            DieBin(
                label=str(low) if low == high else f"{low}–{high}",
                low=low,
                high=high,
                observed=sum(n for v, n in seen.items() if low <= v <= high),
                expected=round(count * (high - low + 1) / sides, 3),
            )
            for low, high in _bins(sides)
        ]
        chi = sum((b.observed - b.expected) ** 2 / b.expected for b in bins if b.expected)
        types.append(
            DieType(
                sides=sides,
                count=count,
                bins=bins,
                chi_square=round(chi, 3),
                degrees_of_freedom=len(bins) - 1,
            )
        )
    return DicePanel(source=source, total=len(values), types=types)


def visible_dice(events: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The dice in the rolls of events a viewer may read, as (sides, value)."""
    out = []
    for event in events:
        for roll in event.get("rolls") or []:
            found = EXPR.match(roll.get("expr", ""))
            if found:
                out.extend((int(found.group(2)), int(v)) for v in roll.get("dice", []))
    return out


# --- the replay ----------------------------------------------------------------------------------


@dataclass
class Row:
    """A log row detached from the session: what replaying needs, with its events."""

    log: LogRow
    events: list[dict[str, Any]]


@dataclass
class _Turn:
    number: int
    first_seq: int
    end_seq: int = 0
    actions: int = 0
    clock: str = ""
    steps: list[str] = field(default_factory=list)  # the steps its actions were made in, as the log says them
    end: dict[str, ShipFigures] = field(default_factory=dict)
    taken: Counter[str] = field(default_factory=Counter)
    dealt: Counter[str] = field(default_factory=Counter)


def _acting_ship(state: BattleState, row: LogRow) -> str | None:
    """The ship an action names as acting (its spec's `ship`, or the firing ship of entered damage)."""
    spec = state.game.actions.get(row.action_type)
    if spec is None:
        return None
    name = spec.ship or (spec.active[0] if spec.active else None)
    value = row.payload.get(name) if name else None
    return value if isinstance(value, str) else None


def _read_whole(raw: list[dict[str, Any]], viewer: Viewer, finished: bool) -> bool:
    """Whether the viewer reads at least one of the action's events whole (not its hidden text):
    then the log shows them who acted, and the damage may be credited to the acting ship."""
    for item in raw:
        event = Event.model_validate(item)
        if event_for(event, viewer, finished) is event:
            return True
    return False


@dataclass
class Walk:
    """What one pass over the actions in effect found for one viewer."""

    turns: list[_Turn]
    turning: list[TurningPoint]
    viewer: Viewer  # as the last state knows them: how their log reads now
    ending: EndOut | None = None


def walk(
    rules: Rules, battle: Battle, rows: list[Row], participant_id: str, role: str, finished: bool
) -> Walk:
    """Replay the actions in effect, one at a time, reading each state as this viewer sees it. An
    action belongs to the turn its clock stood in when it was made (the log's stamp)."""
    by_seq = {r.log.seq: r for r in rows}
    chain = stacks([r.log for r in rows]).in_effect
    state = rules.new_battle(battle.system, dict(battle.options))
    parts = state.game.parts
    kinds = turning_points(parts, tuple(t for r in state.game.rulesets for t in r.turning))
    viewer: Viewer = viewer_for(participant_id, role, state)
    before = figures(battle_view(state, viewer), parts)
    turns: dict[int, _Turn] = {}
    turning: list[TurningPoint] = []
    prev = 0
    ending: EndOut | None = None
    for seq in chain:
        row = by_seq[seq]
        made_in = state.clock.turn
        step = state.game.system.describe(state.clock)
        acting = _acting_ship(state, row.log)
        state = replay(rules, battle, [row.log], start=state, start_seq=prev)
        prev = seq
        viewer = viewer_for(participant_id, role, state)
        after = figures(battle_view(state, viewer), parts)
        turn = turns.setdefault(made_in, _Turn(made_in, seq))
        turn.actions += 1
        if step not in turn.steps:
            turn.steps.append(step)
        turn.end_seq, turn.clock, turn.end = seq, state.game.system.short(state.clock), after
        events = visible_events(row.events, viewer, finished)
        whole = _read_whole(row.events, viewer, finished)
        for sid, now in after.items():
            was = before.get(sid)
            if was is None or was.points is None or now.points is None or now.points >= was.points:
                continue
            lost = was.points - now.points
            turn.taken[sid] += lost
            if acting and acting != sid and whole:
                turn.dealt[acting] += lost
        for event in events:
            if event.get("kind") == "battle_end":
                ending = _ending(seq, made_in, row.log, event, after)
            turned = turning_kind(event, kinds)
            if turned is not None:
                ship = event.get("ship")
                turning.append(
                    TurningPoint(
                        seq=seq,
                        turn=made_in,
                        ship=ship,
                        ship_name=after[ship].name if ship in after else None,
                        kind=turned.kind,
                        label=turned.label,
                        event=event["kind"],
                        text=event["text"],
                    )
                )
        before = after
    if state.clock.turn not in turns:  # the turn the clock stands in, nothing done in it yet
        clock = state.game.system.short(state.clock)
        turns[state.clock.turn] = _Turn(state.clock.turn, prev, prev, clock=clock, end=before)
    return Walk([turns[n] for n in sorted(turns)], turning, viewer_for(participant_id, role, state), ending)


def _ending(seq: int, turn: int, row: LogRow, event: dict[str, Any], ships: dict[str, ShipFigures]) -> EndOut:
    """The end as the log records it: the referee's reason (the action's own payload) or the
    rules' sentence, and who won (`ending.winner`, the sides as this viewer's view holds them)."""
    by_referee = row.action_type == "battle.end"
    text = str(event.get("text", ""))
    if by_referee:
        reason = str(row.payload.get("reason") or "")
    else:
        reason = (
            text.removeprefix("The battle ends: ").removesuffix(" The dice seed is revealed.").rstrip(".")
        )
    sides = {sid: {"side": f.side} for sid, f in ships.items()}
    return EndOut(
        seq=seq,
        turn=turn,
        by="referee" if by_referee else "rules",
        reason=reason,
        winner=winner(event, sides),
        text=text,
    )


def _series(w: Walk) -> dict[str, Any]:
    """The per-turn figures regrouped as one series per ship (per projection, per section, per value):
    each turn's point joins its series, made the first time it is met."""
    ships: dict[str, ShipOut] = {}
    pain: dict[str, PainSeries] = {}
    shields: dict[tuple[str, str], ShieldSeries] = {}
    sections: dict[tuple[str, str], SectionSeries] = {}
    values: dict[tuple[str, str], FigureSeries] = {}
    damage: dict[str, DamageSeries] = {}
    for t in w.turns:
        for sid, f in t.end.items():
            ships[sid] = ShipOut(id=sid, name=f.name, side=f.side)
            if f.track is not None:
                track = f.track
                bands = [Band(name=b.name, low=b.low, high=b.high) for b in track.bands]
                first = PainSeries(ship=sid, name=f.name, max=track.top, bands=bands, points=[])
                point = PainPoint(turn=t.number, level=track.level, reaction=track.reaction, dead=track.dead)
                pain.setdefault(sid, first).points.append(point)
            for g in f.gauges:
                shields.setdefault(
                    (sid, g.name),
                    ShieldSeries(ship=sid, name=f.name, projection=g.name, rating=g.rating, points=[]),
                ).points.append(
                    ShieldPoint(turn=t.number, strength=g.strength, rating=g.rating, collapsed=g.collapsed)
                )
            for s in f.sections:
                sections.setdefault(
                    (sid, s.name),
                    SectionSeries(
                        ship=sid,
                        name=f.name,
                        section=s.name,
                        hull_max=s.hull_max,
                        structure_max=s.structure_max,
                        points=[],
                    ),
                ).points.append(
                    SectionPoint(turn=t.number, hull=s.hull, structure=s.structure, destroyed=s.destroyed)
                )
            for v in f.values:
                values.setdefault(
                    (sid, v.name), FigureSeries(ship=sid, name=f.name, figure=v.name, most=v.most, points=[])
                ).points.append(FigurePoint(turn=t.number, value=v.value))
            if f.points is not None:
                damage.setdefault(sid, DamageSeries(ship=sid, name=f.name, points=[])).points.append(
                    DamagePoint(turn=t.number, taken=t.taken[sid], dealt=t.dealt[sid])
                )
    return {
        "ships": list(ships.values()),
        "pain": list(pain.values()),
        "shields": list(shields.values()),
        "sections": list(sections.values()),
        "figures": list(values.values()),
        "damage": list(damage.values()),
    }


REPORTS: ReportCache[Report] = ReportCache()  # built reports by battle and seq: see report_cache.py


async def battle_report(
    session: AsyncSession, battle: Battle, participant: Participant, rules: Rules
) -> Report:
    """The report as this participant may see it, live until the end (the running turn's figures
    are those so far). Kept in REPORTS by battle, seq and viewer, so it is replayed once per action,
    not per request; the replay runs in a worker thread, so a long battle never blocks the loop."""
    who = (battle.status, participant.id, participant.role, participant.name, rules)
    kept = REPORTS.get(battle.id, battle.seq, who)
    if kept is not None:
        return kept
    report = await _build(session, battle, participant, rules)
    REPORTS.put(battle.id, battle.seq, who, report)
    return report


async def _build(session: AsyncSession, battle: Battle, participant: Participant, rules: Rules) -> Report:
    raw = await log_rows(session, battle.id)
    rows = [
        Row(LogRow(r.seq, r.action_type, r.actor_id, r.actor_role, r.payload, r.dice), list(r.events))
        for r in raw
    ]
    finished = battle.status == "finished"
    who = (participant.id, participant.role)
    try:
        w = await asyncio.to_thread(walk, rules, battle, rows, *who, finished)
    except RuleError as exc:  # the log no longer replays under these rules (as history.resolve says)
        raise Invalid(f"the log does not replay: {exc.message}", "battle") from None
    if finished or participant.role == "referee":  # the dice record: public once the seed is
        dice = dice_panel([(d["sides"], d["value"]) for r in rows for d in r.log.dice], "record")
    else:
        seen = [d for r in rows for d in visible_dice(visible_events(r.events, w.viewer, finished))]
        dice = dice_panel(seen, "visible")
    period: Literal["Turn", "Round"] = "Turn"  # the log's word, in Traveller's rounds too
    last = w.turns[-1].number
    report = Report(
        battle_id=battle.id,
        name=battle.name,
        system=battle.system,
        status=battle.status,
        seq=battle.seq,
        finished=finished,
        viewer=ViewerOut(participant_id=participant.id, name=participant.name, role=participant.role),
        period=period,
        turns=[
            TurnOut(
                number=t.number,
                label=f"{period} {t.number}",
                first_seq=t.first_seq,
                end_seq=t.end_seq,
                clock=t.clock,
                actions=t.actions,
                running=not finished and t.number == last,
                steps=" to ".join(dict.fromkeys([t.steps[0], t.steps[-1]])) if t.steps else "",
            )
            for t in w.turns
        ],
        turning_points=w.turning,
        dice=dice,
        ending=w.ending,
        **_series(w),
    )
    report.headline = headline(report)
    report.story = tell(report)
    return report
