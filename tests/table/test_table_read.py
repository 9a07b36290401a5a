"""The live path reads a battle's table once for every seat watching it (`TableRead`) and draws
each seat's regions from that read in memory. Each seat must get exactly what the per-seat reads
give it — the SQL-filtered chat (`chat.lines_for`, `chat.visible_count`) and requests
(`requests.requests_for`) — and never a line or request another seat may not see, however far
back the messages it may see lie behind others' private lines."""

from __future__ import annotations

import httpx
import pytest

from app.models import TableRequest
from app.services.store.battles import get_battle, participants
from app.services.table import chat, lobby
from app.services.write import requests
from app.web.pages.table import TableRead, table_regions
from tests.helpers import act, set_table, simple_ship

SEATS = ("ann", "bob", "ref", "watcher")


async def test_one_read_for_every_seat_gives_each_what_its_own_reads_give(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat, "SHOWN", 4)  # so the lines shown are a window of the talk
    monkeypatch.setattr(chat, "TALK_PAGE", 3)  # so a seat's lines lie pages back behind others'
    table = await set_table(
        client, ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    platform = client.app.state.platform  # type: ignore[attr-defined]
    ids = table.ids
    r = await act(client, table, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 1})
    assert r.status_code == 200, r.text
    acted = r.json()["seq"]
    talk = [("ann", "all hands", None), ("ref", "go hawk", None)]
    talk += [("bob", f"bob to ref {i}", chat.REFEREE) for i in range(7)]
    talk += [("ref", "ref to bob", ids["bob"]), ("ann", "ann to ref", chat.REFEREE)]
    talk += [("bob", f"bob again {i}", chat.REFEREE) for i in range(5)]
    for who, text, to in talk:
        await chat.post(platform, table.battle_id, ids[who], text, to, limited=False)
    async with platform.db.transaction() as session:
        for who, kind, payload in [
            ("ann", "undo", None),
            ("bob", "damage", {"payload": {"target": table.ships["hawk"], "amount": 2}}),
            ("ann", "damage", {"payload": {"target": table.ships["crow"], "amount": 1}}),
            ("bob", lobby.SEAT, {"name": "a stranger"}),  # a claim of bob's seat: the referee's alone
        ]:
            session.add(
                TableRequest(
                    battle_id=table.battle_id,
                    participant_id=ids[who],
                    kind=kind,
                    target_seq=acted,
                    payload=payload,
                    reason="because",
                )
            )
    async with platform.db.reader() as session:
        battle = await get_battle(session, table.battle_id)
        people = {p.id: p for p in await participants(session, table.battle_id)}
        readers = [people[ids[who]] for who in SEATS]
        read = await TableRead.of(session, platform, battle, readers)
        for who in SEATS:
            me = people[ids[who]]
            context = read.context(me)
            count = await chat.visible_count(session, table.battle_id, me)
            lines = await chat.lines_for(session, table.battle_id, me, limit=4)
            assert context["table"]["chat_seq"] == count, who
            assert context["chat_lines"] == lines, who
            assert context["table_requests"] == await requests.requests_for(
                session, battle, me, rules=platform.rules
            ), who
            assert context["table"]["undo_seq"] == await requests.may_ask_undo(session, battle, me), who
    # the numbers the rules of the talk give: public 2; bob's private 13, ann's 1 (one each way)
    counts = {who: read.context(people[ids[who]])["table"]["chat_seq"] for who in SEATS}
    assert counts == {"ann": 3, "bob": 15, "ref": 16, "watcher": 2}
    assert [line.body for line in read.context(people[ids["watcher"]])["chat_lines"]] == [
        "all hands",
        "go hawk",
    ]
    assert [line.body for line in read.context(people[ids["ann"]])["chat_lines"]][-1] == "ann to ref"
    shown = {who: [(s.kind, s.participant_id) for s in read.shown[ids[who]]] for who in SEATS}
    assert shown["watcher"] == [] and {k for k, _ in shown["ref"]} == {"undo", "damage", lobby.SEAT}
    assert shown["ann"] == [("damage", ids["ann"]), ("undo", ids["ann"])]
    assert shown["bob"] == [("damage", ids["bob"])]
    assert read.context(people[ids["ann"]])["table"]["undo_seq"] == acted  # ann's is the last
    # the regions drawn for all seats at once are those drawn for each seat alone
    together = await table_regions(platform, table.battle_id, [ids[who] for who in SEATS])
    for who in SEATS:
        alone = await table_regions(platform, table.battle_id, [ids[who]])
        assert together[ids[who]] == alone[ids[who]], who
    for who in ("ann", "watcher"):
        html = "".join(part for _, part in together[ids[who]] or [])
        assert "bob to ref" not in html and "bob again" not in html and "ref to bob" not in html
    assert "ann to ref" not in "".join(part for _, part in together[ids["watcher"]] or [])
    assert (await table_regions(platform, table.battle_id, ["no-such-seat"])) == {"no-such-seat": None}
