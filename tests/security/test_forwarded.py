"""Forwarded client addresses are trusted only from the proxy: deploy/nginx.conf SETS
X-Forwarded-For to the address it saw (never appends the client's own), and docker-compose.yml
trusts exactly nginx's fixed address. So a made-up X-Forwarded-For no longer buys a fresh
per-address creation limit — for new battles, imports and forks alike (the probe made 40 of 40
battles past a spent limit through the shipped set-up)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from tests.conftest import ROOT
from tests.nginx import deploy_nginx
from tests.security.test_join import CliServer

LIMIT = 3


@pytest.fixture
def limited_app(sqlite_url: str, tmp_path: Path) -> Iterator[CliServer]:
    """The app as deployed, trusting forwarded headers from nginx's address only (127.0.0.1 here,
    where the test's nginx runs; 172.28.0.10 in docker-compose.yml), with a creation limit of 3."""
    srv = CliServer(
        sqlite_url, tmp_path / "server.log", BATTLE_CREATE_LIMIT=str(LIMIT), FORWARDED_ALLOW_IPS="127.0.0.1"
    )
    yield srv
    srv.stop()


def test_a_made_up_forwarded_address_does_not_bypass_the_creation_limit(
    limited_app: CliServer, nginx: str, tmp_path: Path
) -> None:
    with deploy_nginx(nginx, [limited_app.port], tmp_path) as base, httpx.Client(base_url=base) as c:
        made = [c.post("/api/v1/battles", json={"name": f"B{i}", "system": "b5wars"}) for i in range(LIMIT)]
        assert [r.status_code for r in made] == [201] * LIMIT, [r.text for r in made]
        ref = {"Authorization": f"Bearer {made[0].json()['referee']['token']}"}
        battle = made[0].json()["battle_id"]
        for i in range(10):
            spoof = {"X-Forwarded-For": f"203.0.{i}.7"}
            r = c.post("/api/v1/battles", json={"name": "More", "system": "b5wars"}, headers=spoof)
            assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1, r.text
        spoof = {"X-Forwarded-For": "198.51.100.9, 203.0.113.4"}
        assert c.post("/api/v1/battles/import", json={}, headers=spoof).status_code == 429
        r = c.post(f"/api/v1/battles/{battle}/fork", json={"seq": 1}, headers={**ref, **spoof})
        assert r.status_code == 429, r.text
        page = c.get("/", headers=spoof)
        assert page.status_code == 200


def test_the_shipped_setup_trusts_only_nginxs_address() -> None:
    """docker-compose.yml: nginx has a fixed address on the app network and FORWARDED_ALLOW_IPS is
    exactly that address (never "*"); deploy/nginx.conf sets X-Forwarded-For, never appends."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    proxy_networks = compose["services"]["proxy"]["networks"]
    (network, attached), *_ = proxy_networks.items()
    proxy_address = ipaddress.ip_address(attached["ipv4_address"])
    subnets = [ipaddress.ip_network(c["subnet"]) for c in compose["networks"][network]["ipam"]["config"]]
    assert any(proxy_address in subnet for subnet in subnets)
    for name in ("app", "migrate"):
        service = compose["services"][name]
        assert service["environment"]["FORWARDED_ALLOW_IPS"] == str(proxy_address), name
        assert network in service["networks"], name
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert re.findall(r"proxy_set_header\s+X-Forwarded-For\s+(\S+);", conf) == ["$remote_addr"]
    assert "$proxy_add_x_forwarded_for" not in conf
