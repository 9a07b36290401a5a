"""The battle report: GET /battles/{id}/report (the page, its charts drawn as SVG on the
server) and GET /api/v1/battles/{id}/report (the same figures as JSON, bearer auth). Both read
`services.report.battle_report` for the participant asking, so each sees only what they may.

The page polls itself while the battle runs (htmx, every POLL_SECONDS, answered 204 when nothing
happened since the seq it holds); here are only the chart geometry (values scaled to the SVG's
view box) and the doors — the figures come from the service."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.models import Battle, Participant
from app.services.errors import Invalid, ServiceError
from app.services.reading.report import Report, battle_report
from app.services.reading.report_share import live_shares
from app.services.store.battles import get_battle
from app.web.deps import Creds, PlatformDep, SeqQuery, errors, participant_by_bearer
from app.web.drawing.render import templates
from app.web.middleware.security import csrf_token
from app.web.pages.answers import _flash, _pop_flash, seated

router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api/v1", tags=["api"])

POLL_SECONDS = 15

# The charts' view box: drawn at this size and scaled to the column (a phone's 375 px included).
WIDTH, HEIGHT = 320, 150
SMALL = 110  # the height of the small multiples (a chart per shield projection, per section)
LEFT, RIGHT, TOP, BOTTOM = 30, 6, 14, 22
STRIPE_LABEL_ROOM = 8  # the thinnest band that carries its name
LABEL_ROOM = 11  # the narrowest bar (in view box units) that carries its value over it


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    cls: str
    name: str
    value: float
    note: str = ""  # said after the value in its label ("✕": a collapsed shield)

    @property
    def centre(self) -> float:
        return round(self.x + self.width / 2, 2)

    @property
    def labelled(self) -> bool:
        """Room for the value over the bar (a zero bar is nothing but its label)."""
        return self.width >= LABEL_ROOM


@dataclass
class Group:
    label: str
    x: float  # the label's centre
    bars: list[Bar]


@dataclass
class Line:
    y: float
    cls: str
    label: str


@dataclass
class Stripe:
    y: float
    height: float
    cls: str
    label: str

    @property
    def labelled(self) -> bool:
        return self.height >= STRIPE_LABEL_ROOM


@dataclass
class Chart:
    """One bar chart, laid out: what templates/partials/report_chart.html draws."""

    id: str
    title: str
    desc: str
    y_max: float
    groups: list[Group]
    legend: list[tuple[str, str]]  # (class, name)
    lines: list[Line] = field(default_factory=list)
    stripes: list[Stripe] = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP

    @property
    def bottom(self) -> int:
        return self.height - BOTTOM


def _y(value: float, y_max: float, height: int) -> float:
    span = height - BOTTOM - TOP
    return round(height - BOTTOM - span * (min(value, y_max) / y_max if y_max else 0), 2)


def bar_chart(
    chart_id: str,
    title: str,
    desc: str,
    y_max: float,
    *,
    groups: list[tuple[str, list[tuple[str, str, float] | tuple[str, str, float, str]]]],
    lines: Sequence[tuple[float, str, str]] = (),
    stripes: Sequence[tuple[float, float, str, str]] = (),
    height: int = HEIGHT,
) -> Chart:
    """Grouped bars (a group per turn or die face, a bar per series) on one scale from 0 to y_max,
    with reference lines (a rating, the expected count) and background stripes (pain bands)."""
    y_max = max(y_max, 1)
    slot = (WIDTH - RIGHT - LEFT) / max(len(groups), 1)
    laid = []
    names: dict[str, str] = {}
    for i, (label, bars) in enumerate(groups):
        inner = slot * 0.8
        width = inner / max(len(bars), 1)
        x0 = LEFT + i * slot + slot * 0.1
        out = []
        for j, (cls, name, value, *note) in enumerate(bars):
            names.setdefault(cls, name)
            top = _y(value, y_max, height)
            out.append(
                Bar(
                    round(x0 + j * width, 2),
                    top,
                    round(width * 0.9, 2),
                    round(height - BOTTOM - top, 2),
                    cls,
                    name,
                    value,
                    "".join(note),
                )
            )
        laid.append(Group(label, round(LEFT + i * slot + slot / 2, 2), out))
    return Chart(
        id=chart_id,
        title=title,
        desc=desc,
        y_max=y_max,
        height=height,
        groups=laid,
        legend=list(names.items()),
        lines=[Line(_y(v, y_max, height), cls, label) for v, cls, label in lines],
        stripes=[
            Stripe(
                _y(high, y_max, height),
                round(_y(low, y_max, height) - _y(high, y_max, height), 2),
                cls,
                label,
            )
            for low, high, cls, label in stripes
        ],
    )


def _by_turn(report: Report, points: Sequence[Any], bars: Callable[[Any], list[Any]]) -> list[Any]:
    """A chart's groups: one per turn (labelled T3, R3…), holding the `bars` of that turn's point."""
    return [(f"{report.period[0]}{p.turn}", bars(p)) for p in points]


def _told(report: Report, points: Sequence[Any], said: Callable[[Any], str]) -> str:
    """A chart's figures in words for its description: "Turn 3: …; Turn 4: …"."""
    return "; ".join(f"{report.period} {p.turn}: {said(p)}" for p in points)


