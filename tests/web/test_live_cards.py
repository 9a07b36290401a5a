"""Ship cards in live frames: a card is drawn again only when something it shows
changed, and a kept card (packed, unpacked once a round) is exactly the card the frame would draw — for every seat of the three demo
battles (every part template: sheets, pain tracks, shields, cloaks, torpedoes, High Guard), as one
ship after another changes; a damage entry draws the damaged ship's card alone."""

from __future__ import annotations

import re

import httpx
import jinja2
import pytest

from app.demo import create_demos
from app.services.platform import Platform
from app.services.write import actions
from app.services.write.actions import Command
from app.web.drawing.cards import CardMemo, list_fields, parsed
from app.web.drawing.render import PART_TEMPLATES, LiveViews, env, live_html, read_live
from tests.helpers import act, set_table, ship_def, simple_ship


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # drawing reads no database
async def test_kept_cards_are_the_cards_drawn_and_only_changed_ones_are_drawn(platform: Platform) -> None:
    made = await create_demos(platform, "http://demo.test")
    for n, demo in enumerate(made):
        memo = CardMemo(env, PART_TEMPLATES)
        assert memo.enabled
        read = await read_live(platform.db, demo["id"], 0, platform.rules)
        referee = next(p for p in read.people if p.role == "referee")
        ships = list(read.state.ships)
        for step in range(len(ships) + 1):
            read = await read_live(platform.db, demo["id"], 0, platform.rules)
            seats = [p for p in read.people if p.active]
            for seat in seats:
                # drawn from a read of its own: what the round's views share (display values, the
                # cards unpacked once) is what each view would work out alone
                alone = await read_live(platform.db, demo["id"], 0, platform.rules)
                assert live_html(read, seat, 0, "csrf", memo) == live_html(alone, seat, 0, "csrf"), (
                    n,
                    seat.role,
                )
            if step < len(ships):
                change = {"path": f"ships.{ships[step]}.crippled", "value": True, "reason": "test"}
                await actions.submit(
                    platform, Command(demo["id"], referee.id, "override.set", change, f"cards-{n}-{step}")
                )


async def test_a_damage_entry_draws_the_damaged_ships_card_alone(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    memo = CardMemo(env, PART_TEMPLATES)
    read = await read_live(db, table.battle_id, 0)
    watcher = read.by_id[table.ids["watcher"]]
    live_html(read, watcher, 0, "csrf", memo)
    assert (memo.draws, memo.hits) == (2, 0)
    r = await act(client, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 2})
    assert r.status_code == 200, r.text
    read = await read_live(db, table.battle_id, 0)
    assert live_html(read, watcher, 0, "csrf", memo) == live_html(read, watcher, 0, "csrf")
    assert (memo.draws, memo.hits) == (3, 1)  # Crow's card again; Hawk's kept


def test_the_hubs_memo_knows_everything_the_card_templates_read() -> None:
    memo = LiveViews().cards
    assert memo.enabled and memo.unknown == set() and memo.seq_marked  # only the forms draw the seq
    assert {"cloak", "pain"} <= memo.list_readers  # their target lists read every ship
    # The torpedo volley's targets are the launcher's display values, which are part of the key.
    assert "photon_launcher" not in memo.list_readers


def test_a_card_template_reading_something_new_turns_the_memo_off() -> None:
    loader = jinja2.DictLoader(
        {
            "partials/ship.html": "{{ ship.name }} {{ secret }}",
            "partials/forms.html": "",
            "parts/sheet.html": "",
        }
    )
    memo = CardMemo(jinja2.Environment(loader=loader, autoescape=True), ["sheet"])
    assert not memo.enabled and memo.unknown == {"secret"}
    context = {
        "ship": {"id": "a", "name": "Hawk"},
        "secret": "x",
        "state": {"ships": {"a": {"id": "a", "name": "Hawk"}}},
    }
    assert memo.cards(context) == {"a": "Hawk x"} and memo.hits == 0


