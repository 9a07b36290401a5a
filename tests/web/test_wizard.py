"""The battle-creation wizard. A battle, its seats and its fleet are made in one
transaction — a refused ship leaves no battle behind; past the seat limit the battle is refused in
numbers, never cut; a spectator link is made; every ship is given its commander on the way; the
links are shown on their own page with copy buttons, and a seat's link is shown again by rotating
its token."""

from __future__ import annotations

import re

import httpx
import pytest
from sqlalchemy import func, select

from app.models import ActionLog, Battle, Participant
from app.services.errors import Invalid
from app.services.platform import Platform
from app.services.store.battles import load_state
from app.services.write.creation import SeatWanted, ShipWanted, create_prepared
from tests.helpers import ship_def, simple_ship
from tests.web.test_pages import csrf

LINK = re.compile(r'value="(http://127\.0\.0\.1:8000/join#[^"]+)"')


async def _battles(client: httpx.AsyncClient) -> int:
    async with client.app.state.platform.db.reader() as session:  # type: ignore[attr-defined]
        return int(await session.scalar(select(func.count()).select_from(Battle)) or 0)


async def _create(client: httpx.AsyncClient, **fields: object) -> httpx.Response:
    home = await client.get("/")
    data = {"csrf_token": csrf(home.text), "name": "Wizard battle", "system": "b5wars", **fields}
    return await client.post("/battles", data=data)


async def test_wizard_makes_seats_ships_with_commanders_and_a_spectator_link(
    client: httpx.AsyncClient,
) -> None:
    home = await client.get("/")
    assert 'id="wizard"' in home.text and "Up to <strong>32</strong> seats" in home.text
    r = await _create(
        client,
        players="Kirk\nKosh\nTomalak",
        bots="Autopilot",
        spectators="Gallery",
        ships=["excelsior", "shadow-cruiser", "romulan-warbird"],
        **{
            "commander.excelsior": "kirk",
            "commander.shadow-cruiser": "Kosh",
            "commander.romulan-warbird": "",
        },
    )
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store", r.text
    links = LINK.findall(r.text)
    assert len(links) == 6  # 3 players, the bot, the spectator, and the referee's own
    for who in ("Kirk", "Kosh", "Tomalak", "Autopilot", "Gallery"):
        assert f"Copy {who}'s link" in r.text
    assert "commands Excelsior" in r.text and "Not assigned yet: Haakona" in r.text
    assert "Gallery</strong> · spectator" in r.text and "Autopilot</strong> · bot" in r.text
    battle_id = re.search(r'href="/battles/([0-9a-f]+)" id="links-dismiss"', r.text).group(1)
    bot_token = links[3].split("#", 1)[1]  # the bot also gets its bearer token to copy on its own
    assert f'value="{bot_token}" readonly aria-label="Bearer token for Autopilot' in r.text
    bot = await client.get(f"/api/v1/battles/{battle_id}", headers={"Authorization": f"Bearer {bot_token}"})
    assert bot.status_code == 200 and bot.json()["me"]["role"] == "bot"

    # The referee's seat is this browser's; the ships were added as actions 1-3, owners set.
    dashboard = await client.get(f"/battles/{battle_id}")
    assert "Referee dashboard" in dashboard.text and "/join#" not in dashboard.text
    async with client.app.state.platform.db.reader() as session:  # type: ignore[attr-defined]
        people = {
            p.name: p
            for p in await session.scalars(select(Participant).where(Participant.battle_id == battle_id))
        }
        rows = list(await session.scalars(select(ActionLog).where(ActionLog.battle_id == battle_id)))
    assert sorted(p.role for p in people.values()) == [
        "bot",
        "player",
        "player",
        "player",
        "referee",
        "spectator",
    ]
    owners = {r.payload["definition"]["name"]: r.payload["owner"] for r in rows}
    assert [r.seq for r in rows] == [1, 2, 3] and all(r.action_type == "ship.add" for r in rows)
    assert owners == {"Excelsior": people["Kirk"].id, "Shadow Cruiser": people["Kosh"].id, "Haakona": None}

    # The spectator's link seats a watcher.
    spectator = next(u for u in links if u != links[-1] and "Gallery" in r.text)
    assert spectator
    client.cookies.clear()
    token = links[4].split("#", 1)[1]
    watch = await client.get(f"/join/{token}", follow_redirects=True)
    assert watch.status_code == 200 and "Excelsior" in watch.text


