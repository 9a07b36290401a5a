"""The league pages: the standings page for everyone a public league is public to (names, results,
each rating change linked to its battle, report and dice check), making and joining a league with
the forms, a private league's page "no such league" to outsiders, and the referee's choice on a
battle — rated for a league, with each side's fleet points — fixed once play begins."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.main import create_app
from app.services.bus import settle
from tests.conftest import settings_for
from tests.helpers import act, set_table, simple_ship
from tests.web.league_season import rows_of, season
from tests.web.test_identity_api import device, make_profile
from tests.web.test_pages import csrf


@pytest.fixture
async def app(db_url: str) -> AsyncIterator[Any]:
    application = create_app(settings_for(db_url))
    async with application.router.lifespan_context(application):
        yield application


async def test_GEN_01_the_standings_page_shows_results_and_links_each_change(app: Any) -> None:
    platform = app.state.platform
    async with device(app) as c:
        made = await season(
            platform, c, ("Ann", "Bob", "Cat"), [("Ann", "Bob", "Blue"), ("Bob", "Cat", "draw")]
        )
        await settle()
        page = await c.get(f"/leagues/{made.league_id}")
    assert page.status_code == 200
    # Ann won her only game; Bob lost then drew; Cat drew — openskill ranks Ann first
    assert rows_of(page.text)[0] == "Ann" and set(rows_of(page.text)) == {"Ann", "Bob", "Cat"}
    first = made.battles[0]
    for link in (
        f'href="/battles/{first}"',
        f'href="/battles/{first}/report"',
        f'href="/battles/{first}/dice"',
    ):
        assert link in page.text
    assert "win" in page.text and "draw" in page.text and "loss" in page.text
    assert "Join this league" not in page.text  # not signed in
    assert "/signin" in page.text


async def test_making_and_joining_a_league_with_the_forms(app: Any) -> None:
    async with device(app) as a, device(app) as b, device(app) as anon:
        await make_profile(a, "Ann")
        await make_profile(b, "Bob")
        index = await a.get("/leagues")
        assert index.status_code == 200 and 'id="new-league"' in index.text
        refused = await a.post(
            "/leagues",
            data={
                "csrf_token": csrf(index.text),
                "name": "Winter",
                "system": "b5wars",
                "points": "Cruiser = lots",
            },
        )
        assert refused.status_code == 303 and refused.headers["location"] == "/leagues"
        assert "points: line 1" in (await a.get("/leagues")).text  # the flash names the field
        index = await a.get("/leagues")
        made = await a.post(
            "/leagues",
            data={
                "csrf_token": csrf(index.text),
                "name": "Winter",
                "system": "b5wars",
                "public": "private",
                "points": "Cruiser = 300\nTest frigate = 100",
            },
        )
        assert made.status_code == 303
        where = made.headers["location"]
        page = await a.get(where)
        invite = page.text.split('id="league-invite"', 1)[1].split("<code>", 1)[1].split("</code>", 1)[0]
        assert (await b.get(where)).status_code == 404 and (await anon.get(where)).status_code == 404
        index_b = await b.get("/leagues")
        joined = await b.post("/leagues/join", data={"csrf_token": csrf(index_b.text), "invite": invite})
        assert joined.status_code == 303 and joined.headers["location"] == where
        seen = await b.get(where)
        assert seen.status_code == 200 and rows_of(seen.text) == ["Ann", "Bob"]
        assert 'id="league-invite"' not in seen.text  # the organiser's only
        assert "Make a league" not in (await anon.get("/leagues")).text


async def test_GEN_01_the_referee_marks_a_battle_rated_with_fleet_points_until_play_begins(app: Any) -> None:
    async with device(app) as a, device(app) as ref, device(app) as ann:
        await make_profile(a, "Ann")
        body = {"name": "Autumn", "system": "b5wars", "points": {"Test frigate": 100}}
        league = (await a.post("/api/v1/leagues", json=body)).json()["id"]
        ships = {
            "x": ({**simple_ship("Hawk"), "side": "Blue"}, "ann"),
            "y": ({**simple_ship("Crow"), "side": "Red", "klass": "Scout"}, "bob"),
        }
        table = await set_table(ref, ships=ships, options={})
        await ref.get(f"/join/{table.tokens['ref']}")
        page = await ref.get(f"/battles/{table.battle_id}")
        assert f'href="/battles/{table.battle_id}/league"' in page.text  # the referee page's link
        choice = await ref.get(f"/battles/{table.battle_id}/league")
        assert choice.status_code == 200 and f'value="{league}"' in choice.text
        saved = await ref.post(
            f"/battles/{table.battle_id}/league",
            data={"csrf_token": csrf(choice.text), "league": league, f"points.{table.ships['y']}": "40"},
        )
        assert saved.status_code == 303
        shown = await ref.get(f"/battles/{table.battle_id}/league")
        # Blue 100 against Red 40: 60 behind (60%) — the Red side may add 60 points
        assert "Imbalance: 60 points" in shown.text and "Red side may add 60 points" in shown.text
        await ann.get(f"/join/{table.tokens['ann']}")
        assert (await ann.get(f"/battles/{table.battle_id}/league")).status_code == 403
        assert (await act(ref, table, "ann", "step.ready", {})).status_code == 200
        fixed = await ref.get(f"/battles/{table.battle_id}/league")
        assert (
            'id="league-fixed"' in fixed.text
            and "Autumn" in fixed.text
            and 'id="league-choice"' not in fixed.text
        )
        late = await ref.post(
            f"/battles/{table.battle_id}/league", data={"csrf_token": csrf(choice.text), "league": ""}
        )
        assert late.status_code == 303
        again = await ref.get(f"/battles/{table.battle_id}/league")
        assert "league: play has begun" in again.text and 'id="league-fixed"' in again.text
