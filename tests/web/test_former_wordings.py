"""A sentence told better does not orphan the battle files written before: the import accepts a
named former wording of the same event (app/services/history/wordings.py) and nothing else.

ST-16 (with ST-06): a First One hit on a Star Trek ship is logged as the damage summary, then the
shield's sentence. The shield's sentence once repeated the summary's opening ("Shadow Cruiser hits
Excelsior for 30 (fore): … Shadow Cruiser hits Excelsior for 30 (fore): …"); it now opens with the
ship alone."""

from __future__ import annotations

from typing import Any

import httpx

from tests.helpers import act, set_table
from tests.web.test_battle_file import exported
from tests.web.test_startrek_rest import demo_table, ok

OPENING = "Shadow Cruiser hits Excelsior for 30 (fore)"
# The ST-16 figures from the Excelsior's sheet: 30 doubled fills the Fore's 40 with 20; 10 go through.
SHIELD = "First One fire counts double on shields — 20 fill Fore shield (40/40 → 0/40), 10 reach the ship."


async def first_one_hit(client: httpx.AsyncClient) -> tuple[Any, list[dict[str, Any]]]:
    table = await demo_table(client)
    for _ in range(2):  # Ship Power → Adjust Ship Systems → Combat
        await ok(client, table, "kosh", "clock.advance")
    body = await ok(
        client,
        table,
        "kosh",
        "damage.apply",
        {"target": "excelsior", "source": "shadow-cruiser", "amount": 30, "direction": "fore"},
    )
    return table, body["events"]


def shield_row(file: dict[str, Any]) -> dict[str, Any]:
    return next(row for row in file["log"] if any(e["kind"] == "shield_absorb" for e in row["events"]))


async def test_ST_16_the_first_one_hit_says_its_opening_once(client: httpx.AsyncClient) -> None:
    _, events = await first_one_hit(client)
    assert [e["text"] for e in events] == [
        f"{OPENING}: 20 absorbed by shields, 4 to armour, 6 to Fore.",
        f"Excelsior: {SHIELD}",
    ]
    assert " ".join(e["text"] for e in events).count(" hits ") == 1


async def test_ST_16_a_file_with_the_former_shield_wording_still_imports(client: httpx.AsyncClient) -> None:
    table, _ = await first_one_hit(client)
    file = await exported(client, table)
    row = shield_row(file)
    shield = next(e for e in row["events"] if e["kind"] == "shield_absorb")
    assert shield["text"] == f"Excelsior: {SHIELD}"  # a new file is written in the new wording
    shield["text"] = f"{OPENING}: {SHIELD}"  # as a file written before the rewording says it
    made = await client.post("/api/v1/battles/import", json=file)
    assert made.status_code == 201, made.text
    assert made.json()["seq"] == file["battle"]["seq"]


async def test_a_wording_neither_current_nor_former_is_still_refused(client: httpx.AsyncClient) -> None:
    table, _ = await first_one_hit(client)
    for wrong in (
        f"{OPENING}: First One fire counts double on shields — 21 fill Fore shield (40/40 → 0/40), 9 reach the ship.",
        f"Haakona hits Excelsior for 30 (fore): {SHIELD}",  # another opening than its summary's
        f"Enterprise: {SHIELD}",
    ):
        file = await exported(client, table)
        row = shield_row(file)
        next(e for e in row["events"] if e["kind"] == "shield_absorb")["text"] = wrong
        r = await client.post("/api/v1/battles/import", json=file)
        assert r.status_code == 422 and r.json()["detail"]["seq"] == row["seq"], (wrong, r.text)


async def ended(client: httpx.AsyncClient, dice_mode: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A battle the referee ended, exported: the file and its end's recorded event."""
    table = await set_table(client, dice_mode=dice_mode)
    r = await act(client, table, "ref", "battle.end", {"reason": "time"})
    assert r.status_code == 200, r.text
    file = await exported(client, table)
    return file, next(e for row in file["log"] for e in row["events"] if e["kind"] == "battle_end")


async def test_GEN_02_a_physical_dice_file_saying_its_seed_was_revealed_still_imports(
    client: httpx.AsyncClient,
) -> None:
    file, end = await ended(client, "physical")
    assert end["text"] == "The battle ends: time."  # the players rolled: there is no seed to reveal
    made = await client.post("/api/v1/battles/import", json=file)  # a new file, as written
    assert made.status_code == 201, made.text
    end["text"] = "The battle ends: time. The dice seed is revealed."  # as files written before say
    made = await client.post("/api/v1/battles/import", json=file)
    assert made.status_code == 201, made.text


async def test_GEN_02_a_server_rolled_file_must_still_say_its_seed_is_revealed(
    client: httpx.AsyncClient,
) -> None:
    file, end = await ended(client, "seeded")
    assert end["text"] == "The battle ends: time. The dice seed is revealed."
    for wrong in (
        "The battle ends: time.",
        "The battle ends: time. The dice seed is revealed. The dice seed is revealed.",
    ):
        end["text"] = wrong
        r = await client.post("/api/v1/battles/import", json=file)
        assert r.status_code == 422 and r.json()["detail"]["seq"] == file["log"][-1]["seq"], (wrong, r.text)
