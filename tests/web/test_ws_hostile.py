"""The websocket against hostile input: bad hellos are answered and the
socket kept; binary frames close 1003; silence without hello closes 1008; a seat's sockets are
capped (1008); floods close 1008 — and a fuzzer throwing random and hostile frames from many
sockets leaves every other socket of the battle updating and the server answering."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Iterator

import httpx
import pytest
import websockets

from tests.conftest import Server
from tests.helpers import act, set_table, simple_ship
from tests.web.wsclient import WsViewer, cookie_for

LIMITS = {
    "WS_HELLO_TIMEOUT": "1",
    "WS_MAX_SOCKETS_PER_SEAT": "3",
    "WS_MAX_FRAMES_PER_SECOND": "20",
    "WS_HEARTBEAT_SECONDS": "1",
}
HIT = {"target": "crow", "source": "hawk", "amount": 1}


@pytest.fixture(scope="module")
def strict(sqlite_url: str) -> Iterator[Server]:
    srv = Server(sqlite_url, env=LIMITS)
    yield srv
    srv.stop()


async def _table(srv: Server, spectators: int = 0):  # type: ignore[no-untyped-def]
    async with httpx.AsyncClient(base_url=srv.url) as c:
        table = await set_table(
            c,
            ships={
                "hawk": (simple_ship("Hawk", structure=900), "ann"),
                "crow": (simple_ship("Crow", structure=900), "bob"),
            },
        )
        for i in range(spectators):
            r = await c.post(
                f"/api/v1/battles/{table.battle_id}/participants",
                json={"name": f"fuzz{i}", "role": "spectator"},
                headers=table.auth("ref"),
            )
            table.tokens[f"fuzz{i}"] = r.json()["token"]
    return table


async def _closed_with(v: WsViewer) -> tuple[int, str]:
    with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
        while True:
            await v.next_frame(timeout=5)
    assert closed.value.rcvd is not None, "closed without a close frame"
    return closed.value.rcvd.code, closed.value.rcvd.reason


async def test_bad_hellos_are_answered_and_the_socket_kept(strict: Server) -> None:
    table = await _table(strict)
    cookie = await cookie_for(strict.url, table.tokens["bob"])
    async with WsViewer(strict.url, table.battle_id, cookie) as v:
        for seq in (2**63, 10**30, "5", 1.5, True, -1, None, [1], {"n": 1}):
            await v.socket.send(json.dumps({"type": "hello", "seq": seq}))
            frame = await v.next_frame()
            assert frame["type"] == "error" and frame["field"] == "seq", (seq, frame)
        await v.socket.send('{"type": "hello", "seq": 1e999}')
        assert (await v.next_frame())["field"] == "seq"
        await v.hello(0)
        frame = await v.next_frame()
        assert frame["seq"] == 2 and 'id="log-1"' in frame["content"]


async def test_binary_frames_close_1003_and_silence_closes_1008(strict: Server) -> None:
    table = await _table(strict)
    cookie = await cookie_for(strict.url, table.tokens["bob"])
    async with WsViewer(strict.url, table.battle_id, cookie) as v:
        await v.hello(2)
        await v.socket.send(b"\x00\x01binary")
        code, reason = await _closed_with(v)
        assert code == 1003 and "binary" in reason
    async with WsViewer(strict.url, table.battle_id, cookie) as v:
        code, reason = await _closed_with(v)  # never says hello
        assert code == 1008 and "hello" in reason


async def test_a_seat_has_at_most_so_many_sockets(strict: Server) -> None:
    table = await _table(strict)
    cookie = await cookie_for(strict.url, table.tokens["bob"])
    tabs = [WsViewer(strict.url, table.battle_id, cookie) for _ in range(3)]
    for t in tabs:
        await t.__aenter__()
        await t.hello(2)
    try:
        async with WsViewer(strict.url, table.battle_id, cookie) as extra:
            code, reason = await _closed_with(extra)
            assert code == 1008 and reason == "too many connections"
        other = await cookie_for(strict.url, table.tokens["ann"])
        async with (
            WsViewer(strict.url, table.battle_id, other) as ann,
            httpx.AsyncClient(base_url=strict.url) as c,
        ):
            await ann.hello(2)
            await act(c, table, "ann", "damage.apply", HIT)
            for v in (ann, *tabs):
                assert (await v.frame_with_seq(3))["seq"] == 3
    finally:
        for t in tabs:
            await t.__aexit__(None, None, None)
    # the seat's count goes down as its sockets close (the server learns of each close a moment
    # after the client sends it, so a busy machine gets a few tries)
    for attempt in range(20):
        try:
            async with WsViewer(strict.url, table.battle_id, cookie) as again:
                await again.hello(3)
                assert await again.until_answered() == []  # admitted, caught up, not closed
            break
        except websockets.exceptions.ConnectionClosedError:
            if attempt == 19:
                raise
            await asyncio.sleep(0.2)


async def test_a_flood_closes_1008(strict: Server) -> None:
    table = await _table(strict)
    cookie = await cookie_for(strict.url, table.tokens["watcher"])
    async with WsViewer(strict.url, table.battle_id, cookie) as v:
        await v.hello(2)
        with contextlib.suppress(websockets.exceptions.ConnectionClosed):
            for _ in range(500):
                await v.socket.send('{"type": "nonsense"}')
        code, reason = await _closed_with(v)
        assert code == 1008 and reason == "too many frames"


def _hostile(rng: random.Random) -> str | bytes:
    kind = rng.randrange(12)
    if kind == 0:
        return "x" * rng.choice((16385, 20000, 60000))  # oversize
    if kind == 1:
        return rng.randbytes(rng.randrange(1, 300))  # binary
    if kind == 2:
        depth = rng.choice((40, 1000, 8000))
        return "[" * depth + "]" * depth  # deep JSON
    if kind == 3:
        return json.dumps({"type": "hello", "seq": rng.choice((2**63, 2**64 + 1, -(2**70), 10**300))})
    if kind == 4:
        return (
            '{"type": "hello", "seq": ' + "9" * rng.choice((20, 4000, 5000)) + "}"
        )  # past int parsing limits
    if kind == 5:
        return "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(rng.randrange(1, 200)))
    if kind == 6:
        return json.dumps(rng.choice([None, 1, "hello", [], {}, {"type": None}, {"type": ["hello"]}]))
    if kind == 7:
        payload = rng.choice([[], "x", {"target": {"a": [1] * 50}}, {"amount": 1e308}, {"a": "b" * 3000}])
        return json.dumps(
            {
                "type": "action",
                "action_type": rng.choice(["damage.apply", "x" * 300, 5]),
                "payload": payload,
                "action_id": rng.choice(["a", "", "z" * 100, 7]),
                "seen_seq": rng.choice([None, -1, 2**63, "3", 1.5]),
                "dice": rng.choice([None, [1e9], "x", [1] * 500]),
            }
        )
    if kind == 8:
        return '{"type": "hello", "seq": 1e999}'
    if kind == 9:
        return json.dumps({"type": "hello", "seq": rng.randrange(0, 50)})  # valid, any seq
    if kind == 10:
        return '{"type": "hello", "seq": 1, "type": "action"}'  # duplicate keys
    return '{"type": "hello", "seq": ' + "[" * 500  # truncated


async def _fuzz(
    srv: Server, battle_id: str, cookie: str, rng: random.Random, codes: list[int | None]
) -> None:
    for _ in range(6):  # several connections per fuzzer
        try:
            async with websockets.connect(
                srv.url.replace("http://", "ws://") + f"/battles/{battle_id}/ws",
                additional_headers={"Cookie": f"starboard_session={cookie}", "Origin": srv.url},
                max_size=2**22,
            ) as ws:
                for _ in range(rng.randrange(1, 40)):
                    await ws.send(_hostile(rng))
                    if rng.random() < 0.3:
                        await asyncio.sleep(rng.random() * 0.05)
                try:
                    while True:
                        await asyncio.wait_for(ws.recv(), 0.3)
                except TimeoutError:
                    codes.append(0)  # still open: fine
        except websockets.exceptions.ConnectionClosed as exc:
            codes.append(exc.rcvd.code if exc.rcvd else None)
        except websockets.exceptions.InvalidStatus:
            codes.append(-1)


async def test_fuzzing_leaves_the_other_sockets_updating(strict: Server) -> None:
    table = await _table(strict, spectators=4)
    good = [
        WsViewer(strict.url, table.battle_id, await cookie_for(strict.url, table.tokens[w]))
        for w in ("bob", "watcher")
    ]
    for g in good:
        await g.__aenter__()
        await g.hello(2)
    codes: list[int | None] = []
    rng = random.Random(1312)
    cookies = [await cookie_for(strict.url, table.tokens[f"fuzz{i}"]) for i in range(4)]
    cookies.append(await cookie_for(strict.url, table.tokens["ann"]))
    try:
        async with httpx.AsyncClient(base_url=strict.url) as c:
            fuzzers = asyncio.gather(
                *(
                    _fuzz(strict, table.battle_id, cookie, random.Random(rng.random()), codes)
                    for cookie in cookies
                )
            )
            seqs = []
            for _ in range(10):
                r = await act(c, table, "ann", "damage.apply", HIT)
                assert r.status_code == 200, r.text
                seqs.append(r.json()["seq"])
                await asyncio.sleep(0.1)
            await fuzzers
            r = await act(c, table, "ann", "damage.apply", HIT)
            last = r.json()["seq"]
            for g in good:
                assert (await g.frame_with_seq(last))["seq"] == last
            assert (await c.get("/healthz")).status_code == 200
            assert (await c.get("/readyz")).status_code == 200
    finally:
        for g in good:
            await g.__aexit__(None, None, None)
    assert None not in codes, "a socket died without a close code"
    assert set(codes) <= {0, 1003, 1008, 1009}, sorted(set(codes))
    print(f"\n[ws fuzz] {len(codes)} hostile connections, close codes {sorted(set(codes))}")
