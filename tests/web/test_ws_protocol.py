"""The websocket protocol the app runs (`app.web.live.ws_protocol`, memory per idle socket):
its small queue and flag behave as the asyncio ones uvicorn uses, and an open socket keeps nothing
of its handshake — the cookie is not reachable from the connection once it is accepted; and a frame
written at once from shared bytes reads at the client as the same text, at each length encoding,
while a socket with permessage-deflate is sent the usual way."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import socket
import types

import pytest
import uvicorn
import websockets
from websockets.protocol import State

from app.web.live.ws_protocol import PING_TICKS, Inbox, LeanWebSocketProtocol, Writable, framed, ping_due
from tests.helpers import eventually


async def test_the_inbox_hands_frames_over_in_order_and_waits_for_the_next() -> None:
    inbox = Inbox()
    inbox.put_nowait("a")
    inbox.put_nowait("b")
    assert not inbox.empty() and inbox.qsize() == 2
    assert await inbox.get() == "a"
    assert await inbox.get() == "b"
    assert inbox.empty()
    reading = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not reading.done()
    inbox.put_nowait("c")
    assert await reading == "c"


async def test_a_reader_given_up_on_loses_no_frame() -> None:
    inbox = Inbox()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(inbox.get(), 0.01)  # as the hello timeout does
    inbox.put_nowait("hello")
    assert await asyncio.wait_for(inbox.get(), 1) == "hello"


async def test_two_readers_at_once_are_refused() -> None:
    inbox = Inbox()
    first = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="already waiting"):
        await inbox.get()
    first.cancel()


async def test_a_set_flag_is_waited_on_without_suspending() -> None:
    flag = Writable()
    flag.set()
    waiting = flag.wait()
    with pytest.raises(StopIteration):  # finished at the first step: the hub drives sends by hand
        waiting.send(None)


async def test_a_cleared_flag_holds_its_waiters_until_set() -> None:
    flag = Writable()
    flag.set()
    flag.clear()
    assert not flag.is_set()
    waiters = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    waiters[0].cancel()  # a sender that gave up
    await asyncio.sleep(0)
    flag.set()
    assert await asyncio.gather(*waiters[1:]) == [True, True]
    assert flag.is_set()


SHARED = (  # what a connection points at that is not its own: the server's, the app's, the loop's
    type,
    types.ModuleType,
    types.FunctionType,
    types.MethodType,
    types.CoroutineType,  # the app's own task: what the app keeps is the app's business
    logging.Logger,
    set,  # the server's connections and tasks
    asyncio.AbstractEventLoop,
    uvicorn.Config,
    uvicorn.Server,
)


def _reachable(root: object) -> list[object]:
    """Every object the connection holds (its transport, websockets' parser and its generator
    frames, the scope), without following what it shares with the rest of the process."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or (obj is not root and isinstance(obj, SHARED)):
            continue
        seen[id(obj)] = obj
        todo.extend(gc.get_referents(obj))
    return list(seen.values())


