"""A long battle's pages show the latest page of the log and page back on demand: the battle page
and the replay show the newest 200 entries up to their seq, and "Earlier entries" opens the replay
just before the first one shown — so a page costs the same at seq 10,000 as at seq 300."""

from __future__ import annotations

import re

import httpx

from tests.helpers import act, session_cookie, set_table, simple_ship

SEQ = re.compile(r'id="log-(\d+)"')
EARLIER = re.compile(r'href="/battles/[^/]+/replay\?seq=(\d+)">Earlier entries')


async def test_the_log_shows_its_latest_page_and_pages_back_to_the_start(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"crow": (simple_ship("Crow"), "ann")})
    for _ in range(260):
        r = await act(client, table, "ref", "clock.advance", {})
        assert r.status_code == 200, r.text
    last = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()["seq"]
    assert last == 261  # the ship, then 260 clock steps
    cookie = await session_cookie(client, table.tokens["ann"])
    page = {"Cookie": f"starboard_session={cookie}"}

    live = (await client.get(f"/battles/{table.battle_id}", headers=page)).text
    shown = [int(s) for s in SEQ.findall(live)]
    assert shown == list(range(62, 262))  # the newest 200
    assert EARLIER.findall(live) == ["61"]

    back = await client.get(f"/battles/{table.battle_id}/replay?seq=61", headers=page)
    assert back.status_code == 200
    assert [int(s) for s in SEQ.findall(back.text)] == list(range(1, 62))  # all there is up to #61
    assert EARLIER.findall(back.text) == []  # nothing before #1

    middle = await client.get(f"/battles/{table.battle_id}/replay?seq=230", headers=page)
    assert [int(s) for s in SEQ.findall(middle.text)] == list(range(31, 231))
    assert EARLIER.findall(middle.text) == ["30"]
