"""A ship card's parts, each drawn again only when what its own template reads changed.

A card is drawn again when anything it shows changed, and then every part on it was drawn again
too: a hit on a section redrew the ship's shields, drives and pain track, a clock step that moved
the shields redrew the ship's sheet — the largest part, a third of a card. `PartMemo` keeps each
part as drawn by a digest of what its templates (and all they include) read: the part as this
viewer sees it, the ship's other fields (the whole ship for a template that reads its other parts),
its own display values (`display[ship.id].<part>`; all of the ship's when it reads more), its ⚑
flags, and — only when the template reads them — the seat names, the battle, the CSRF placeholder,
the seq and what the target lists read of the other ships. What it asks of the viewer and their
offers goes through the card's `Asked`, so the card that holds a kept part also answers its
questions (a card is another viewer's only when every question has the same answer).

What each part's templates read is found by parsing them (`jinja2.meta`, and for the ship, the
display values and the flags, how they are used); anything the key cannot narrow is keyed whole.
"""

from __future__ import annotations

import re
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jinja2
from markupsafe import Markup

from app.web.drawing.cards import SEEN_SEQ, TEMPLATE_CODE, VARIANTS, Asked, digest, parsed, read_by

# What a part's key takes only when its templates read it.
OPTIONAL = ("names", "csrf_token", "pushed")


@dataclass(frozen=True)
class PartReads:
    """What one part's templates read of a card's context, as its key takes it."""

    template: str
    reads: frozenset[str]
    ship: tuple[str, ...] | None  # the ship's fields it reads (None: the whole ship — its parts too)
    own_display: bool  # it reads only its own display values, as display[ship.id].<name>
    own_flags: bool  # it reads only the ship's flags, as flags.get(ship.id …)
    lists: bool  # it reads the ship list (`state`)
    battle: tuple[str, ...] | None  # the battle's fields it reads (None: the battle whole)


_MACRO = re.compile(r"\{%-?\s*macro\s+\w+\(([^)]*)\).*?\{%-?\s*endmacro\s*-?%\}", re.S)


def _own(source: str) -> str:
    """A template's source with `ship` renamed inside macros that take a `ship` of their own
    (there it is the argument, not the card's ship); all else they read is kept."""

    def renamed(macro: re.Match[str]) -> str:
        whole = macro.group(0)
        return (
            re.sub(r"\bship\b", "ship_argument", whole) if re.search(r"\bship\b", macro.group(1)) else whole
        )

    return _MACRO.sub(renamed, source)


def _code(env: jinja2.Environment, names: list[str]) -> str:
    """The expressions and statements of these templates, as one text to search."""
    loader = env.loader
    if loader is None:
        raise TypeError("a template environment without a loader has no sources to read")
    return " ".join(" ".join(TEMPLATE_CODE.findall(_own(loader.get_source(env, n)[0]))) for n in names)


def part_reads(env: jinja2.Environment, name: str) -> PartReads | None:
    """What the part's template reads; None when it includes a template chosen while drawing."""
    template = f"parts/{name}.html"
    names, todo = [], [template]
    while todo:
        at = todo.pop()
        if at not in names:
            names.append(at)
            found = parsed(env, at)[1]
            if None in found:
                return None
            todo.extend(t for t in found if t is not None)
    reads = frozenset(set().union(*(read_by(env, n) for n in names)))
    code = _code(env, names)
    ship_uses = re.findall(r"(?<![.\w])ship\b(?!\s*=[^=])(\.\w+)?", code)  # not `ship=` (an argument's name)
    whole_ship = any(field in ("", ".parts") for field in ship_uses)
    ship_fields = None if whole_ship else tuple(sorted({field[1:] for field in ship_uses}))
    display = re.findall(r"(?<![.\w])display\b(\[ship\.id\]\.\w+)?", code)
    flags = re.findall(r"(?<![.\w])flags\b(\.get\(ship\.id\b| is defined)?", code)
    battle = re.findall(r"(?<![.\w])battle\b(?:\.(\w+))?", code)
    return PartReads(
        template,
        reads,
        ship_fields,
        all(use == f"[ship.id].{name}" for use in display),
        all(use for use in flags),
        "state" in reads,
        None if "" in battle else tuple(sorted(set(battle))),
    )


class PartMemo:
    """Drawn card parts by what they read (see the module's docstring); at most `size` kept."""

    def __init__(
        self,
        env: jinja2.Environment,
        parts: set[str],
        ship_list: Callable[[dict[str, Any]], Any],
        size: int = 2048,
    ) -> None:
        self.env, self.size, self.ship_list = env, size, ship_list
        self.reads = {name: part_reads(env, name) for name in parts}
        self._kept: OrderedDict[bytes, list[tuple[list[Any], bytes]]] = OrderedDict()
        self.hits = self.draws = 0

    def _key(self, context: dict[str, Any], ship: dict[str, Any], name: str, part: Any) -> bytes | None:
        reads = self.reads.get(name)
        if reads is None:
            return None
        sid = ship.get("id")
        shown = context["display"].get(sid) or {}
        flags = context.get("flags") or {}
        pushed = bool(context.get("pushed"))
        return digest(
            [
                name,
                part,
                ship if reads.ship is None else [ship.get(f) for f in reads.ship],
                (shown.get(name) if reads.own_display else shown) if "display" in reads.reads else None,
                (flags.get(sid) if reads.own_flags else flags) if "flags" in reads.reads else None,
                self.ship_list(context) if reads.lists else None,
                self._battle(context, reads) if "battle" in reads.reads else None,
                *(context.get(v) if v in reads.reads else None for v in OPTIONAL),
                None if pushed else context.get("seq"),
            ]
        )

    @staticmethod
    def _battle(context: dict[str, Any], reads: PartReads) -> Any:
        battle = context["battle"]
        return battle if reads.battle is None else [battle.get(f) for f in reads.battle]

    def hook(
        self, context: dict[str, Any], ship: dict[str, Any], questions: list[Any]
    ) -> Callable[[dict[str, Any], str, Any], Markup]:
        """The card template's `drawn_part` for drawing `ship` with this (unwrapped) context: each
        part from the memo, its questions added to the card's (`questions`)."""

        def drawn_part(shown: dict[str, Any], name: str, part: Any) -> Markup:
            return self.draw(context, shown, name, part, questions)

        return drawn_part

    def draw(
        self, context: dict[str, Any], ship: dict[str, Any], name: str, part: Any, questions: list[Any]
    ) -> Markup:
        key = self._key(context, ship, name, part)
        offers, viewer = context["offers"], context["viewer"]
        kept = self._kept.get(key) if key is not None else None
        for asked_before, packed in kept or ():
            if Asked.same(asked_before, offers, viewer):
                self._kept.move_to_end(key)  # type: ignore[arg-type]
                self.hits += 1
                questions.extend(asked_before)
                return Markup(zlib.decompress(packed).decode())
        asked = Asked(offers, viewer)
        template = self.env.get_template(f"parts/{name}.html")
        drawn = Markup(
            template.render(
                {**context, "offers": asked.offers, "viewer": asked.viewer, "ship": ship, "part": part}
            )
        )
        self.draws += 1
        questions.extend(asked.questions)
        if key is not None and SEEN_SEQ not in drawn:
            self._kept[key] = [*(kept or ()), (asked.questions, zlib.compress(drawn.encode(), 1))][-VARIANTS:]
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return drawn
