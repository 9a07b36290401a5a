"""Chat's rate limit holds under concurrency: 20 posts at once from one seat let exactly
CHAT_RATE_COUNT (5) through and answer the rest 429, on SQLite and on PostgreSQL (a count and then
an insert let 6 through: the check and the insert raced)."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx

from tests.helpers import set_table
from tests.table.test_chat import say


async def test_twenty_concurrent_posts_let_exactly_five_through(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    answers = await asyncio.gather(*(say(client, table, "ann", f"line {i}") for i in range(20)))
    assert Counter(r.status_code for r in answers) == {201: 5, 429: 15}, [r.text for r in answers]
    for r in answers:
        if r.status_code == 429:
            assert r.json()["detail"]["field"] == "text" and int(r.headers["Retry-After"]) >= 1
    chat = await client.get(f"/api/v1/battles/{table.battle_id}/chat", headers=table.auth("ref"))
    lines = chat.json()["messages"]
    assert len(lines) == 5 and [m["seq"] for m in lines] == [1, 2, 3, 4, 5]
    # Another seat has its own five, concurrently too.
    answers = await asyncio.gather(*(say(client, table, "bob", f"bob {i}") for i in range(20)))
    assert Counter(r.status_code for r in answers) == {201: 5, 429: 15}
