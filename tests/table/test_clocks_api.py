"""The battle clock and pings over REST, as a bot uses them (with the app's time moved by hand): the
referee chooses the clock and pauses the battle, everyone reads it (and in the turn bar of the
battle's state), bad input is a 422 naming the field that changes nothing, and the pings — one
"your move" per wait however many actions others make, a "deadline soon" once with a
Discord-compatible body, none a seat turned off. The steps waited on are GEN-01's readiness."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.services.clock import ManualClock, SystemClock, use
from app.services.table import clocks
from tests.helpers import act, set_table, simple_ship
from tests.table.conftest import Receiver, settle

HOUR = 3600


@pytest.fixture(autouse=True)
def manual_time() -> Any:
    yield
    use(SystemClock())


def manual(c: httpx.AsyncClient) -> ManualClock:
    platform = c.app.state.platform  # type: ignore[attr-defined]
    platform.clock = use(ManualClock())
    return platform.clock


async def two_ships(c: httpx.AsyncClient):  # type: ignore[no-untyped-def]
    table = await set_table(c, options={})
    for name, owner in (("Hawk", "ann"), ("Crow", "bob")):
        r = await act(
            c, table, "ref", "ship.add", {"definition": simple_ship(name), "owner": table.ids[owner]}
        )
        assert r.status_code == 200, r.text
    await settle()
    return table


def url(table, tail: str) -> str:  # type: ignore[no-untyped-def]
    return f"/api/v1/battles/{table.battle_id}/{tail}"


async def test_GEN_01_the_referee_chooses_the_clock_and_everyone_reads_it(
    local_client: httpx.AsyncClient,
) -> None:
    c = local_client
    manual(c)
    table = await two_ships(c)
    r = await c.get(url(table, "clock"), headers=table.auth("ann"))
    assert r.status_code == 200 and r.json()["mode"] == "none"
    body = {"mode": "deadline", "step_seconds": 24 * HOUR, "reminder_seconds": HOUR}
    assert (await c.put(url(table, "clock"), json=body, headers=table.auth("ann"))).status_code == 403
    r = await c.put(url(table, "clock"), json=body, headers=table.auth("ref"))
    assert r.status_code == 200, r.text
    await settle()
    clock = (await c.get(url(table, "clock"), headers=table.auth("bob"))).json()
    assert (
        clock["describe"]
        == "24 h per step, a reminder 1 h before; when time runs out the seat is marked done"
    )
    assert {s["name"]: (s["running"], s["left_s"]) for s in clock["seats"]} == {
        "ann": (True, 24 * HOUR),
        "bob": (True, 24 * HOUR),
    }
    # The battle's state carries the same clock in its turn bar.
    state = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))).json()
    assert state["turn_bar"]["clocks"]["mode"] == "deadline"
    assert [s["name"] for s in state["turn_bar"]["clocks"]["seats"]] == ["ann", "bob"]
    # The choice is in the log, as a sentence.
    log = (await c.get(url(table, "events"), headers=table.auth("ann"))).json()["entries"]
    assert log[-1]["action_type"] == "clock.set"
    # Paused and resumed by the referee only; the answer says it.
    assert (await c.post(url(table, "pause"), headers=table.auth("bob"))).status_code == 403
    r = await c.post(url(table, "pause"), headers=table.auth("ref"))
    assert r.status_code == 200 and r.json()["paused"] is True
    r = await c.post(url(table, "pause"), headers=table.auth("ref"))
    assert r.status_code == 422 and r.json()["detail"]["field"] == "action_type"
    r = await c.post(url(table, "resume"), headers=table.auth("ref"))
    assert r.status_code == 200 and r.json()["paused"] is False


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "hourglass"}, "mode"),
        ({"mode": "deadline", "step_seconds": 5}, "step_seconds"),
        ({"mode": "chess", "bank_seconds": -1}, "bank_seconds"),
        ({"mode": "chess", "increment_seconds": "lots"}, "increment_seconds"),
        ({"mode": "deadline", "on_timeout": "explode"}, "on_timeout"),
        ({"step_seconds": 3600}, "mode"),
    ],
)
async def test_bad_clock_settings_are_a_422_naming_the_field_and_change_nothing(
    local_client: httpx.AsyncClient, body: dict[str, Any], field: str
) -> None:
    c = local_client
    table = await two_ships(c)
    before = (await c.get(url(table, "events"), headers=table.auth("ref"))).json()["seq"]
    r = await c.put(url(table, "clock"), json=body, headers=table.auth("ref"))
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["field"] == field
    assert (await c.get(url(table, "clock"), headers=table.auth("ref"))).json()["mode"] == "none"
    assert (await c.get(url(table, "events"), headers=table.auth("ref"))).json()["seq"] == before


async def test_bad_ping_settings_are_a_422_naming_the_field(local_client: httpx.AsyncClient) -> None:
    c = local_client
    table = await two_ships(c)
    r = await c.put(url(table, "pings"), json={"deadline": "sometimes"}, headers=table.auth("ann"))
    assert r.status_code == 422 and r.json()["detail"]["field"] == "deadline"
    assert (await c.get(url(table, "pings"), headers=table.auth("ann"))).json()["deadline"] is True
    r = await c.put(url(table, "pings"), json={"deadline": False}, headers=table.auth("ann"))
    assert r.status_code == 200 and r.json() == {
        "your_move": True,
        "deadline": False,
        "browser": True,
        "webhook": True,
    }
    assert (await c.get(url(table, "pings"), headers=table.auth("ann"))).json()["deadline"] is False
    assert (await c.get(url(table, "pings"), headers=table.auth("bob"))).json()["deadline"] is True


async def test_ten_actions_by_others_while_a_seat_waits_make_one_ping(
    local_client: httpx.AsyncClient,
) -> None:
    c = local_client
    table = await set_table(c, options={})
    async with Receiver() as rx:
        r = await c.put(url(table, "notifications"), json={"webhook_url": rx.url}, headers=table.auth("ann"))
        assert r.status_code == 200
        r = await act(
            c, table, "ref", "ship.add", {"definition": simple_ship("Hawk"), "owner": table.ids["ann"]}
        )
        assert r.status_code == 200, r.text
        await settle()
        assert len(rx.bodies) == 1 and "is waiting on you" in rx.bodies[0]["content"]
        for n in range(10):  # the referee adds ships and the step still waits on Ann
            r = await act(c, table, "ref", "ship.add", {"definition": simple_ship(f"Spare {n}")})
            assert r.status_code == 200, r.text
        await settle()
        assert len(rx.bodies) == 1 and rx.hits == 1


async def test_a_seat_that_turned_your_move_off_is_not_pinged(local_client: httpx.AsyncClient) -> None:
    c = local_client
    table = await set_table(c, options={})
    async with Receiver() as rx:
        await c.put(url(table, "notifications"), json={"webhook_url": rx.url}, headers=table.auth("ann"))
        r = await c.put(url(table, "pings"), json={"your_move": False}, headers=table.auth("ann"))
        assert r.status_code == 200
        await act(c, table, "ref", "ship.add", {"definition": simple_ship("Hawk"), "owner": table.ids["ann"]})
        await settle()
        assert rx.hits == 0


async def test_a_deadline_soon_ping_goes_once_with_a_discord_body(local_client: httpx.AsyncClient) -> None:
    c = local_client
    time = manual(c)
    platform = c.app.state.platform  # type: ignore[attr-defined]
    table = await two_ships(c)
    async with Receiver() as rx:
        await c.put(url(table, "notifications"), json={"webhook_url": rx.url}, headers=table.auth("bob"))
        body = {"mode": "deadline", "step_seconds": 24 * HOUR, "reminder_seconds": HOUR}
        assert (await c.put(url(table, "clock"), json=body, headers=table.auth("ref"))).status_code == 200
        await settle()
        time.advance(23 * HOUR)
        await clocks.tick(platform, only=[table.battle_id])
        await clocks.tick(
            platform, only=[table.battle_id]
        )  # a second look (or another process) pings nobody again
        await settle()
        deadline = [b for b in rx.bodies if "runs out" in b["content"]]
        assert len(deadline) == 1
        assert set(deadline[0]) == {"content", "embeds"}
        assert "bob, your time runs out in 1 h" in deadline[0]["content"]
        assert deadline[0]["embeds"][0]["title"] == "Deadline soon"
