"""The campaign pages: the referee's dashboard makes the campaign, its sides, players and ships and
a battle from the fleets; a refused form names the field and changes nothing; a player's link
seats another browser, which reads its own side and never a secret roster; the fleet page draws
each ship's record as the report's SVG bar chart."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from app.main import create_app
from app.services.campaigns import fleets
from tests.campaigns.test_campaign_rest import bearer
from tests.conftest import settings_for
from tests.helpers import eventually, simple_ship
from tests.web.test_identity_api import device, make_profile
from tests.web.test_pages import csrf


async def _dashboard(c: httpx.AsyncClient, secret: bool = False) -> tuple[str, httpx.Response]:
    home = await c.get("/campaigns")
    assert home.status_code == 200 and "Start a campaign" in home.text
    data = {
        "csrf_token": csrf(home.text),
        "name": "Border war",
        "system": "b5wars",
        "sides": "Federation, Romulan",
    }
    if secret:
        data["secret_rosters"] = "yes"
    r = await c.post("/campaigns/new", data=data)
    assert r.status_code == 303, r.text
    cid = r.headers["location"].rsplit("/", 1)[1]
    return cid, await c.get(f"/campaigns/{cid}")


async def _enterprise(c: httpx.AsyncClient, cid: str) -> httpx.Response:
    """The referee adds the Enterprise-D (a Galaxy class) to the Federation with the dashboard's form."""
    page = await c.get(f"/campaigns/{cid}")
    return await c.post(
        f"/campaigns/{cid}/ships",
        data={
            "csrf_token": csrf(page.text),
            "side": "Federation",
            "library": "galaxy-class",
            "name": "Enterprise-D",
        },
    )


async def test_the_dashboard_builds_a_campaign_and_starts_a_battle(client: httpx.AsyncClient) -> None:
    c = client
    cid, page = await _dashboard(c)
    assert "Campaign created" in page.text and "Federation" in page.text and "Romulan" in page.text
    r = await c.post(
        f"/campaigns/{cid}/players",
        data={"csrf_token": csrf(page.text), "name": "Kirk", "side": "Federation"},
    )
    assert r.status_code == 200 and "shown once" in r.text and r.headers["cache-control"] == "no-store"
    link = re.search(r'value="(http[^"]+/campaigns/join/[^"]+)"', r.text)
    assert link is not None
    page = await c.get(f"/campaigns/{cid}")
    kirk = re.search(r'<option value="([0-9a-f]{16})">Kirk \(Federation\)', page.text)
    assert kirk is not None
    for side, slug, player in (
        ("Federation", "excelsior", kirk.group(1)),
        ("Romulan", "romulan-warbird", ""),
    ):
        r = await c.post(
            f"/campaigns/{cid}/ships",
            data={
                "csrf_token": csrf(page.text),
                "side": side,
                "library": slug,
                "player": player,
                "points": "150",
            },
        )
        assert r.status_code == 303, r.text
    page = await c.get(f"/campaigns/{cid}")
    assert "Excelsior" in page.text and "Haakona" in page.text and "150" in page.text
    # A refused form: the page again, the field named, nothing written.
    r = await c.post(
        f"/campaigns/{cid}/ships",
        data={"csrf_token": csrf(page.text), "side": "Klingon", "library": "excelsior"},
    )
    assert r.status_code == 422 and 'data-field="side"' in r.text
    r = await c.post(
        f"/campaigns/{cid}/battles",
        data={"csrf_token": csrf(page.text), "name": "Neutral Zone", "ships": ["s1", "s2"]},
    )
    assert r.status_code == 200 and "/join#" in r.text and "Neutral Zone" in r.text
    page = await c.get(f"/campaigns/{cid}")
    assert "under way" in page.text and page.text.count("in battle") == 2
    # The fleet page of a side with no battles yet: no chart, the ship listed.
    fleet = await c.get(f"/campaigns/{cid}/fleets/Federation")
    assert fleet.status_code == 200 and "Excelsior" in fleet.text and "<svg" not in fleet.text


async def test_a_player_link_seats_a_browser_that_reads_only_its_side(client: httpx.AsyncClient) -> None:
    c = client
    cid, page = await _dashboard(c, secret=True)
    r = await c.post(
        f"/campaigns/{cid}/players",
        data={"csrf_token": csrf(page.text), "name": "Tomalak", "side": "Romulan"},
    )
    token = re.search(r"/campaigns/join/([^\"]+)\"", r.text).group(1)  # type: ignore[union-attr]
    await _enterprise(c, cid)
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as player:
        r = await player.get(f"/campaigns/join/{token}")
        assert r.status_code == 303
        mine = await player.get(f"/campaigns/{cid}")
        assert mine.status_code == 200 and "Tomalak" in mine.text
        assert "Enterprise" not in mine.text and "Galaxy" not in mine.text
        assert "This side&#39;s roster is secret" in mine.text or "This side's roster is secret" in mine.text
        assert "Start the battle" not in mine.text and "Export the campaign" not in mine.text
        fleet = await player.get(f"/campaigns/{cid}/fleets/Federation")
        assert "Enterprise" not in fleet.text
        r = await player.post(
            f"/campaigns/{cid}/sides",
            data={"csrf_token": csrf((await player.get("/campaigns")).text), "side": "Klingon"},
        )
        assert r.status_code == 403
        assert (await player.get(f"/campaigns/{cid}/export")).status_code == 403
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as stranger:
        assert (await stranger.get(f"/campaigns/{cid}")).status_code == 403


