"""The map's live regions: drawn again only when what they read changed, and a kept
region is exactly the region the frame would draw — a damage entry that changes nothing the map
shows (an unplaced ship's) leaves the board as it was, a move draws it again."""

from __future__ import annotations

import httpx
import jinja2

from app.web.drawing.region_memo import MAP_REGIONS, RegionMemo
from app.web.drawing.render import LiveViews, env, live_html, read_live
from tests.helpers import act
from tests.web.test_map import place, placed_table


def test_the_hubs_memo_knows_what_the_map_regions_read() -> None:
    memo = LiveViews().regions
    assert memo.enabled
    assert memo.reads == {"partials/map_board.html": ("map", "movers"), "partials/map_status.html": ("map",)}


async def test_damage_the_map_does_not_show_keeps_the_board_and_a_move_draws_it_again(
    client: httpx.AsyncClient,
) -> None:
    table = await placed_table(client)
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    memo = RegionMemo(env, MAP_REGIONS)

    async def frames() -> None:
        read = await read_live(db, table.battle_id, 0)
        for seat in (p for p in read.people if p.active):
            assert live_html(read, seat, 0, "csrf", regions=memo) == live_html(read, seat, 0, "csrf"), (
                seat.role
            )

    await frames()
    seats = memo.draws // 2  # one view per seat here (the players command different ships)
    drawn = memo.draws
    r = await act(
        client,
        table,
        "kirk",
        "damage.apply",
        {"target": "shadow-cruiser", "source": "excelsior", "amount": 1},
    )
    assert r.status_code == 200, r.text
    await frames()
    assert memo.draws == drawn and memo.hits == 2 * seats  # nothing on the map changed
    await place(client, table, "kirk", "excelsior", "0606", 2, 4)
    await frames()
    assert memo.draws == drawn + 2 * seats  # every view of the board and its status line again


def test_a_region_that_includes_another_or_reads_other_than_data_is_always_drawn() -> None:
    loader = jinja2.DictLoader(
        {
            "board.html": "{{ map.n }}{% for m in movers %}{{ m }}{% endfor %}",
            "outer.html": "{% include 'board.html' %}",
        }
    )
    memo = RegionMemo(
        jinja2.Environment(loader=loader, autoescape=True, auto_reload=False), ["board.html", "outer.html"]
    )
    assert memo.reads == {"board.html": ("map", "movers")}  # outer.html includes: never kept
    context = {"map": {"n": 1}, "movers": ["a"]}
    assert memo.draw("board.html", context) == "1a" and memo.draw("board.html", dict(context)) == "1a"
    assert (memo.draws, memo.hits) == (1, 1)
    assert memo.draw("board.html", {"map": {"n": 2}, "movers": ["a"]}) == "2a"  # changed: drawn
    assert memo.draw("outer.html", context) == "1a" and memo.draw("outer.html", context) == "1a"
    assert memo.draw("board.html", {"map": {"n": 1}, "movers": {"a"}}) == "1a"  # a set: not data
    assert memo.draw("board.html", {"map": {"n": 1}}) == "1"  # a name the context lacks
    assert (memo.draws, memo.hits) == (6, 1)
