"""Battle-wide controls sit outside any one ship's card: the High Guard referee's initiative roll
and orders reveal are in the action panel (TR-03, TR-26), not on the first ship's sheet."""

from __future__ import annotations

import httpx

from tests.helpers import session_cookie, set_table, ship_def


async def test_TR_03_TR_26_initiative_and_reveal_are_in_the_action_panel(client: httpx.AsyncClient) -> None:
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
    }
    table = await set_table(client, system="traveller", ships=ships)
    client.cookies.set("starboard_session", await session_cookie(client, table.tokens["ref"]))
    html = (await client.get(f"/battles/{table.battle_id}")).text
    panel = html.split('id="action-panel"')[1].split("</section>")[0]
    assert 'value="traveller.initiative"' in panel and 'value="traveller.reveal_orders"' in panel
    for card in html.split('class="tr-ship"')[1:]:
        sheet = card.split("</section>")[0]
        assert "traveller.initiative" not in sheet and "traveller.reveal_orders" not in sheet
