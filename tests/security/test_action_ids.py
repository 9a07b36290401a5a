"""Action ids: a repeat applies nothing and answers only its own author; ids are per battle; a
stale seq applies nothing."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy.exc import IntegrityError

from app.services.errors import Conflict
from app.services.platform import Platform
from app.services.write import actions
from app.services.write.actions import Command
from tests.helpers import act, set_table, simple_ship
from tests.service.test_submit import setup


async def _structure(client: httpx.AsyncClient, table, ship: str) -> int:  # type: ignore[no-untyped-def]
    r = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))
    return r.json()["state"]["ships"][ship]["parts"]["sheet"]["sections"][0]["structure"]


async def test_someone_elses_action_id_is_refused_and_answers_nothing_of_theirs(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    first = await act(
        client,
        table,
        "ann",
        "damage.apply",
        {"target": "crow", "source": "hawk", "amount": 9, "direction": "fore"},
        action_id="shared",
    )
    assert first.status_code == 200
    r = await act(client, table, "bob", "clock.advance", {}, action_id="shared")
    assert r.status_code == 409 and r.json()["detail"]["field"] == "action_id"
    assert "events" not in r.text and "Hawk hits" not in r.text
    watcher = await act(client, table, "watcher", "clock.advance", {}, action_id="shared")
    assert watcher.status_code == 409 and "Hawk hits" not in watcher.text


async def test_the_same_action_id_in_two_battles_applies_in_each(client: httpx.AsyncClient) -> None:
    one = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    two = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    hit = {"target": "crow", "source": "hawk", "amount": 30, "direction": "fore"}
    for table in (one, two):
        r = await act(client, table, "ann", "damage.apply", hit, action_id="same-id")
        assert r.status_code == 200 and r.json()["duplicate"] is False and r.json()["seq"] == 3
    for table in (one, two):
        again = await act(client, table, "ann", "damage.apply", hit, action_id="same-id")
        assert again.json() == {**again.json(), "seq": 3, "duplicate": True}
        assert await _structure(client, table, "crow") == 34  # 30 − 4 armour − 20 fore, once


async def test_a_stale_seq_applies_nothing_and_a_repeat_applies_once(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    hit = {"target": "crow", "source": "hawk", "amount": 50, "direction": "fore"}
    stale = await act(client, table, "ann", "damage.apply", hit, seq=1)
    assert stale.status_code == 409 and stale.json()["detail"]["seq"] == 2
    ok = await act(client, table, "ann", "damage.apply", hit, seq=2, action_id="once")
    assert ok.status_code == 200 and ok.json()["seq"] == 3
    again = await act(client, table, "ann", "damage.apply", hit, seq=2, action_id="once")
    assert again.status_code == 200 and again.json()["duplicate"] is True and again.json()["seq"] == 3
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    assert state["seq"] == 3
    assert state["state"]["ships"]["crow"]["parts"]["sheet"]["sections"][0]["structure"] == 14


async def test_lost_race_on_an_action_id_answers_only_its_author(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes write the same action id: the loser collides on UNIQUE(battle_id, action_id).
    If the loser is someone else, the winner's result (its raw events) is not theirs to read."""
    battle_id, ids = await setup(platform)
    await actions.submit(
        platform,
        Command(
            battle_id,
            ids["ann"],
            "damage.apply",
            {"target": "crow", "source": "hawk", "amount": 5, "direction": "fore"},
            "raced",
        ),
    )

    async def collide(*args: object, **kwargs: object) -> None:
        raise IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed"))

    monkeypatch.setattr(actions, "_submit_once", collide)
    with pytest.raises(Conflict) as refused:
        await actions.submit(platform, Command(battle_id, ids["bob"], "clock.advance", {}, "raced"))
    assert refused.value.field == "action_id"
    mine = await actions.submit(platform, Command(battle_id, ids["ann"], "clock.advance", {}, "raced"))
    assert mine.duplicate and mine.seq == 3 and "Hawk hits Crow" in mine.events[0]["text"]
