"""Traveller secret orders through the websocket door, on a real uvicorn server (TR-26, ux §5):
the frames pushed to another captain and to a spectator never carry the committed orders before
the reveal; the owner's and the referee's do; after the reveal everyone's do."""

from __future__ import annotations

import httpx

from tests.conftest import Server
from tests.helpers import act, set_table, ship_def
from tests.web.wsclient import WsViewer, cookie_for

SECRET = ("Screens to Full", "screens_full", "Angle for Maximum", "angle_max_effect")


async def test_TR_26_frames_of_other_captains_never_carry_orders_before_the_reveal(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url) as c:
        table = await set_table(
            c,
            system="traveller",
            dice_mode="physical",
            players=("ann", "bob", "cid"),
            ships={
                "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
                "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
                "vigilant": (ship_def("tr-vigilant-escort"), "cid"),
            },
        )
        r = await act(c, table, "ref", "traveller.initiative", {}, dice=[6, 1, 1])  # 8, 4, 3
        assert r.status_code == 200, r.text
        start = r.json()["seq"]
    who_all = ("ann", "bob", "watcher", "ref")
    cookies = {who: await cookie_for(server.url, table.tokens[who]) for who in who_all}
    viewers = {who: WsViewer(server.url, table.battle_id, cookies[who]) for who in who_all}
    for v in viewers.values():
        await v.__aenter__()
        await v.hello(start)
    try:
        async with httpx.AsyncClient(base_url=server.url) as c:
            # Bob commits first, so his own orders form (which lists every order by name) is gone.
            r = await act(
                c,
                table,
                "bob",
                "traveller.orders",
                {"ship": "dauntless", "orders": [{"order": "line_up_spinal"}], "commit": True},
            )
            assert r.status_code == 200, r.text
            bob_seq = r.json()["seq"]
            for v in viewers.values():
                await v.frame_with_seq(bob_seq)
            # Ann saves a draft, then commits. Cid has not committed: no reveal.
            orders = [{"order": "screens_full"}, {"order": "angle_max_effect"}]
            secret_frames: dict[str, list[str]] = {who: [] for who in who_all}

            async def collect(upto: int) -> None:
                for who, v in viewers.items():
                    while True:
                        frame = await v.next_frame()
                        if "content" not in frame:  # a heartbeat
                            continue
                        # the raw frame (JSON-escaped) and its decoded content, so no spelling slips by
                        secret_frames[who].append(v.raw[-1] + frame.get("content", ""))
                        if frame.get("seq", -1) >= upto:
                            break

            r = await act(c, table, "ann", "traveller.orders", {"ship": "arbellatra", "orders": orders})
            assert r.status_code == 200, r.text
            assert r.json()["seq"] == bob_seq  # a draft is kept outside the log: no seq, no frame
            mine = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ann"))).json()
            drafted = mine["state"]["ships"]["arbellatra"]["parts"]["hg_ship"]["round"]["drafts"]
            assert [d["order"] for d in drafted] == ["screens_full", "angle_max_effect"]  # hers to read
            theirs = (await c.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))).json()
            assert theirs["seq"] == bob_seq and "screens_full" not in str(theirs)
            r = await act(
                c, table, "ann", "traveller.orders", {"ship": "arbellatra", "orders": orders, "commit": True}
            )
            assert r.status_code == 200, r.text
            ann_seq = r.json()["seq"]
            await collect(ann_seq)
            # Cid commits: the reveal.
            r = await act(
                c, table, "cid", "traveller.orders", {"ship": "vigilant", "orders": [], "commit": True}
            )
            assert r.status_code == 200, r.text
            reveal_seq = r.json()["seq"]
            revealed = {who: (await v.frame_with_seq(reveal_seq))["content"] for who, v in viewers.items()}

        # One frame each (the commit) between Bob's commit and the reveal: a draft sends none.
        assert {who: len(frames) for who, frames in secret_frames.items()} == dict.fromkeys(who_all, 1)
        for who in ("bob", "watcher"):
            before = "".join(secret_frames[who])
            for word in SECRET:
                assert word not in before, f"{who}'s frames carry {word!r} before the reveal"
            assert "Arbellatra has committed its orders." in before
            # The commit shows as a chip, never its content.
            assert "Committed ✓" in before
        # The owner sees her committed orders; the referee sees them too.
        ann_frames = "".join(secret_frames["ann"])
        assert (
            "Arbellatra commits its orders: Screens to Full!, Angle for Maximum Effect (cost 6)."
            in ann_frames
        )
        ref_frames = "".join(secret_frames["ref"])
        assert (
            "Arbellatra commits its orders: Screens to Full!, Angle for Maximum Effect (cost 6)."
            in ref_frames
        )
        # After the reveal every frame names them.
        for who in who_all:
            assert (
                "Arbellatra: Screens to Full!, Angle for Maximum Effect — initiative 8 → 2" in revealed[who]
            ), who
    finally:
        for v in viewers.values():
            await v.__aexit__(None, None, None)
