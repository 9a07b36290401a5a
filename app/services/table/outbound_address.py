"""Where a webhook may point (the SSRF guard): a host is resolved ONCE, every address it resolves
to is checked, and the send connects to one of those checked addresses — never resolving the name
again, so a name that answers a public address to the check and a private one to the connect (DNS
rebinding) reaches nothing private.

Private means any address that is not plainly a public unicast one: loopback, private networks,
shared (carrier-grade NAT), link-local, multicast, unspecified and reserved ranges — and every IPv6
form that carries an IPv4 address a gateway may translate back (IPv4-mapped ::ffff:a.b.c.d and the
old IPv4-compatible ::a.b.c.d are judged by the address they carry; NAT64 64:ff9b::/96 and
64:ff9b:1::/48, 6to4 2002::/16 and Teredo 2001::/32 are refused whatever they carry)."""

from __future__ import annotations

import ipaddress
import socket

from app.services.errors import Invalid

PRIVATE_REASON = "webhooks may not point at loopback, private-network or reserved addresses"

# IPv6 ranges that tunnel or translate to IPv4 (where the address behind them is the gateway's choice).
TRANSLATED = tuple(
    ipaddress.ip_network(n) for n in ("64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "2001::/32")
)
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _public_v4(ip: ipaddress.IPv4Address) -> bool:
    return ip.is_global and not (
        ip.is_multicast or ip.is_reserved or ip.is_loopback or ip.is_link_local or ip.is_unspecified
    )


def is_public(ip: Address) -> bool:
    """Whether a webhook may connect to this address."""
    if isinstance(ip, ipaddress.IPv4Address):
        return _public_v4(ip)
    if ip.ipv4_mapped is not None:
        return _public_v4(ip.ipv4_mapped)
    if ip in IPV4_COMPATIBLE:  # ::a.b.c.d (and ::, ::1)
        return ip.packed[12:] != b"\0\0\0\0" and _public_v4(ipaddress.IPv4Address(ip.packed[12:]))
    if any(ip in net for net in TRANSLATED):
        return False
    return ip.is_global and not (
        ip.is_multicast
        or ip.is_reserved
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_site_local
        or ip.is_unspecified
    )


def parse(text: str) -> Address:
    """An address as getaddrinfo gives it (an IPv6 scope `%eth0` dropped)."""
    return ipaddress.ip_address(text.split("%")[0])


def resolve(host: str, port: int, allow_private: bool) -> list[str]:
    """The addresses to connect to for `host` (blocking: call off the event loop), resolved once.
    Every one is checked: a name with any private address is refused, so none of its answers can
    be the one a later lookup would choose."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError):  # no such name, or text no resolver takes
        raise Invalid(f"the webhook's host {host!r} does not resolve", "webhook_url") from None
    addresses: list[str] = []
    for info in infos:
        text = str(info[4][0])
        if not allow_private and not is_public(parse(text)):
            raise Invalid(PRIVATE_REASON, "webhook_url")
        if text not in addresses:
            addresses.append(text)
    if not addresses:
        raise Invalid(f"the webhook's host {host!r} does not resolve", "webhook_url")
    return addresses
