"""The replay's perspective picker: the referee steps through the battle as a seat saw it — what
that seat could read then and no more — and nobody else may look through another seat's eyes."""

from __future__ import annotations

import re

import httpx

from tests.helpers import act, session_cookie, set_table, ship_def


async def replay(c: httpx.AsyncClient, token: str, battle_id: str, query: str) -> httpx.Response:
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as browser:
        browser.cookies.set("starboard_session", await session_cookie(c, token))
        return await browser.get(f"/battles/{battle_id}/replay?{query}")


def log_entry(html: str, seq: int) -> str:
    return html.split(f'id="log-{seq}"')[1].split("</li>")[0]


async def test_the_referee_replays_the_battle_as_a_seat_saw_it(client: httpx.AsyncClient) -> None:
    table = await set_table(
        client, players=("ann", "bob"), ships={"wb": (ship_def("romulan-warbird"), "ann")}
    )
    secret = await act(
        client, table, "ref", "startrek.set_signature", {"ship": table.ships["wb"], "signature": 37}
    )
    assert secret.json()["seq"] == 2  # a referee-only entry (ST-23)
    assert (await act(client, table, "ref", "clock.advance", {})).status_code == 200  # 3
    seats = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("bob"))).json()
    bob = next(p["id"] for p in seats["participants"] if p["name"] == "bob")

    own = await replay(client, table.tokens["ref"], table.battle_id, "seq=2")
    assert own.status_code == 200
    assert "signature to 37" in log_entry(own.text, 2)
    assert re.search(rf'<option value="{bob}">bob \(player\)</option>', own.text)

    seen = await replay(client, table.tokens["ref"], table.battle_id, f"seq=2&as={bob}")
    assert seen.status_code == 200
    entry = log_entry(seen.text, 2)
    assert "a hidden action" in entry and "signature" not in entry
    assert "seen as bob" in seen.text and ", as bob saw it" in seen.text
    assert f'href="?seq=1&amp;as={bob}"' in seen.text and f'data-replay-as="{bob}"' in seen.text
    # What bob's own replay shows of that entry, the referee sees through his eyes.
    his = await replay(client, table.tokens["bob"], table.battle_id, "seq=2")
    assert log_entry(his.text, 2) == entry
    assert "Seen as" not in his.text  # no picker for a player


async def test_a_player_may_not_look_through_another_seat_and_a_stranger_seat_is_named(
    client: httpx.AsyncClient,
) -> None:
    table = await set_table(
        client, players=("ann", "bob"), ships={"wb": (ship_def("romulan-warbird"), "ann")}
    )
    await act(client, table, "ref", "startrek.set_signature", {"ship": table.ships["wb"], "signature": 37})
    seats = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    ann = next(p["id"] for p in seats["participants"] if p["name"] == "ann")

    refused = await replay(client, table.tokens["bob"], table.battle_id, f"seq=2&as={ann}")
    assert refused.status_code == 403
    assert "only the referee sees the battle as another seat" in refused.text
    assert "a hidden action" in log_entry(refused.text, 2)  # bob's own view, nothing of ann's

    unknown = await replay(client, table.tokens["ref"], table.battle_id, "seq=2&as=nobody")
    assert unknown.status_code == 422
    assert "as: no seat &#39;nobody&#39; in this battle" in unknown.text
    assert 'data-field="as"' in unknown.text and 'aria-invalid="true"' in unknown.text
    assert "signature to 37" in log_entry(unknown.text, 2)  # the referee's own view
