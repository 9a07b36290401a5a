"""The home page's cards say which seat this browser holds in each battle and whose move it is now
(GEN-01: the step waits on exactly those the turn bar names), so a player with several battles open
sees where they are wanted without opening each."""

from __future__ import annotations

import re

import httpx

from tests.helpers import act, set_table, simple_ship
from tests.web.test_pages import csrf, join


def cards(html: str) -> dict[str, str]:
    """Each card's text by its battle id, with tags and runs of spaces taken out."""
    found = re.findall(r'<a class="card[^"]*" href="/battles/([0-9a-f]+)">(.*?)</a>', html, re.S)
    return {bid: " ".join(re.sub(r"<[^>]+>", " ", body).split()) for bid, body in found}


async def test_GEN_01_home_cards_show_the_seat_and_whose_move(client: httpx.AsyncClient) -> None:
    ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    fight = await set_table(client, ships=ships, options={})
    other = await set_table(client, ships={"kite": (simple_ship("Kite"), "bob")}, options={})
    await join(client, fight.tokens["ann"])  # a fresh browser: Ann's seat in the fight
    asked = await client.get(f"/join/{other.tokens['ref']}")  # and the other's referee, once confirmed
    r = await client.post(
        "/join",
        data={"csrf_token": csrf(asked.text), "token": other.tokens["ref"], "confirm": "yes"},
        follow_redirects=True,
    )
    assert r.status_code == 200

    home = cards((await client.get("/")).text)
    assert "You play as ann" in home[fight.battle_id] and "Your move" in home[fight.battle_id]
    assert "You referee as Referee" in home[other.battle_id]
    assert "Waiting on bob" in home[other.battle_id] and "Your move" not in home[other.battle_id]

    assert (await act(client, fight, "ann", "step.ready", {})).status_code == 200
    home = cards((await client.get("/")).text)
    assert "Waiting on bob" in home[fight.battle_id] and "Your move" not in home[fight.battle_id]

    assert (await act(client, other, "ref", "battle.end", {"reason": "done"})).status_code == 200
    assert "The battle is over" in cards((await client.get("/")).text)[other.battle_id]