async def test_a_refused_ship_leaves_no_battle(client: httpx.AsyncClient) -> None:
    before = await _battles(client)
    broken = simple_ship("Broken")
    broken["parts"]["sheet"]["sections"][0]["structure_max"] = 0
    r = await _create(
        client,
        players="Ann\nBob",
        ships=["excelsior"],
        definition_json=__import__("json").dumps([simple_ship("Fine"), broken]),
        **{"commander.excelsior": "Ann", "commander.json": "Bob"},
    )
    assert r.status_code == 422
    assert 'data-field="definition_json"' in r.text and "pasted ship 2 (Broken)" in r.text
    assert 'aria-invalid="true" aria-describedby="error-definition_json"' in r.text
    assert '<span class="field-error" id="error-definition_json">Ship definitions as JSON:' in r.text
    assert "Ann\nBob</textarea>" in r.text  # what was typed comes back
    assert await _battles(client) == before  # no battle, no seats, no first ships


async def test_the_creation_service_is_one_transaction(platform: Platform) -> None:
    before = await _count(platform)
    seats = [SeatWanted("Ann", "player", "players")]
    broken = simple_ship("Broken")
    broken["parts"]["sheet"]["sections"][1]["armour_max"] = -1
    ships = [
        ShipWanted(ship_def("excelsior"), 0, "ships", "Excelsior"),
        ShipWanted(broken, None, "definition_json", "pasted ship 1 (Broken)"),
    ]
    with pytest.raises(Invalid) as refused:
        await create_prepared(
            platform, name="Half", system="b5wars", dice_mode="seeded", seats=seats, ships=ships
        )
    assert refused.value.field == "definition_json" and "pasted ship 1 (Broken)" in refused.value.message
    assert await _count(platform) == before  # not the battle, not Ann's seat, not the Excelsior


async def _count(platform: Platform) -> tuple[int, int, int]:
    async with platform.db.reader() as session:
        found = [
            await session.scalar(select(func.count()).select_from(m))
            for m in (Battle, Participant, ActionLog)
        ]
    return (int(found[0] or 0), int(found[1] or 0), int(found[2] or 0))


async def test_past_the_seat_limit_nothing_is_made_and_the_form_says_by_how_many(
    client: httpx.AsyncClient,
) -> None:
    before = await _battles(client)
    names = "\n".join(f"Captain {i}" for i in range(40))
    r = await _create(client, players=names, spectators="")
    assert r.status_code == 422
    assert (
        "players: 40 seats asked for, but a battle holds at most 32 with the referee&#39;s — remove 9"
        in r.text
    )
    assert 'id="error-players"' in r.text and await _battles(client) == before
    # The one watch-only link the form fills in does not take the blame for forty players.
    r = await _create(client, players=names, spectators="Spectators")
    assert r.status_code == 422 and 'data-field="players"' in r.text and "remove 10" in r.text
    assert 'data-field="spectators"' not in r.text
    r = await _create(client, players="\n".join(f"Captain {i}" for i in range(30)), spectators="One\nTwo")
    assert r.status_code == 422 and 'data-field="spectators"' in r.text and "remove 1" in r.text
    r = await _create(client, players="\n".join(f"Captain {i}" for i in range(30)), spectators="One")
    assert r.status_code == 200 and len(LINK.findall(r.text)) == 32  # exactly the limit: all of them


