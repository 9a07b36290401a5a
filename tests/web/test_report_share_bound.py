"""A battle holds at most MAX_SHARES (20) live public report links: 30 asked at once make exactly
20, the rest are refused (409) and nothing else is stored; revoking frees the places."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from app.services.errors import Conflict
from app.services.platform import Platform
from app.services.reading.report_share import MAX_SHARES, live_shares, make_share, revoke_shares
from app.services.store.battles import get_battle, get_participant
from tests.helpers import set_table


async def test_thirty_links_asked_at_once_make_exactly_twenty(
    platform: Platform, client: httpx.AsyncClient
) -> None:
    table = await set_table(client)

    async def share() -> str | None:
        try:
            async with platform.db.transaction() as session:
                battle = await get_battle(session, table.battle_id)
                referee = await get_participant(session, table.battle_id, table.ids["ref"])
                return await make_share(session, battle, referee)
        except Conflict:
            return None

    made = await asyncio.gather(*(share() for _ in range(30)))
    assert MAX_SHARES == 20 and sum(t is not None for t in made) == 20
    async with platform.db.reader() as session:
        assert await live_shares(session, table.battle_id) == 20
    async with platform.db.transaction() as session:
        battle = await get_battle(session, table.battle_id)
        referee = await get_participant(session, table.battle_id, table.ids["ref"])
        with pytest.raises(Conflict):
            await make_share(session, battle, referee)
    async with platform.db.transaction() as session:
        battle = await get_battle(session, table.battle_id)
        referee = await get_participant(session, table.battle_id, table.ids["ref"])
        assert await revoke_shares(session, battle, referee) == 20
        assert await make_share(session, battle, referee)
