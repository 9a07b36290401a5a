"""The operator's metrics at /metrics: a scripted battle on a real server moves each number by
exactly what the battle did, and the endpoint is not there unless configured."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import ROOT, Server
from tests.helpers import act, eventually, set_table, simple_ship
from tests.nginx import deploy_nginx
from tests.web.test_feed import feed
from tests.web.wsclient import WsViewer, cookie_for

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(base: str) -> Samples:
    r = httpx.get(f"{base}/metrics", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


@pytest.fixture(scope="module")
def metered(sqlite_url: str) -> Iterator[Server]:
    """A server of its own (its counters count only this module's battle), metrics switched on."""
    srv = Server(sqlite_url, env={"METRICS_ENABLED": "true"})
    yield srv
    srv.stop()


async def test_a_scripted_battle_moves_each_metric_by_what_it_did(metered: Server) -> None:
    before = scrape(metered.url)
    async with httpx.AsyncClient(base_url=metered.url, timeout=10) as c:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        table = await set_table(c, ships=ships)  # two ship.add actions
        dmg = {"target": "crow", "source": "hawk", "amount": 2, "direction": "fore"}
        first = await act(c, table, "ann", "damage.apply", dmg, action_id="once")
        assert first.status_code == 200, first.text
        again = await act(c, table, "ann", "damage.apply", dmg, action_id="once")  # a duplicate
        assert again.status_code == 200 and again.json()["seq"] == first.json()["seq"]
        stale = await act(c, table, "ann", "damage.apply", dmg, seq=0)  # made against seq 0: refused
        assert stale.status_code == 409, stale.text
        bad = await act(c, table, "ann", "damage.apply", {**dmg, "target": "nowhere"})
        assert bad.status_code == 422, bad.text
        missing = await c.get("/no-such-page", headers={"accept": "text/html"})
        assert missing.status_code == 404

        # a socket and a feed open while the next action is committed; each is sent its frame
        seq = first.json()["seq"]
        cookie = await cookie_for(metered.url, table.tokens["bob"])
        with pytest.raises(websockets.exceptions.InvalidStatus):  # a socket from a foreign page: refused
            async with WsViewer(metered.url, table.battle_id, cookie, origin="http://evil.example"):
                pass
        opened = asyncio.Event()
        listening = asyncio.create_task(feed(c, table, "ann", 1, since=seq, opened=opened))
        async with WsViewer(metered.url, table.battle_id, cookie) as viewer:
            await viewer.hello(seq)
            await viewer.until_answered()
            await asyncio.wait_for(opened.wait(), 10)
            during = scrape(metered.url)
            assert moved(before, during, "starboard_open_sockets") == 1
            assert moved(before, during, "starboard_open_feeds") == 1
            second = await act(c, table, "bob", "damage.apply", {**dmg, "target": "hawk", "source": "crow"})
            assert second.status_code == 200, second.text
            await viewer.frame_with_seq(second.json()["seq"])
            pushed = viewer.raw[-1]
            await listening
    after = scrape(metered.url)

    applied = 2 + 2  # the two ships added, and one damage each
    assert moved(before, after, "starboard_actions_total", system="b5wars", outcome="applied") == applied
    assert moved(before, after, "starboard_actions_total", system="b5wars", outcome="duplicate") == 1
    assert moved(before, after, "starboard_actions_total", system="b5wars", outcome="stale") == 1
    assert moved(before, after, "starboard_actions_total", system="b5wars", outcome="invalid") == 1
    assert moved(before, after, "starboard_action_seconds_count", outcome="applied") == applied
    assert moved(before, after, "starboard_http_responses_total", door="action", status="409") == 1
    assert moved(before, after, "starboard_http_responses_total", door="action", status="422") == 1
    assert moved(before, after, "starboard_http_responses_total", door="page", status="404") == 1
    assert moved(before, after, "starboard_http_responses_total", door="socket", status="403") == 1
    # a wake-up per committed action and per seat added (ann, bob, the watcher); the in-process
    # broker delivers each here
    assert moved(before, after, "starboard_wakeups_published_total") == applied + 3
    assert moved(before, after, "starboard_wakeups_received_total") == applied + 3
    assert moved(before, after, "starboard_frames_sent_total", channel="feed") == 1
    # the damage's frame (a heartbeat may have come too: it is a frame sent as well)
    assert moved(before, after, "starboard_frames_sent_total", channel="socket") >= 1
    assert moved(before, after, "starboard_frame_bytes_sent_total", channel="socket") >= len(pushed)
    assert value(after, "starboard_db_pool_in_use") >= 0
    assert value(after, "starboard_broker_subscribed") == 1


async def test_refusals_by_a_limit_are_counted(sqlite_url: str) -> None:
    """A battle creation over BATTLE_CREATE_LIMIT is a 429 and a rate-limit refusal of the api door."""
    srv = Server(sqlite_url, env={"METRICS_ENABLED": "true", "BATTLE_CREATE_LIMIT": "1"})
    try:
        before = scrape(srv.url)
        async with httpx.AsyncClient(base_url=srv.url, timeout=10) as c:
            body = {"name": "Limit", "system": "b5wars", "dice_mode": "seeded"}
            assert (await c.post("/api/v1/battles", json=body)).status_code == 201
            assert (await c.post("/api/v1/battles", json=body)).status_code == 429
        after = scrape(srv.url)
    finally:
        srv.stop()
    assert moved(before, after, "starboard_rate_limited_total", door="api") == 1
    assert moved(before, after, "starboard_http_responses_total", door="api", status="429") == 1


async def test_metrics_are_not_served_unless_configured(server: Server) -> None:
    """The shared test server runs with the defaults: there is no /metrics to find."""
    r = httpx.get(f"{server.url}/metrics", timeout=10)
    assert r.status_code == 404


def test_nginx_keeps_metrics_internal(metered: Server, nginx: str, tmp_path: Path) -> None:
    """deploy/nginx.conf in front of a replica that serves /metrics: the public port answers 404
    for it, while the replica itself (what Prometheus scrapes on the compose network) answers."""
    with deploy_nginx(nginx, [metered.port], tmp_path) as base:
        assert httpx.get(f"{base}/metrics", timeout=10).status_code == 404
        for variant in ("/metrics?format=text", "/metrics/", "//metrics"):
            r = httpx.get(f"{base}{variant}", timeout=10, follow_redirects=True)
            assert "starboard_actions_total" not in r.text, variant
        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200
    assert "starboard_actions_total" in httpx.get(f"{metered.url}/metrics", timeout=10).text


def test_the_grafana_dashboard_asks_only_for_metrics_that_exist(metered: Server) -> None:
    """deploy/grafana-starboard.json: every starboard_* series a panel queries is served."""
    import re

    def family(name: str) -> str:
        return re.sub(r"_(total|bucket|count|sum)$", "", name)

    text = httpx.get(f"{metered.url}/metrics", timeout=10).text  # families are declared before any sample
    served = {family(name) for name in re.findall(r"^# HELP (starboard_[a-z_]+)", text, re.M)}
    asked = {
        family(n)
        for n in re.findall(r"starboard_[a-z_]+", (ROOT / "deploy" / "grafana-starboard.json").read_text())
    }
    assert asked and asked <= served, asked - served


async def test_wake_ups_cross_the_broker_and_their_lag_is_measured(postgres_url: str, redis_url: str) -> None:
    """Two processes on Redis pub/sub: an action on one is a wake-up it publishes, which the other
    receives with its lag observed (every wake-up b received came from a); nothing is left pending."""
    a, b = (Server(postgres_url, redis_url, env={"METRICS_ENABLED": "true"}) for _ in range(2))
    try:
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as c:
            table = await set_table(
                c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
            )
            await eventually(
                lambda: value(scrape(b.url), "starboard_broker_subscribed") == 1, what="b subscribed"
            )
            before_a, before_b = scrape(a.url), scrape(b.url)
            dmg = {"target": "crow", "source": "hawk", "amount": 1, "direction": "fore"}
            for _ in range(3):
                assert (await act(c, table, "ann", "damage.apply", dmg)).status_code == 200
        await eventually(
            lambda: moved(before_b, scrape(b.url), "starboard_wakeups_received_total") >= 1,
            what="b received the wake-ups",
        )
        after_a, after_b = scrape(a.url), scrape(b.url)
    finally:
        a.stop()
        b.stop()
    # a wake-up still waiting to go out is replaced by a newer one of the same battle: 1 to 3 sent
    assert 1 <= moved(before_a, after_a, "starboard_wakeups_published_total") <= 3
    assert moved(before_b, after_b, "starboard_wakeups_published_total") == 0
    received = moved(before_b, after_b, "starboard_wakeups_received_total")
    assert moved(before_b, after_b, "starboard_broker_lag_seconds_count") == received >= 1
    assert moved(before_b, after_b, "starboard_broker_lag_seconds_sum") >= 0
    assert value(after_a, "starboard_wakeups_pending") == 0