def charts(report: Report) -> dict[str, list[Chart]]:
    """Every chart of the report, by panel, laid out from the report's own figures."""
    word = report.period.lower()
    pain = [
        bar_chart(
            f"pain-{s.ship}",
            f"{s.name}: pain at the end of each {word}",
            f"Pain level 0 to {s.max} at each {word}'s end, over the reaction chart's bands; "
            + _told(report, s.points, lambda p: f"{p.level} ({p.reaction})"),
            s.max,
            stripes=[
                (b.low - 0.5 if b.low else 0, b.high + 0.5, f"band-{b.name.lower()}", b.name) for b in s.bands
            ],
            groups=_by_turn(report, s.points, lambda p: [("pain", "pain level", p.level)]),
        )
        for s in report.pain
    ]
    shields = [
        bar_chart(
            f"shield-{s.ship}-{i}",
            f"{s.name}: {s.projection} shield",
            f"{s.projection} projection strength (rating {s.rating}) at each {word}'s end; "
            + _told(report, s.points, lambda p: f"{p.strength}" + (" collapsed" if p.collapsed else "")),
            s.rating,
            lines=[(s.rating, "rating", f"rating {s.rating}")],
            height=SMALL,
            groups=_by_turn(
                report,
                s.points,
                lambda p: [
                    ("shield-down", "collapsed", p.strength, "✕")
                    if p.collapsed
                    else ("shield", "strength", p.strength)
                ],
            ),
        )
        for i, s in enumerate(report.shields)
    ]
    sections = [
        bar_chart(
            f"section-{s.ship}-{i}",
            f"{s.name}: {s.section}",
            f"Hull (of {s.hull_max}) and Structure (of {s.structure_max}) left at each {word}'s end; "
            + _told(
                report,
                s.points,
                lambda p: f"hull {p.hull}, structure {p.structure}" + (" destroyed" if p.destroyed else ""),
            ),
            max(s.hull_max, s.structure_max),
            height=SMALL,
            groups=_by_turn(
                report,
                s.points,
                lambda p: [("hull", "hull", p.hull), ("structure", "structure", p.structure)],
            ),
        )
        for i, s in enumerate(report.sections)
    ]
    values = [
        bar_chart(
            f"figure-{s.ship}-{i}",
            f"{s.name}: {s.figure}",
            f"{s.figure}"
            + (f" (of {s.most:g})" if s.most is not None else "")
            + f" at each {word}'s end; "
            + _told(report, s.points, lambda p: f"{p.value:g}"),
            s.most if s.most is not None else max([p.value for p in s.points] + [1]),
            height=SMALL,
            groups=_by_turn(report, s.points, lambda p, figure=s.figure: [("figure", figure, p.value)]),
        )
        for i, s in enumerate(report.figures)
    ]
    damage = [
        bar_chart(
            f"damage-{s.ship}",
            f"{s.name}: damage taken and dealt",
            f"Damage points taken and dealt in each {word}; "
            + _told(report, s.points, lambda p: f"took {p.taken}, dealt {p.dealt}"),
            max([p.taken for p in s.points] + [p.dealt for p in s.points] + [1]),
            groups=_by_turn(
                report, s.points, lambda p: [("taken", "taken", p.taken), ("dealt", "dealt", p.dealt)]
            ),
        )
        for s in report.damage
    ]
    dice = [
        bar_chart(
            f"dice-d{d.sides}",
            f"d{d.sides}: {d.count} rolled",
            f"Each face's count against a fair die's {d.bins[0].expected:g} per face; "
            + "; ".join(f"{b.label}: {b.observed}" for b in d.bins),
            max([b.observed for b in d.bins] + [b.expected for b in d.bins]),
            lines=[(d.bins[0].expected, "expected", f"fair: {d.bins[0].expected:g}")],
            groups=[(b.label, [("observed", "observed", b.observed)]) for b in d.bins],
        )
        for d in report.dice.types
    ]
    return {
        "pain": pain,
        "shields": shields,
        "sections": sections,
        "figures": values,
        "damage": damage,
        "dice": dice,
    }


