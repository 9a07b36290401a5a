"""Send what changed (bytes per frame by role): a one-point damage entry reaches each player and
spectator in at most 2 KB and the referee in at most 4 KB, and what each page rebuilds from those
bytes is exactly what a page that asked for every region is sent whole. The sizes are
deterministic (seeded dice, fixed names, a token of a real token's length); the figures are in
docs/benchmarks.md."""

from __future__ import annotations

import re

import httpx

from app.models import Battle
from app.web.drawing.render import regions_of
from tests.helpers import act, set_table, ship_def
from tests.web.frame_bytes import next_frames, watch

SHIPS = {"excelsior": (ship_def("excelsior"), "kirk"), "shadow": (ship_def("shadow-cruiser"), "kosh")}
ROLES = {"referee": "ref", "player": "kirk", "spectator": "watcher"}
LIMIT = {"referee": 4096, "player": 2048, "spectator": 2048}


async def _seq(client: httpx.AsyncClient, battle_id: str) -> int:
    async with client.app.state.platform.db.reader() as session:  # type: ignore[attr-defined]
        battle = await session.get(Battle, battle_id)
        assert battle is not None
        return battle.seq


async def test_a_one_point_hit_costs_each_role_a_few_hunks_and_rebuilds_the_whole_page(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(client, players=("kirk", "kosh"), ships=SHIPS)
    held = await _seq(client, table.battle_id)
    sockets = await watch(client, table, ROLES, held - 1)  # pages a step behind: every region whole
    r = await act(
        client,
        table,
        "kirk",
        "damage.apply",
        {"target": table.ships["shadow"], "source": table.ships["excelsior"], "amount": 1},
    )
    assert r.status_code == 200, r.text
    seq = r.json()["seq"]
    hit = await next_frames(sockets, seq)
    fresh = await watch(client, table, ROLES, seq - 1)  # new pages: the same regions, whole
    whole = await next_frames(fresh, seq)
    for role, (frame, size) in hit.items():
        assert size <= LIMIT[role], (role, size)
        raw = sockets[role].raw[-1]
        patched = [t for t, _, _ in raw["patch"]]
        assert "#ship-shadow-cruiser" in patched and "#ships" not in patched, (
            role
        )  # the hit card, not the list
        assert 'id="ship-shadow-cruiser"' not in raw["content"]  # the card itself is not sent again
        rebuilt = dict(regions_of(frame["content"]))
        expected = dict(regions_of(whole[role][0]["content"]))
        assert rebuilt["+#log-list"] == expected["+#log-list"]
        assert "Excelsior hits Shadow Cruiser for 1" in rebuilt["+#log-list"]
        for target in rebuilt:  # each changed region exactly as drawn whole
            assert rebuilt[target] == expected[target], (role, target)
        assert set(rebuilt) >= {"#turnbar", "#ship-shadow-cruiser"}, (role, set(rebuilt))
        assert "#ship-excelsior" not in rebuilt, role  # the card the hit left alone is not sent
        card = re.search(
            r'<article[^>]*id="ship-shadow-cruiser".*?data-structure="(\d+)"',
            rebuilt["#ship-shadow-cruiser"],
            re.S,
        )
        assert card is not None and card.group(1) == "39", role  # the cruiser's 40 structure, one lost
    # the referee's tools follow the hit too (the undo form names the new entry)
    assert (
        "#3 Excelsior hits Shadow Cruiser for 1"
        in dict(regions_of(hit["referee"][0]["content"]))["#referee-state"]
    )
    assert "#referee-state" not in dict(regions_of(hit["player"][0]["content"]))
