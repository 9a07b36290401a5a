"""Leagues over REST, on SQLite and PostgreSQL: four profiles play six rated battles (seats claimed
through their join links while signed in; each ended by the referee's `battle.end` with a winner or
a draw), and the standings match ratings computed here with openskill's Plackett-Luce directly, in
the same order; the append-only record rebuilt from scratch agrees. The referee's choice is fixed
once play begins (422 naming `league`); bad input is a 422 naming the field and changes nothing; a
private league leaks nothing to a profile outside it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from openskill.models import PlackettLuce

from app.main import create_app
from app.services.bus import settle
from tests.conftest import settings_for
from tests.helpers import act, set_table, simple_ship
from tests.web.test_identity_api import ORIGIN, device, make_profile
from tests.web.test_pages import csrf

# Who fights whom, in order: (Blue's player, Red's player, the side the end names).
SCHEDULE = [
    ("ann", "bob", "Blue"),
    ("cat", "dan", "Red"),
    ("ann", "cat", "draw"),
    ("bob", "dan", "Blue"),
    ("ann", "dan", "Red"),
    ("bob", "cat", "Blue"),
]
# The results those ends give, counted by hand: (games, wins, draws, losses).
RESULTS = {"ann": (3, 1, 1, 1), "bob": (3, 2, 0, 1), "cat": (3, 0, 1, 2), "dan": (3, 2, 0, 1)}


@pytest.fixture
async def app(db_url: str) -> AsyncIterator[Any]:
    application = create_app(settings_for(db_url))
    async with application.router.lifespan_context(application):
        yield application


def sided(name: str, side: str, klass: str = "Test frigate") -> dict[str, Any]:
    return {**simple_ship(name), "side": side, "klass": klass}


async def claim(c: httpx.AsyncClient, token: str) -> None:
    """Take a seat through its join link while signed in (the profile keeps it); a browser seated
    elsewhere confirms the switch."""
    r = await c.get(f"/join/{token}")
    if r.status_code == 200:
        r = await c.post("/join", data={"csrf_token": csrf(r.text), "token": token, "confirm": "yes"})
    assert r.status_code == 303, r.text


async def rated_battle(
    referee: httpx.AsyncClient,
    league_id: str,
    blue: tuple[str, httpx.AsyncClient],
    red: tuple[str, httpx.AsyncClient],
) -> Any:
    ships = {
        "blue": (sided(f"{blue[0]}'s ship", "Blue"), blue[0]),
        "red": (sided(f"{red[0]}'s ship", "Red"), red[0]),
    }
    table = await set_table(referee, players=(blue[0], red[0]), ships=ships, options={})
    marked = await referee.put(
        f"/api/v1/battles/{table.battle_id}/league", json={"league": league_id}, headers=table.auth("ref")
    )
    assert marked.status_code == 200, marked.text
    await claim(blue[1], table.tokens[blue[0]])
    await claim(red[1], table.tokens[red[0]])
    return table


async def test_GEN_01_six_rated_battles_give_the_standings_openskill_gives(app: Any) -> None:
    async with device(app) as ref, device(app) as a, device(app) as b, device(app) as c, device(app) as d:
        players = {"ann": a, "bob": b, "cat": c, "dan": d}
        ids = {}
        for name, client in players.items():
            made, _ = await make_profile(client, name.title())
            ids[name] = made["profile"]["id"]
        made = await a.post("/api/v1/leagues", json={"name": "Autumn season", "system": "b5wars"})
        assert made.status_code == 201, made.text
        league = made.json()["id"]
        for name in ("bob", "cat", "dan"):
            joined = await players[name].post(f"/api/v1/leagues/{league}/members", json={})
            assert joined.status_code == 200 and joined.json()["member"] is True

        model = PlackettLuce()
        expected = {name: model.rating() for name in players}
        for blue, red, won in SCHEDULE:
            table = await rated_battle(ref, league, (blue, players[blue]), (red, players[red]))
            assert (await act(ref, table, blue, "step.ready", {})).status_code == 200  # play begins
            ended = await act(ref, table, "ref", "battle.end", {"winner": won})
            assert ended.status_code == 200, ended.text
            await settle()
            ranks = [1, 1] if won == "draw" else ([1, 2] if won == "Blue" else [2, 1])
            [[expected[blue]], [expected[red]]] = model.rate([[expected[blue]], [expected[red]]], ranks=ranks)

        got = (await ref.get(f"/api/v1/leagues/{league}")).json()
        rows = {r["profile_id"]: r for r in got["standings"]}
        for name, rating in expected.items():
            row = rows[ids[name]]
            assert (row["games"], row["wins"], row["draws"], row["losses"]) == RESULTS[name]
            assert row["mu"] == pytest.approx(rating.mu, abs=1e-9)
            assert row["sigma"] == pytest.approx(rating.sigma, abs=1e-9)
            assert row["rating"] == pytest.approx(rating.ordinal(), abs=1e-9)
        order = sorted(expected, key=lambda n: -expected[n].ordinal())
        assert [r["profile_id"] for r in got["standings"]] == [ids[n] for n in order]
        assert [b["number"] for b in got["battles"]] == [1, 2, 3, 4, 5, 6]

        changes = (await ref.get(f"/api/v1/leagues/{league}/changes")).json()
        assert len(changes) == 12 and [c["number"] for c in changes] == sorted(c["number"] for c in changes)
        first = changes[0]
        assert first["report_url"] == f"/battles/{first['battle_id']}/report"
        assert first["dice_url"] == f"/battles/{first['battle_id']}/dice"
        assert (first["mu_before"], first["sigma_before"]) == (model.mu, model.sigma)
        audit = (await ref.get(f"/api/v1/leagues/{league}/audit")).json()
        assert audit == {"agrees": True, "battles": 6, "changes": 12, "differences": []}


async def test_GEN_01_the_choice_is_fixed_once_play_begins_and_bad_input_changes_nothing(app: Any) -> None:
    async with device(app) as ref, device(app) as a:
        await make_profile(a, "Ann")
        league = (await a.post("/api/v1/leagues", json={"name": "Spring", "system": "b5wars"})).json()["id"]
        other = (await a.post("/api/v1/leagues", json={"name": "Imperial", "system": "traveller"})).json()[
            "id"
        ]
        ships = {"x": (sided("Hawk", "Blue"), "ann"), "y": (sided("Crow", "Red"), "bob")}
        table = await set_table(ref, ships=ships, options={})
        url = f"/api/v1/battles/{table.battle_id}/league"

        for body, field in [
            ({"league": other}, "league"),  # another game system
            ({"league": "nope"}, "league"),
            ({"league": league, "points": {"Hawk": -3}}, "points.Hawk"),
            ({"leeg": league}, "league"),  # league is required; nothing else is accepted
        ]:
            r = await ref.put(url, json=body, headers=table.auth("ref"))
            assert r.status_code == 422, r.text
            assert field in (r.json()["detail"]["field"] or ""), r.json()
        assert (await ref.get(url, headers=table.auth("ref"))).json()["league"] is None
        player = await ref.put(url, json={"league": league}, headers=table.auth("ann"))
        assert player.status_code == 403

        ok = await ref.put(
            url, json={"league": league, "points": {table.ships["y"]: 120}}, headers=table.auth("ref")
        )
        assert ok.status_code == 200 and ok.json()["league"] == league
        assert (await act(ref, table, "ann", "step.ready", {})).status_code == 200
        for body in ({"league": None}, {"league": league}):
            late = await ref.put(url, json=body, headers=table.auth("ref"))
            assert late.status_code == 422 and late.json()["detail"]["field"] == "league", late.text
        kept = (await ref.get(url, headers=table.auth("ann"))).json()
        assert kept["league"] == league and kept["begun"] is True

        before = (await a.get("/api/v1/leagues")).json()
        for body, field in [
            ({"name": "", "system": "b5wars"}, "name"),
            ({"name": "X", "system": "chess"}, "system"),
            ({"name": "X", "system": "b5wars", "points": {"Frigate": "ten"}}, "points"),
            ({"system": "b5wars"}, "name"),
        ]:
            r = await a.post("/api/v1/leagues", json=body)
            assert r.status_code == 422 and field in (r.json()["detail"]["field"] or ""), r.text
        assert (await a.get("/api/v1/leagues")).json() == before  # nothing was made
        assert (await ref.post("/api/v1/leagues", json={"name": "X", "system": "b5wars"})).status_code == 401


async def test_fleet_points_show_the_imbalance_and_the_handicap(app: Any) -> None:
    async with device(app) as ref, device(app) as a:
        await make_profile(a, "Ann")
        body = {"name": "Points", "system": "b5wars", "points": {"Test frigate": 100, "Cruiser": 300}}
        league = (await a.post("/api/v1/leagues", json=body)).json()["id"]
        ships = {
            "x": (sided("Hawk", "Blue", "Cruiser"), "ann"),
            "y": (sided("Crow", "Red"), "bob"),
            "z": (sided("Kite", "Red", "Scout"), "bob"),
        }
        table = await set_table(ref, ships=ships, options={})
        url = f"/api/v1/battles/{table.battle_id}/league"
        got = (await ref.put(url, json={"league": league}, headers=table.auth("ref"))).json()
        sides = {s["side"]: s for s in got["sides"]}
        # Blue 300; Red 100 + the unpriced Scout (0): 200 behind, 66.7% — the difference as handicap
        assert sides["Blue"]["points"] == 300 and sides["Red"]["points"] == 100
        assert sides["Red"]["unpriced"] == ["Kite"] and sides["Red"]["handicap"] == 200
        assert got["imbalance"] == 200 and "Red side may add 200 points" in got["suggestion"]
        priced = {"league": league, "points": {table.ships["z"]: 190}}
        got = (await ref.put(url, json=priced, headers=table.auth("ref"))).json()
        # Red 290 against 300: 3.3% behind, within the 5% rule — even
        assert got["imbalance"] == 10 and all(s["handicap"] == 0 for s in got["sides"])
        assert got["suggestion"].startswith("Even")


async def test_a_private_league_leaks_nothing_to_outsiders(app: Any) -> None:
    async with device(app) as a, device(app) as b, device(app) as stranger, device(app) as anon:
        await make_profile(a, "Ann")
        await make_profile(b, "Bob")
        await make_profile(stranger, "Eve")
        made = (
            await a.post("/api/v1/leagues", json={"name": "Secret", "system": "sfb", "public": False})
        ).json()
        league, invite = made["id"], made["invite"]
        assert invite
        for client in (stranger, anon):
            for path in ("", "/changes", "/audit"):
                r = await client.get(f"/api/v1/leagues/{league}{path}")
                assert r.status_code == 404 and "Ann" not in r.text and "Secret" not in r.text
            assert league not in {lg["id"] for lg in (await client.get("/api/v1/leagues")).json()}
            page = await client.get(f"/leagues/{league}")
            assert page.status_code == 404 and "Secret" not in page.text and "Ann" not in page.text
        wrong = await stranger.post(f"/api/v1/leagues/{league}/members", json={"invite": "guess"})
        assert wrong.status_code == 404
        assert (await stranger.post("/api/v1/leagues/join", json={"invite": "guess"})).status_code == 404
        assert (await b.post("/api/v1/leagues/join", json={})).json()["detail"]["field"] == "invite"
        joined = await b.post("/api/v1/leagues/join", json={"invite": invite})
        assert joined.status_code == 200 and joined.json()["invite"] is None  # the organiser's only
        seen = (await b.get(f"/api/v1/leagues/{league}")).json()
        assert [s["name"] for s in seen["standings"]] == ["Ann", "Bob"]
        assert (await stranger.get(f"/api/v1/leagues/{league}")).status_code == 404
        # a battle rated for it names it to its referee only: a seat's token is not a membership
        table = await set_table(
            a, system="sfb", ships={"s": ({**simple_ship("Kite", "sfb"), "side": "Blue"}, "ann")}, options={}
        )
        url = f"/api/v1/battles/{table.battle_id}/league"
        # a referee whose seat no member's profile holds does not find the private league
        refused = await a.put(url, json={"league": league}, headers=table.auth("ref"))
        assert refused.status_code == 422 and refused.json()["detail"]["field"] == "league", refused.text
        assert "Secret" not in refused.text
        assert (await a.get(f"/join/{table.tokens['ref']}")).status_code == 303  # Ann's profile takes it
        assert (await a.put(url, json={"league": league}, headers=table.auth("ref"))).json()[
            "league"
        ] == league
        eves = await set_table(
            stranger,
            system="sfb",
            ships={"s": ({**simple_ship("Kite", "sfb"), "side": "Blue"}, "ann")},
            options={},
        )
        assert (await stranger.get(f"/join/{eves.tokens['ref']}")).status_code == 303
        guessed = await stranger.put(
            f"/api/v1/battles/{eves.battle_id}/league", json={"league": league}, headers=eves.auth("ref")
        )
        assert guessed.status_code == 422 and guessed.json()["detail"]["field"] == "league", guessed.text
        seen_by_seat = await stranger.get(url, headers=table.auth("watcher"))
        assert seen_by_seat.status_code == 200 and seen_by_seat.json()["league"] is None
        assert "Secret" not in seen_by_seat.text and league not in seen_by_seat.text


async def test_the_openapi_schema_lists_the_league_routes(app: Any) -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=ORIGIN) as c:
        paths = (await c.get("/openapi.json")).json()["paths"]
    for path in (
        "/api/v1/leagues",
        "/api/v1/leagues/{league_id}",
        "/api/v1/leagues/{league_id}/changes",
        "/api/v1/leagues/{league_id}/audit",
        "/api/v1/leagues/{league_id}/members",
        "/api/v1/leagues/join",
        "/api/v1/battles/{battle_id}/league",
    ):
        assert path in paths, path