async def test_an_open_dashboards_poll_answers_204_until_the_log_moves_and_then_as_its_seat_sees(
    client: httpx.AsyncClient,
) -> None:
    """The dashboard's own poll (`?since=` the seq it shows): nothing logged since is a 204 with no
    body; once a ship is added the answer is the page as this seat may read it — a player's poll
    never shows the other side's secret roster; a browser with no seat is refused as the page is."""
    c = client
    cid, page = await _dashboard(c, secret=True)
    seq = int(re.search(r'id="campaign-fleets"[^>]*data-seq="(\d+)"', page.text).group(1))  # type: ignore[union-attr]
    assert f'hx-get="/campaigns/{cid}?since={seq}"' in page.text
    r = await c.post(
        f"/campaigns/{cid}/players",
        data={"csrf_token": csrf(page.text), "name": "Tomalak", "side": "Romulan"},
    )
    token = re.search(r"/campaigns/join/([^\"]+)\"", r.text).group(1)  # type: ignore[union-attr]
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as player:
        assert (await player.get(f"/campaigns/join/{token}")).status_code == 303
        now = await player.get(f"/campaigns/{cid}")
        at = int(re.search(r'id="campaign-fleets"[^>]*data-seq="(\d+)"', now.text).group(1))  # type: ignore[union-attr]
        assert at == seq + 1  # the player's seat is the entry since
        unchanged = await player.get(f"/campaigns/{cid}", params={"since": at})
        assert (unchanged.status_code, unchanged.content) == (204, b"")
        added = await _enterprise(c, cid)
        assert added.status_code == 303, added.text
        moved = await player.get(f"/campaigns/{cid}", params={"since": at})
        assert moved.status_code == 200 and f'data-seq="{at + 1}"' in moved.text
        assert "Enterprise" not in moved.text and "Galaxy" not in moved.text
        referee = await c.get(f"/campaigns/{cid}", params={"since": at})
        assert referee.status_code == 200 and "Enterprise-D" in referee.text
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as stranger:
        assert (await stranger.get(f"/campaigns/{cid}", params={"since": 0})).status_code == 403


async def test_the_fleet_page_charts_each_ships_record_across_battles(client: httpx.AsyncClient) -> None:
    """Damage taken and dealt per battle drawn with the report's bar chart (GEN-03 entered damage)."""
    c = client
    cid, page = await _dashboard(c)
    for side, name in (("Federation", "Hawk"), ("Romulan", "Crow")):
        definition = json.dumps(simple_ship(name))
        r = await c.post(
            f"/campaigns/{cid}/ships",
            data={"csrf_token": csrf(page.text), "side": side, "definition": definition},
        )
        assert r.status_code == 303, r.text
    # The battle is played from its referee link, over REST.
    r = await c.post(
        f"/campaigns/{cid}/battles",
        data={"csrf_token": csrf(page.text), "name": "Skirmish", "ships": ["s1", "s2"]},
    )
    ref_token = re.search(r"/join#([A-Za-z0-9_-]+)", r.text).group(1)  # type: ignore[union-attr]
    battle = re.search(r'href="/battles/([0-9a-f]{16})"', (await c.get(f"/campaigns/{cid}")).text).group(1)  # type: ignore[union-attr]
    hit = {
        "type": "damage.apply",
        "payload": {"target": "crow", "amount": 12, "source": "hawk"},
        "action_id": uuid.uuid4().hex,
    }
    r = await c.post(f"/api/v1/battles/{battle}/actions", json=hit, headers=bearer(ref_token))
    assert r.status_code == 200, r.text
    end = {"type": "battle.end", "payload": {"reason": "withdrawn"}, "action_id": uuid.uuid4().hex}
    assert (
        await c.post(f"/api/v1/battles/{battle}/actions", json=end, headers=bearer(ref_token))
    ).status_code == 200

    async def charted() -> str | None:
        fleet = await c.get(f"/campaigns/{cid}/fleets/Romulan")
        return fleet.text if "<svg" in fleet.text else None

    text = await eventually(charted, what="the fleet page's chart after the battle came home")
    assert "damage taken and dealt, battle by battle" in text and "took 12" in text
    assert "Skirmish" in text


