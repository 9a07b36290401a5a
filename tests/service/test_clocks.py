"""Clocks for slow and fast games, through the service on SQLite and PostgreSQL with the time moved
by hand (a ManualClock on the platform; the timer's look is called, never slept for): a deadline
per step marks a seat done with a sentence in the log, a chess clock's bank and increment come out
to the second, a pause stops every clock, a restarted process picks up a due deadline, and a
time-out applies once however often it is tried. The steps waited on are GEN-01's readiness."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import func, select

from app.models import ActionLog, BattleClock, TableRequest
from app.services.bootstrap import build_platform
from app.services.bus import settle
from app.services.clock import ManualClock, SystemClock, use
from app.services.errors import Forbidden, Invalid
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.table import clocks
from app.services.write import actions, requests
from app.services.write.actions import Command
from tests.helpers import simple_ship
from tests.service.test_readiness import SHADOW, Table, pending, shadow_hit, table

HOUR = 3600


@pytest.fixture(autouse=True)
def manual_time() -> Any:
    """Each test's time moves only by hand; the wall clock is put back after it."""
    yield
    use(SystemClock())


async def b5(platform: Platform) -> Table:
    platform.clock = use(ManualClock())
    return await table(
        platform, "b5wars", {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )


async def act(t: Table, who: str, kind: str, payload: dict[str, Any] | None = None) -> list[str]:
    texts = await t.act(who, kind, payload)
    await settle()  # the clock's row is folded after the commit
    return texts


async def run_of(t: Table) -> dict[str, Any]:
    async with t.platform.db.reader() as session:
        row = await session.get(BattleClock, t.id)
    return dict(row.run) if row is not None else {}


async def log_texts(t: Table) -> list[str]:
    async with t.platform.db.reader() as session:
        rows = await session.scalars(
            select(ActionLog).where(ActionLog.battle_id == t.id).order_by(ActionLog.seq)
        )
        return [e["text"] for row in rows for e in row.events]


async def due(platform: Platform, t: Table) -> int:
    """The timer's look, counted for this test's battle (others in the database may be due too)."""
    return (await clocks.tick(platform, only=[t.id])).get(t.id, 0)


def later(platform: Platform, seconds: float) -> None:
    platform.clock.advance(seconds)  # type: ignore[attr-defined]


async def test_GEN_01_a_passed_deadline_marks_the_seat_done_with_a_sentence_in_the_log(
    platform: Platform,
) -> None:
    t = await b5(platform)
    texts = await act(t, "ref", "clock.set", {"mode": "deadline", "step_seconds": 24 * HOUR})
    assert texts == [
        "The referee sets the clock: 24 h per step, a reminder 1 h before; when time runs out the seat is marked done."
    ]
    await act(t, "ann", "step.ready")
    later(platform, 24 * HOUR - 1)
    assert await due(platform, t) == 1  # the reminder only (no webhook: nothing is sent)
    assert pending(await t.bar("ref")) == ["Bob"]
    later(platform, 1)
    assert await due(platform, t) == 1
    await settle()
    assert "Time ran out for Bob in Ship Power: marked done with no orders." in await log_texts(t)
    # Bob was the last one waited on: the step ended by itself, and a fresh wait began for both.
    assert (await t.state()).clock.step == "movement"
    run = await run_of(t)
    assert sorted(run["waits"]) == sorted([t.ids["ann"], t.ids["bob"]])
    assert {w["since"] for w in run["waits"].values()} == {platform.clock.now()}


async def test_GEN_01_a_time_out_applies_once_however_often_it_is_tried(platform: Platform) -> None:
    t = await b5(platform)
    await act(t, "ref", "clock.set", {"mode": "deadline", "step_seconds": HOUR, "reminder_seconds": 0})
    later(platform, HOUR)
    row = await run_of(t)
    began = row["waits"][t.ids["ann"]]["began"]
    assert await due(platform, t) == 2  # Ann and Bob both ran out
    await settle()
    assert await due(platform, t) == 0  # nothing is due any more
    # The same time-out again (another process, a late retry): the first result, nothing new.
    action_id = f"clock.timeout:{t.ids['ann']}:{began}"
    async with platform.db.reader() as session:
        applied = await session.scalar(select(ActionLog).where(ActionLog.action_id == action_id))
        seq = await session.scalar(select(func.max(ActionLog.seq)).where(ActionLog.battle_id == t.id))
    assert applied is not None and applied.payload["step"] == "T1 Power"
    again = Command(t.id, t.ids["ref"], "clock.timeout", dict(applied.payload), action_id)
    first = await actions.submit(platform, again)
    assert first.duplicate and first.seq == applied.seq
    # A stale one (a wait that already ended: the step moved on) is refused and changes nothing.
    stale = Command(t.id, t.ids["ref"], "clock.timeout", again.payload, uuid.uuid4().hex)
    with pytest.raises(Invalid, match="no longer waits on that seat"):
        await actions.submit(platform, stale)
    texts = await log_texts(t)
    assert texts.count("Time ran out for Ann in Ship Power: marked done with no orders.") == 1
    async with platform.db.reader() as session:
        assert await session.scalar(select(func.max(ActionLog.seq)).where(ActionLog.battle_id == t.id)) == seq


async def test_GEN_01_a_chess_clock_charges_the_bank_and_adds_the_increment(platform: Platform) -> None:
    t = await b5(platform)
    await act(
        t,
        "ref",
        "clock.set",
        {"mode": "chess", "bank_seconds": 600, "increment_seconds": 30, "reminder_seconds": 0},
    )
    later(platform, 100)
    await act(t, "ann", "step.ready")  # Ann used 100 s: 600 − 100 + 30
    run = await run_of(t)
    assert run["banks"][t.ids["ann"]] == 530
    assert t.ids["ann"] not in run["waits"] and t.ids["bob"] in run["waits"]
    later(platform, 250)
    await act(t, "bob", "step.ready")  # Bob used 350 s: 600 − 350 + 30; the step ends, both wait again
    run = await run_of(t)
    assert run["banks"] == {t.ids["ann"]: 530, t.ids["bob"]: 280}
    bar = (await t.bar("ann"))["clocks"]
    assert {s["name"]: s["left_s"] for s in bar["seats"]} == {"Ann": 530, "Bob": 280}
    # Bob runs out 280 s into Movement: his bank is spent, he keeps the increment for the next wait.
    later(platform, 280)
    assert await due(platform, t) == 1
    await settle()
    run = await run_of(t)
    assert run["banks"][t.ids["bob"]] == 30
    assert pending(await t.bar("ref")) == ["Ann"]


async def test_GEN_01_a_pause_stops_every_clock(platform: Platform) -> None:
    t = await b5(platform)
    await act(t, "ref", "clock.set", {"mode": "chess", "bank_seconds": 600, "reminder_seconds": 0})
    later(platform, 100)
    assert await act(t, "ref", "battle.pause") == ["The referee pauses the battle; every clock stops."]
    with pytest.raises(Invalid, match="already paused"):
        await t.act("ref", "battle.pause")
    with pytest.raises(Forbidden):
        await t.act("ann", "battle.resume")
    later(platform, 10 * HOUR)  # far past every bank: nothing runs out while paused
    assert await due(platform, t) == 0
    bar = (await t.bar("ann"))["clocks"]
    assert bar["paused"] and {s["left_s"] for s in bar["seats"]} == {500}
    await act(t, "ref", "battle.resume")
    later(platform, 50)
    await act(t, "ann", "step.ready")  # 100 s before the pause, 50 after: 600 − 150
    assert (await run_of(t))["banks"][t.ids["ann"]] == 450


async def test_GEN_01_a_restarted_process_picks_up_a_due_deadline(platform: Platform) -> None:
    t = await b5(platform)
    await act(t, "ref", "clock.set", {"mode": "deadline", "step_seconds": HOUR, "reminder_seconds": 0})
    await act(t, "ann", "step.ready")
    # The server is down past Bob's deadline; a new process (a new platform on the same database)
    # finds the due battle in the database at its first look.
    fresh = build_platform(platform.settings, platform.db, platform.broker)
    fresh.clock = use(ManualClock(platform.clock.now() + 2 * HOUR))
    assert await due(fresh, t) == 1
    await settle()
    assert "Time ran out for Bob in Ship Power: marked done with no orders." in await log_texts(t)


async def test_GEN_01_when_the_referee_is_asked_the_seat_keeps_waiting_and_a_request_waits(
    platform: Platform,
) -> None:
    t = await b5(platform)
    await act(
        t,
        "ref",
        "clock.set",
        {"mode": "deadline", "step_seconds": HOUR, "reminder_seconds": 0, "on_timeout": "ask"},
    )
    await act(t, "ann", "step.ready")
    later(platform, HOUR)
    assert await due(platform, t) == 1
    await settle()
    assert "Time ran out for Bob in Ship Power; the referee is asked what to do." in await log_texts(t)
    assert pending(await t.bar("ref")) == ["Bob"]
    assert await due(platform, t) == 0  # asked once
    async with platform.db.reader() as session:
        asked = list(await session.scalars(select(TableRequest).where(TableRequest.battle_id == t.id)))
    assert [(r.kind, r.participant_id, r.status) for r in asked] == [("timeout", t.ids["bob"], "pending")]
    # The referee approves: Bob is done, as his own "Done" would say, and the step ends by itself.
    await requests.decide(platform, t.id, t.ids["ref"], asked[0].id, True)
    await settle()
    assert (await t.state()).clock.step == "movement"


@pytest.mark.parametrize("on_timeout", ["done", "ask"])
async def test_GEN_01_GEN_02_time_out_on_a_seats_dice_leaves_them_to_the_referee(
    platform: Platform, on_timeout: str
) -> None:
    """Physical dice: Kosh's Shadow was hit, both commanders are done, and the impulse's end waits
    for Kosh's pain-check die (SH-03, GEN-02). Kosh's hour runs out: a "done" cannot stand in for a
    die, so the log says whose dice are waited for and that the referee may enter them — in either
    consequence, with no request to mark Kosh done — and it is not tried again; the referee's dice
    then end the impulse as Kosh's would have."""
    platform.clock = use(ManualClock())
    clock = {"mode": "deadline", "step_seconds": HOUR, "reminder_seconds": 0, "on_timeout": on_timeout}
    t = await shadow_hit(platform, {"type": "clock.set", "payload": clock})
    shadow = SHADOW
    await act(t, "kirk", "step.ready")  # the end now waits for Kosh's die
    later(platform, HOUR)
    assert await due(platform, t) == 1
    await settle()
    assert (await log_texts(t))[-1] == (
        "Time ran out for Kosh in Impulse 1/32, whose end waits for dice for Shadow Cruiser: 1d6 for"
        " pain rise chance, band 50–99; the referee may enter them."
    )
    state = await t.state()
    assert (state.clock.impulse, state.rolling is not None) == (1, True)
    assert await due(platform, t) == 0  # once
    async with platform.db.reader() as session:
        asked = await session.scalar(select(func.count()).where(TableRequest.battle_id == t.id))
    assert asked == 0
    # SH-04/SH-05: rise 2 (≤ 2) → pain 3; the impulse ends as Kosh's own dice would have ended it.
    texts = await t.act("ref", "step.roll", dice=[2, 6, 1])
    assert texts[-1] == "Turn 1 · Impulse 1/32 ends; Turn 1 · Impulse 2/32 begins."
    assert (await t.state()).ships[shadow].parts["pain"]["level"] == 3


async def test_GEN_01_bad_clock_settings_are_refused_naming_the_field(platform: Platform) -> None:
    t = await b5(platform)
    with pytest.raises(Invalid) as refused:
        await t.act("ref", "clock.set", {"mode": "deadline", "step_seconds": 5})
    assert refused.value.field == "step_seconds"
    with pytest.raises(Forbidden):
        await t.act("ann", "clock.set", {"mode": "none"})
    assert (await t.state()).options.get("clock") is None


async def test_GEN_01_the_log_replays_the_clock_its_pauses_and_its_time_outs(platform: Platform) -> None:
    t = await b5(platform)
    await act(t, "ref", "clock.set", {"mode": "deadline", "step_seconds": HOUR, "reminder_seconds": 0})
    await act(t, "ann", "step.ready")
    later(platform, HOUR)
    assert await due(platform, t) == 1
    await settle()
    await act(t, "ref", "battle.pause")
    rebuilt = await history.rebuild(platform, t.id)
    state = await t.state()
    assert rebuilt.model_dump() == state.model_dump()
    assert rebuilt.options["paused"] is True and rebuilt.options["clock"]["mode"] == "deadline"
    assert rebuilt.clock.step == "movement"  # the time-out ended Ship Power, in the replay too
