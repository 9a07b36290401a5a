"""Templates and the per-viewer fragments pushed over the websocket."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

import jinja2
from fastapi.templating import Jinja2Templates
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import ROOT
from app.db import Database
from app.models import ActionLog, Battle, Participant, Snapshot
from app.realtime.hub import SeatGone, Subscriber
from app.rules import STANDARD, Rules
from app.rules.generic.timing import settings_of
from app.rules.overrides import choices_for
from app.rules.state import BattleState
from app.rules.views import Viewer
from app.services.errors import NotFound
from app.services.history.replay import TakenBack
from app.services.history.replay import preview as history_preview
from app.services.library.samples import ships_for
from app.services.reading.clock_view import read_run
from app.services.reading.live_log import LiveLogs, remarked
from app.services.reading.maps import MapRow, has_map, map_for, map_rows
from app.services.reading.overrides import Mark, flags, standing
from app.services.reading.views import (
    log_entries,
    offers_for,
    read_battle,
    view_data,
    viewer_of,
    visible_log,
    with_drafts,
)
from app.services.store.battles import participants
from app.services.store.drafts import drafts_possible
from app.services.store.drafts import rows as draft_rows
from app.services.table.lobby import PUBLIC_ID, public_reader, public_watch
from app.web.drawing.cards import CardMemo, digest, slot
from app.web.drawing.rulebook import prose, rule_links
from app.web.drawing.tile_names import tile_lines

_DICT_NAMES = frozenset(dir(dict))


class ViewEnvironment(jinja2.Environment):
    """Jinja's environment, with `x.name` on a plain dict looked up as an item first.

    The templates draw view data, which are dicts; Jinja tries the attribute first, and on a dict
    that fails with an AttributeError raised and caught per lookup — a fifth of a live frame's
    rendering. The answer is the same: a dict has no attributes but its methods, and
    those names still go to the attribute."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_NAMES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


templates = Jinja2Templates(
    env=ViewEnvironment(
        loader=jinja2.FileSystemLoader(str(ROOT / "templates")), autoescape=jinja2.select_autoescape()
    )
)
env = templates.env
# Templates change with a deploy, not while serving: without this every render (and every include
# in it) stats its files first. STARBOARD_TEMPLATE_RELOAD=1 brings the check back for editing them.
env.auto_reload = os.environ.get("STARBOARD_TEMPLATE_RELOAD") == "1"


PART_TEMPLATES = {path.stem for path in (ROOT / "templates" / "parts").glob("*.html")}


def _part_template(name: str) -> str | None:
    """The partial that draws a ship part, if that part has one (templates/parts/<name>.html)."""
    return f"parts/{name}.html" if name in PART_TEMPLATES else None


def _pct(value: float, total: float) -> float:
    return 0.0 if not total else max(0.0, min(100.0, 100.0 * value / total))


env.globals["part_template"] = _part_template
env.filters["pct"] = _pct
env.filters["rule_links"] = rule_links  # "(SH-14)" → a link to its entry on /rules
env.filters["prose"] = prose
env.filters["tile_lines"] = tile_lines  # a system's name on its sheet tile, whole words
env.filters["card_slot"] = slot  # a live frame's ship list holds each card's place, the cards follow


LOG_PAGE = 200  # log entries a page shows; older ones are a link away (the replay before them)


async def page_context(
    session: AsyncSession,
    battle: Battle,
    participant: Participant,
    csrf: str,
    log_limit: int | None = LOG_PAGE,
    log_since: int = 0,
    at_seq: int | None = None,
    rules: Rules = STANDARD,
) -> dict[str, Any]:
    """What every battle template needs, for this viewer only (as of `at_seq` for a replay): the
    data, what the rules let this viewer do now (`offers`; none in a replay), and each shown part's
    display values (`display`), so templates draw what the rules give them. The log stops at the
    state's own seq, so a page never shows an entry its state lacks."""
    data, viewer, people, game_state = await read_battle(session, battle, participant, at_seq, rules)
    names = {p.id: p.name for p in people}
    log = await visible_log(
        session, battle, viewer, since=log_since, until=data["seq"], limit=log_limit, names=names, marked=True
    )
    live_referee = participant.role == "referee" and at_seq is None
    history = await history_preview(session, battle.id) if live_referee else None
    marks = await standing(session, battle.id, until=data["seq"])  # the ⚑ markers
    # the map's ghosts and paths; no map, no rows
    game = rules.game(battle.system)
    moves = (
        await map_rows(session, battle.id, data["seq"], game.parts) if has_map(rules, battle.system) else []
    )
    return _context(
        battle,
        participant,
        viewer,
        data,
        people,
        names,
        log,
        csrf,
        game_state,
        at_seq is None,
        history,
        marks,
        moves=moves,
    )


