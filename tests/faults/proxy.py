"""A small TCP proxy for fault tests, run in its own thread and event loop (the app processes
connect through it; the shared PostgreSQL and Redis servers are never touched).

- `pause()`: keep every connection open but stop forwarding bytes (a hung network or server).
- `cut()`: reset every connection now; new ones are still accepted (a server restart).
- `block()`: reset every connection and refuse new ones until `restore()` (a process cut off).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self._flowing = asyncio.Event()
        self._blocked = False
        self._pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"proxy-{self.port}", daemon=True)
        self._thread.start()
        self._ready.wait(5)

    def url_for(self, url: str) -> str:
        """The same URL with host:port replaced by this proxy's."""
        scheme, rest = url.split("://", 1)
        auth, _, tail = rest.rpartition("@")
        path = tail.split("/", 1)[1] if "/" in tail else ""
        return f"{scheme}://{auth + '@' if auth else ''}127.0.0.1:{self.port}/{path}"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self._flowing.set()
        self.server = self.loop.run_until_complete(asyncio.start_server(self._accept, "127.0.0.1", self.port))
        self._ready.set()
        self.loop.run_forever()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._blocked:
            _reset(writer)
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            _reset(writer)
            return
        pair = (writer, up_writer)
        self._pairs.add(pair)
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self._pairs.discard(pair)
            for w in pair:
                _reset(w)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.write_eof()

    def _call(self, fn) -> None:  # type: ignore[no-untyped-def]
        done = threading.Event()

        def run() -> None:
            try:
                fn()
            finally:
                done.set()

        self.loop.call_soon_threadsafe(run)
        done.wait(5)

    def pause(self) -> None:
        self._call(self._flowing.clear)

    def resume(self) -> None:
        self._call(self._flowing.set)

    def cut(self) -> None:
        def go() -> None:
            self._flowing.set()
            for pair in list(self._pairs):
                for w in pair:
                    _reset(w)

        self._call(go)

    def block(self) -> None:
        self._blocked = True
        self.cut()

    def restore(self) -> None:
        self._blocked = False
        self.resume()

    def close(self) -> None:
        self.block()

        def stop() -> None:
            self.server.close()
            self.loop.stop()

        self.loop.call_soon_threadsafe(stop)
        self._thread.join(5)


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with RST (SO_LINGER 0), as a dead server or a cut cable would look."""
    sock = writer.get_extra_info("socket")
    with contextlib.suppress(Exception):
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    with contextlib.suppress(Exception):
        writer.transport.abort()
