"""Drafts stay private (TR-26): saving a Traveller draft writes no log row, so the
other captain's REST state, ETag, event list and page see nothing new — not even that something
happened; its author (and the referee) read it; "done" commits exactly the draft, and the log still
rebuilds the snapshot. SQLite and PostgreSQL."""

from __future__ import annotations

import httpx

from tests.helpers import act, session_cookie, set_table, ship_def


async def read(c: httpx.AsyncClient, table, who: str) -> httpx.Response:  # type: ignore[no-untyped-def]
    return await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))


async def test_TR_26_a_saved_draft_is_invisible_to_others_as_metadata_too(client: httpx.AsyncClient) -> None:
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
    }
    table = await set_table(client, system="traveller", ships=ships, options={})
    assert (await act(client, table, "ref", "traveller.initiative", {}, dice=[6, 1])).status_code == 200
    before = await read(client, table, "bob")
    bob_events = (
        await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("bob"))
    ).json()
    ann_before = await read(client, table, "ann")

    draft = {"ship": "arbellatra", "orders": [{"order": "angle_max_effect"}]}
    saved = await act(client, table, "ann", "traveller.orders", draft)
    assert saved.status_code == 200 and saved.json()["seq"] == before.json()["seq"]

    after = await read(client, table, "bob")
    assert after.json()["seq"] == before.json()["seq"]
    assert after.headers["etag"] == before.headers["etag"]  # nothing changed for Bob, not even the ETag
    assert (
        await client.get(
            f"/api/v1/battles/{table.battle_id}",
            headers={**table.auth("bob"), "If-None-Match": before.headers["etag"]},
        )
    ).status_code == 304
    events = (await client.get(f"/api/v1/battles/{table.battle_id}/events", headers=table.auth("bob"))).json()
    assert events == bob_events
    async with httpx.AsyncClient(transport=client._transport, base_url=client.base_url) as browser:
        browser.cookies.set("starboard_session", await session_cookie(client, table.tokens["bob"]))
        seen = await browser.get(f"/battles/{table.battle_id}")
        assert seen.status_code == 200
        page = seen.text
    ann_card = page.split('id="tr-arbellatra"')[1].split("</section>")[0]
    assert "angle_max_effect" not in ann_card and "Angle for Maximum Effect" not in ann_card
    assert "Angle for Maximum Effect" not in page.split('id="log-list"')[-1]

    # The author reads her draft (a new ETag for her alone); the referee reads it too.
    ann_after = await read(client, table, "ann")
    assert ann_after.headers["etag"] != ann_before.headers["etag"]
    drafted = ann_after.json()["state"]["ships"]["arbellatra"]["parts"]["hg_ship"]["round"]["drafts"]
    assert [d["order"] for d in drafted] == ["angle_max_effect"]
    ref = (await read(client, table, "ref")).json()
    assert [
        d["order"] for d in ref["state"]["ships"]["arbellatra"]["parts"]["hg_ship"]["round"]["drafts"]
    ] == ["angle_max_effect"]

    # Done commits exactly what was saved; the log rebuilds the snapshot.
    done = await act(client, table, "ann", "step.ready", {})
    assert done.status_code == 200
    assert (
        done.json()["events"][0]["text"]
        == "Arbellatra commits its orders: Angle for Maximum Effect (cost 2)."
    )
    audit = (await client.get(f"/api/v1/battles/{table.battle_id}/audit", headers=table.auth("ref"))).json()
    assert audit["snapshot_matches_log"] is True