def _context(
    battle: Battle,
    participant: Participant,
    viewer: Viewer,
    data: dict[str, Any],
    people: list[Participant],
    names: dict[str, str],
    log: list[Any],
    csrf: str,
    game_state: BattleState,
    live: bool,
    history: dict[str, Any] | None,
    marks: list[Mark] | None = None,
    moves: list[MapRow] | None = None,
    common: dict[Any, Any] | None = None,
    pushed: bool = False,
) -> dict[str, Any]:
    """`common`: what a live round's views share (see `display_values`); None for a page.
    `pushed`: a live frame's context (the override picker's values are not drawn in one)."""
    state = data["state"]
    offers = Offers(offers_for(game_state, viewer) if live else [])
    game = game_state.game
    board = map_for(state, moves or [], viewer, battle.status == "finished", game=game)
    # ship id → path → the override still standing there (the ⚑ marker; services/reading/overrides.py)
    marks_by_ship = flags(marks or [], game_state, state, viewer, battle.status == "finished")
    return {
        "map": board,
        "movers": map_movers(board, offers),
        "flags": marks_by_ship,
        # the referee's override picker: each ship's settable values, current and allowed (rules);
        # a live frame carries only their versions (the page fetches a ship's values when they move)
        "override_choices": {sid: choices_for(game_state, sid) for sid in game_state.ships}
        if viewer.is_referee and live and not pushed
        else {},
        "override_versions": {
            sid: values_version(ship, marks_by_ship.get(sid)) for sid, ship in state["ships"].items()
        }
        if viewer.is_referee and live
        else {},
        # the referee's undo/redo/rewind forms say what they would do (the log line of each)
        "history": history,
        "battle": {
            "id": battle.id,
            "name": battle.name,
            "system": battle.system,
            "clock": state["clock"],
            "status": battle.status,
            "dice_mode": battle.dice_mode,
        },
        "data": data,
        "state": state,
        "viewer": viewer,
        "me": participant,
        "seq": data["seq"],
        "csrf_token": csrf,
        "log": log,
        "people": [p for p in people if p.active],
        "names": names,
        "library": ships_for(game_state.game.system) if participant.role == "referee" else {},
        "offers": offers,
        "display": display_values(game_state, state, common),
        "damage_traits": damage_traits(game_state),
        "panels": ruleset_panels(game_state),
        # the board a ruleset keeps where the system plays in range bands (templates/partials/range_board.html)
        "range_board": game.range_board(game_state),
    }


def map_movers(board: dict[str, Any] | None, offers: Offers) -> list[str]:
    """The ships this viewer may place or move now: offered `ship.move` and not destroyed. The
    page's move form lists them and the board marks their counters, on a page and in a live frame
    alike (a frame drawn without them dropped the marks until the next reload)."""
    if not board:
        return []
    destroyed = {c["id"] for c in board["counters"] if c.get("destroyed")}
    return [sid for sid in offers.ships("ship.move") if sid not in destroyed]


def values_version(ship: dict[str, Any], marked: dict[str, Any] | None) -> str:
    """Which state of a ship the referee's override picker shows: a digest of the ship as the
    referee sees it (whole: every value the rules offer to set, and the sibling values that bound
    them, follow from it) and its ⚑ marks. A live frame carries it in place of the values, so the
    page knows when its copy of a ship's values is old; a ship the digest cannot read (not plain
    JSON data) is always old."""
    found = digest([ship, marked or {}])
    return found.hex() if found is not None else secrets.token_hex(8)


