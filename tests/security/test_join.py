"""Join links: their tokens never reach a log (the link carries the token in the URL fragment, and
old /join/<token> paths are redacted), a seated browser is asked before it switches seats (login
CSRF), the CSRF token rotates with the seat, and the referee can give any seat a new token."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets.exceptions

from tests import forked
from tests.conftest import ROOT, SECRET, Server, free_port, serving
from tests.helpers import act, eventually_sync, set_table, simple_ship
from tests.nginx import deploy_nginx
from tests.security.util import HX, browser, csrf, page_form
from tests.web.wsclient import WsViewer, cookie_for

PUBLIC = "https://starboard.example.org"


class CliServer:
    """`python -m app.cli serve` — the command serve.sh and the Dockerfile run — with its access log.
    Forked with the app already imported (tests/forked.py: the same command line, parsed and run by
    the same code), or with `real` a new interpreter, for a test whose point is the process itself."""

    def __init__(self, db: str, log: Path, *, real: bool = False, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        self.log = log.open("w")
        args = ["serve", "--no-demo", "--no-migrate", "--port", str(self.port)]
        environ = {
            **os.environ,
            "DATABASE_URL": db,
            "BROADCAST_URL": "memory://",
            "SECRET_KEY": SECRET,
            "PUBLIC_BASE_URL": PUBLIC,
            "BATTLE_CREATE_LIMIT": "0",
            **env,
        }
        self.proc: subprocess.Popen[bytes] | forked.Forked
        if real:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "app.cli", *args],
                cwd=ROOT,
                env=environ,
                stdout=self.log,
                stderr=subprocess.STDOUT,
            )
        else:
            self.proc = forked.start("app.cli", args, environ, log)
        if not serving(self.url):
            self.stop()
            raise RuntimeError(f"cli server did not start: {log.read_text()}")

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


@pytest.fixture(scope="module")
def cli_server(sqlite_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CliServer]:
    srv = CliServer(sqlite_url, tmp_path_factory.mktemp("cli") / "server.log", HEADER_TIMEOUT="1")
    yield srv
    srv.stop()


def token_of(join_url: str) -> str:
    assert join_url.startswith(f"{PUBLIC}/join#"), join_url
    return join_url.split("#", 1)[1]


def test_join_tokens_never_reach_the_access_log(cli_server: CliServer) -> None:
    with httpx.Client(base_url=cli_server.url) as api:
        created = api.post("/api/v1/battles", json={"name": "Logged", "system": "b5wars"}).json()
        ref_token = token_of(created["referee"]["join_url"])
        assert ref_token == created["referee"]["token"]
        seat = api.post(
            f"/api/v1/battles/{created['battle_id']}/participants",
            json={"name": "ann"},
            headers={"Authorization": f"Bearer {ref_token}"},
        ).json()
    ann_token = token_of(seat["join_url"])
    # What a browser does with PUBLIC/join#token: GET /join (the fragment is never sent), then
    # join.js posts the token with the page's CSRF token.
    with httpx.Client(base_url=cli_server.url) as ann:
        page = ann.get("/join")
        assert page.status_code == 200 and 'src="/static/js/join.js"' in page.text
        r = ann.post("/join", data={"csrf_token": csrf(page.text), "token": ann_token})
        assert r.status_code == 303 and r.headers["location"] == f"/battles/{created['battle_id']}"
        assert ann.get(r.headers["location"]).status_code == 200
    # Old links with the token in the path still work, and are redacted in the log.
    with httpx.Client(base_url=cli_server.url) as ref:
        r = ref.get(f"/join/{ref_token}")
        assert r.status_code == 303 and ref.get(r.headers["location"]).status_code == 200
        assert ref.get("/join/not-a-token?x=1").status_code == 303
    # the access log line of the last request is written after its answer: wait for it
    log = eventually_sync(lambda: (out := cli_server.output()) and "/join/[redacted]?x=1" in out and out)
    assert '"GET /join HTTP/1.1" 200' in log and '"POST /join HTTP/1.1" 303' in log  # the access log is on
    assert log.count('"GET /join/[redacted] HTTP/1.1" 303') == 1
    assert "/join/[redacted]?x=1" in log
    for secret in (ann_token, ref_token, "not-a-token"):
        assert secret not in log


def test_nginx_logs_join_paths_redacted() -> None:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    fmt = re.search(r"log_format\s+starboard\s+(.*?);", conf, re.S)
    assert fmt, "nginx.conf defines the starboard log_format"
    assert (
        "$request " not in fmt.group(1) and "$request_uri" not in fmt.group(1) and "$uri" not in fmt.group(1)
    )
    assert "$starboard_logged_uri" in fmt.group(1)
    assert re.search(r"access_log\s+\S+\s+starboard\s*;", conf)
    mapping = re.search(r"map \$request_uri \$starboard_logged_uri \{(.*?)\}", conf, re.S)
    assert mapping and "~^/join/" in mapping.group(1) and "/join/[redacted]" in mapping.group(1)


SLOW_HEAD = "closed a connection whose request headers took over 1.0s"


def _dribble_until_closed(s: socket.socket, deadline: float = 30) -> bytes:
    """Send one header byte every quarter second until the server closes the connection; what it
    sent before closing. A server that never closes it fails the test at `deadline` seconds (a
    deadline for a broken server, not a claim about speed: the client sends bytes all along, so
    only the head deadline can close it)."""
    stop = time.monotonic() + deadline
    s.settimeout(0.25)
    answer = b""
    while time.monotonic() < stop:
        try:
            s.sendall(b"X")
            got = s.recv(65536)
            if got == b"":
                return answer
            answer += got
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            return answer
    raise AssertionError(f"the server kept a dribbling connection open for {deadline} s")


def test_a_slow_loris_connection_is_closed(cli_server: CliServer) -> None:
    """A request head sent a byte at a time is cut off at HEADER_TIMEOUT (1 s here), unanswered."""
    logged = cli_server.output().count(SLOW_HEAD)
    with socket.create_connection(("127.0.0.1", cli_server.port), timeout=5) as s:
        s.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n")
        assert _dribble_until_closed(s) == b""
    eventually_sync(
        lambda: cli_server.output().count(SLOW_HEAD) == logged + 1, what="the head deadline's log line"
    )
    # A request head over MAX_HEADER_BYTES (16 KiB) is refused outright.
    with socket.create_connection(("127.0.0.1", cli_server.port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n")
        answer = s.recv(1024)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:80]
    # So is one that never ends (no line break: the parser has not read a header yet).
    with socket.create_connection(("127.0.0.1", cli_server.port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000)
        answer = s.recv(1024)
    assert answer.startswith(b"HTTP/1.1 400") and b"Request head over" in answer, answer[:200]
    # A head with a body bigger than the head limit, in one write, is a head under the limit.
    body = b'{"name": "' + b"a" * 20_000 + b'", "system": "b5wars"}'
    with socket.create_connection(("127.0.0.1", cli_server.port), timeout=5) as s:
        s.sendall(
            b"POST /api/v1/battles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        answer = s.recv(4096)
    assert answer.startswith(b"HTTP/1.1 422"), answer[:200]  # the name is too long; the head was fine
    # The second request's head on a kept-alive connection has its own deadline.
    with socket.create_connection(("127.0.0.1", cli_server.port), timeout=5) as s:
        s.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while b"\r\n\r\n" not in first:
            first += s.recv(65536)
        assert first.startswith(b"HTTP/1.1 200"), first[:80]
        s.sendall(b"GET /openapi.json HTTP/1.1\r\n")
        rest = _dribble_until_closed(s)  # the end of the first response's body, if not read yet
        assert not re.search(rb"HTTP/1\.1 \d{3} ", rest), rest[-200:]  # the second head was never answered
    eventually_sync(
        lambda: cli_server.output().count(SLOW_HEAD) == logged + 2, what="the head deadline's log line"
    )
    # An ordinary client on a kept-alive connection is served, twice.
    with httpx.Client(base_url=cli_server.url) as c:
        assert c.get("/openapi.json").status_code == 200
        assert c.get("/api/v1/actions").status_code == 200


def test_a_proxied_https_request_gets_secure_cookies(cli_server: CliServer) -> None:
    """Behind the proxy (X-Forwarded-Proto from a trusted address), cookies are Secure."""
    with httpx.Client(base_url=cli_server.url) as c:
        plain = c.get("/")
        assert "secure" not in plain.headers["set-cookie"].lower()
    with httpx.Client(base_url=cli_server.url) as c:
        proxied = c.get("/", headers={"X-Forwarded-Proto": "https"})
        assert "; secure" in proxied.headers["set-cookie"].lower()


async def test_a_seated_browser_is_asked_before_switching_seats(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    other = await set_table(client)
    async with browser(client, table.tokens["ann"]) as ann:
        before = await page_form(ann, table.battle_id)
        for token, battle_name in (
            (table.tokens["bob"], "Test battle"),
            (other.tokens["ref"], "Test battle"),
        ):
            r = await ann.get(f"/join/{token}", follow_redirects=False)
            assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
            assert "You are seated as <strong>ann</strong> (player)" in r.text
            assert f"in\n    <strong>{battle_name}</strong>" in r.text
            assert (await page_form(ann, table.battle_id)) == before  # nothing changed yet
        r = await ann.get(f"/join/{table.tokens['bob']}", follow_redirects=False)
        assert "Switch to <strong>bob</strong> (player)" in r.text
        # A forged POST (no or a wrong CSRF token: a cross-site form cannot read it) seats nobody.
        for forged in (
            {"token": table.tokens["bob"], "confirm": "yes"},
            {"token": table.tokens["bob"], "confirm": "yes", "csrf_token": "x"},
        ):
            bad = await ann.post("/join", data=forged, follow_redirects=False)
            assert bad.status_code == 303 and bad.headers["location"] == "/"
        page = await ann.get(f"/battles/{table.battle_id}")
        assert "ann · player" in page.text
        # Saying yes on the confirmation page switches, and the CSRF token rotates with the seat.
        r = await ann.post(
            "/join",
            data={"csrf_token": csrf(r.text), "token": table.tokens["bob"], "confirm": "yes"},
            follow_redirects=False,
        )
        assert r.status_code == 303 and r.headers["location"] == f"/battles/{table.battle_id}"
        page = await ann.get(f"/battles/{table.battle_id}")
        assert "bob · player" in page.text
        after = csrf(page.text)
        assert after != before
        stale = await ann.post(
            f"/battles/{table.battle_id}/actions",
            data={"csrf_token": before, "action_type": "clock.advance"},
            headers=HX,
        )
        assert stale.status_code == 403
        # Opening one's own link again goes straight in.
        again = await ann.get(f"/join/{table.tokens['bob']}", follow_redirects=False)
        assert again.status_code == 303


async def test_a_browser_with_no_seat_joins_directly_and_the_post_needs_csrf(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(client)
    async with browser(client) as fresh:
        # Without the join page's CSRF token (a cross-site auto-submitting form) nothing happens.
        r = await fresh.post("/join", data={"token": table.tokens["ann"]}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/"
        page = await fresh.get("/join")
        r = await fresh.post(
            "/join",
            data={"csrf_token": csrf(page.text), "token": table.tokens["ann"]},
            follow_redirects=False,
        )
        assert r.status_code == 303 and r.headers["location"] == f"/battles/{table.battle_id}"
        assert "ann · player" in (await fresh.get(r.headers["location"])).text
    async with browser(client) as fresh:
        r = await fresh.get(f"/join/{table.tokens['bob']}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/battles/{table.battle_id}"


async def test_the_referee_rotates_a_seats_token(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    url = f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}/token"
    assert (await client.post(url, headers=table.auth("ann"))).status_code == 403
    assert (await client.post(url)).status_code == 401
    r = await client.post(url, headers=table.auth("ref"))
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["participant_id"] == table.ids["ann"] and new["token"] != table.tokens["ann"]
    assert new["join_url"] == f"http://127.0.0.1:8000/join#{new['token']}"
    old = table.tokens["ann"]
    assert (await act(client, table, "ann", "clock.advance", {})).status_code == 403
    async with browser(client) as b:
        r = await b.get(f"/join/{old}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/"
    table.tokens["ann"] = new["token"]
    moved = await act(client, table, "ann", "ship.move", {"ship": "hawk", "position": {"hex": "0202"}})
    assert moved.status_code == 200, moved.text
    # The referee dashboard's "New link" button does the same.
    async with browser(client, table.tokens["ref"]) as ref:
        page = await ref.get(f"/battles/{table.battle_id}")
        # It opens the join-links page, where the new link stays until dismissed.
        button = f'action="/battles/{table.battle_id}/links/{table.ids["ann"]}"'
        assert button in page.text
        r = await ref.post(
            f"/battles/{table.battle_id}/links/{table.ids['ann']}", data={"csrf_token": csrf(page.text)}
        )
        assert r.status_code == 200 and "New link for ann: the old one no longer works." in r.text
        newest = re.search(r"/join#([A-Za-z0-9_-]+)", r.text).group(1)
    assert (await act(client, table, "ann", "clock.advance", {})).status_code == 403
    table.tokens["ann"] = newest
    moved = await act(client, table, "ann", "ship.move", {"ship": "hawk", "position": {"hex": "0303"}})
    assert moved.status_code == 200
    async with browser(client, table.tokens["ann"]) as ann:
        token = await page_form(ann, table.battle_id)
        r = await ann.post(f"/battles/{table.battle_id}/links/{table.ids['bob']}", data={"csrf_token": token})
        assert r.status_code == 403


def test_nginx_with_the_deploy_config_logs_no_token(
    cli_server: CliServer, nginx: str, tmp_path: Path
) -> None:
    """deploy/nginx.conf run for real in front of the app: the access log holds no token, neither
    from an old-style /join/<token> request nor from a Referer."""
    with deploy_nginx(nginx, [cli_server.port], tmp_path) as base:
        with httpx.Client(base_url=base) as api:
            created = api.post("/api/v1/battles", json={"name": "Proxied", "system": "sfb"}).json()
        token = created["referee"]["token"]
        with httpx.Client(base_url=base) as b:
            assert b.get(f"/join/{token}?from=mail").status_code == 303
            b.get("/static/css/app.css", headers={"Referer": f"{base}/join/{token}"})
            page = b.get("/join")
            b.post("/join", data={"csrf_token": csrf(page.text), "token": token})
    log = (tmp_path / "access.log").read_text()
    assert '"GET /join/[redacted]?from=mail HTTP/1.1" 303' in log, log
    assert f'"{base}/join/[redacted]"' in log and '"POST /join HTTP/1.1" 303' in log, log
    assert token not in log


async def test_a_rotated_token_unseats_browsers_that_joined_with_it(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    async with browser(client, table.tokens["ann"]) as ann, browser(client, table.tokens["bob"]) as bob:
        token = await page_form(ann, table.battle_id)
        assert "Test battle" in (await ann.get("/")).text
        r = await client.post(
            f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}/token",
            headers=table.auth("ref"),
        )
        new = r.json()["token"]
        page = await ann.get(f"/battles/{table.battle_id}", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/"
        home = await ann.get("/")
        assert "gave this seat a new link" in home.text and "Test battle" not in home.text
        r = await ann.post(
            f"/battles/{table.battle_id}/actions",
            data={
                "csrf_token": token,
                "action_type": "ship.move",
                "p.ship": "hawk",
                "p.position.hex": "0909",
            },
            headers=HX,
        )
        assert r.status_code == 403
        # Bob's seat was not rotated: his browser is still seated.
        assert (await bob.get(f"/battles/{table.battle_id}")).status_code == 200
        # The new link seats the browser again, straight in (it is the same seat).
        r = await ann.get(f"/join/{new}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/battles/{table.battle_id}"
        assert "ann · player" in (await ann.get(f"/battles/{table.battle_id}")).text
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    assert state["seq"] == 1


async def test_a_socket_opened_with_a_rotated_seat_is_refused(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
        cookie = await cookie_for(server.url, table.tokens["ann"])
        async with WsViewer(server.url, table.battle_id, cookie) as v:
            await v.hello(0)
            assert (await v.frame_with_seq(1))["seq"] == 1
        r = await c.post(
            f"/api/v1/battles/{table.battle_id}/participants/{table.ids['ann']}/token",
            headers=table.auth("ref"),
        )
        assert r.status_code == 200
    with pytest.raises(websockets.exceptions.InvalidStatus):
        async with WsViewer(server.url, table.battle_id, cookie):
            pass


async def test_websockets_outlive_the_header_deadline(cli_server: CliServer) -> None:
    """The header deadline (1 s here) ends with the upgrade request's head: a socket stays open."""
    async with httpx.AsyncClient(base_url=cli_server.url) as c:
        table = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")})
    cookie = await cookie_for(cli_server.url, table.tokens["ann"])
    async with WsViewer(cli_server.url, table.battle_id, cookie, origin=PUBLIC) as v:
        # A connection opened after the socket that sends nothing is closed by its head deadline:
        # the socket's own deadline, armed earlier for as long, would have fired before it.
        reader, writer = await asyncio.open_connection("127.0.0.1", cli_server.port)
        assert await asyncio.wait_for(reader.read(), 30) == b""
        writer.close()
        await v.hello(0)
        assert (await v.frame_with_seq(1))["seq"] == 1
