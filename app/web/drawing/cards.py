"""Ship cards for live frames, drawn again only when something they show changed.

A live frame draws every ship card for its view, and most actions change one ship: the other cards
come out the same. `CardMemo` keeps each card by a digest of exactly what its templates read — the
ship as this viewer sees it, its display values and ⚑ flags, the seat names, the battle (its
clock), the CSRF placeholder, and what the target lists read of the other ships — so a card is
reused only when every one of those is the same.

A card is drawn once per visibility, not once per view: what it shows of the ship is in that key
(a commander's and the referee's view of their ship differ from the public one there), and what
it asks of the viewer and their offers (`viewer.is_referee`, `ship.id in viewer.ships`,
`offers.allows("…", ship.id)`, …) is asked through `Asked`, which keeps each question with its
answer. A card drawn for one viewer is another viewer's when the key is the same and every one of
those questions has the same answer for them: a spectator, a player who does not command the
ship and one who does see the public card, drawn once. A card with an action form also draws the seq (the form's seen_seq): it is kept
per seq. Which variables the card's templates (and all they include) read is found by parsing them
(`jinja2.meta`): a template that starts reading anything else turns the memo off (every card is
drawn, as before) until `INPUTS` names it, and a test says so. Anything in those inputs that is not
plain JSON data also means the card is drawn, never a guess. Cards are kept zlib-packed (`pack`):
a card is 20–30 thousand characters, two bytes each in a str, and a frame's round unpacks each
once for all its views.
"""

from __future__ import annotations

import hashlib
import json
import re
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import jinja2
from jinja2 import meta
from markupsafe import Markup

CARD = "partials/ship.html"

# What a card's templates may read from the frame's context, and how the key takes each one.
INPUTS = frozenset(
    {
        "ship",
        "names",
        "display",
        "flags",
        "offers",
        "viewer",
        "state",
        "battle",
        "csrf_token",
        "seq",
        "pushed",
    }
)
# The one template that draws the seq (an action form's seen_seq), always with this marker: a card
# drawn without it is the same at every seq (a spectator's), one drawn with it is kept per seq.
FIELDS = "partials/action_fields.html"
SEEN_SEQ = "data-seen-seq"
_BY_SEQ = Markup("")  # kept under a card's key when that card draws the seq: look it up by seq
# Names the templates set themselves or for what they include (loop variables, `set`s and
# `with`s that jinja2.meta counts as read).
LOCALS = frozenset({"part", "feeds", "k", "xy", "on_board", "no_dice", "shown"})


class _NotData(TypeError):
    pass


def _refuse(value: Any) -> Any:
    raise _NotData(type(value).__name__)


def digest(inputs: list[Any]) -> bytes | None:
    """What a drawing reads, as a short key: a digest of it as JSON; None when it is not plain JSON
    data (or holds a cycle) — then it is drawn, never guessed."""
    try:
        text = json.dumps(inputs, default=_refuse, separators=(",", ":"))
    except (_NotData, ValueError):
        return None
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


# env → (template name, its source) → what it reads and what it includes. Parsing the card's
# templates was most of an app's start-up (about 0.25 s, and the test suite starts hundreds of
# apps); a source that changes (auto-reload) is parsed again under its new text.
_parsed: weakref.WeakKeyDictionary[jinja2.Environment, dict[tuple[str, str], Any]] = (
    weakref.WeakKeyDictionary()
)


def parsed(env: jinja2.Environment, name: str) -> tuple[frozenset[str], tuple[str | None, ...]]:
    """The variables a template reads (jinja2.meta's undeclared names) and the templates it
    includes or imports (None: one chosen while drawing), parsed once per source."""
    loader = env.loader
    if loader is None:
        raise TypeError("a template environment without a loader has no sources to parse")
    source = loader.get_source(env, name)[0]
    known = _parsed.setdefault(env, {})
    found = known.get((name, source))
    if found is None:
        tree = env.parse(source)
        found = known[(name, source)] = (
            frozenset(meta.find_undeclared_variables(tree)),
            tuple(meta.find_referenced_templates(tree)),
        )
    return found


