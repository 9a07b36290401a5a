"""A ship card's parts in live frames: each part is drawn again only when what its own templates
read changed, a card built from kept parts is the card drawn whole, and what a kept part asked of
the viewer is asked again of the next one (a part kept for a commander is never a spectator's)."""

from __future__ import annotations

from typing import Any

import httpx
import jinja2

from app.rules.core import Actor
from app.web.drawing.card_parts import PartMemo, part_reads
from app.web.drawing.cards import CardMemo
from app.web.drawing.render import PART_TEMPLATES, Offers, env, live_html, read_live
from tests.helpers import act, set_table, ship_def

FORMS = """{% macro form(action, ship=none) -%}<form action="/b/{{ battle.id }}">{{ ship }}</form>{%- endmacro %}"""


def _env(parts: dict[str, str]) -> jinja2.Environment:
    sources = {f"parts/{name}.html": source for name, source in parts.items()} | {"forms.html": FORMS}
    return jinja2.Environment(loader=jinja2.DictLoader(sources), autoescape=True)


def test_what_a_part_reads_is_narrowed_to_what_its_templates_use() -> None:
    """A macro's own `ship` argument is not the card's ship; `ship.parts` or the ship passed whole
    keys the whole ship; the display values, flags and battle are keyed as narrowly as read."""
    parts = {
        "sheet": "{{ ship.name }} {{ part.boxes }} {{ flags.get(ship.id, {}) }}",
        "impulse": "{{ ship.parts.sheet is defined }} {{ display[ship.id].impulse }}",
        "cloak": '{% from "forms.html" import form with context %}{{ form("x", ship=ship.id) }} {{ display[ship.id] }}',
        "pain": "{{ battle.clock }} {{ flags }}",
    }
    e = _env(parts)
    sheet, impulse, cloak, pain = (part_reads(e, name) for name in parts)
    assert sheet is not None and sheet.ship == ("id", "name") and sheet.own_flags and sheet.battle == ()
    assert impulse is not None and impulse.ship is None and impulse.own_display
    assert cloak is not None and cloak.ship == ("id",) and not cloak.own_display and cloak.battle == ("id",)
    assert pain is not None and pain.battle == ("clock",) and not pain.own_flags
    assert part_reads(_env({"odd": "{% include part.name %}"}), "odd") is None  # chosen while drawing


def _context(ships: dict[str, dict[str, Any]], offers: list[dict[str, Any]], viewer: Actor) -> dict[str, Any]:
    return {
        "display": {sid: {"sheet": {"left": 3}, "pain": {"level": 1}} for sid in ships},
        "flags": {},
        "state": {"ships": ships},
        "battle": {"id": "b", "clock": {"turn": 1}},
        "names": {},
        "offers": Offers(offers),
        "viewer": viewer,
        "csrf_token": "c",
        "seq": 4,
        "pushed": True,
    }


def test_a_part_is_drawn_again_only_when_what_it_reads_changed() -> None:
    e = _env({"sheet": "{{ ship.name }}: {{ part.boxes }} {{ display[ship.id].sheet.left }}"})
    memo = PartMemo(e, {"sheet"}, lambda context: None)
    ship = {"id": "a", "name": "Hawk", "position": 1, "parts": {"sheet": {"boxes": 5}}}
    context = _context({"a": ship}, [], Actor("p", "spectator"))

    def drawn(context: dict[str, Any], ship: dict[str, Any]) -> str:
        return memo.draw(context, ship, "sheet", ship["parts"]["sheet"], [])

    assert drawn(context, ship) == "Hawk: 5 3"
    moved = ship | {"position": 2}  # a field the part does not read
    other = context | {
        "display": {"a": {"sheet": {"left": 3}, "pain": {"level": 2}}}
    }  # another part's values
    assert drawn(context, moved) == drawn(other, ship) == "Hawk: 5 3" and (memo.draws, memo.hits) == (1, 2)
    hit = ship | {"parts": {"sheet": {"boxes": 4}}}
    assert drawn(context, hit) == "Hawk: 4 3"
    assert drawn(context | {"display": {"a": {"sheet": {"left": 2}}}}, ship) == "Hawk: 5 2"
    assert drawn(context, ship | {"name": "Kite"}) == "Kite: 5 3"
    assert (memo.draws, memo.hits) == (4, 2)


def test_a_kept_part_asks_the_next_viewer_its_questions_and_hands_them_to_the_card() -> None:
    source = '{% if offers.allows("ship.move", ship.id) %}<form>move</form>{% endif %}{{ part.x }}'
    memo = PartMemo(_env({"impulse": source}), {"impulse"}, lambda context: None)
    ship = {"id": "a", "name": "Hawk", "parts": {"impulse": {"x": 1}}}
    mover = _context(
        {"a": ship}, [{"type": "ship.move", "ships": ["a"]}], Actor("p", "player", frozenset({"a"}))
    )
    spectator = _context({"a": ship}, [], Actor("s", "spectator"))
    asked: list[Any] = []
    assert memo.draw(mover, ship, "impulse", {"x": 1}, asked) == "<form>move</form>1"
    assert asked == [("allows", ("ship.move", "a"), True)]
    assert memo.draw(spectator, ship, "impulse", {"x": 1}, []) == "1"  # not the commander's form
    again: list[Any] = []
    assert memo.draw(mover, ship, "impulse", {"x": 1}, again) == "<form>move</form>1"
    assert again == asked and (memo.draws, memo.hits) == (2, 1)  # the card is keyed on them too


async def test_a_hit_redraws_the_hit_sheet_once_for_every_view(client: httpx.AsyncClient) -> None:
    """A one-point hit on the Shadow Cruiser: every view's frame is the frame drawn without kept
    cards or parts, and of the parts on its cards only what changed is drawn — its sheet (public,
    so once for every view) and the pain track whose values follow from it."""
    ships = {"excelsior": (ship_def("excelsior"), "ann"), "shadow": (ship_def("shadow-cruiser"), "bob")}
    table = await set_table(client, ships=ships)
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    memo = CardMemo(env, PART_TEMPLATES)
    read = await read_live(db, table.battle_id, 0)
    seats = [p for p in read.people if p.active]
    for seat in seats:
        live_html(read, seat, 0, "csrf", memo)
    cards, parts = memo.draws, memo.parts_memo.draws
    shadow, excelsior = table.ships["shadow"], table.ships["excelsior"]
    r = await act(client, table, "ann", "damage.apply", {"target": shadow, "source": excelsior, "amount": 1})
    assert r.status_code == 200, r.text
    read = await read_live(db, table.battle_id, 0)
    for seat in seats:
        assert live_html(read, seat, 0, "csrf", memo) == live_html(read, seat, 0, "csrf"), seat.role
    # the Shadow's card is drawn again for two ways it is seen (its commander's and the referee's
    # whole view, the public's) — yet its sheet and its pain track (whose values follow from the
    # hit) are each drawn once for both, and its third part is kept
    assert memo.draws - cards == 2 and memo.parts_memo.draws - parts == 2
