"""The battle report told as a story: a headline (who fought, how it ended), the end as the
referee or the rules recorded it (reason and winner), and each turn in sentences — the turning
points in the log's own words and the damage each ship took and dealt.

Everything here is read from a report already built for one viewer (`services.report`): the
sentences say nothing that viewer's charts and turning points do not, so the public share and the
image (built from the spectator's report) can say no more than a spectator sees. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, Field

from app.rules.generic.ending import DRAW


class EndOut(BaseModel):
    seq: int = Field(description="the action that ended the battle")
    turn: int
    by: str = Field(description='"referee" (battle.end) or "rules" (an end the battle options chose)')
    reason: str = Field(description="why, as recorded: the referee's reason or the rules' sentence")
    winner: str | None = Field(description='the side that won, "draw", or null when the end does not say')
    text: str = Field(description="the log's sentence")


class StoryTurn(BaseModel):
    number: int
    label: str = Field(description='as the log heads it: "Turn 2"')
    steps: str = Field(
        description='the steps its actions were made in, as the log says them: "Turn 2 · Orders"'
    )
    sentences: list[str]


class Report(Protocol):
    """What the story reads of a built report (`reading.report.Report`), named here so the story
    does not import the report that calls it."""

    name: str
    finished: bool
    ships: Sequence[Any]
    turns: Sequence[Any]
    damage: Sequence[Any]
    turning_points: Sequence[Any]

    @property
    def ending(self) -> EndOut | None: ...


def _names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def sides(report: Report) -> list[str]:
    """Who fought: the ships' sides in the order they appear (a ship without a side by its name)."""
    return list(dict.fromkeys(s.side or s.name for s in report.ships))


def outcome(end: EndOut | None) -> str:
    if end is None:
        return ""
    if end.winner == DRAW:
        return "a draw"
    if end.winner:
        return f"the {end.winner} side wins"
    return "the battle is over"


def headline(report: Report) -> str:
    """One line to post: "Federation vs Romulans — the Federation side wins in 3 turns: The
    Romulans withdraw." While the battle runs: "Federation vs Romulans — turn 3 under way"."""
    fought = " vs ".join(sides(report)) or report.name
    done = [t for t in report.turns if t.actions]
    count = len(done)
    turns = f"{count} turn{'s' if count != 1 else ''}"
    end = report.ending
    if end is not None:
        reason = f": {end.reason}" if end.reason else ""
        return f"{fought} — {outcome(end)} after {turns}{reason}"
    if report.finished:
        return f"{fought} — over after {turns}"
    return f"{fought} — turn {report.turns[-1].number} under way"


def tell(report: Report) -> list[StoryTurn]:
    """Each turn in sentences: its turning points (the log's sentences, in order), then the damage
    taken and dealt in it, and the end in the turn that saw it."""
    taken: dict[int, list[tuple[str, int]]] = {}
    dealt: dict[int, list[tuple[str, int]]] = {}
    for series in report.damage:
        for p in series.points:
            if p.taken:
                taken.setdefault(p.turn, []).append((series.name, p.taken))
            if p.dealt:
                dealt.setdefault(p.turn, []).append((series.name, p.dealt))
    story = []
    for t in report.turns:
        said = [tp.text for tp in report.turning_points if tp.turn == t.number]
        hurt = sorted(taken.get(t.number, []), key=lambda x: -x[1])
        hit = sorted(dealt.get(t.number, []), key=lambda x: -x[1])
        if hit:
            said.append("Damage dealt: " + _names([f"{name} {n}" for name, n in hit]) + ".")
        if hurt:
            said.append("Damage taken: " + _names([f"{name} {n}" for name, n in hurt]) + ".")
        end = report.ending
        if end is not None and end.turn == t.number:
            said.append(end.text)
        if not said:
            said.append(
                "Nothing has happened yet." if not t.actions else "A quiet turn: no ship took damage."
            )
        story.append(StoryTurn(number=t.number, label=t.label, steps=t.steps, sentences=said))
    return story