def _source(env: jinja2.Environment, name: str) -> str:
    loader = env.loader
    if loader is None:
        raise TypeError("a template environment without a loader has no sources to read")
    return loader.get_source(env, name)[0]


def card_templates(env: jinja2.Environment, parts: Iterable[str]) -> list[str]:
    """The card's template, every part's, and all they include or import, at any depth."""
    found: list[str] = []
    todo = [CARD, *(f"parts/{name}.html" for name in sorted(parts))]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.append(name)
        # None: an include chosen while drawing — the parts' (`part_template`), all listed above
        todo.extend(t for t in parsed(env, name)[1] if t is not None)
    return found


# What a target list reads of the other ships: a card that lists them is drawn again when one of
# these changes, not on every hit to any ship. `list_fields` checks the templates read no more.
LIST_FIELDS = ("name", "position_hidden", "destroyed")
_CODE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)  # a template's expressions and statements


def list_fields(source: str) -> bool:
    """Whether a template reads nothing of the ship list but LIST_FIELDS of each ship: the list is
    bound whole (`{% set known = state.ships %}`) or looped over (`for sid, other in
    known.items()`), and every use of those names is `known[…].field`, `other.field`,
    `sid in known` or the loop itself. Anything else: False (the memo keys on the whole list)."""
    code = " ".join(_CODE.findall(source))
    fields = "|".join(LIST_FIELDS)
    lists = {"state.ships", *re.findall(r"\bset\s+(\w+)\s*=\s*state\.ships\s*-?%\}", code)}
    rows: set[str] = set()
    for name in sorted(lists, key=len, reverse=True):
        n = re.escape(name)
        rows |= set(re.findall(rf"for\s+\w+\s*,\s*(\w+)\s+in\s+{n}\.items\(\)", code))
        code = re.sub(rf"for\s+\w+\s*,\s*\w+\s+in\s+{n}\.items\(\)", "for", code)
        code = re.sub(rf"\bset\s+\w+\s*=\s*{n}\s*-?%\}}", "", code)
        code = re.sub(rf"\b{n}\[[^\]]+\]\.(?:{fields})\b", "", code)
        code = re.sub(rf"\bin\s+{n}\b(?![.\[])", "", code)
    for name in rows:
        code = re.sub(rf"\b{re.escape(name)}\.(?:{fields})\b", "", code)
    return not any(re.search(rf"\b{re.escape(name)}\b", code) for name in lists | rows)


def read_by(env: jinja2.Environment, name: str) -> set[str]:
    """The context variables a template reads (its own globals left out)."""
    return set(parsed(env, name)[0]) - set(env.globals)


class AskedShips:
    """The viewer's ships, as a card asks about them (see `Asked`)."""

    __slots__ = ("_ships", "_asked")

    def __init__(self, ships: Any, asked: list[tuple[str, tuple[Any, ...], Any]]) -> None:
        self._ships, self._asked = ships, asked

    def __contains__(self, item: object) -> bool:
        answer = item in self._ships
        self._asked.append(("in ships", (item,), answer))
        return answer

    def __iter__(self) -> Any:
        self._asked.append(("viewer", ("ships",), list(self._ships)))
        return iter(self._ships)

    def __len__(self) -> int:
        self._asked.append(("viewer", ("ships",), list(self._ships)))
        return len(self._ships)


