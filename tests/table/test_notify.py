"""Notifications for slow games, against a local HTTP receiver on a free port: one message
each time the battle starts waiting on a seat (none while it keeps waiting), none to a seat active on
the page, a retry after a failing receiver, none after the end; webhook URLs are validated (SSRF) and
read back by their owner only; the step deadline tells the referee once."""

from __future__ import annotations

from datetime import timedelta

import httpx

from app.services.store.seats import utcnow
from app.services.table import notify
from tests.helpers import act, eventually, set_table, simple_ship
from tests.table.conftest import Receiver, settle
from tests.table.test_chat import page_as


async def hook(c: httpx.AsyncClient, table, who: str, url: str | None) -> httpx.Response:  # type: ignore[no-untyped-def]
    return await c.put(
        f"/api/v1/battles/{table.battle_id}/notifications", json={"webhook_url": url}, headers=table.auth(who)
    )


async def add_ship(c: httpx.AsyncClient, table, name: str, owner: str) -> None:  # type: ignore[no-untyped-def]
    r = await act(c, table, "ref", "ship.add", {"definition": simple_ship(name), "owner": table.ids[owner]})
    assert r.status_code == 200, r.text
    await settle()


async def test_exactly_one_notification_each_time_the_battle_starts_waiting(
    local_client: httpx.AsyncClient,
) -> None:
    c = local_client
    table = await set_table(c, options={})  # the default: a step ends when nobody is pending
    async with Receiver() as rx:
        assert (await hook(c, table, "ann", rx.url)).status_code == 200
        await add_ship(c, table, "Hawk", "ann")  # Ship Power now waits on Ann: one message
        assert len(rx.bodies) == 1
        text = rx.bodies[0]["content"]
        assert set(rx.bodies[0]) == {"content"} and "is waiting on you" in text and "Test battle" in text
        await add_ship(c, table, "Crow", "bob")  # still waiting on Ann: nothing more
        assert len(rx.bodies) == 1
        r = await act(c, table, "ann", "step.ready", {})
        assert r.status_code == 200, r.text
        await settle()
        assert len(rx.bodies) == 1  # no longer waited on
        r = await act(c, table, "bob", "step.ready", {})  # the step ends; the next one waits on Ann again
        assert r.status_code == 200, r.text
        await settle()
        assert len(rx.bodies) == 2 and rx.hits == 2


async def test_no_notification_to_a_seat_active_on_the_page(idle_client: httpx.AsyncClient) -> None:
    c = idle_client
    table = await set_table(c, options={})
    async with Receiver() as rx:
        await hook(c, table, "ann", rx.url)
        await hook(c, table, "bob", rx.url + "?bob")
        await page_as(c, table.tokens["ann"], table.battle_id)  # Ann is looking at the battle
        await add_ship(c, table, "Hawk", "ann")
        assert rx.bodies == []
        await add_ship(c, table, "Crow", "bob")  # Bob never opened the page: he is told
        assert len(rx.bodies) == 1 and rx.hits == 1


async def test_a_failing_receiver_is_retried(local_client: httpx.AsyncClient) -> None:
    c = local_client
    table = await set_table(c, options={})
    async with Receiver(statuses=(500, 200)) as rx:
        await hook(c, table, "ann", rx.url)
        await add_ship(c, table, "Hawk", "ann")
        await eventually(lambda: rx.bodies, what="the retried webhook's delivery")
        assert rx.hits == 2 and len(rx.bodies) == 1


async def test_the_action_does_not_wait_for_a_dead_receiver(local_client: httpx.AsyncClient) -> None:
    c = local_client
    table = await set_table(c, options={})
    async with Receiver(statuses=(500, 500, 500, 500, 500)) as rx:
        await hook(c, table, "ann", rx.url)
        r = await act(
            c, table, "ref", "ship.add", {"definition": simple_ship("Hawk"), "owner": table.ids["ann"]}
        )
        assert r.status_code == 200  # answered; the webhook keeps failing in the background
        await settle()
        assert rx.hits == 4 and rx.bodies == []  # the first try and three retries, then it gives up


async def test_no_notification_after_the_end(local_client: httpx.AsyncClient) -> None:
    c = local_client
    table = await set_table(c, options={})
    async with Receiver() as rx:
        await hook(c, table, "bob", rx.url)
        await add_ship(c, table, "Crow", "bob")
        assert len(rx.bodies) == 1
        assert (await act(c, table, "bob", "step.ready", {})).status_code == 200  # the step ends by itself
        await settle()
        assert len(rx.bodies) == 2  # the next step waits on Bob again
        await add_ship(c, table, "Hawk", "ann")
        r = await act(c, table, "ref", "battle.end", {"reason": "scenario over"})
        assert r.status_code == 200, r.text
        await settle()
        assert len(rx.bodies) == 2  # a finished battle waits on nobody and tells nobody


