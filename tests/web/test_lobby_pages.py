"""The lobby's pages: /lobby, claiming a seat from it (first come, and through the referee's
approval), the referee's listing form (bad input names its field and changes nothing), the public
watch page with its report and replay, the viewscreen, and the public socket — one shared
spectator's view with no seat made, closed when the referee stops the public watching."""

from __future__ import annotations

import httpx
import pytest
import websockets

from tests.conftest import Server
from tests.helpers import Table, act, set_table, simple_ship
from tests.security.util import HX, browser, csrf, page_form
from tests.web.wsclient import WsViewer

HIT = {"target": "crow", "source": "hawk", "amount": 5, "direction": "fore"}
LISTING = {"claims": "first", "open_seats": [], "spectators": True, "delay_actions": 0, "delay_turn": False}


async def duel(c: httpx.AsyncClient) -> Table:
    return await set_table(
        c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )


async def listed(c: httpx.AsyncClient, table: Table, **changes: object) -> None:
    body = {**LISTING, "open_seats": [table.ids["bob"]], **changes}
    r = await c.put(f"/api/v1/battles/{table.battle_id}/listing", json=body, headers=table.auth("ref"))
    assert r.status_code == 200, r.text


async def test_the_lobby_lists_seats_and_battles_to_watch(client: httpx.AsyncClient) -> None:
    table = await duel(client)
    hidden = await duel(client)  # never listed
    await listed(client, table)
    async with browser(client) as b:
        page = (await b.get("/lobby")).text
    assert f'id="looking-{table.battle_id}"' in page and f'id="live-{table.battle_id}"' in page
    assert hidden.battle_id not in page
    assert f"/lobby/{table.battle_id}/seats/{table.ids['bob']}/claim" in page
    assert "Seat <strong>bob</strong> — commands Crow" in page
    assert (
        f'href="/battles/{table.battle_id}/watch"' in page
        and f'href="/battles/{table.battle_id}/screen"' in page
    )
    assert 'href="/lobby"' in page  # the site's nav


async def test_a_first_come_seat_is_taken_from_the_lobby_page(client: httpx.AsyncClient) -> None:
    table = await duel(client)
    await listed(client, table)
    async with browser(client) as b:
        token = csrf((await b.get("/lobby")).text)
        r = await b.post(
            f"/lobby/{table.battle_id}/seats/{table.ids['bob']}/claim",
            data={"csrf_token": token, "name": "Zed"},
            follow_redirects=False,
        )
        assert r.status_code == 303 and r.headers["location"] == f"/battles/{table.battle_id}"
        page = await b.get(f"/battles/{table.battle_id}")
        assert page.status_code == 200 and "Zed · player" in page.text
    # the seat's old link is gone; a second claimer is refused, naming the seat
    assert (
        await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))
    ).status_code == 403
    async with browser(client) as late:
        token = csrf((await late.get("/lobby")).text)
        r = await late.post(
            f"/lobby/{table.battle_id}/seats/{table.ids['bob']}/claim",
            data={"csrf_token": token, "name": "Yan"},
            headers=HX,
        )
        assert r.status_code == 422 and "not open" in r.text


async def test_a_claim_waits_for_the_referee_then_the_lobby_hands_the_seat_over(
    client: httpx.AsyncClient,
) -> None:
    table = await duel(client)
    await listed(client, table, claims="approve")
    async with browser(client) as b:
        token = csrf((await b.get("/lobby")).text)
        r = await b.post(
            f"/lobby/{table.battle_id}/seats/{table.ids['bob']}/claim",
            data={"csrf_token": token, "name": "Zed"},
            follow_redirects=False,
        )
        assert r.status_code == 303
        lobby = (await b.get("/lobby")).text
        assert "Your claims" in lobby and ": pending" in lobby and "Take your seat" not in lobby
        # the referee sees it in the requests queue of the referee page
        async with browser(client, table.tokens["ref"]) as ref:
            referee_page = (await ref.get(f"/battles/{table.battle_id}")).text
            assert "<strong>Zed</strong>: claims the open seat bob" in referee_page
            assert 'id="lobby-listing"' in referee_page
        queue = (
            await client.get(f"/api/v1/battles/{table.battle_id}/requests", headers=table.auth("ref"))
        ).json()
        (claim,) = [q for q in queue["requests"] if q["kind"] == "seat"]
        r = await client.post(
            f"/api/v1/battles/{table.battle_id}/requests/{claim['id']}",
            json={"approve": True},
            headers=table.auth("ref"),
        )
        assert r.status_code == 200
        lobby = (await b.get("/lobby")).text
        assert ": approved" in lobby and f'id="take-{claim["id"]}"' in lobby
        r = await b.post(
            f"/lobby/claims/{claim['id']}/take", data={"csrf_token": csrf(lobby)}, follow_redirects=False
        )
        assert r.status_code == 303 and r.headers["location"] == f"/battles/{table.battle_id}"
        assert "Zed · player" in (await b.get(f"/battles/{table.battle_id}")).text