class Asked:
    """The viewer and their offers as a card's drawing sees them: every question it asks (which
    attribute, which action for which ship, whether a ship is theirs) is kept with its answer, so
    the card can be given to another viewer for whom every answer is the same (`same`)."""

    def __init__(self, offers: Any, viewer: Any) -> None:
        self.questions: list[tuple[str, tuple[Any, ...], Any]] = []
        self.offers, self.viewer = AskedOffers(offers, self.questions), AskedViewer(viewer, self.questions)

    @staticmethod
    def same(questions: list[tuple[str, tuple[Any, ...], Any]], offers: Any, viewer: Any) -> bool:
        """Whether every question a drawing asked has the same answer for this viewer and offers."""
        for kind, args, answer in questions:
            if kind == "allows":
                now: Any = offers.allows(*args)
            elif kind == "ships":
                now = list(offers.ships(*args))
            elif kind == "offers":
                now = list(offers)
            elif kind == "in ships":
                now = args[0] in viewer.ships
            else:  # "viewer": an attribute read whole
                value = getattr(viewer, args[0])
                now = list(value) if args[0] == "ships" else value
            if now != answer:
                return False
        return True


class AskedOffers:
    """What the rules offer the viewer, as a card asks it (see `Asked`)."""

    __slots__ = ("_offers", "_asked")

    def __init__(self, offers: Any, asked: list[tuple[str, tuple[Any, ...], Any]]) -> None:
        self._offers, self._asked = offers, asked

    def allows(self, action: str, ship: str | None = None) -> bool:
        answer: bool = self._offers.allows(action, ship)
        self._asked.append(("allows", (action, ship), answer))
        return answer

    def ships(self, action: str) -> list[str]:
        answer: list[str] = self._offers.ships(action)
        self._asked.append(("ships", (action,), list(answer)))
        return answer

    def __iter__(self) -> Any:
        every = list(self._offers)
        self._asked.append(("offers", (), every))
        return iter(every)

    def __bool__(self) -> bool:
        self._asked.append(("offers", (), list(self._offers)))
        return bool(self._offers)


class AskedViewer:
    """The viewer, as a card asks about them (see `Asked`)."""

    __slots__ = ("_viewer", "_asked")

    def __init__(self, viewer: Any, asked: list[tuple[str, tuple[Any, ...], Any]]) -> None:
        self._viewer, self._asked = viewer, asked

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._viewer, name)
        if name == "ships":
            return AskedShips(value, self._asked)
        self._asked.append(("viewer", (name,), value))
        return value


SLOT = "data-card-slot"  # base.html's htmx config: a morph keeps the children of an element marked so


def slot(card: str) -> Markup:
    """Where a card stands in the live frame's ship list: the card's own element, empty and marked
    `data-card-slot`, so morphing the list onto the page keeps each card it holds as it is (the
    list changes only when a ship comes or goes, or its element's own classes do: destroyed,
    mine); each card that changed follows as a region of its own (`#ship-<id>`), which drops the
    mark. A one-point hit then costs the round the hunks of one card, not of the whole list, once
    for each way that card is seen."""
    start = card.find("<article")
    end = card.find(">", start)
    if start == -1 or end == -1:
        raise ValueError("a ship card is one <article> element")
    return Markup(f"{card[start:end]} {SLOT}></article>")


def pack(card: str) -> bytes:
    """A card as the memo keeps it: zlib-packed UTF-8 (a card is 20–30 thousand characters, held
    two bytes each as soon as one is not Latin-1 — a minus sign will do — and packs to a twentieth)."""
    return zlib.compress(card.encode(), 1)


VARIANTS = 8  # cards kept under one key, for viewers who answer a card's questions differently


