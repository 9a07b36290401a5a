"""The referee's override picker in live frames: each ship's piece is drawn again only when what
it reads changed — that ship as the referee sees it, its ⚑ marks, the battle's id and dice mode —
and a frame with kept pieces is exactly the frame whose template includes every piece."""

from __future__ import annotations

import httpx
import jinja2
import pytest

from app.demo import create_demos
from app.services.platform import Platform
from app.services.write import actions
from app.services.write.actions import Command
from app.web.drawing.pieces import OVERRIDE_SHIP, PieceMemo
from app.web.drawing.render import LiveViews, env, live_html, read_live
from tests.helpers import act, set_table, ship_def


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # drawing reads no database
async def test_kept_pieces_are_the_pieces_the_template_includes(platform: Platform) -> None:
    """Every seat of the three demo battles (every ruleset's settable values), as one override
    after another marks a ship: the referee's frame is the frame drawn without the memo."""
    made = await create_demos(platform, "http://demo.test")
    for n, demo in enumerate(made):
        pieces = PieceMemo(env)
        assert pieces.enabled
        read = await read_live(platform.db, demo["id"], 0, platform.rules)
        referee = next(p for p in read.people if p.role == "referee")
        ships = list(read.state.ships)
        for step in range(len(ships) + 1):
            read = await read_live(platform.db, demo["id"], 0, platform.rules)
            for seat in (p for p in read.people if p.active):
                frame = live_html(read, seat, 0, "csrf", pieces=pieces)
                assert frame == live_html(read, seat, 0, "csrf"), (n, seat.role)
            if step < len(ships):
                change = {"path": f"ships.{ships[step]}.crippled", "value": True, "reason": "test"}
                await actions.submit(
                    platform, Command(demo["id"], referee.id, "override.set", change, f"pieces-{n}-{step}")
                )
        assert pieces.hits > 0


async def test_a_hit_redraws_the_hit_ships_piece_alone(client: httpx.AsyncClient) -> None:
    """A one-point hit changes one ship's values: its piece is drawn again (its current values
    are shown), the other ship's is kept; an override on the other ship marks it (⚑) and redraws
    that one; a frame at a later seq with nothing changed draws none."""
    ships = {"excelsior": (ship_def("excelsior"), "ann"), "shadow": (ship_def("shadow-cruiser"), "bob")}
    table = await set_table(client, ships=ships)
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    pieces = PieceMemo(env)
    referee = table.ids["ref"]

    async def frame() -> str:
        read = await read_live(db, table.battle_id, 0)
        drawn = live_html(read, read.by_id[referee], 0, "csrf", pieces=pieces)
        assert drawn == live_html(read, read.by_id[referee], 0, "csrf")
        return drawn

    first = await frame()
    assert (pieces.draws, pieces.hits) == (2, 0)
    shadow, excelsior = table.ships["shadow"], table.ships["excelsior"]
    r = await act(client, table, "ann", "damage.apply", {"target": shadow, "source": excelsior, "amount": 1})
    assert r.status_code == 200, r.text
    assert await frame() != first
    assert (pieces.draws, pieces.hits) == (3, 1)  # the Shadow's again; Excelsior's kept
    path = f"ships.{excelsior}.crippled"
    r = await act(client, table, "ref", "override.set", {"path": path, "value": True, "reason": "test"})
    assert r.status_code == 200, r.text
    assert "⚑" in await frame()
    assert (pieces.draws, pieces.hits) == (4, 2)  # Excelsior's, now marked
    await frame()
    assert (pieces.draws, pieces.hits) == (4, 4)


def test_the_hubs_piece_memo_knows_everything_its_templates_read() -> None:
    pieces = LiveViews().pieces
    assert pieces.enabled and pieces.unknown == set()


@pytest.mark.parametrize(
    ("source", "unknown"),
    [
        ("{{ ship.name }} {{ secret }}", {"secret"}),  # a variable the key does not take
        ("{{ ship.name }} {{ battle.clock.turn }}", set()),  # the battle's clock, left out of the key
        ("{{ ship.name }}{% include ship.id %}", set()),  # an include chosen while drawing
    ],
)
def test_a_piece_template_reading_something_new_turns_the_memo_off(source: str, unknown: set[str]) -> None:
    loader = jinja2.DictLoader({OVERRIDE_SHIP: source})
    pieces = PieceMemo(jinja2.Environment(loader=loader, autoescape=True))
    assert not pieces.enabled and pieces.unknown == unknown
    context = {"battle": {"id": "b", "clock": {"turn": 2}}, "state": {}, "csrf_token": "c", "seq": 1}
    ship = {"id": "a", "name": "Hawk", "commanded": True}
    if "include" not in source:  # drawn every time, never kept
        assert pieces.override_ship(context, ship, {}, {}).startswith("Hawk ")
        pieces.override_ship(context, ship, {}, {})
        assert (pieces.draws, pieces.hits) == (2, 0)