def report_context(battle: Battle, me: Participant, report: Report, **more: Any) -> dict[str, Any]:
    """What templates/report.html reads of any report page (a seat's, or the public's by link or by
    the lobby): the report read for `me`, its charts and the poll; `more` says whose page it is."""
    return {
        "battle": battle,
        "me": me,
        "report": report,
        "charts": charts(report),
        "poll": POLL_SECONDS,
        **more,
    }


async def share_box(
    request: Request, platform: PlatformDep, battle_id: str, url: str | None = None
) -> dict[str, object]:
    """What the referee's Share panel on the report page shows."""
    async with platform.db.reader() as session:
        live = await live_shares(session, battle_id)
    return {"live": live, "url": url, "csrf": csrf_token(request), "battle_id": battle_id}


@router.get("/battles/{battle_id}/report", response_class=HTMLResponse)
async def report_page(
    battle_id: str, request: Request, platform: PlatformDep, since: SeqQuery = None
) -> Response:
    """The report as this seat may see it; `since` (the page's own poll) answers 204 when the
    battle has not moved past it."""
    try:
        async with platform.db.reader() as session:
            battle, me = await seated(session, request, battle_id)
            if since is not None and since >= battle.seq:
                return Response(status_code=204)
            try:
                report = await battle_report(session, battle, me, platform.rules)
            except Invalid as exc:  # the log does not replay: say so on the battle page
                _flash(request, f"No report: {exc.message}", "error")
                return RedirectResponse(f"/battles/{battle_id}", status_code=303)
    except ServiceError as exc:
        _flash(request, f"{exc.message} — open your join link to take your seat.", "error")
        return RedirectResponse("/", status_code=303)
    context = report_context(
        battle,
        me,
        report,
        public=False,
        share=await share_box(request, platform, battle_id) if me.role == "referee" else None,
        flash=_pop_flash(request),  # a link revoked, said after the redirect here
    )
    return templates.TemplateResponse(request, "report.html", context)


@api_router.get("/battles/{battle_id}/report", response_model=Report, responses=errors(401, 403, 404, 422))
async def report_json(battle_id: str, platform: PlatformDep, creds: Creds) -> Any:
    """The battle report as this participant may see it (docs/report.md): per turn (round) the
    pain, shield, section and damage figures, the turning points, and the dice against a fair
    die's. Live until the end: the running turn's figures are those so far."""
    # The token is asked first, as on every /api/v1 battle route: a token of another battle is
    # refused 403 whether or not `battle_id` exists, so no bearer string learns which ids do.
    participant = await participant_by_bearer(platform, battle_id, creds)
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        return await battle_report(session, battle, participant, platform.rules)