def test_templates_are_parsed_once_per_source_and_parsed_again_when_it_changes() -> None:
    """What a template reads is worked out once per source (an app's start-up parsed every card
    template again): the same env and source give the same parse; a changed source, or another
    env, is parsed for itself."""
    sources = {
        "partials/ship.html": "{{ ship.name }}{% include 'parts/sheet.html' %}",
        "parts/sheet.html": "",
    }
    env = jinja2.Environment(loader=jinja2.DictLoader(sources), autoescape=True)
    first = parsed(env, "partials/ship.html")
    assert first == (frozenset({"ship"}), ("parts/sheet.html",))
    assert parsed(env, "partials/ship.html") is first  # kept
    sources["partials/ship.html"] = "{{ ship.name }} {{ secret }}"
    assert parsed(env, "partials/ship.html") == (frozenset({"ship", "secret"}), ())
    other = jinja2.Environment(loader=jinja2.DictLoader(sources), autoescape=True)
    assert parsed(other, "partials/ship.html") == (frozenset({"ship", "secret"}), ())
    assert CardMemo(env, ["sheet"]).unknown == {"secret"}  # the memo goes by the new source


def test_a_target_list_is_keyed_on_what_it_reads_of_the_other_ships() -> None:
    """The cloak and pain cards list the other ships by name (leaving out hidden and destroyed
    ones): the memo keys them on those fields of the list, and falls back to the whole list for a
    template that reads any other field or uses the list otherwise. (The photon launcher's targets
    are its display values, worked out by the rules, so its card is keyed on those instead.)"""
    memo = LiveViews().cards
    assert {"cloak", "pain"} <= memo.list_readers and memo.list_narrow
    assert list_fields("{% for sid, o in state.ships.items() if not o.destroyed %}{{ o.name }}{% endfor %}")
    assert list_fields("{% set known = state.ships %}{{ known[x].name if x in known else x }}")
    assert not list_fields("{% set known = state.ships %}{{ known[x].hull }}")
    assert not list_fields("{% for sid, o in state.ships.items() %}{{ o.parts }}{% endfor %}")
    assert not list_fields("{% set known = state.ships %}{{ known | length }}")


async def test_a_hit_draws_the_hit_ships_card_alone_in_every_view_with_forms_and_target_lists(
    client: httpx.AsyncClient,
) -> None:
    """Each card is drawn once per visibility: a pushed card's forms carry no seq (the page fills in the seq it shows as a form is sent),
    and a target list is kept until a listed ship's name, hidden position or destruction changes:
    a one-point hit redraws the hit ship's card once per view and keeps every other card — on the
    mixed table of the benchmark (four Star Trek and Shadow ships, photon launchers, a cloak)."""
    ships = {
        "excelsior": (ship_def("excelsior"), "kirk"),
        "new-orleans": (ship_def("new-orleans"), "sisko"),
        "shadow": (ship_def("shadow-cruiser"), "kosh"),
        "warbird": (ship_def("romulan-warbird"), "tomalak"),
    }
    table = await set_table(client, players=("kirk", "sisko", "kosh", "tomalak"), ships=ships)
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    memo = CardMemo(env, PART_TEMPLATES)
    read = await read_live(db, table.battle_id, 0)
    seats = [p for p in read.people if p.active]
    for seat in seats:
        live_html(read, seat, 0, "csrf", memo)
    drawn = memo.draws
    assert drawn < len(seats) * len(ships) / 2  # each card drawn once per way it is seen, not per view
    r = await act(
        client,
        table,
        "kirk",
        "damage.apply",
        {"target": table.ships["shadow"], "source": table.ships["excelsior"], "amount": 1},
    )
    assert r.status_code == 200, r.text
    read = await read_live(db, table.battle_id, 0)
    hit: set[str] = set()
    for seat in seats:
        frame = live_html(read, seat, 0, "csrf", memo)
        assert frame == live_html(read, seat, 0, "csrf"), seat.role
        assert "data-seen-seq" not in frame and f'name="seen_seq" value="{read.seq}"' not in frame
        card = re.search(r'<article id="ship-shadow-cruiser".*?</article>', frame, re.S)
        assert card is not None
        hit.add(card.group(0))
    # the Shadow's card once for each way it is seen (the public's, its commander's), nothing else
    assert memo.draws - drawn == len(hit) and 2 <= len(hit) <= 3 < len(seats)