async def test_export_and_import_from_the_pages_and_rewind(client: httpx.AsyncClient) -> None:
    c = client
    cid, page = await _dashboard(c)
    await c.post(
        f"/campaigns/{cid}/ships",
        data={"csrf_token": csrf(page.text), "side": "Federation", "library": "excelsior"},
    )
    exported = await c.get(f"/campaigns/{cid}/export")
    assert exported.status_code == 200 and "attachment" in exported.headers["content-disposition"]
    assert exported.json()["format"] == "starboard.campaign/1"
    home = await c.get("/campaigns")
    r = await c.post(
        "/campaigns/import",
        data={"csrf_token": csrf(home.text)},
        files={"file": ("campaign.json", exported.content, "application/json")},
    )
    assert r.status_code == 303, r.text
    copy = await c.get(r.headers["location"])
    assert "Campaign imported" in copy.text and "Excelsior" in copy.text
    # A file that is not a campaign: refused naming the field, nothing made.
    r = await c.post(
        "/campaigns/import",
        data={"csrf_token": csrf(home.text)},
        files={"file": ("x.json", b'{"format": "x"}', "application/json")},
    )
    assert r.status_code == 422 and 'data-field="format"' in r.text
    # Rewind from the dashboard: the ship added after entry 3 is gone from the fleets, the log keeps it.
    page = await c.get(f"/campaigns/{cid}")
    r = await c.post(f"/campaigns/{cid}/rewind", data={"csrf_token": csrf(page.text), "to": "3"})
    assert r.status_code == 303
    page = await c.get(f"/campaigns/{cid}")
    assert (
        "stands as it was after entry 3" in page.text and "Excelsior joins the Federation fleet" in page.text
    )
    assert "<table" not in page.text.split('id="fleets-title"')[1].split("</section>")[0]


async def test_a_result_that_did_not_come_home_is_brought_home_from_the_dashboard(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The after-commit handler lost (a restart between the end and its task): the dashboard offers
    to bring the result home, and it comes once."""
    c = client
    cid, page = await _dashboard(c)
    for side, name in (("Federation", "Hawk"), ("Romulan", "Crow")):
        await c.post(
            f"/campaigns/{cid}/ships",
            data={"csrf_token": csrf(page.text), "side": side, "definition": json.dumps(simple_ship(name))},
        )
    r = await c.post(
        f"/campaigns/{cid}/battles",
        data={"csrf_token": csrf(page.text), "name": "Lost", "ships": ["s1", "s2"]},
    )
    ref_token = re.search(r"/join#([A-Za-z0-9_-]+)", r.text).group(1)  # type: ignore[union-attr]
    battle = re.search(r'href="/battles/([0-9a-f]{16})"', r.text).group(1)  # type: ignore[union-attr]
    real = fleets.record_battle

    async def lost(*_: object) -> None:
        return None

    monkeypatch.setattr(fleets, "record_battle", lost)
    end = {"type": "battle.end", "payload": {"reason": "over"}, "action_id": uuid.uuid4().hex}
    assert (
        await c.post(f"/api/v1/battles/{battle}/actions", json=end, headers=bearer(ref_token))
    ).status_code == 200
    page = await c.get(f"/campaigns/{cid}")
    assert "Bring its result home" in page.text and "under way" in page.text
    monkeypatch.setattr(fleets, "record_battle", real)
    r = await c.post(f"/campaigns/{cid}/record", data={"csrf_token": csrf(page.text), "battle": battle})
    assert r.status_code == 303
    page = await c.get(f"/campaigns/{cid}")
    assert (
        "result is home" in page.text
        and "result recorded" in page.text
        and "Bring its result home" not in page.text
    )


@pytest.fixture
async def identity_app(db_url: str) -> AsyncIterator[Any]:
    """The app served as http://localhost, where passkeys are made (as tests/web/test_identity_api.py)."""
    application = create_app(settings_for(db_url))
    async with application.router.lifespan_context(application):
        yield application


async def test_a_profile_brings_its_campaign_seats_to_another_device(identity_app: Any) -> None:
    """Players of a campaign may be profiles: a campaign made (or joined) while signed in is kept
    by the profile, and signing in on another device brings its seat there — the dashboard opens
    on the phone with no link handed over. A browser signed in as nobody holds nothing."""
    async with device(identity_app) as laptop, device(identity_app) as phone, device(identity_app) as other:
        made, _ = await make_profile(laptop, "Ann")
        cid, page = await _dashboard(laptop)
        assert page.status_code == 200 and "Border war" in page.text
        assert (await phone.get(f"/campaigns/{cid}")).status_code != 200 or "Border war" not in (
            await phone.get(f"/campaigns/{cid}")
        ).text
        signed = await phone.post("/api/v1/profiles/recovery", json={"code": made["recovery_codes"][0]})
        assert signed.status_code == 200, signed.text
        home = await phone.get("/campaigns")
        assert f'href="/campaigns/{cid}"' in home.text
        there = await phone.get(f"/campaigns/{cid}")
        assert there.status_code == 200 and 'action="/campaigns/' in there.text and "Border war" in there.text
        stranger = await other.get("/campaigns")
        assert f'href="/campaigns/{cid}"' not in stranger.text