class CardMemo:
    """Drawn ship cards by what they show (see the module's docstring); at most `size` kept."""

    def __init__(self, env: jinja2.Environment, parts: Iterable[str], size: int = 512) -> None:
        self.env, self.size = env, size
        self.parts = set(parts)
        read = {name: read_by(env, name) for name in card_templates(env, self.parts)}
        self.unknown = set().union(*read.values()) - INPUTS - LOCALS
        # the parts whose templates read the whole ship list (their cards change with any ship)
        self.list_readers = {name for name in self.parts if "state" in read[f"parts/{name}.html"]}
        # whether those read only LIST_FIELDS of each ship (else the whole list is in the key)
        self.list_narrow = all(
            list_fields(_source(env, f"parts/{name}.html")) for name in self.list_readers
        ) and all("state" not in names for name, names in read.items() if not name.startswith("parts/"))
        self.enabled = not self.unknown and not env.auto_reload
        # whether only FIELDS draws the seq (else every card is kept per seq)
        self.seq_marked = {name for name, names in read.items() if "seq" in names} <= {FIELDS}
        # key → the cards drawn under it, each with the questions it asked and their answers
        self._cards: OrderedDict[bytes, Any] = OrderedDict()
        self.hits = self.draws = 0

    def _key(self, context: dict[str, Any], ship: dict[str, Any]) -> bytes | None:
        sid = ship.get("id")
        reads_list = any(name in self.list_readers for name in ship.get("parts") or {})
        inputs = [  # the viewer and their offers are asked through `Asked`, not keyed
            ship,
            context["display"].get(sid),
            context["flags"].get(sid),
            context["names"],
            context["battle"],
            self._ship_list(context) if reads_list else None,
            context["csrf_token"],
            bool(context.get("pushed")),
        ]
        return digest(inputs)

    def _ship_list(self, context: dict[str, Any]) -> Any:
        ships = context["state"]["ships"]
        if not self.list_narrow:
            return ships
        return [[sid, *(other.get(f) for f in LIST_FIELDS)] for sid, other in ships.items()]

    def draw(self, context: dict[str, Any], ship: dict[str, Any]) -> Markup:
        """The card of `ship` as the frame's template would draw it with this context."""
        base = self._key(context, ship) if self.enabled else None
        if base is None:
            self.draws += 1
            return self._drawn(context, ship)
        by_seq = base + str(context["seq"]).encode()
        kept = self._cards.get(base)
        key = by_seq if kept is _BY_SEQ or not self.seq_marked else base
        if key is by_seq:
            kept = self._cards.get(by_seq)
        offers, viewer = context["offers"], context["viewer"]
        for questions, packed in kept if isinstance(kept, list) else ():
            if Asked.same(questions, offers, viewer):
                self._cards.move_to_end(key)
                self.hits += 1
                return self._unpacked(packed, context.get("unpacked"))
        asked = Asked(offers, viewer)
        card = self._drawn({**context, "offers": asked.offers, "viewer": asked.viewer}, ship)
        self.draws += 1
        if key is base and SEEN_SEQ in card:  # it draws a form: the same inputs differ by seq
            self._keep(base, _BY_SEQ)
            key, kept = by_seq, self._cards.get(by_seq)
        variants = [*(kept if isinstance(kept, list) else ()), (asked.questions, pack(card))][-VARIANTS:]
        self._keep(key, variants)
        return card

    @staticmethod
    def _unpacked(packed: bytes, unpacked: dict[bytes, Markup] | None) -> Markup:
        """A kept card's HTML; `unpacked`: the round's cards already unpacked (a public card is
        every spectator's and most players')."""
        card = unpacked.get(packed) if unpacked is not None else None
        if card is None:
            card = Markup(zlib.decompress(packed).decode())
            if unpacked is not None:
                unpacked[packed] = card
        return card

    def _drawn(self, context: dict[str, Any], ship: dict[str, Any]) -> Markup:
        return Markup(self.env.get_template(CARD).render({**context, "ship": ship}))

    def _keep(self, key: bytes, kept: Any) -> None:
        self._cards[key] = kept
        self._cards.move_to_end(key)
        while len(self._cards) > self.size:
            self._cards.popitem(last=False)

    def cards(self, context: dict[str, Any]) -> dict[str, Markup]:
        """Every ship's card for this frame, in the state's order."""
        return {sid: self.draw(context, ship) for sid, ship in context["state"]["ships"].items()}
