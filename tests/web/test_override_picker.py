"""Override by picking. The referee's dashboard lists each ship's values with what they
are now and what the rules allow (app/rules/overrides.py reads both from the parts' models); the
picked value is read in its own kind and range, refused naming its control when out of range
(bypassing the browser's min/max), and logged in words. The value then carries ⚑ on every page
that shows it until it changes again. A live frame carries each ship's values only as a version;
the page fetches a ship's values when the version it holds is old."""

from __future__ import annotations

import html
import re

import httpx

from app.demo import create_demos
from app.rules.overrides import choices_for
from app.services.store.battles import load_state
from app.web.drawing.render import live_html, read_live
from tests.helpers import act, set_table, ship_def, simple_ship
from tests.web.test_pages import csrf, join

HTMX = {"HX-Request": "true"}
FORE = "ships.{}.parts.shields.projections.0.current"


def _row(page: str, path: str) -> str:
    """The picker's row of one value: from its radio to the end of its list item."""
    start = page.index(f'value="{path}"')
    return page[start : page.index("</li>", start)]


async def test_the_picker_lists_every_demo_ships_values_with_current_and_allowed(
    client: httpx.AsyncClient,
) -> None:
    platform = client.app.state.platform  # type: ignore[attr-defined]
    made = await create_demos(platform, "http://demo.test")
    seen = {}
    for demo in made:
        page = await join(client, demo["links"]["Referee"].split("#", 1)[1])
        assert 'id="override-picker"' in page.text
        async with platform.db.reader() as session:
            state, _ = await load_state(session, demo["id"], platform.rules)
        for ship in state.ships.values():
            choices = choices_for(state, ship.id)
            assert len(choices) >= 3, ship.name  # every demo ship offers its own values
            assert f"Value to correct on {ship.name} <small>({len(choices)} values)</small>" in page.text
            for choice in choices:
                row = html.unescape(_row(page.text, choice.path))
                assert f'{choice.label}: <strong class="override-now">{choice.shown}</strong>' in row
                assert f"allowed: {choice.allowed}" in row
                seen[(ship.name, choice.label)] = (choice.shown, choice.allowed, choice.kind)
    # The values and ranges are the rules' (spot checks against the sample ships' data).
    assert seen[("Excelsior", "Fore shield")] == ("40", "0 to 40", "number")  # ST-05 rating 40
    assert seen[("Shadow Cruiser", "Pain level")] == ("0", "0 to 16", "number")  # SH-01 pain 0-16
    assert seen[("Shadow Cruiser", "Pain reaction")][2] == "choice"
    assert seen[("Arbellatra", "Main Hull")] == ("66", "0 to 66", "number")
    assert seen[("Haakona", "Cloaked")] == ("no", "yes or no", "toggle")