@contextlib.asynccontextmanager
async def _serving(app, **config):  # type: ignore[no-untyped-def]
    """A real uvicorn server running `app` on LeanWebSocketProtocol, on a free port, for the block."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, port=port, log_level="warning", ws=LeanWebSocketProtocol, **config)
    )
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield server
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await serving


async def test_an_open_socket_keeps_nothing_of_its_handshake() -> None:
    secret = "cookie-value-that-must-not-stay-" + "x" * 8
    received: list[str] = []

    async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        if scope["type"] != "websocket":
            return
        assert dict(scope["headers"])[b"cookie"] == f"s={secret}".encode()  # the app reads it first
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] == "websocket.receive":
            received.append(message["text"])
            await send({"type": "websocket.send", "text": message["text"].upper()})

    async with _serving(app) as server:
        port = server.config.port
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws", additional_headers={"Cookie": f"s={secret}"}
        ) as client:
            await client.send("hello")
            assert await client.recv() == "HELLO"
            (connection,) = server.server_state.connections
            assert isinstance(connection, LeanWebSocketProtocol)
            assert connection.request is None and connection.scope["headers"] == []
            held = _reachable(connection)
            assert any(isinstance(o, types.GeneratorType) for o in held)  # the parser was looked into
            assert not [o for o in held if isinstance(o, str | bytes) and secret in str(o)]
            await client.send("again")  # still a working socket
            assert await client.recv() == "AGAIN"
        assert received == ["hello", "again"]


def test_a_text_is_framed_as_rfc_6455_says() -> None:
    assert framed("x" * 300)[:4] == bytes((0x81, 126, 1, 44))  # final text frame, 16-bit length 300
    assert framed("hé") == bytes((0x81, 3)) + "hé".encode()
    assert framed("y" * 70_000)[:10] == bytes((0x81, 127)) + (70_000).to_bytes(8, "big")


@pytest.mark.parametrize("compression", [None, "deflate"])
async def test_a_frame_written_at_once_reads_as_sent(compression: str | None) -> None:
    texts = ["ok", "é" * 200, "z" * 70_000]  # 7-bit, 16-bit and 64-bit lengths
    written: list[bool] = []

    async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        await receive()  # the client's go
        for text in texts:
            now = send.__self__.write_text_now(text)
            written.append(now)
            if not now:
                await send({"type": "websocket.send", "text": text})
        await receive()

    async with _serving(app) as server:
        port = server.config.port
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", compression=compression) as client:
            await client.send("go")
            assert [await client.recv() for _ in texts] == texts
        # shared bytes only where each socket's bytes are the same: not under permessage-deflate
        assert written == [compression is None] * len(texts)


async def _open_until_closed(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass


async def test_keepalive_pings_written_as_bytes_are_answered_and_matched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent_by_websockets: list[bytes] = []
    monkeypatch.setattr(
        websockets.protocol.Protocol, "send_ping", lambda _, data: sent_by_websockets.append(data)
    )
    async with _serving(_open_until_closed, ws_ping_interval=0.05, ws_ping_timeout=1.0) as server:
        port = server.config.port
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", ping_interval=None) as client:
            (connection,) = server.server_state.connections
            # a pong carried the payload the ping sent (websockets answers each ping with it)
            await eventually(lambda: connection.last_ping_rtt > 0, what="a ping answered")
            assert client.state is State.OPEN and connection.conn.state is State.OPEN
        assert sent_by_websockets == []  # the server wrote its pings itself (CPU)


def test_a_ping_is_due_when_uvicorn_would_send_it_put_off_to_the_next_shared_tick() -> None:
    assert ping_due(100.3, 20.0, 0.01) == 120.5  # due at 120.29; ticks of half a second
    assert ping_due(100.0, 20.0, 0.0) == 120.0  # on a tick already: not put off
    assert ping_due(10.0, 0.4, 0.0) == pytest.approx(10.4)  # a short interval: ticks of 0.01 s
    assert ping_due(10.0, 0.4, 0.5) == 10.0  # a round trip longer than the interval: at once


async def test_the_pings_of_sockets_opened_at_different_times_leave_on_the_same_ticks() -> None:
    """A crowd's pings leave together, not one wake-up of a client each."""
    async with _serving(_open_until_closed, ws_ping_interval=0.4, ws_ping_timeout=1.0) as server:
        port = server.config.port
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(3):
                await stack.enter_async_context(websockets.connect(f"ws://127.0.0.1:{port}/ws"))
                await asyncio.sleep(0.013)  # off the grid: the sockets open between ticks
            connections = list(server.server_state.connections)
            assert len(connections) == 3
            tick = 0.4 / PING_TICKS
            for connection in connections:
                # each has pinged, been answered and scheduled the next ping (a ping in flight has
                # no next one scheduled until its pong)
                timer = await eventually(
                    lambda c=connection: c.last_ping_rtt > 0 and c.ping_timer,
                    interval=0.005,
                    what="a ping answered and the next one scheduled",
                )
                due = timer.when()
                assert abs(due / tick - round(due / tick)) < 1e-6, due


async def test_a_peer_that_never_answers_a_ping_is_closed_1011() -> None:
    async with _serving(_open_until_closed, ws_ping_interval=0.05, ws_ping_timeout=0.2) as server:
        port = server.config.port
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
        ping = await asyncio.wait_for(reader.readexactly(6), 2)
        assert ping[:2] == bytes((0x89, 4))  # a final ping frame, unmasked, 4 bytes of payload
        rest = await asyncio.wait_for(reader.read(), 2)  # never answered: then the close, then EOF
        close = rest[rest.index(0x88) :]
        assert int.from_bytes(close[2:4], "big") == 1011 and b"keepalive ping timeout" in close
        writer.close()
