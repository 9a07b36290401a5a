"""A kept seat's next action reads nothing: the battle row, the state and the seat this
process's last commit kept are checked against, and the one write is guarded on the battle's
version, the seat still holding its token, role and place, and the table's options as read. When
any of them moved, nothing is written and the action is read whole — so it gets exactly the answer
it would have got: a rotated token or a removed seat is refused, damage that must now wait for the
referee waits, a repeated action id gets its first result, another process's write is built on."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from app.services.errors import Forbidden, Invalid
from app.services.history import replay as history
from app.services.store import postgres, seats
from app.services.store.battles import get_participant, load_state, remove_participant, rotate_token
from app.services.store.tokens import hash_token
from app.services.write import actions
from app.services.write.actions import Command, Queued
from tests.service.test_submit import aid, log_count, own_platform, setup
from tests.service.test_traveller_service import bob_has_acted

pytestmark = pytest.mark.postgres


def _hit(battle_id: str, who: str | None, amount: int = 1, token: str | None = None, **kw: Any) -> Command:
    return Command(
        battle_id,
        who,
        "damage.apply",
        {"target": "crow", "source": "hawk", "amount": amount},
        kw.pop("action_id", None) or aid(),
        token_hash=hash_token(token) if token else None,
        **kw,
    )


async def _statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of each statement actions run on the bare driver: context, token context or write."""
    names = {postgres.READ_BY_ID: "context", postgres.READ_BY_TOKEN: "token context", postgres.WRITE: "write"}
    ran: list[str] = []
    real = postgres.fetch

    async def spy(session: Any, statement: postgres.Statement, **values: Any) -> Any:
        ran.append(names.get(statement, "other"))
        return await real(session, statement, **values)

    monkeypatch.setattr(postgres, "fetch", spy)
    return ran


async def _crow(platform: Any, battle_id: str) -> int:
    """Crow's armour and structure left, all sections together."""
    async with platform.db.reader() as session:
        state, _ = await load_state(session, battle_id)
    return sum(
        (s.get("armour") or 0) + s["structure"] for s in state.ships["crow"].parts["sheet"]["sections"]
    )


async def _ann_token(platform: Any, battle_id: str, ann: str) -> str:
    """A token for Ann's seat (setup keeps none): rotated, so the test knows it."""
    async with platform.db.transaction() as session:
        return (await rotate_token(session, battle_id, ann)).token


