"""The battle file and the what-if from the pages: the referee's console saves the file
and starts a what-if at a seq; the home page imports a file; both seat this browser as the new
battle's referee and show the new links until dismissed. Bad input is refused in words naming the field."""

from __future__ import annotations

import json
import re

import httpx

from tests.helpers import act, set_table, simple_ship
from tests.web.test_pages import csrf, join

LINK = re.compile(r"/join#[A-Za-z0-9_-]+")
DISMISS = re.compile(r'href="/battles/([0-9a-f]+)" id="links-dismiss"')


async def test_the_referee_saves_forks_and_imports_from_the_pages(client: httpx.AsyncClient) -> None:
    table = await set_table(client, ships={"hawk": (simple_ship("Hawk"), "ann")})
    await act(client, table, "ref", "clock.advance", {})
    await act(client, table, "ref", "clock.advance", {})
    page = await join(client, table.tokens["ref"])
    assert "Battle file and what-if" in page.text
    token = csrf(page.text)

    saved = await client.get(f"/battles/{table.battle_id}/export.json")
    assert saved.status_code == 200 and "attachment" in saved.headers["content-disposition"]
    file = saved.json()
    assert file["format"] == "starboard.battle/1" and all(t not in saved.text for t in table.tokens.values())
    last = file["battle"]["seq"]

    # The what-if is picked by its log line, as a rewind is: the latest entry first.
    form = page.text.split('action="/battles/' + table.battle_id + '/fork"')[1].split("</form>")[0]
    options = re.findall(r'<option value="(\d+)">([^<]*)</option>', form)
    assert [int(v) for v, _ in options] == list(range(last, 0, -1))
    before = file["log"][last - 3]  # the entry before the two clock moves
    assert before["seq"] == last - 2
    assert dict(options)[str(last - 2)].startswith(f"#{last - 2} {before['events'][0]['text']}")
    # A what-if from the seq before the two clock moves: a new battle, this browser its referee.
    r = await client.post(
        f"/battles/{table.battle_id}/fork",
        data={"csrf_token": token, "seq": str(last - 2)},
        follow_redirects=True,
    )
    # The join-links page: each seat's new link, shown until dismissed (never stored).
    assert r.status_code == 200 and f"(what-if from seq {last - 2})" in r.text, r.text[:500]
    assert len(set(LINK.findall(r.text))) == len(file["seats"])
    fork_id = DISMISS.search(r.text).group(1)
    assert fork_id != table.battle_id
    again = await client.get(f"/battles/{fork_id}")
    assert "Referee dashboard" in again.text and "/join#" not in again.text

    # A seq past the end is refused naming the field, and nothing is made.
    r = await client.post(
        f"/battles/{table.battle_id}/fork",
        data={"csrf_token": csrf(again.text), "seq": str(last + 1)},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and f"a what-if starts from a seq of 1 to {last}" in r.text
    assert 'data-field="seq"' in r.text

    # The home page imports the saved file as another battle.
    home = await client.get("/")
    assert "Import a battle file" in home.text
    r = await client.post(
        "/battles/import",
        data={"csrf_token": csrf(home.text)},
        files={"file": ("battle.json", json.dumps(file).encode(), "application/json")},
        follow_redirects=True,
    )
    assert r.status_code == 200 and len(set(LINK.findall(r.text))) == len(file["seats"])
    copy_id = DISMISS.search(r.text).group(1)
    assert copy_id not in (table.battle_id, fork_id)
    dashboard = await client.get(f"/battles/{copy_id}")
    assert "Hawk" in dashboard.text
    # Not JSON: refused in words, naming the file field.
    r = await client.post(
        "/battles/import",
        data={"csrf_token": csrf(dashboard.text)},
        files={"file": ("battle.json", b"not json", "application/json")},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and "not a battle file" in r.text and 'data-field="file"' in r.text

    # A player's browser can neither save nor fork.
    page = await join(client, table.tokens["ann"])
    assert page.status_code == 200 and 'id="ship-hawk"' in page.text  # her battle page
    assert "Battle file and what-if" not in page.text
    r = await client.get(f"/battles/{table.battle_id}/export.json", headers={"HX-Request": "true"})
    assert r.status_code == 403
    r = await client.post(
        f"/battles/{table.battle_id}/fork",
        data={"csrf_token": csrf(page.text), "seq": "1"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 403
