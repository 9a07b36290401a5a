"""Table talk across processes: a message posted through one server process reaches a
websocket viewer on another, through PostgreSQL LISTEN/NOTIFY — the same wake-up path as actions,
keyed "table:<battle>"."""

from __future__ import annotations

import json

import httpx

from tests.conftest import Server
from tests.helpers import set_table
from tests.table.test_chat import say
from tests.table.test_live_and_catch_up import table_frame
from tests.web.wsclient import WsViewer, cookie_for


async def test_chat_posted_in_one_process_reaches_a_viewer_of_the_other(
    notify_pair: tuple[Server, Server],
) -> None:
    a, b = notify_pair
    async with httpx.AsyncClient(base_url=a.url) as c:
        table = await set_table(c)
        cookie = await cookie_for(b.url, table.tokens["bob"])
        async with WsViewer(b.url, table.battle_id, cookie) as bob:
            await bob.socket.send(json.dumps({"type": "hello", "seq": 0, "chat_seq": 0}))
            await table_frame(bob, 'hx-target="#chat-list"')
            assert (await say(c, table, "ann", "across the wire")).status_code == 201
            frame = await table_frame(bob, "across the wire")
            assert frame["table"] is True
