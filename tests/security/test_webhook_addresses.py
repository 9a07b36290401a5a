"""Where a webhook may point (SSRF): every loopback, private, link-local, reserved, IPv4-mapped and
translated form is refused — the probe's [::127.0.0.1], [64:ff9b::7f00:1] and [2002:7f00:1::]
first among them — and a send resolves the name once and connects to the address it checked (no
second lookup for a rebinding name to answer differently)."""

from __future__ import annotations

import asyncio
import re
import shutil
import socket
import ssl
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.services.errors import Invalid
from app.services.table import notify, outbound_address, webhooks
from app.services.table.outbound_address import is_public, parse
from tests.helpers import set_table

PRIVATE_FORMS = [
    # the probe's three: loopback carried in IPv6 forms a gateway translates back
    "::127.0.0.1",  # IPv4-compatible
    "64:ff9b::7f00:1",  # NAT64
    "2002:7f00:1::",  # 6to4
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:10.0.0.1",
    "::10.0.0.1",
    "64:ff9b::808:808",  # NAT64 is refused whatever it carries
    "64:ff9b:1::1",  # local-use NAT64
    "2002:808:808::1",  # 6to4 likewise
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "fec0::1",  # site-local
    "ff02::1",
    "2001:db8::1",  # documentation
    "127.0.0.1",
    "127.1.2.3",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",  # shared address space (carrier-grade NAT)
    "169.254.169.254",  # cloud metadata
    "0.0.0.0",
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.1",
    "198.18.0.1",
]
PUBLIC_FORMS = ["8.8.8.8", "1.1.1.1", "::ffff:8.8.8.8", "2606:4700:4700::1111", "2a00:1450:4001::1"]


@pytest.mark.parametrize("address", PRIVATE_FORMS)
def test_private_mapped_and_translated_forms_are_private(address: str) -> None:
    assert not is_public(parse(address))


@pytest.mark.parametrize("address", PUBLIC_FORMS)
def test_public_unicast_addresses_are_public(address: str) -> None:
    assert is_public(parse(address))


@pytest.mark.parametrize("host", ["[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[::ffff:7f00:1]"])
async def test_the_probes_urls_are_refused_at_the_door(client: httpx.AsyncClient, host: str) -> None:
    """The issue's URLs through PUT …/notifications: 422 naming webhook_url, nothing kept."""
    table = await set_table(client)
    url = f"/api/v1/battles/{table.battle_id}/notifications"
    r = await client.put(url, json={"webhook_url": f"http://{host}:8000/hook"}, headers=table.auth("ann"))
    assert r.status_code == 422 and r.json()["detail"]["field"] == "webhook_url", r.text
    assert (await client.get(url, headers=table.auth("ann"))).json() == {"webhook_url": None}


def test_a_name_with_any_private_address_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("8.8.8.8", 80))]
    answers.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::ffff:127.0.0.1", 80, 0, 0)))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: answers)
    with pytest.raises(Invalid):
        outbound_address.resolve("mixed.example", 80, allow_private=False)


def test_a_send_resolves_once_and_connects_to_the_checked_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS rebinding: the name answers a public address first and loopback after. The send looks it
    up once and connects to the public address it checked, never to a second answer."""
    lookups: list[str] = []
    connects: list[tuple[str, int]] = []

    def rebinding(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        lookups.append(host)
        address = "93.184.215.14" if len(lookups) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 80))]

    def connect(address: str, port: int, timeout: float) -> socket.socket:
        connects.append((address, port))
        raise ConnectionRefusedError("not really connecting")

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    monkeypatch.setattr(webhooks, "_connect", connect)
    with pytest.raises(ConnectionRefusedError):
        webhooks.post_once("http://rebind.example/hook", b"{}", 1.0, False, webhooks.Attempt())
    assert lookups == ["rebind.example"] and connects == [("93.184.215.14", 80)]


async def test_the_pinned_connection_keeps_the_hosts_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Connected to the checked address, the request still names the URL's host (Host header)."""
    heads: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        heads.append(head)
        length = re.search(rb"content-length:\s*(\d+)", head, re.I)
        await reader.readexactly(int(length.group(1)) if length else 0)
        writer.write(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    real = socket.getaddrinfo
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda host, *a, **k: real("127.0.0.1", *a, **k) if host == "hooks.example" else real(host, *a, **k),
    )
    try:
        status = await asyncio.to_thread(
            webhooks.post_once, f"http://hooks.example:{port}/x?k=1", b"{}", 2.0, True, webhooks.Attempt()
        )
    finally:
        server.close()
        await server.wait_closed()
    assert status == 204
    assert (
        heads[0].startswith(b"POST /x?k=1 HTTP/1.1\r\n")
        and f"Host: hooks.example:{port}".encode() in heads[0]
    )


def test_check_url_refuses_the_translated_forms_without_webhook_allow_private() -> None:
    for host in ("[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]"):
        with pytest.raises(Invalid):
            notify.check_url(f"https://{host}/hook", allow_private=False)


async def test_https_to_the_pinned_address_checks_the_certificate_for_the_urls_host(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Over TLS the pinned connection sends the URL's host as the server name (SNI) and checks the
    certificate against it: a certificate for hooks.example is accepted for https://hooks.example,
    and refused for another name that resolves to the same address."""
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make the test's certificate", pytrace=False)
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=hooks.example",
            "-addext",
            "subjectAltName=DNS:hooks.example",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    names: list[str | None] = []
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    server_ctx.sni_callback = lambda sock, name, ctx: names.append(name)  # type: ignore[assignment,func-returns-value]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = re.search(rb"content-length:\s*(\d+)", head, re.I)
            await reader.readexactly(int(length.group(1)) if length else 0)
            writer.write(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_ctx)
    port = server.sockets[0].getsockname()[1]
    real = socket.getaddrinfo
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda host, *a, **k: (
            real("127.0.0.1", *a, **k) if host.endswith(".example") else real(host, *a, **k)
        ),
    )
    trusting = ssl.create_default_context(cafile=cert)  # the test's certificate as the only authority
    monkeypatch.setattr(webhooks.ssl, "create_default_context", lambda: trusting)
    try:
        status = await asyncio.to_thread(
            webhooks.post_once, f"https://hooks.example:{port}/x", b"{}", 5.0, True, webhooks.Attempt()
        )
        assert status == 204 and names[0] == "hooks.example"
        with pytest.raises(ssl.SSLCertVerificationError):
            await asyncio.to_thread(
                webhooks.post_once, f"https://other.example:{port}/x", b"{}", 5.0, True, webhooks.Attempt()
            )
    finally:
        server.close()
        await server.wait_closed()
