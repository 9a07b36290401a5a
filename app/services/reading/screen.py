"""The audience's viewscreen (/battles/{id}/screen): which seq it shows and its ticker of events.

A tournament's referee may hold the screen behind the battle — N actions, or the state as the
current turn began — so a stream cannot be watched to help a player. The screen reads the battle
as the public reads it (a spectator commanding nothing) at that seq, through the same per-viewer
views and replay every page uses: a delay changes *when*, never *what*, the audience sees."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ActionLog, Battle
from app.rules import Rules
from app.rules.ruleset import PartSpec
from app.services.reading.report import figures
from app.services.reading.report_share import public_reader
from app.services.reading.views import read_battle, visible_log

TICKER_LINES = 6  # the last log entries the screen's ticker shows
_TURN = re.compile(r"T(\d+)")


async def screen_seq(
    session: AsyncSession, battle: Battle, delay_actions: int = 0, delay_turn: bool = False
) -> int:
    """The seq the screen shows: the battle's own; `delay_actions` behind; or (`delay_turn`) the
    state as the current turn began — after the action that opened it, the last one made in an
    earlier turn (each log row carries the clock it was made at, "T4 I17"). With both, the earlier.
    A finished battle shows its end: there is nothing left to help anyone with."""
    if battle.status == "finished" or not (delay_actions or delay_turn):
        return battle.seq
    shown = max(0, battle.seq - delay_actions)
    if delay_turn:
        shown = min(shown, await _turn_opened(session, battle))
    return shown


async def _turn_opened(session: AsyncSession, battle: Battle, page: int = 200) -> int:
    """The seq of the action that opened the battle's current turn: the latest made in an earlier
    one (0 in the first turn). Read back a page of rows at a time, so a poll reads about one
    turn's rows however long the battle is."""
    below = battle.seq + 1
    while below > 1:
        rows = (
            await session.execute(
                select(ActionLog.seq, ActionLog.clock)
                .where(ActionLog.battle_id == battle.id, ActionLog.seq < below)
                .order_by(ActionLog.seq.desc())
                .limit(page)
            )
        ).all()
        for seq, clock in rows:
            turn = _TURN.match(clock or "")
            if turn is not None and int(turn.group(1)) < battle.turn:
                return int(seq)
        if len(rows) < page:
            break
        below = rows[-1][0]
    return 0


def screen_ticker(log: list[Any], lines: int = TICKER_LINES) -> list[dict[str, Any]]:
    """The last entries of the viewer's log (already filtered for the public) as ticker lines,
    newest first: an entry the public may read nothing of shows as "a hidden action"."""
    out = []
    for entry in reversed(log):
        texts = [e["text"] for e in entry.events if e.get("text")]
        if not texts and not entry.hidden:
            continue
        out.append({"seq": entry.seq, "clock": entry.clock, "texts": texts, "hidden": entry.hidden})
        if len(out) == lines:
            break
    return out


def screen_ships(view: dict[str, Any], parts: Mapping[str, PartSpec]) -> list[dict[str, Any]]:
    """Each ship as the screen shows it, from the public view (`battle_view` for a viewer who
    commands nothing): its name, class, side, whether it is out, and what each of its parts reports
    of itself (`PartSpec.report`: a track, gauges, sections, other values) — the battle report's
    figures, so the screen names no ruleset and shows nothing the public view lacks."""
    told = figures(view, parts)
    out = []
    for sid, ship in view["ships"].items():
        f = told[sid]
        out.append(
            {
                "id": sid,
                "name": ship["name"],
                "klass": ship.get("klass") or "",
                "side": ship.get("side") or "",
                "destroyed": bool(ship.get("destroyed")),
                "crippled": bool(ship.get("crippled")),
                "hidden": bool(ship.get("position_hidden")),
                "points": f.points,  # what damage can still take off it
                "track": f.track,
                "gauges": f.gauges,
                "sections": f.sections,
                "others": [{"name": v.name, "text": _number(v.value, v.most)} for v in f.values],
            }
        )
    return out


def _number(value: float, most: float | None) -> str:
    shown = f"{value:g}"
    return shown if most is None else f"{shown}/{most:g}"


async def screen_view(
    session: AsyncSession, battle: Battle, delay_actions: int, delay_turn: bool, rules: Rules
) -> dict[str, Any]:
    """What the viewscreen shows, as data (the bots' and tools' twin of the page): the seq it
    shows and how far behind the battle that is, each ship as the public sees it then, and the
    ticker — read as the public reads it, through the same views and replay as the page."""
    at = await screen_seq(session, battle, delay_actions, delay_turn)
    data, viewer, people, _ = await read_battle(
        session, battle, public_reader(battle), None if at == battle.seq else at, rules
    )
    names = {p.id: p.name for p in people}
    log = await visible_log(session, battle, viewer, since=max(0, at - 40), until=data["seq"], names=names)
    return {
        "battle_id": battle.id,
        "name": battle.name,
        "system": battle.system,
        "status": battle.status,
        "seq": at,
        "behind": battle.seq - at if battle.status != "finished" else 0,
        "ships": screen_ships(data["state"], rules.game(battle.system).parts),
        "ticker": screen_ticker(log),
    }
