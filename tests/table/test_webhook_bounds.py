"""One seat cannot slow everyone through its webhook: sends run on their own bounded threads with a
deadline per attempt, at most WEBHOOK_MAX_CONCURRENT at once (more: 503 with Retry-After), at most
WEBHOOK_SEAT_LIMIT per WEBHOOK_SEAT_WINDOW_SECONDS for one seat (more: 429), while undo, audit and
the report — which use the event loop's default threads — keep answering."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from app.services.table import webhooks
from tests.helpers import act, eventually, set_table, simple_ship
from tests.table.conftest import settle, table_app_client


class Silent:
    """A receiver that accepts, reads the request and never answers (until released); or, with
    `dribble`, sends one byte of a status line every 50 ms forever."""

    def __init__(self, dribble: bool = False) -> None:
        self.open = 0
        self.heads: list[bytes] = []
        self.release = asyncio.Event()
        self.dribble = dribble
        self.closed_by_client = 0

    async def __aenter__(self) -> Silent:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release.set()
        self.server.close()
        await self.server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open += 1
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            self.heads.append(head)
            length = re.search(rb"content-length:\s*(\d+)", head, re.I)
            await reader.readexactly(int(length.group(1)) if length else 0)
            if self.dribble:
                for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 100_000:
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(0.05)
            # Until released, or until the sender hangs up (end of file).
            waits = {asyncio.create_task(self.release.wait()), asyncio.create_task(reader.read(1))}
            _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
        except (ConnectionError, asyncio.IncompleteReadError):
            self.closed_by_client += 1
        finally:
            self.open -= 1
            writer.close()


@asynccontextmanager
async def app_client(db_url: str, **settings: Any) -> AsyncIterator[httpx.AsyncClient]:
    app = table_app_client(db_url, notify_idle_seconds=0, **settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=120) as c:
            c.app = app  # type: ignore[attr-defined]
            yield c


async def hook(c: httpx.AsyncClient, table: Any, who: str, url: str) -> None:
    r = await c.put(
        f"/api/v1/battles/{table.battle_id}/notifications", json={"webhook_url": url}, headers=table.auth(who)
    )
    assert r.status_code == 200, r.text


async def test_eighteen_tests_to_a_silent_receiver_leave_undo_audit_and_report_alone(db_url: str) -> None:
    """The probe: 18 concurrent webhook tests to an address that never answers. 8 reach it (the
    cap), 10 are refused 503 with Retry-After, and undo, audit and the report answer while those 8
    still hang (before the fix they queued behind the sends on the same six threads)."""
    async with app_client(db_url, webhook_timeout_seconds=60, webhook_seat_limit=0) as c:
        table = await set_table(
            c, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        )
        for _ in range(3):
            r = await act(c, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 1})
            assert r.status_code == 200, r.text
        await settle()
        async with Silent() as rx:
            for who in ("ann", "bob", "ref"):
                await hook(c, table, who, rx.url)
            url = f"/api/v1/battles/{table.battle_id}/notifications/test"
            sends = [
                asyncio.create_task(c.post(url, headers=table.auth(("ann", "bob", "ref")[i % 3])))
                for i in range(18)
            ]
            await eventually(
                lambda: rx.open == 8 and sum(t.done() for t in sends) == 10,
                what="8 sends held by the silent receiver and 10 refused",
            )
            hung = [t for t in sends if not t.done()]
            for r in [t.result() for t in sends if t.done()]:
                assert r.status_code == 503 and int(r.headers["Retry-After"]) >= 1, r.text
                assert r.json()["detail"]["field"] == "webhook_url"
            # The game's own work, while the 8 sends still hang.
            base = f"/api/v1/battles/{table.battle_id}"
            work = [
                asyncio.create_task(act(c, table, "ref", "battle.undo", {"reason": "misclick"})),
                asyncio.create_task(c.get(f"{base}/audit", headers=table.auth("ref"))),
                asyncio.create_task(c.get(f"{base}/report", headers=table.auth("ann"))),
            ]
            await eventually(
                lambda: all(t.done() for t in work) or any(t.done() for t in hung),
                timeout=90,
                what="undo, audit and the report, or a held send",
            )
            assert not any(t.done() for t in hung), "the game's work waited for the webhook sends"
            assert [t.result().status_code for t in work] == [200, 200, 200], [t.result().text for t in work]
            assert rx.open == 8 and sum(t.done() for t in sends) == 10  # the 8 still hang
            rx.release.set()  # the receiver hangs up without answering: not delivered
            answers = await asyncio.gather(*sends)
        assert sorted(r.status_code for r in answers) == [200] * 8 + [503] * 10
        assert [r.json() for r in answers if r.status_code == 200] == [{"delivered": False}] * 8
        # Every slot is given back — the tests' and the pings the undo started, which retry with
        # backoff against the receiver that now hangs up — so nothing is held for ever.
        webhooks = c.app.state.platform.webhooks  # type: ignore[attr-defined]
        await eventually(lambda: webhooks.in_flight == 0, timeout=60, what="every webhook slot given back")


async def test_an_attempt_ends_at_its_deadline_even_against_a_dribbling_receiver(db_url: str) -> None:
    """A receiver that never answers, and one that sends its answer a byte at a time, both end the
    attempt at WEBHOOK_TIMEOUT_SECONDS: the thread is freed and the test says "not delivered"."""
    async with app_client(db_url, webhook_timeout_seconds=0.5) as c:
        table = await set_table(c)
        sender = webhooks.webhooks_of(c.app.state.platform)  # type: ignore[attr-defined]
        for dribble in (False, True):
            async with Silent(dribble=dribble) as rx:
                await hook(c, table, "ann", rx.url)
                r = await c.post(
                    f"/api/v1/battles/{table.battle_id}/notifications/test", headers=table.auth("ann")
                )
                assert r.status_code == 200 and r.json() == {"delivered": False}, r.text
                await eventually(lambda: sender.in_flight == 0, what="the webhook thread freed")
                await eventually(lambda: rx.open == 0, what="the connection closed by the sender")  # noqa: B023


async def test_a_seats_webhook_calls_are_rate_limited(db_url: str) -> None:
    """WEBHOOK_SEAT_LIMIT (5 per minute here): saving the URL and four tests, then 429 with
    Retry-After; another seat is not held back."""
    from tests.table.conftest import Receiver

    async with app_client(db_url) as c:
        table = await set_table(c)
        async with Receiver() as rx:
            await hook(c, table, "ann", rx.url)
            url = f"/api/v1/battles/{table.battle_id}/notifications/test"
            for _ in range(4):
                r = await c.post(url, headers=table.auth("ann"))
                assert r.json() == {"delivered": True}, r.text
            r = await c.post(url, headers=table.auth("ann"))
            assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1, r.text
            assert r.json()["detail"]["field"] == "webhook_url"
            assert len(rx.bodies) == 4
            await hook(c, table, "bob", rx.url)
            assert (await c.post(url, headers=table.auth("bob"))).json() == {"delivered": True}


async def test_notifications_the_server_starts_are_dropped_over_the_bounds(db_url: str) -> None:
    """Automatic messages never raise: over the seat's rate or with every slot busy, they are
    dropped (and logged), and the action that caused them already answered."""
    from app.services.table import notify
    from tests.table.conftest import Receiver

    async with app_client(db_url, webhook_seat_limit=1) as c:
        platform = c.app.state.platform  # type: ignore[attr-defined]
        async with Receiver() as rx:
            assert await notify.deliver(platform, rx.url, "one", seat="s1")
            assert not await notify.deliver(platform, rx.url, "two", seat="s1")  # the seat's rate
            sender = webhooks.webhooks_of(platform)
            sender.in_flight = sender.cap  # every slot taken
            try:
                assert not await notify.deliver(platform, rx.url, "three", seat="s2")
            finally:
                sender.in_flight = 0
            assert [b["content"] for b in rx.bodies] == ["one"]


async def test_saving_a_webhook_while_the_seats_first_visit_makes_its_row(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saving a URL for a seat with no status row yet, while its first visit makes that row: the
    save goes again and keeps the URL (it answered 500 on the row's unique key)."""
    from app.services.store.seats import mark_seen
    from app.services.table import notify
    from tests.table.conftest import Receiver

    async with app_client(db_url) as c:
        table = await set_table(c)
        platform = c.app.state.platform  # type: ignore[attr-defined]
        real = notify.status_of
        raced: list[bool] = []

        async def status_of_then_a_visit(session, participant):  # type: ignore[no-untyped-def]
            row = await real(session, participant)
            if not raced:  # the first look found no row; the visit makes one before this commits
                raced.append(True)
                await mark_seen(platform, participant.id, 0)
            return row

        monkeypatch.setattr(notify, "status_of", status_of_then_a_visit)
        async with Receiver() as rx:
            url = f"/api/v1/battles/{table.battle_id}/notifications"
            r = await c.put(url, json={"webhook_url": rx.url}, headers=table.auth("ann"))
            assert r.status_code == 200, r.text
            assert raced and (await c.get(url, headers=table.auth("ann"))).json() == {"webhook_url": rx.url}