async def test_the_referee_lists_from_the_page_and_bad_input_changes_nothing(
    client: httpx.AsyncClient,
) -> None:
    table = await duel(client)
    async with browser(client, table.tokens["ref"]) as ref:
        token = await page_form(ref, table.battle_id)
        form = {
            "csrf_token": token,
            "claims": "approve",
            "open_seats": [table.ids["bob"]],
            "spectators": "on",
        }
        r = await ref.post(f"/battles/{table.battle_id}/listing", data=form, headers=HX)
        assert r.status_code == 200 and "Lobby listing saved" in r.text
        for bad, field in (
            ({"delay_actions": "²"}, "delay_actions"),
            ({"delay_actions": "9999"}, "delay_actions"),
            ({"claims": "maybe"}, "claims"),
            ({"open_seats": [table.ids["watcher"]]}, "open_seats"),
        ):
            r = await ref.post(f"/battles/{table.battle_id}/listing", data={**form, **bad}, headers=HX)
            assert r.status_code == 422 and field in r.text, (bad, r.text)
        async with browser(client, table.tokens["ann"]) as ann:
            r = await ann.post(
                f"/battles/{table.battle_id}/listing",
                data={**form, "csrf_token": await page_form(ann, table.battle_id)},
                headers=HX,
            )
            assert r.status_code == 403
    listing = (
        await client.get(f"/api/v1/battles/{table.battle_id}/listing", headers=table.auth("ref"))
    ).json()
    assert listing == {**LISTING, "claims": "approve", "open_seats": [table.ids["bob"]]}


async def test_watch_report_replay_and_screen_are_public_only_while_listed(client: httpx.AsyncClient) -> None:
    table = await duel(client)
    await act(client, table, "ann", "damage.apply", HIT)
    bid = table.battle_id
    async with browser(client) as b:
        for path in ("/watch", "/watch/report", "/watch/replay", "/screen"):
            r = await b.get(f"/battles/{bid}{path}", follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"] == "/lobby", path
        await listed(client, table, open_seats=[])
        watch = await b.get(f"/battles/{bid}/watch")
        assert watch.status_code == 200 and "Watching · public" in watch.text
        assert f'hx-ws:connect="/battles/{bid}/ws"' in watch.text and 'id="chat"' not in watch.text
        assert 'id="ship-hawk"' in watch.text
        assert (await b.get(f"/battles/{bid}/watch/report")).status_code == 200
        replay = await b.get(f"/battles/{bid}/watch/replay", params={"seq": 1})
        assert replay.status_code == 200 and "After action #1 of 3" in replay.text
        assert f'href="/battles/{bid}/watch"' in replay.text  # LIVE leads back to the public page
        back = await b.get(f"/battles/{bid}/watch/replay", params={"back": 1})
        assert "After action #2 of 3" in back.text
        assert f'href="/battles/{bid}/watch/replay?back=1"' in watch.text
        assert (await b.get(f"/battles/{bid}/map")).status_code == 200  # the map page, as the public
        screen = await b.get(f"/battles/{bid}/screen")
        assert screen.status_code == 200 and 'id="screen-ship-hawk"' in screen.text
        assert "<form" not in screen.text and "<button" not in screen.text  # no controls
        assert "Live · after action #3" in screen.text
        assert (await b.get(f"/battles/{bid}/screen", params={"since": 3})).status_code == 204
        # with a delay the public watch page gives way to the screen, which runs behind
        await listed(client, table, open_seats=[], delay_actions=1)
        r = await b.get(f"/battles/{bid}/watch", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/battles/{bid}/screen"
        screen = await b.get(f"/battles/{bid}/screen")
        assert "Delayed: 1 action behind the table · after action #2" in screen.text
        assert (await b.get(f"/battles/{bid}/screen", params={"since": 2, "behind": 1})).status_code == 204
        assert (await b.get(f"/battles/{bid}/watch/report", follow_redirects=False)).status_code == 303


async def test_a_seat_opens_the_screen_of_an_unlisted_battle(client: httpx.AsyncClient) -> None:
    table = await duel(client)
    async with browser(client, table.tokens["ann"]) as ann:
        screen = await ann.get(f"/battles/{table.battle_id}/screen")
        assert screen.status_code == 200 and 'id="screen-ship-crow"' in screen.text


async def test_public_watchers_share_one_view_over_the_socket_and_are_closed_when_unlisted(
    server: Server,
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await duel(c)
        # not open to spectators: a browser with no seat is refused
        with pytest.raises(websockets.exceptions.InvalidStatus, match="403"):  # closed before it opens
            async with WsViewer(server.url, table.battle_id, ""):
                pass
        await listed(c, table, open_seats=[])
        async with (
            WsViewer(server.url, table.battle_id, "") as one,
            WsViewer(server.url, table.battle_id, "") as two,
        ):
            await one.hello(2)
            await two.hello(2)
            assert (await act(c, table, "ann", "damage.apply", HIT)).status_code == 200
            first = await one.frame_with_seq(3)
            second = await two.frame_with_seq(3)
            assert first["content"] == second["content"] and 'id="log-3"' in first["content"]
            # an action from a public watcher is refused: it holds no seat (the log does not move)
            await one.socket.send(
                '{"type": "action", "action_type": "damage.apply", "action_id": "w1", "payload": {"target": "crow", "source": "hawk", "amount": 5}}'
            )
            refused = await one.next_frame()
            assert refused["type"] == "error" and refused["error"] == "Forbidden", refused
            assert (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()[
                "seq"
            ] == 3
            await listed(c, table, open_seats=[], spectators=False)
            with _closed() as gone:
                while True:
                    await two.next_frame()
            assert gone.code == 1008


class _closed:
    """Catches the socket's close and keeps its code."""

    code: int | None = None

    def __enter__(self) -> _closed:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> bool:
        if isinstance(exc, websockets.exceptions.ConnectionClosed):
            self.code = exc.rcvd.code if exc.rcvd else None
            return True
        return False