class Offers:
    """What the viewer may submit now, as templates ask it: `offers.allows("startrek.cloak", ship.id)`."""

    def __init__(self, offers: list[dict[str, Any]]) -> None:
        self._by_type = {o["type"]: o for o in offers}

    def allows(self, action: str, ship: str | None = None) -> bool:
        offer = self._by_type.get(action)
        if offer is None:
            return False
        return ship is None or not offer["ships"] or ship in offer["ships"]

    def ships(self, action: str) -> list[str]:
        """The ships the viewer may name as the acting ship of this action now (none: not offered)."""
        offer = self._by_type.get(action)
        return list(offer["ships"]) if offer else []

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._by_type.values())

    def __bool__(self) -> bool:
        return bool(self._by_type)


_NONE = object()


def display_values(
    state: Any, shown: dict[str, Any], common: dict[Any, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """ship id → part name → the values the rules derive for that part's template (from what the
    viewer may see of it). `common`: a round's values by ship and part, each kept with the part as
    it was shown — one state, so a part shown alike (a public part, or a ship seen whole by its
    commander and the referee) has one answer for every view (a sixth of a round's CPU was these
    worked out once per view)."""
    game = state.game
    out: dict[str, dict[str, Any]] = {}
    for sid, ship_data in shown["ships"].items():
        ship = state.ships[sid]
        values: dict[str, Any] = {}
        for name, part in ship_data["parts"].items():
            if not isinstance(part, dict):
                continue
            kept = common.setdefault((sid, name), []) if common is not None else []
            found = next((value for seen, value in kept if seen == part), _NONE)
            if found is _NONE:
                found = game.display(state, ship, name, part)
                kept.append((part, found))
            values[name] = found
        out[sid] = values
    return out


RULESET_PANELS = {path.stem for path in (ROOT / "templates" / "rulesets").glob("*.html")}


def ruleset_panels(state: Any) -> list[tuple[str, dict[str, Any]]]:
    """Each playing ruleset's battle-wide panel: its template and the values the rules give it."""
    return [
        (f"rulesets/{r.key}.html", r.panel(state))
        for r in state.game.rulesets
        if r.panel is not None and r.key in RULESET_PANELS
    ]


def damage_traits(state: Any) -> list[tuple[str, str]]:
    """The weapon traits a damage entry may carry: those of the rulesets that play in this battle."""
    return [trait for ruleset in state.game.rulesets for trait in ruleset.damage_traits]


def render(name: str, context: dict[str, Any]) -> str:
    return env.get_template(name).render(context)


@dataclass
class LiveRead:
    """One battle as read once for every viewer of it in this process: the snapshot, the seats,
    and the log rows after the oldest viewer's seq up to the snapshot's own seq (never past it)."""

    battle: Battle
    state: BattleState
    seq: int
    people: list[Participant]
    rows: list[ActionLog]
    step_since: Any = None  # when the current step began (the turn bar's pending times)
    drafts: list[Any] = field(default_factory=list)  # saved drafts (each viewer folds in its own)
    history: dict[str, Any] | None = None  # what the referee's undo/redo would do
    moves: list[MapRow] = field(default_factory=list)  # the map's rows (app/services/reading/maps.py)
    marks: list[Mark] = field(default_factory=list)  # overrides still standing (the ⚑ markers)
    # the actions an undo or rewind took back, and the marks each history row here changed
    taken: dict[int, TakenBack] = field(default_factory=dict)
    touched: dict[int, set[int]] = field(default_factory=dict)
    # the end came in these rows: the entries before it that it opens to more viewers (ST-22's path)
    revealed: list[ActionLog] = field(default_factory=list)
    end: int | None = None  # the end's seq, when it came in these rows
    clock_run: dict[str, Any] | None = None  # the battle clock's times (reading/clock_view.py), if it has one
    public: bool = False  # the battle is open to watchers by its public link (app/services/table/lobby.py)
    # what the round's views have in common, worked out for the first that needs it: each ship
    # part's display values by how the part is shown (the round's own; it goes with the read)
    common: dict[Any, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_id = {p.id: p for p in self.people}
        self.names = {p.id: p.name for p in self.people}


async def read_live(
    db: Database,
    battle_id: str,
    since: int,
    rules: Rules = STANDARD,
    watching: Collection[str] | None = None,
    logs: LiveLogs | None = None,
    wanted: int | None = None,
    seats_version: int = 0,
) -> LiveRead:
    """One round's read for every viewer of a battle here (this is what a wake-up costs).

    The battle and its snapshot come from this process's own last commit when that is the newest
    seq heard of (`wanted`), else from the database in one statement; the seats as kept until they
    change (`seats_version`); the log rows after the last seq this process has seen — the map's
    rows, the ⚑ markers and the step's start are kept per battle in `logs` and extended by those
    rows, never read whole again; the drafts only in games that have drafts. The rows are bounded
    by the snapshot's seq, so a frame never carries an entry past its own seq.

    `watching`: the seats with a socket on this battle in this process (None: any seat). Only a
    referee's frame shows the undo/redo preview, so it is worked out only when a referee among them
    watches — from the kept log (`BattleLog.preview`), once per new row."""
    logs = logs if logs is not None else LiveLogs(battles=1)
    commit = logs.latest(battle_id, wanted)
    async with db.reader() as session:  # it connects only if a statement is needed
        if commit is not None:
            battle, seq, state = commit.battle, commit.seq, commit.state
            logs.offer(battle_id, commit.row)
        else:
            found = (
                await session.execute(
                    select(Battle, Snapshot.seq, Snapshot.state)
                    .join(Snapshot, Snapshot.battle_id == Battle.id)
                    .where(Battle.id == battle_id)
                )
            ).first()
            if found is None:
                raise NotFound("no such battle", "battle")
            battle, seq, stored = found
            state = rules.load(stored)
        people = logs.seats(battle_id, seats_version)
        if people is None:
            people = await participants(session, battle_id)
            logs.keep_seats(battle_id, seats_version, people)
        log, rows = await logs.read(session, battle_id, since, seq, state.game.parts)
        saved = await draft_rows(session, battle_id) if drafts_possible(state) else []
        referee_seated = any(
            p.role == "referee" and p.active and (watching is None or p.id in watching) for p in people
        )
        history = await log.preview(session, battle_id) if referee_seated else None
        end = next((r.seq for r in rows if r.action_type == END), None)
        revealed = await revealed_at_end(session, battle_id, end) if end is not None else []
        clock_run = await read_run(session, battle_id) if settings_of(state) is not None else None
        # read only while a public watcher is here: whether the battle is still open to them
        public = watching is not None and PUBLIC_ID in watching and await public_watch(session, battle_id)
    return LiveRead(
        battle,
        state,
        seq,
        people,
        rows,
        step_since=log.step_since(),
        history=history,
        drafts=saved,
        marks=log.marks(),
        moves=log.moves if has_map(rules, battle.system) else [],
        taken=dict(log.walk.taken),
        touched={seq: seqs for seq, seqs in log.touched.items() if seq > since},
        revealed=revealed,
        end=end,
        clock_run=clock_run,
        public=public,
    )


END = "battle.end"


async def revealed_at_end(session: AsyncSession, battle_id: str, end: int) -> list[ActionLog]:
    """The log rows before the end with an event the end opens (`reveal_at_end`): a viewer holding
    them as hidden gets them again in the end's frame (read once, in the round the end arrives)."""
    rows = await session.scalars(
        select(ActionLog).where(ActionLog.battle_id == battle_id, ActionLog.seq < end).order_by(ActionLog.seq)
    )
    return [r for r in rows if any((e.get("data") or {}).get("reveal_at_end") for e in r.events)]


async def battle_seqs(db: Database, battle_ids: list[str]) -> dict[str, int]:
    """The current seq of each battle (the heartbeat's one query)."""
    async with db.reader() as session:
        rows = await session.execute(select(Battle.id, Battle.seq).where(Battle.id.in_(battle_ids)))
        return {battle_id: seq for battle_id, seq in rows}


_OPEN = "<hx-partial "
_TARGET = re.compile(r'^<hx-partial hx-target="([^"]+)"')


class LiveViews:
    """The hub's renderer: what a viewer sees depends only on their role and the ships they
    command, so spectators share one rendering per seq, and so do a player's tabs. The CSRF
    token (per browser session) is a placeholder the hub fills in per socket."""

    def __init__(self) -> None:
        # as long as a token (secrets.token_urlsafe(32)), so hunks made against it fit the page's text
        self.placeholder = f"__csrf_{secrets.token_hex(17)}__"
        self.cards = CardMemo(env, PART_TEMPLATES)  # a card is drawn again only when it changed

    def _me(self, read: LiveRead, viewer: Subscriber) -> Participant:
        if viewer.participant_id == PUBLIC_ID:  # every public watcher shares the spectator's view
            if not read.public:
                raise SeatGone(viewer.participant_id)
            return public_reader(read.battle)
        me = read.by_id.get(viewer.participant_id)
        if me is None or not me.active:
            raise SeatGone(viewer.participant_id)
        return me

    def key(self, read: LiveRead, viewer: Subscriber) -> Any:
        seen = viewer_of(self._me(read, viewer), read.state)
        return (seen.role, seen.ships)

    def html(self, read: LiveRead, viewer: Subscriber) -> list[tuple[str, str]]:
        since = viewer.last_seq or 0
        html = live_html(read, self._me(read, viewer), since, self.placeholder, self.cards)
        return regions_of(html)


def regions_of(html: str) -> list[tuple[str, str]]:
    """The rendered <hx-partial> elements as (target, html) pairs, in order; "+" before a target
    marks the log's part, which is appended and only ever carries new entries (and a log entry's
    mark, `data-once`, sent only with the rows that changed it)."""
    regions = []
    start = html.find(_OPEN)
    while start != -1:
        end = html.find(_OPEN, start + 1)
        part = html[start:end] if end != -1 else html[start:]
        opening = part[: part.find(">") + 1]
        target = _TARGET.match(opening)
        name = target.group(1) if target else ""
        once = "beforeend" in opening or " data-once" in opening
        regions.append(("+" + name if once else name, part))
        start = end
    return regions


def live_html(read: LiveRead, me: Participant, since: int, csrf: str, cards: CardMemo | None = None) -> str:
    """The regions that change, as <hx-partial> elements for htmx, rendered for this viewer
    (`cards`: ship cards kept from earlier frames; None draws every one)."""
    viewer = viewer_of(me, read.state)
    state = with_drafts(read.state, read.drafts, viewer)
    data = view_data(
        read.battle,
        state,
        read.seq,
        me,
        viewer,
        read.people,
        step_since=read.step_since,
        clock_run=read.clock_run,
    )
    rows = [r for r in read.rows if r.seq > since]
    log = log_entries(rows, read.battle, viewer, read.names, read.taken)
    history = read.history if me.role == "referee" else None
    context = _context(
        read.battle,
        me,
        viewer,
        data,
        read.people,
        read.names,
        log,
        csrf,
        state,
        True,
        history,
        read.marks,
        moves=read.moves,
        # shared only while the view's state is the round's (drafts folded in make it the viewer's)
        common=read.common if state is read.state else None,
        pushed=True,
    )
    # the entries this viewer holds whose taken-back mark changed (an undo, redo or rewind landed)
    context["remarked"] = [(seq, read.taken.get(seq)) for seq in remarked(read.touched, since)]
    # the entries this viewer holds that the end opened: drawn again as the battle's end shows them
    held = [r for r in read.revealed if r.seq <= since] if read.end is not None and since < read.end else []
    context["reopened"] = log_entries(held, read.battle, viewer, read.names, read.taken) if held else []
    context["pushed"] = True  # forms without the seq: the page fills it in (partials/action_fields.html)
    context["unpacked"] = read.common.setdefault("cards", {})  # kept cards unpacked once a round
    context["cards"] = (cards or _EVERY_CARD).cards(context)
    return render("partials/live_update.html", context)


_EVERY_CARD = CardMemo(env, PART_TEMPLATES, size=0)
_EVERY_CARD.enabled = False