async def test_a_kept_seats_next_actions_are_one_statement_each(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        token = await _ann_token(platform, battle_id, ids["ann"])
        before = await _crow(platform, battle_id)
        ran = await _statements(monkeypatch)
        for n in range(3):
            await actions.submit(platform, _hit(battle_id, ids["ann"], n + 1))
        for _ in range(3):
            result = await actions.submit(platform, _hit(battle_id, None, 1, token=token))
        # Each door's seat is read once (by id for the page, by token for REST), then kept.
        assert ran == ["context", "write", "write", "write", "token context", "write", "write", "write"]
        assert result.seq == 2 + 6 and not result.duplicate
        assert await _crow(platform, battle_id) == before - (1 + 2 + 3) - 3
        async with platform.db.reader() as session:
            state, _ = await load_state(session, battle_id)
        assert (await history.rebuild(platform, battle_id)).model_dump() == state.model_dump()


async def test_a_rotated_token_is_refused_though_its_seat_was_kept(postgres_url: str) -> None:
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        token = await _ann_token(platform, battle_id, ids["ann"])
        await actions.submit(platform, _hit(battle_id, None, token=token))
        async with platform.db.transaction() as session:
            await rotate_token(session, battle_id, ids["ann"])
        with pytest.raises(Forbidden, match="not valid"):
            await actions.submit(platform, _hit(battle_id, None, token=token))
        assert await log_count(platform, battle_id) == 2 + 1


async def test_a_removed_seat_is_refused_though_it_was_kept(postgres_url: str) -> None:
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        await actions.submit(platform, _hit(battle_id, ids["ann"]))
        async with platform.db.transaction() as session:
            await remove_participant(session, battle_id, ids["ann"])
        with pytest.raises(Forbidden, match="not part of this battle"):
            await actions.submit(platform, _hit(battle_id, ids["ann"]))
        assert await log_count(platform, battle_id) == 2 + 1


async def test_a_seat_whose_role_changed_is_checked_again(postgres_url: str) -> None:
    """The guard names the role: a seat made a spectator behind this process's back (no service
    does it; the guard must not trust the kept row) is refused as a spectator is."""
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        await actions.submit(platform, _hit(battle_id, ids["ann"]))
        async with platform.db.transaction() as session:
            await session.execute(
                text("UPDATE participants SET role = 'spectator' WHERE id = :id"), {"id": ids["ann"]}
            )
        with pytest.raises(Forbidden):
            await actions.submit(platform, _hit(battle_id, ids["ann"]))
        assert await log_count(platform, battle_id) == 2 + 1


async def test_damage_that_must_now_wait_for_the_referee_waits(postgres_url: str) -> None:
    """The table's options are part of the guard: turned on after Ann's seat was kept, her next
    damage by token waits for the referee as a request, and nothing is written to the log."""
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        token = await _ann_token(platform, battle_id, ids["ann"])
        await actions.submit(platform, _hit(battle_id, None, token=token))
        async with platform.db.reader() as session:
            referee = await get_participant(session, battle_id, ids["ref"])
        await seats.set_table_options(platform, battle_id, referee, {"damage_needs_approval": True})
        waits = await actions.submit(platform, _hit(battle_id, None, token=token))
        assert isinstance(waits, Queued)
        assert (waits.request.kind, waits.request.status, waits.request.participant_id) == (
            "damage",
            "pending",
            ids["ann"],
        )
        assert await log_count(platform, battle_id) == 2 + 1


async def test_a_repeated_action_id_gets_its_first_result_once(postgres_url: str) -> None:
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        token = await _ann_token(platform, battle_id, ids["ann"])
        before = await _crow(platform, battle_id)
        first = await actions.submit(platform, _hit(battle_id, None, 2, token=token, action_id="hit-1"))
        again = await actions.submit(platform, _hit(battle_id, None, 2, token=token, action_id="hit-1"))
        assert (again.seq, again.duplicate, again.events) == (first.seq, True, first.events)
        assert await _crow(platform, battle_id) == before - 2
        assert await log_count(platform, battle_id) == 2 + 1


async def test_a_refusal_reads_as_the_whole_read_answers_it(postgres_url: str) -> None:
    """An action the rules refuse against the kept state is read whole: the same words, the
    field named, nothing written."""
    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        await actions.submit(platform, _hit(battle_id, ids["ann"]))
        with pytest.raises(Invalid) as refused:
            await actions.submit(platform, _hit(battle_id, ids["ann"], amount=0))
        assert refused.value.field == "amount"
        assert await log_count(platform, battle_id) == 2 + 1


async def test_a_kept_seat_in_another_process_builds_on_the_others_write(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with own_platform(postgres_url) as here, own_platform(postgres_url) as there:
        battle_id, ids = await setup(here)
        before = await _crow(here, battle_id)
        await actions.submit(here, _hit(battle_id, ids["ann"], 1))
        await actions.submit(there, _hit(battle_id, ids["ann"], 2))
        ran = await _statements(monkeypatch)
        await actions.submit(here, _hit(battle_id, ids["ann"], 3))  # kept, but the version moved
        assert ran == ["write", "context", "write"]  # the guard refused the write; read whole
        assert await _crow(here, battle_id) == before - (1 + 2 + 3)
        async with here.db.reader() as session:
            state, _ = await load_state(session, battle_id)
        assert (await history.rebuild(here, battle_id)).model_dump() == state.model_dump()


async def test_a_page_seated_before_its_link_was_rotated_is_refused_though_kept(postgres_url: str) -> None:
    """A browser holds its seat by the key of the token it joined with (`SeatRef`); the kept seat
    row still carries the old token, so only the write's guard can tell the link was rotated."""
    from app.services.store.tokens import seat_key
    from app.web.middleware.security import SeatRef

    async with own_platform(postgres_url) as platform:
        battle_id, ids = await setup(platform)
        token = await _ann_token(platform, battle_id, ids["ann"])
        page = SeatRef(ids["ann"], seat_key(hash_token(token)))
        await actions.submit(platform, _hit(battle_id, page))
        async with platform.db.transaction() as session:
            await rotate_token(session, battle_id, ids["ann"])
        with pytest.raises(Forbidden, match="new link"):
            await actions.submit(platform, _hit(battle_id, page))
        assert await log_count(platform, battle_id) == 2 + 1


async def test_a_kept_seat_in_a_game_with_drafts_reads_nothing_until_it_saves_one(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Traveller's orders may be drafts (TR-26), saved outside the log: a kept seat's next action
    is still its write alone, guarded on the seat having none; once it saved one, that guard stops
    the write and the whole read folds the draft in."""
    async with own_platform(postgres_url) as platform:
        f = await bob_has_acted(platform)
        ran = await _statements(monkeypatch)
        await f.act(
            "bob", "traveller.orders", {"ship": "dauntless", "orders": [{"order": "defensive_posture"}]}
        )
        assert ran == ["context"]  # a draft is read whole, and writes no log row
        await f.act("bob", "step.ready", {})  # the draft, committed as saved
        assert ran == ["context", "write", "context", "write"]
        orders = (await f.hg("dauntless"))["round"]["orders"]
        assert [o["order"] for o in orders] == ["defensive_posture"]
        del ran[:]
        await f.advance(2)  # the referee's seat, read once (the guard let all kept seats go), then kept
        assert ran == ["context", "write", "write"]  # no draft saved: its write alone
