"""A battle holds at most 100 ships (every action loads, checks and stores them all): the 101st
`ship.add` is refused 422 naming `definition`, and nothing changes."""

from __future__ import annotations

import httpx

from app.rules import Action, apply_action, new_battle
from app.rules.core import REFEREE, RuleError
from app.rules.dice import ScriptedDice
from app.rules.generic.actions import MAX_SHIPS_PER_BATTLE
from tests.helpers import act, set_table, simple_ship


def test_the_rules_refuse_the_hundred_and_first_ship() -> None:
    state = new_battle("b5wars")
    for i in range(100):
        add = Action("ship.add", {"definition": simple_ship(f"S{i}"), "owner": None}, REFEREE)
        state = apply_action(state, add, ScriptedDice([])).state
    assert MAX_SHIPS_PER_BATTLE == 100 and len(state.ships) == 100
    try:
        apply_action(
            state, Action("ship.add", {"definition": simple_ship("One more")}, REFEREE), ScriptedDice([])
        )
    except RuleError as exc:
        assert exc.field == "definition" and "at most 100 ships" in exc.message
    else:
        raise AssertionError("the 101st ship was added")


async def test_the_door_answers_422_and_keeps_the_battle_as_it_was(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    for i in range(100):
        r = await act(client, table, "ref", "ship.add", {"definition": simple_ship(f"S{i}")})
        assert r.status_code == 200, r.text
    before = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    r = await act(client, table, "ref", "ship.add", {"definition": simple_ship("One more")})
    assert r.status_code == 422 and r.json()["detail"]["field"] == "definition", r.text
    after = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    assert after["seq"] == before["seq"] and len(after["state"]["ships"]) == 100
