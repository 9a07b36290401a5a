"""THE LEAK TEST on the websocket door (ST-22), against a real uvicorn process: while the warbird
Haakona is cloaked its path reaches the frames of its commander and the referee only — never the
other players' or a spectator's, whether the move is sent over REST or over the socket itself — and
after decloak only its current position is pushed; a reconnect after the battle ends opens the path."""

from __future__ import annotations

import json
import re
import uuid

import httpx

from tests.conftest import Server
from tests.helpers import act, set_table, ship_def
from tests.web.wsclient import WsViewer, cookie_for

SECRET = "0912"  # moved to over REST while cloaked
SOCKET_SECRET = "0811"  # moved to over the websocket while cloaked
LATER = "1013"  # where it decloaks
SEATS = ("kirk", "kosh", "tomalak", "watcher", "ref")
OTHERS = ("kirk", "kosh", "watcher")


def has(text: str, hex_: str) -> bool:
    """The hex as a value of its own, not digits inside an id, token or hash."""
    return re.search(rf"(?<![0-9A-Za-z_-]){hex_}(?![0-9A-Za-z_-])", text) is not None


async def test_LEAK_cloaked_moves_reach_only_the_owner_and_referee_frames(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            players=("kirk", "kosh", "tomalak"),
            ships={
                "excelsior": (ship_def("excelsior"), "kirk"),
                "shadow": (ship_def("shadow-cruiser"), "kosh"),
                "warbird": (ship_def("romulan-warbird"), "tomalak"),
            },
        )
        for _ in range(3):  # → Adjust Ship Systems, the end of turn 1
            await act(c, table, "ref", "clock.advance", {})
        r = await act(c, table, "tomalak", "startrek.cloak", {"ship": "haakona"})
        assert r.status_code == 200, r.text
        seq = r.json()["seq"]
    cookies = {who: await cookie_for(server.url, table.tokens[who]) for who in SEATS}
    viewers = {who: WsViewer(server.url, table.battle_id, cookie) for who, cookie in cookies.items()}
    for v in viewers.values():
        await v.__aenter__()
        await v.hello(seq)
    try:
        async with httpx.AsyncClient(base_url=server.url) as c:
            for _ in range(2):  # → turn 2 Movement
                await act(c, table, "ref", "clock.advance", {})
            r = await act(
                c,
                table,
                "tomalak",
                "ship.move",
                {"ship": "haakona", "position": {"hex": SECRET, "facing": 2, "speed": 6}},
            )
            assert r.status_code == 200, r.text
            # The commander moves again over the socket itself.
            await viewers["tomalak"].socket.send(
                json.dumps(
                    {
                        "type": "action",
                        "action_type": "ship.move",
                        "payload": {"ship": "haakona", "position": {"hex": SOCKET_SECRET, "facing": 1}},
                        "action_id": uuid.uuid4().hex,
                        "seen_seq": r.json()["seq"],
                    }
                )
            )
            moved_seq = r.json()["seq"] + 1
            for v in viewers.values():
                await v.frame_with_seq(moved_seq)
            while {"type": "result", "seq": moved_seq, "duplicate": False} not in viewers["tomalak"].frames:
                await viewers["tomalak"].next_frame()
            r = await act(c, table, "kirk", "ship.move", {"ship": "excelsior", "position": {"hex": "0303"}})
            for v in viewers.values():
                await v.frame_with_seq(r.json()["seq"])
        cloaked = {who: "".join(v.raw) for who, v in viewers.items()}
        for who in OTHERS:
            assert not has(cloaked[who], SECRET) and not has(cloaked[who], SOCKET_SECRET), who
            assert "A cloaked ship moves." in cloaked[who] and "CLOAKED" in cloaked[who], who
            assert has(cloaked[who], "0303"), who  # a visible move does arrive
        for who in ("tomalak", "ref"):
            assert has(cloaked[who], SECRET) and has(cloaked[who], SOCKET_SECRET), who
            assert "Haakona (cloaked) moves: hex 0811, facing 1." in cloaked[who], who
        # Decloak at the end of turn 2 from another hex: only that hex is pushed to the others.
        async with httpx.AsyncClient(base_url=server.url) as c:
            for _ in range(2):  # → Adjust Ship Systems
                await act(c, table, "ref", "clock.advance", {})
            await act(c, table, "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": LATER}})
            r = await act(c, table, "tomalak", "startrek.decloak", {"ship": "haakona"})
            assert r.status_code == 200, r.text
            for v in viewers.values():
                await v.frame_with_seq(r.json()["seq"])
        everything = {who: "".join(v.raw) for who, v in viewers.items()}
        for who in OTHERS:
            assert not has(everything[who], SECRET) and not has(everything[who], SOCKET_SECRET), who
            # The rule ID links to its entry in the rules reference.
            assert (
                "Haakona decloaks at hex 1013; its weapons and shields return next turn "
                '(<a class=\\"rule-ref\\" href=\\"/rules#ST-22\\">ST-22</a>).' in everything[who]
            )
        # The battle ends: a reconnect from the start reads the whole path (reveal_at_end).
        async with httpx.AsyncClient(base_url=server.url) as c:
            r = await act(c, table, "ref", "battle.end", {"reason": "the Romulans withdraw"})
            end_seq = r.json()["seq"]
        for who in OTHERS:
            await viewers[who].frame_with_seq(end_seq)
        async with WsViewer(server.url, table.battle_id, cookies["kirk"]) as again:
            await again.hello(0)
            frame = await again.frame_with_seq(end_seq)
        assert "Haakona (cloaked) moves: hex 0912, facing 2, speed 6." in frame["content"]
        assert "Haakona (cloaked) moves: hex 0811, facing 1." in frame["content"]
    finally:
        for v in viewers.values():
            await v.__aexit__(None, None, None)
