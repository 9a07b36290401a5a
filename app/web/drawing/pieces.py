"""Pieces of a live frame drawn once per visibility and kept until what they read changes.

The referee's tools were redrawn whole for every referee's frame, though an action changes at most
one ship's values: the override picker alone — every settable value of every ship, with its
control — was a twelfth of the process's CPU on the mixed table. Its part for one ship
(`partials/override_ship.html`) reads only that ship as the referee sees it (every field, so
what the rules offer to set on it, `choices_for`, follows from it and the game), its ⚑ marks, the
battle's id and dice mode, the CSRF placeholder and whether the frame is pushed. `PieceMemo`
keeps each part by a digest of exactly those, and works the choices out only when it draws.

Which variables the piece's templates read is found by parsing them (`jinja2.meta`, as for the
cards): a template that reads anything else — or the battle's clock, which the key leaves out —
turns the memo off (every piece drawn) and tests/web/test_live_pieces.py says so.
"""

from __future__ import annotations

import re
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jinja2
from markupsafe import Markup

from app.web.drawing.cards import digest, parsed, read_by

OVERRIDE_SHIP = "partials/override_ship.html"
# What the piece may read: its ship (the referee's view of it), the choices worked out from that
# ship, its ⚑ marks, the battle (id and dice mode: `BATTLE_FIELDS`), the CSRF placeholder, and the
# seq with `pushed` (a pushed form carries no seq), plus what it sets itself.
PIECE_INPUTS = frozenset({"ship", "choices", "marked", "battle", "csrf_token", "seq", "pushed"})
PIECE_LOCALS = frozenset({"c", "o", "here", "field", "no_dice"})
BATTLE_FIELDS = ("id", "dice_mode")
_BATTLE_ELSE = re.compile(r"\bbattle\s*(?:\[|\.\s*(?!(?:id|dice_mode)\b)\w)")


def templates_under(env: jinja2.Environment, name: str) -> list[str]:
    """A template and all it includes or imports, at any depth (an include chosen while drawing
    cannot be followed: None — the caller turns its memo off)."""
    found: list[str] = []
    todo: list[str | None] = [name]
    while todo:
        at = todo.pop()
        if at is None:
            return [*found, ""]
        if at in found:
            continue
        found.append(at)
        todo.extend(parsed(env, at)[1])
    return found


class Choices(Mapping[str, Any]):
    """ship id → what the referee may set on it now (`choices_for`), worked out when first asked:
    a frame whose override pieces are all kept asks for none."""

    def __init__(self, ships: Iterator[str] | list[str], work: Callable[[str], Any]) -> None:
        self._ships, self._work, self._done = list(ships), work, {}

    def __getitem__(self, sid: str) -> Any:
        if sid not in self._ships:
            raise KeyError(sid)
        if sid not in self._done:
            self._done[sid] = self._work(sid)
        return self._done[sid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ships)

    def __len__(self) -> int:
        return len(self._ships)


class PieceMemo:
    """One referee's override piece per ship, by a digest of what it reads (see the module's
    docstring); at most `size` kept, zlib-packed as the cards are."""

    def __init__(self, env: jinja2.Environment, size: int = 256) -> None:
        self.env, self.size = env, size
        names = templates_under(env, OVERRIDE_SHIP)
        loader = env.loader
        sources = [loader.get_source(env, n)[0] for n in names if n] if loader else []
        self.unknown = set().union(*(read_by(env, n) for n in names if n)) - PIECE_INPUTS - PIECE_LOCALS
        self.enabled = (
            "" not in names
            and not self.unknown
            and not any(_BATTLE_ELSE.search(s) for s in sources)
            and not env.auto_reload
        )
        self._kept: OrderedDict[bytes, bytes] = OrderedDict()
        self.hits = self.draws = 0

    def override_ship(
        self, context: dict[str, Any], ship: dict[str, Any], choices: Mapping[str, Any], marked: Any
    ) -> Markup:
        """The override picker's part for `ship` as the frame's template would include it."""
        battle = context["battle"]
        pushed = bool(context.get("pushed"))
        key = None
        if self.enabled and ship.get("commanded"):  # seen whole: the choices follow from it
            key = digest(
                [
                    OVERRIDE_SHIP,
                    ship,
                    context["state"].get("system"),
                    context["state"].get("options"),
                    marked,
                    [battle.get(f) for f in BATTLE_FIELDS],
                    context["csrf_token"],
                    pushed,
                    None if pushed else context["seq"],
                ]
            )
        if key is not None:
            packed = self._kept.get(key)
            if packed is not None:
                self._kept.move_to_end(key)
                self.hits += 1
                return Markup(zlib.decompress(packed).decode())
        piece = Markup(
            self.env.get_template(OVERRIDE_SHIP).render(
                {
                    "ship": ship,
                    "choices": choices.get(ship["id"], []),
                    "marked": marked,
                    "battle": battle,
                    "csrf_token": context["csrf_token"],
                    "seq": context["seq"],
                    "pushed": context.get("pushed"),
                }
            )
        )
        self.draws += 1
        if key is not None:
            self._kept[key] = zlib.compress(piece.encode(), 1)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return piece

    def override_ships(self, context: dict[str, Any]) -> dict[str, Markup]:
        """Every ship's override piece for a referee's frame, in the state's order."""
        choices, flags = context["override_choices"], context["flags"]
        return {
            sid: self.override_ship(context, ship, choices, flags.get(sid, {}))
            for sid, ship in context["state"]["ships"].items()
        }