async def test_refusals_name_their_field(client: httpx.AsyncClient) -> None:
    r = await _create(client, name="", players="Ann")
    assert r.status_code == 422 and 'id="error-name">Battle name: a battle needs a name' in r.text
    r = await _create(client, players="Ann", ships=["excelsior"], **{"commander.excelsior": "Zed"})
    assert r.status_code == 422 and 'id="error-commander-excelsior">Commander of Excelsior:' in r.text
    assert "&#39;Zed&#39; is not one of the players or bots (they are: Ann)" in r.text
    r = await _create(client, players="Ann", ships=["tr-arbellatra-cruiser"])
    assert (
        r.status_code == 422
        and 'id="error-ships"' in r.text
        and "not in the Babylon 5 Wars library" in r.text
    )
    r = await _create(client, players="Ann\nann")
    assert r.status_code == 422 and 'id="error-players"' in r.text and "named twice" in r.text
    r = await _create(client, players="Ann", definition_json="{not json")
    assert r.status_code == 422 and 'id="error-definition_json"' in r.text


async def test_a_lost_link_is_shown_again_by_a_new_token(client: httpx.AsyncClient) -> None:
    r = await _create(client, players="Ann", spectators="")
    first = LINK.findall(r.text)[0]
    battle_id = re.search(r'href="/battles/([0-9a-f]+)" id="links-dismiss"', r.text).group(1)
    dashboard = await client.get(f"/battles/{battle_id}")
    assert f'<a href="/battles/{battle_id}/links">Join links</a>' in dashboard.text
    page = await client.get(f"/battles/{battle_id}/links")
    assert page.status_code == 200 and "/join#" not in page.text  # nothing stored to show again
    ann = re.search(
        r'<li>Ann · player\s*<form method="post" action="/battles/[0-9a-f]+/links/([0-9a-f]+)"', page.text
    ).group(1)
    again = await client.post(f"/battles/{battle_id}/links/{ann}", data={"csrf_token": csrf(page.text)})
    assert again.status_code == 200 and "New link for Ann: the old one no longer works." in again.text
    (second,) = LINK.findall(again.text)
    assert second != first and "Copy Ann's link" in again.text
    added = await client.post(
        f"/battles/{battle_id}/links", data={"csrf_token": csrf(page.text), "name": "Late", "role": "player"}
    )
    assert (
        added.status_code == 200
        and "Late (player) is seated." in added.text
        and len(LINK.findall(added.text)) == 1
    )
    client.cookies.clear()
    assert (await client.get(f"/join/{first.split('#')[1]}")).status_code == 303  # refused: back home
    assert (await client.get(f"/battles/{battle_id}/links")).status_code == 403


async def test_GEN_01_GEN_04_the_wizard_sets_how_the_battle_ends(client: httpx.AsyncClient) -> None:
    """The ending options the bots rely on (docs/bots.md) are set from the page too; a bad turn
    limit is refused naming its field, and nothing is made."""
    home = await client.get("/")
    assert 'name="end_when_one_side_left"' in home.text and 'name="turn_limit"' in home.text
    before = await _battles(client)
    bad = await _create(client, players="Kirk", turn_limit="0")
    assert bad.status_code == 422 and "turn_limit: a whole number of turns from 1 to 1000" in bad.text
    assert (
        'name="turn_limit" type="number" min="1" max="1000" inputmode="numeric" value="0" aria-invalid="true"'
        in bad.text
    )
    assert await _battles(client) == before
    r = await _create(client, players="Kirk", end_when_one_side_left="true", turn_limit="3")
    assert r.status_code == 200, r.text
    battle_id = re.search(r'href="/battles/([0-9a-f]+)" id="links-dismiss"', r.text).group(1)
    async with client.app.state.platform.db.reader() as session:  # type: ignore[attr-defined]
        state, _ = await load_state(session, battle_id)
    assert state.options["end_when_one_side_left"] is True and state.options["turn_limit"] == 3