async def test_webhook_urls_are_checked_and_secret(
    client: httpx.AsyncClient, local_client: httpx.AsyncClient
) -> None:
    table = await set_table(client)
    for url in (
        "ftp://example.com/x",
        "http://127.0.0.1:9/hook",
        "http://10.0.0.8/x",
        "http://user:pw@example.com/",
    ):
        r = await hook(client, table, "ann", url)
        assert r.status_code == 422 and r.json()["detail"]["field"] == "webhook_url", url
    assert (await hook(client, table, "watcher", "https://example.com/x")).status_code == 403
    table = await set_table(local_client)
    secret = "http://127.0.0.1:1/hook/secret-token-123"
    assert (await hook(local_client, table, "ann", secret)).status_code == 200
    mine = await local_client.get(
        f"/api/v1/battles/{table.battle_id}/notifications", headers=table.auth("ann")
    )
    assert mine.json() == {"webhook_url": secret}
    for who in ("bob", "ref", "watcher"):
        r = await local_client.get(
            f"/api/v1/battles/{table.battle_id}/notifications", headers=table.auth(who)
        )
        assert r.json() == {"webhook_url": None}
        assert "secret-token-123" not in await page_as(local_client, table.tokens[who], table.battle_id)
        state = await local_client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))
        assert state.status_code == 200 and "secret-token-123" not in state.text
    assert secret in await page_as(local_client, table.tokens["ann"], table.battle_id)


async def test_send_a_test_and_the_step_deadline(local_client: httpx.AsyncClient) -> None:
    c = local_client
    table = await set_table(c, options={})
    async with Receiver() as rx:
        await hook(c, table, "ref", rx.url)
        r = await c.post(f"/api/v1/battles/{table.battle_id}/notifications/test", headers=table.auth("ref"))
        assert r.json() == {"delivered": True} and "test notification" in rx.bodies[0]["content"]
        r = await c.patch(
            f"/api/v1/battles/{table.battle_id}/table",
            json={"step_deadline_minutes": 5},
            headers=table.auth("ref"),
        )
        assert r.status_code == 200, r.text
        await add_ship(c, table, "Hawk", "ann")
        platform = c.app.state.platform  # type: ignore[attr-defined]
        assert await notify.check_deadlines(platform) == 0  # not yet
        later = utcnow() + timedelta(minutes=6)
        assert await notify.check_deadlines(platform, now=later) == 1
        await settle()
        assert "has waited over 5 min on ann" in rx.bodies[-1]["content"] and len(rx.bodies) == 2
        assert await notify.check_deadlines(platform, now=later) == 0  # once per step


async def test_opting_in_during_a_wait_sends_nothing_for_that_wait(local_client: httpx.AsyncClient) -> None:
    c = local_client
    table = await set_table(c, options={})
    async with Receiver() as rx:
        await add_ship(c, table, "Hawk", "ann")  # waiting on Ann, who has no webhook yet
        await hook(c, table, "ann", rx.url)
        await add_ship(c, table, "Crow", "bob")  # the same wait goes on
        assert rx.bodies == []


async def test_the_page_door_saves_the_webhook_and_sends_a_test(local_client: httpx.AsyncClient) -> None:
    from tests.web.test_pages import csrf

    c = local_client
    table = await set_table(c)
    async with Receiver() as rx:
        html = await page_as(c, table.tokens["ann"], table.battle_id)
        assert 'id="webhook-test"' in html and 'id="browser-notify"' in html
        htmx = {"hx-request": "true"}
        r = await c.post(
            f"/battles/{table.battle_id}/notifications",
            data={"csrf_token": csrf(html), "webhook_url": rx.url},
            headers=htmx,
        )
        assert r.status_code == 200 and "Webhook saved." in r.text
        r = await c.post(
            f"/battles/{table.battle_id}/notifications",
            data={"csrf_token": csrf(html), "webhook_url": rx.url, "test": "1"},
            headers=htmx,
        )
        assert r.status_code == 200 and "Test sent" in r.text and len(rx.bodies) == 1
        r = await c.post(
            f"/battles/{table.battle_id}/notifications", data={"webhook_url": rx.url}, headers=htmx
        )
        assert r.status_code == 403  # no CSRF token: refused
        watcher = await page_as(c, table.tokens["watcher"], table.battle_id)
        assert 'id="webhook-test"' not in watcher and rx.url not in watcher


async def test_a_message_never_pings_everyone(local_client: httpx.AsyncClient) -> None:
    platform = local_client.app.state.platform  # type: ignore[attr-defined]
    async with Receiver() as rx:
        assert await notify.deliver(platform, rx.url, "“@everyone fight” is waiting on you")
        assert rx.bodies == [{"content": "“@\u200beveryone fight” is waiting on you"}]


async def test_last_seen_is_kept_in_the_actions_own_transaction_and_nothing_follows_without_webhooks(
    local_client: httpx.AsyncClient, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """An action costs one transaction. Its last-seen update is made inside it; the
    notifier's after-commit pass runs only when a seat has a webhook (or has no status row yet)."""
    from app.models import SeatStatus

    c = local_client
    table = await set_table(
        c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    passes: list[int] = []
    real = notify.after_commit

    async def counted(platform, battle_id, seq, actor_id):  # type: ignore[no-untyped-def]
        passes.append(seq)
        await real(platform, battle_id, seq, actor_id)

    monkeypatch.setattr(notify, "after_commit", counted)
    db = c.app.state.platform.db  # type: ignore[attr-defined]
    seqs = []
    for _ in range(3):
        r = await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 1})
        assert r.status_code == 200, r.text
        seqs.append(r.json()["seq"])
        await settle()
        async with db.reader() as session:
            row = await session.get(SeatStatus, table.ids["ann"])
            assert row is not None and row.seen_seq == seqs[-1]
    assert len(passes) <= 1  # at most the first, which makes Ann's status row
    async with Receiver() as rx:
        assert (await hook(c, table, "bob", rx.url)).status_code == 200
        r = await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 1})
        await settle()
        assert passes[-1] == r.json()["seq"]  # a webhook in the battle: the pass runs
