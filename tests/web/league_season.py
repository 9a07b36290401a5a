"""A small league season for page and browser tests, made the way players make one: profiles (rows,
as a sign-in would leave them), a league they joined, and rated battles set up and ended over REST —
each seat kept by its player's profile, as a join link opened while signed in keeps it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import select

from app.models import Participant
from app.services.identity.profiles import HeldSeat, claim, new_profile
from app.services.leagues import leagues
from app.services.platform import Platform
from app.services.store.tokens import new_id, seat_key
from tests.helpers import act, set_table, simple_ship


@dataclass
class Season:
    league_id: str
    profiles: dict[str, str]  # name → profile id
    battles: list[str] = field(default_factory=list)


async def season(
    platform: Platform,
    c: httpx.AsyncClient,
    names: tuple[str, ...],
    games: list[tuple[str, str, str]],
    *,
    public: bool = True,
    league_name: str = "Test season",
) -> Season:
    """`games`: (Blue's player, Red's player, the side the referee's end names or "draw")."""
    ids: dict[str, str] = {}
    async with platform.db.transaction() as session:
        for name in names:
            profile = new_profile(name, new_id() + new_id())
            session.add(profile)
            ids[name] = profile.id
        await session.flush()
        league = await leagues.create(
            session,
            platform.rules,
            ids[names[0]],
            name=league_name,
            system="b5wars",
            public=public,
            points={},
        )
        for name in names[1:]:
            await leagues.join(session, league.id, ids[name], league.invite)
    made = Season(league.id, ids)
    for blue, red, won in games:
        made.battles.append(await rated_game(platform, c, made, blue, red, won))
    return made


async def rated_game(
    platform: Platform, c: httpx.AsyncClient, made: Season, blue: str, red: str, won: str
) -> str:
    """One rated battle of the season: Blue's and Red's players, ended naming `won`."""
    ships = {
        "b": ({**simple_ship(f"{blue} flagship"), "side": "Blue"}, blue),
        "r": ({**simple_ship(f"{red} flagship"), "side": "Red"}, red),
    }
    table = await set_table(c, players=(blue, red), ships=ships, options={})
    r = await c.put(
        f"/api/v1/battles/{table.battle_id}/league",
        json={"league": made.league_id},
        headers=table.auth("ref"),
    )
    assert r.status_code == 200, r.text
    for name in (blue, red):
        async with platform.db.reader() as session:
            seat = await session.scalar(select(Participant).where(Participant.id == table.ids[name]))
        assert seat is not None
        await claim(platform.db, made.profiles[name], [HeldSeat(seat, seat_key(seat.token_hash))])
    r = await act(c, table, "ref", "battle.end", {"winner": won})
    assert r.status_code == 200, r.text
    return table.battle_id


def rows_of(html: str) -> list[Any]:
    """The standings table's player names, in order."""
    import re

    body = html.split('id="standings"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<th scope="row">([^<]+)</th>', body)
