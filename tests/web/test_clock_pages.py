"""The battle clock on the pages: the referee sets it with the dashboard's form (an action like any
other, in the log), the turn bar shows each seat's time left to everyone — the spectator too —
and the pause; a seat saves its pings with its own form. Waits are GEN-01's readiness."""

from __future__ import annotations

import html
import re
from typing import Any

import httpx
import pytest

from app.services.bus import settle
from app.services.clock import ManualClock, SystemClock, use
from tests.helpers import set_table, simple_ship
from tests.web.test_pages import csrf, join

HOUR = 3600


@pytest.fixture(autouse=True)
def manual_time() -> Any:
    yield
    use(SystemClock())


def turn_clock(page: str) -> str:
    found = re.search(r'<p class="turn-clock".*?</p>', page, re.S)
    assert found, "no clock in the turn bar"
    return html.unescape(re.sub(r"<[^>]+>", " ", found.group(0)))


async def test_GEN_01_the_turn_bar_shows_the_clock_set_from_the_referee_page(
    client: httpx.AsyncClient,
) -> None:
    c = client
    time = use(ManualClock())
    c.app.state.platform.clock = time  # type: ignore[attr-defined]
    table = await set_table(
        c, options={}, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    ref = await join(c, table.tokens["ref"])
    assert 'id="clock-form"' in ref.text and 'id="turn-clock"' not in ref.text
    form = {
        "csrf_token": csrf(ref.text),
        "action_type": "clock.set",
        "action_id": "clock-1",
        "p.mode": "chess",
        "p.bank_seconds": "1800",
        "p.increment_seconds": "30",
        "p.reminder_seconds": "0",
        "p.step_seconds": "86400",
        "p.on_timeout": "done",
    }
    r = await c.post(f"/battles/{table.battle_id}/actions", data=form, headers={"HX-Request": "true"})
    assert r.status_code == 200, r.text
    await settle()
    time.advance(5 * 60)
    for who in ("ann", "watcher"):
        page = await join(c, table.tokens[who])
        shown = " ".join(turn_clock(page.text).split())
        assert shown == "⏱ Chess clock ann 25 min bob 25 min", who
    page = await join(c, table.tokens["ann"])
    assert 'class="clock-seat running"' in page.text
    # Paused from the dashboard: the bar says so and the times stop.
    ref = await join(c, table.tokens["ref"])
    assert 'id="pause-button"' in ref.text
    form = {"csrf_token": csrf(ref.text), "action_type": "battle.pause", "action_id": "pause-1"}
    r = await c.post(f"/battles/{table.battle_id}/actions", data=form, headers={"HX-Request": "true"})
    assert r.status_code == 200, r.text
    await settle()
    time.advance(HOUR)
    page = await join(c, table.tokens["bob"])
    assert " ".join(turn_clock(page.text).split()) == "⏸ Paused ann 25 min bob 25 min"
    assert 'id="resume-button"' in (await join(c, table.tokens["ref"])).text


async def test_a_seat_saves_its_pings_from_the_page(client: httpx.AsyncClient) -> None:
    c = client
    table = await set_table(c, options={})
    page = await join(c, table.tokens["ann"])
    assert 'id="ping-settings"' in page.text and 'data-deadline="yes"' in page.text
    form = {"csrf_token": csrf(page.text), "your_move": "on", "browser": "on", "webhook": "on"}
    r = await c.post(f"/battles/{table.battle_id}/pings", data=form, headers={"HX-Request": "true"})
    assert r.status_code == 200 and "Pings saved." in r.text
    page = await join(c, table.tokens["ann"])
    assert 'data-deadline="no"' in page.text and 'data-your-move="yes"' in page.text
    got = (await c.get(f"/api/v1/battles/{table.battle_id}/pings", headers=table.auth("ann"))).json()
    assert got == {"your_move": True, "deadline": False, "browser": True, "webhook": True}