async def _excelsior_table(client: httpx.AsyncClient):  # type: ignore[no-untyped-def]
    return await set_table(
        client, ships={"ex": (ship_def("excelsior"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )


async def test_out_of_range_is_refused_naming_the_field_bypassing_the_browser(
    client: httpx.AsyncClient,
) -> None:
    table = await _excelsior_table(client)
    path = FORE.format(table.ships["ex"])
    page = await join(client, table.tokens["ref"])
    row = _row(page.text, path)
    assert 'type="number"' in row and 'min="0"' in row and 'max="40"' in row  # what a browser enforces
    base = {"csrf_token": csrf(page.text), "path": path, "reason": "misread"}
    # ST-05: a projection holds at most its rating; the door refuses it whatever the page allowed.
    r = await client.post(
        f"/battles/{table.battle_id}/override", data={**base, f"set.{path}": "41"}, headers=HTMX
    )
    assert r.status_code == 422 and f'data-field="set.{path}"' in r.text
    assert "Fore shield: must be 0 to 40 (you sent 41)" in r.text
    r = await client.post(
        f"/battles/{table.battle_id}/override", data={**base, f"set.{path}": "lots"}, headers=HTMX
    )
    assert r.status_code == 422 and "Fore shield: must be a whole number (you sent &#39;lots&#39;)" in r.text
    r = await client.post(f"/battles/{table.battle_id}/override", data={**base, "path": ""}, headers=HTMX)
    assert r.status_code == 422 and 'data-field="path"' in r.text and "pick the value" in r.text
    r = await client.post(
        f"/battles/{table.battle_id}/override",
        data={**base, f"set.{path}": "30", "reason": "x"},
        headers=HTMX,
    )
    assert r.status_code == 422 and 'data-field="reason"' in r.text
    # The rules refuse it the same over REST, where the path is typed (no picker in the way).
    rest = await act(client, table, "ref", "override.set", {"path": path, "value": 41, "reason": "misread"})
    assert rest.status_code == 422 and rest.json()["detail"]["field"] == "value"
    # A player may not use the picker at all.
    ann = await join(client, table.tokens["ann"])
    r = await client.post(
        f"/battles/{table.battle_id}/override",
        data={**base, "csrf_token": csrf(ann.text), f"set.{path}": "30"},
        headers=HTMX,
    )
    assert r.status_code == 403
    state = (await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth("ref"))).json()
    assert state["seq"] == 2  # two ships added; nothing overridden


async def test_an_override_is_logged_in_words_and_flagged_until_the_value_changes(
    client: httpx.AsyncClient,
) -> None:
    table = await _excelsior_table(client)
    ex = table.ships["ex"]
    path = FORE.format(ex)
    page = await join(client, table.tokens["ref"])
    r = await client.post(
        f"/battles/{table.battle_id}/override",
        data={"csrf_token": csrf(page.text), "path": path, f"set.{path}": "32", "reason": "misread the hit"},
        headers=HTMX,
    )
    line = f"⚠ OVERRIDE (Referee): Excelsior — Fore shield: 40 → 32 — “misread the hit” ({path})"
    assert r.status_code == 200 and line in html.unescape(r.text), r.text
    for who in ("ann", "bob", "watcher", "ref"):  # commander, other player, spectator, referee
        seen = html.unescape((await join(client, table.tokens[who])).text)
        assert '<span class="flag" aria-hidden="true">⚑</span> Fore shield: <strong>32</strong>' in seen, who
        assert re.search(r'data-flag-value="32">⚑', seen), who  # on the shield's own number too
    # A toggle through the picker: the hidden "no" then the ticked "yes" (the last counts).
    page = await join(client, table.tokens["ref"])
    down = f"ships.{ex}.parts.shields.projections.1.collapsed"
    r = await client.post(
        f"/battles/{table.battle_id}/override",
        data={
            "csrf_token": csrf(page.text),
            "path": down,
            f"set.{down}": ["no", "yes"],
            "reason": "ST-12 ruling",
        },
        headers=HTMX,
    )
    assert r.status_code == 200 and "Starboard shield down: no → yes" in html.unescape(r.text)
    # The next change of that value (a hit the fore shield absorbs, ST-06) takes the marker away.
    hit = {"target": ex, "source": table.ships["crow"], "amount": 5, "direction": "fore"}
    assert (await act(client, table, "bob", "damage.apply", hit)).status_code == 200
    seen = html.unescape((await join(client, table.tokens["ann"])).text)
    assert "Fore shield: <strong>32</strong>" not in seen and 'data-flag-value="32"' not in seen
    assert "Starboard shield down: <strong>yes</strong>" in seen  # the other value still stands


async def test_undo_of_the_override_takes_its_marker_and_rest_override_still_takes_a_path(
    client: httpx.AsyncClient,
) -> None:
    table = await _excelsior_table(client)
    path = FORE.format(table.ships["ex"])
    r = await act(
        client, table, "ref", "override.set", {"path": path, "value": 20, "reason": "scenario start"}
    )
    assert r.status_code == 200
    assert r.json()["events"][0]["text"] == f"⚠ OVERRIDE (Referee): {path} 40→20 — “scenario start”"
    assert "Fore shield: <strong>20</strong>" in html.unescape((await join(client, table.tokens["bob"])).text)
    assert (await act(client, table, "ref", "battle.undo", {"reason": "wrong ship"})).status_code == 200
    seen = html.unescape((await join(client, table.tokens["bob"])).text)
    assert "Fore shield: <strong>20</strong>" not in seen and 'class="flags"' not in seen
    assert (await act(client, table, "ref", "battle.redo", {})).status_code == 200
    assert "Fore shield: <strong>20</strong>" in html.unescape((await join(client, table.tokens["bob"])).text)


SHELL = re.compile(
    r'<details class="override-ship" id="override-([\w-]+)" data-values-from="([^"]+)" data-values="(\w+)"'
)


def _versions(page: str) -> dict[str, tuple[str, str]]:
    """Each ship's shell in the picker: where its values are fetched from, and their version."""
    return {ship: (url, version) for ship, url, version in SHELL.findall(page)}


async def test_a_frame_carries_each_ships_values_as_a_version_and_the_page_fetches_them(
    client: httpx.AsyncClient,
) -> None:
    table = await _excelsior_table(client)
    ex, crow = table.ships["ex"], table.ships["crow"]
    path = FORE.format(ex)
    page = await join(client, table.tokens["ref"])
    before = _versions(page.text)
    assert set(before) == {ex, crow} and before[ex][0] == f"/battles/{table.battle_id}/override/{ex}"
    # The values the page fetches are the page's own, under the same version.
    r = await client.get(before[ex][0])
    assert r.status_code == 200 and f'data-values="{before[ex][1]}"' in r.text
    assert html.unescape(_row(r.text, path)) == html.unescape(_row(page.text, path))
    # ST-05/ST-06: a 5-point hit in the fore arc fills the fore shield (rating 40) first: 35 left.
    hit = {"target": ex, "source": crow, "amount": 5, "direction": "fore"}
    assert (await act(client, table, "bob", "damage.apply", hit)).status_code == 200
    db = client.app.state.platform.db  # type: ignore[attr-defined]
    read = await read_live(db, table.battle_id, 0)
    frame = live_html(read, read.by_id[table.ids["ref"]], 0, "csrf")
    assert 'id="override-picker"' in frame and "override-row" not in frame  # versions, not values
    after = _versions(frame)
    assert after[ex][1] != before[ex][1] and after[crow] == before[crow]  # only the hit ship's moved
    r = await client.get(after[ex][0])
    assert r.status_code == 200 and f'data-values="{after[ex][1]}"' in r.text
    assert 'Fore shield: <strong class="override-now">35</strong>' in r.text
    assert 'value="35"' in _row(r.text, path)
    page = await join(client, table.tokens["ref"])  # a page drawn now says the same
    assert _versions(page.text) == after and html.unescape(_row(page.text, path)) == html.unescape(
        _row(r.text, path)
    )
    # Only the referee's: a player's browser is refused; a ship not in the battle is named so.
    await join(client, table.tokens["ann"])
    r = await client.get(after[ex][0])
    assert r.status_code == 403 and 'data-field="ship"' in r.text and "only the referee" in r.text
    assert "override-row" not in r.text
    await join(client, table.tokens["ref"])
    r = await client.get(f"/battles/{table.battle_id}/override/nowhere")
    assert r.status_code == 404 and 'data-field="ship"' in r.text and "no ship &#39;nowhere&#39;" in r.text
