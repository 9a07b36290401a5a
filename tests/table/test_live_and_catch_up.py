"""Table talk on the live path (a real uvicorn process and websockets): a message reaches every open
page without reload, each viewer's frame rendered for them — a private line only in its two ends'
frames. Catch-up: "since your last visit" folds what a viewer may see after the seq they last looked
at or acted on, with a link into the replay; page loads, socket hellos and actions move that seq."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from tests.conftest import Server
from tests.helpers import act, set_table, simple_ship
from tests.table.conftest import settle
from tests.table.test_chat import page_as, say
from tests.web.wsclient import WsViewer, cookie_for


async def table_frame(v: WsViewer, containing: str, timeout: float = 5.0) -> dict[str, Any]:
    async def wait() -> dict[str, Any]:
        while True:
            frame = await v.next_frame(timeout)
            if frame.get("table") and containing in frame["content"]:
                return frame

    return await asyncio.wait_for(wait(), timeout)


async def test_chat_reaches_open_pages_and_private_lines_only_their_ends(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
        viewers = {
            who: WsViewer(server.url, table.battle_id, await cookie_for(server.url, table.tokens[who]))
            for who in ("ann", "bob", "ref", "watcher")
        }
        for v in viewers.values():
            await v.__aenter__()
            await v.socket.send(json.dumps({"type": "hello", "seq": 1, "chat_seq": 0}))
        try:
            for v in viewers.values():  # the hello answers with the table as it is now
                await table_frame(v, 'hx-target="#chat-list"')
            # The socket's "seen" (a visible page) is taken without an answer.
            await viewers["ann"].socket.send(json.dumps({"type": "seen"}))
            before = {who: len(v.frames) for who, v in viewers.items()}
            assert (await say(c, table, "bob", "my shields are down", to="referee")).status_code == 201
            for who in ("bob", "ref"):
                frame = await table_frame(viewers[who], "my shields are down")
                assert "icon-lock" in frame["content"] and "private" in frame["content"]
            assert (await say(c, table, "ann", "<img src=x onerror=alert(1)> ready")).status_code == 201
            for v in viewers.values():
                frame = await table_frame(v, "ready")
                assert (
                    "<img src=x" not in frame["content"]
                    and "&lt;img src=x onerror=alert(1)&gt; ready" in frame["content"]
                )
            # The table's lines reach a page in the order they were written, so by the public line
            # the private one would have come: ann and the watcher got nothing at all for it — not
            # the line, not even a frame — only the public line's.
            for who in ("ann", "watcher"):
                assert viewers[who].frames[before[who] :] == [viewers[who].frames[-1]]
                assert all("my shields are down" not in raw for raw in viewers[who].raw)
            # Chat never bumps the actions' seq: an action made at seq 1 still applies.
            r = await act(
                c,
                table,
                "ref",
                "ship.add",
                {"definition": simple_ship("Crow"), "owner": table.ids["bob"]},
                seq=1,
            )
            assert r.status_code == 200 and r.json()["seq"] == 2
        finally:
            for v in viewers.values():
                await v.__aexit__()


async def test_since_your_last_visit(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    first = await page_as(client, table.tokens["ann"], table.battle_id)
    assert 'id="catch-up"' not in first  # a first visit has no "since"
    for amount in (3, 4):
        r = await act(
            client,
            table,
            "bob",
            "damage.apply",
            {"target": "hawk", "source": "crow", "amount": amount, "direction": "fore"},
        )
        assert r.status_code == 200, r.text
    await say(client, table, "bob", "that's two")  # table talk since she left counts too
    await say(client, table, "bob", "only for the referee", to="referee")  # not hers to read
    await say(client, table, "ann", "my own line")  # nor her own
    html = await page_as(client, table.tokens["ann"], table.battle_id)
    assert "Since your last visit" in html and "2 actions, 2 events after #2." in html
    talk = html.split('id="catch-up-talk"')[1].split("</ul>")[0]
    assert "1 new line of table talk." in talk and "bob: that&#39;s two" in talk
    assert "only for the referee" not in html.split('id="catch-up"')[1].split("</section>")[0]
    assert "my own line" not in talk
    assert "Crow hits Hawk for 3 (fore)" in html and "Crow hits Hawk for 4 (fore)" in html
    assert f'href="/battles/{table.battle_id}/replay?seq=3"' in html
    assert 'id="catch-up"' not in await page_as(client, table.tokens["ann"], table.battle_id)  # seen now
    # Her own action counts as looked at; Bob's after it is what she missed.
    await act(
        client,
        table,
        "ann",
        "damage.apply",
        {"target": "crow", "source": "hawk", "amount": 1, "direction": "fore"},
    )
    await settle()  # the after-commit work records it
    await act(
        client,
        table,
        "bob",
        "damage.apply",
        {"target": "hawk", "source": "crow", "amount": 5, "direction": "fore"},
    )
    html = await page_as(client, table.tokens["ann"], table.battle_id)
    assert "1 action, 1 event after #5." in html and "Crow hits Hawk for 5 (fore)" in html
    assert "Hawk hits Crow for 1" not in html.split('id="catch-up"')[1].split("</section>")[0]
    # REST: the same summary for a bot, and reading it marks it seen.
    r = await client.get(f"/api/v1/battles/{table.battle_id}/catch-up", headers=table.auth("watcher"))
    assert r.json()["since"] is None and r.json()["summary"] is None and r.json()["seq"] == 6
    await act(
        client,
        table,
        "bob",
        "damage.apply",
        {"target": "hawk", "source": "crow", "amount": 2, "direction": "fore"},
    )
    r = await client.get(f"/api/v1/battles/{table.battle_id}/catch-up", headers=table.auth("watcher"))
    summary = r.json()["summary"]
    assert (
        r.json()["since"] == 6
        and summary["actions"] == 1
        and summary["lines"][0].startswith("Crow hits Hawk for 2")
    )


async def test_a_socket_hello_counts_as_seen(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
        cookie = await cookie_for(server.url, table.tokens["ann"])
        bob_cookie = await cookie_for(server.url, table.tokens["bob"])
        for seen in (cookie, bob_cookie):  # both look at the battle before the ship is added
            assert (
                await c.get(f"/battles/{table.battle_id}", cookies={"starboard_session": seen})
            ).status_code == 200
        await act(c, table, "ref", "ship.add", {"definition": simple_ship("Crow"), "owner": table.ids["bob"]})
        async with WsViewer(server.url, table.battle_id, cookie) as v:
            await v.hello(2)
            await v.answered()  # the hello, and the seen it records, are done
        page = await c.get(f"/battles/{table.battle_id}", cookies={"starboard_session": cookie})
        assert page.status_code == 200 and 'id="ship-hawk"' in page.text and 'id="ship-crow"' in page.text
        assert 'id="catch-up"' not in page.text  # she had seq 2 on the page already
        # Bob sent no hello: the same reload shows him what he missed.
        page = await c.get(f"/battles/{table.battle_id}", cookies={"starboard_session": bob_cookie})
        assert page.status_code == 200 and 'id="catch-up"' in page.text
        assert "Since your last visit" in page.text and "1 action, 1 event after #1." in page.text
