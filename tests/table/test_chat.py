"""Table talk through every door: page HTML, REST and the websocket. A `<script>` message
renders inert; a private line reaches only its two ends; length and rate limits; spectators read
public chat and write only where the battle lets them; chat never moves the actions' seq."""

from __future__ import annotations

import httpx

from tests.helpers import act, set_table, simple_ship


async def page_as(c: httpx.AsyncClient, token: str, battle_id: str) -> str:
    c.cookies.clear()
    r = await c.get(f"/join/{token}", follow_redirects=True)
    assert r.status_code == 200, r.text
    return r.text


async def say(c: httpx.AsyncClient, table, who: str, text: str, to: str | None = None) -> httpx.Response:  # type: ignore[no-untyped-def]
    return await c.post(
        f"/api/v1/battles/{table.battle_id}/chat", json={"text": text, "to": to}, headers=table.auth(who)
    )


async def chat_of(c: httpx.AsyncClient, table, who: str) -> list[str]:  # type: ignore[no-untyped-def]
    r = await c.get(f"/api/v1/battles/{table.battle_id}/chat", headers=table.auth(who))
    assert r.status_code == 200, r.text
    return [m["text"] for m in r.json()["messages"]]


async def test_a_script_message_renders_inert_and_chat_leaves_the_seq_alone(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    before = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))).json()["seq"]
    r = await say(client, table, "ann", "<script>alert('x')</script> & hello")
    assert r.status_code == 201, r.text
    html = await page_as(client, table.tokens["bob"], table.battle_id)
    assert "<script>alert(" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; hello" in html
    after = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))).json()["seq"]
    assert after == before  # chat is not an action: the rules log and its seq did not move
    events = (await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("ref"))).json()
    assert all("script" not in str(e) for e in events["entries"])


async def test_a_private_line_reaches_only_its_two_ends_on_pages_and_rest(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    assert (await say(client, table, "ann", "psst, my torpedo is a dud", to="referee")).status_code == 201
    r = await say(client, table, "ref", "noted, Bob must not know", to=table.ids["ann"])
    assert r.status_code == 201, r.text
    assert {k: r.json()[k] for k in ("seq", "from", "to", "private")} == {
        "seq": 2,
        "from": "Referee",
        "to": "ann",
        "private": True,
    }
    assert (await say(client, table, "bob", "hello all")).status_code == 201
    secret = ("psst, my torpedo is a dud", "noted, Bob must not know")
    assert await chat_of(client, table, "ann") == [*secret, "hello all"]
    assert await chat_of(client, table, "ref") == [*secret, "hello all"]
    assert await chat_of(client, table, "bob") == ["hello all"]
    r = await client.get(f"/api/v1/battles/{table.battle_id}/chat", headers=table.auth("bob"))
    assert r.json()["chat_seq"] == 1 and r.json()["messages"][0]["seq"] == 1  # no gap where the whispers were
    assert await chat_of(client, table, "watcher") == ["hello all"]
    for who, sees in (("ann", True), ("ref", True), ("bob", False), ("watcher", False)):
        html = await page_as(client, table.tokens[who], table.battle_id)
        assert "hello all" in html
        assert all((s in html) is sees for s in secret), who
    # Private lines go to the referee only (a player cannot write to another player privately).
    r = await say(client, table, "ann", "to bob", to=table.ids["bob"])
    assert r.status_code == 422 and r.json()["detail"]["field"] == "to"


async def test_length_and_rate_limits_answer_clearly(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    r = await say(client, table, "ann", "x" * 501)
    assert r.status_code == 422 and "at most 500 characters" in r.json()["detail"]["reason"]
    assert (await say(client, table, "ann", "   ")).status_code == 422
    for i in range(5):
        assert (await say(client, table, "ann", f"line {i}")).status_code == 201
    r = await say(client, table, "ann", "one too many")
    assert r.status_code == 429 and "at most 5 messages in 10 s" in r.json()["detail"]["reason"]
    assert (await say(client, table, "bob", "my own limit")).status_code == 201  # per seat
    # The page door says the same in a message.
    html = await page_as(client, table.tokens["ann"], table.battle_id)
    from tests.web.test_pages import csrf

    r = await client.post(
        f"/battles/{table.battle_id}/chat",
        data={"csrf_token": csrf(html), "text": "again"},
        headers={"hx-request": "true"},
    )
    assert r.status_code == 429 and "slow down" in r.text
    assert "one too many" not in await chat_of(client, table, "ref")


async def test_spectators_read_and_write_only_with_the_option(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    await say(client, table, "ann", "public words")
    assert await chat_of(client, table, "watcher") == ["public words"]
    r = await say(client, table, "watcher", "may I?")
    assert r.status_code == 403
    html = await page_as(client, table.tokens["watcher"], table.battle_id)
    assert 'id="chat-read-only"' in html and 'id="chat-form"' not in html
    r = await client.patch(
        f"/api/v1/battles/{table.battle_id}/table", json={"spectators_chat": True}, headers=table.auth("ref")
    )
    assert r.status_code == 200 and r.json()["options"]["spectators_chat"] is True
    r = await client.patch(
        f"/api/v1/battles/{table.battle_id}/table", json={"spectators_chat": True}, headers=table.auth("ann")
    )
    assert r.status_code == 403
    assert (await say(client, table, "watcher", "now I may")).status_code == 201
    assert (await say(client, table, "watcher", "psst", to="referee")).status_code == 403  # no private line
    # Also given when the battle is made.
    r = await client.post(
        "/api/v1/battles",
        json={"name": "Open table", "system": "b5wars", "options": {"spectators_chat": True}},
    )
    battle = r.json()["battle_id"]
    r = await client.get(
        f"/api/v1/battles/{battle}/table", headers={"Authorization": f"Bearer {r.json()['referee']['token']}"}
    )
    assert r.json()["options"]["spectators_chat"] is True


async def test_damage_still_acts_with_chat_beside_it(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    await say(client, table, "ann", "firing!")
    r = await act(
        client,
        table,
        "ann",
        "damage.apply",
        {"target": "crow", "source": "hawk", "amount": 9, "direction": "fore"},
        seq=2,
    )
    assert r.status_code == 200 and r.json()["seq"] == 3  # the seq the page acted on is still current
