"""The report as a story: the end's reason and winner the referee records (`battle.end`'s winner,
validated against the battle's sides; an end without one logged exactly as before), the rules' own
ends read as a winner or a draw, the headline and the turn-by-turn story in the log's labels; and
the public share link and its image card: made and revoked by the referee only, and showing only
what a spectator sees — the leak tests: a cloaked ship's path, a commander-only value and the
private table talk never reach the shared page or the image."""

from __future__ import annotations

import re

import httpx

from app.rules.generic.ending import winner
from app.services.platform import Platform
from app.services.reading.report import Report
from app.services.store.battles import get_battle, load_state
from app.services.table import chat
from tests.helpers import act, session_cookie, set_table, simple_ship
from tests.web.test_report import SECRET_HEX, STARTREK, Demo, demos, do, play_startrek, report_of

SECRET_OUTPUT = 917  # the Haakona's reactor output: its power part is its commander's only (ux §0)
SECRET_TALK = "ambush them behind the moon"


async def browser(client: httpx.AsyncClient, token: str) -> httpx.AsyncClient:
    b = httpx.AsyncClient(transport=client._transport, base_url=client.base_url)
    b.cookies.set("starboard_session", await session_cookie(client, token))
    return b


async def make_link(client: httpx.AsyncClient, d: Demo, who: str = "Referee") -> httpx.Response:
    """The Share panel's form, posted as the seated browser of `who` would."""
    async with await browser(client, d.tokens[who]) as b:
        page = await b.get(f"/battles/{d.battle_id}/report")
        found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        csrf = found.group(1) if found else "none"
        return await b.post(f"/battles/{d.battle_id}/report/share", data={"csrf_token": csrf})


def link_in(page: httpx.Response) -> str:
    found = re.search(r'<code id="share-link">[^<]*/reports/([A-Za-z0-9_-]+)</code>', page.text)
    assert found, page.text[:2000]
    return found.group(1)


async def test_GEN_the_referee_names_the_winner_a_side_or_a_draw_and_a_wrong_one_is_refused_on_winner(
    platform: Platform, client: httpx.AsyncClient
) -> None:
    d = (await demos(platform))[STARTREK]
    ref = {"Authorization": f"Bearer {d.tokens['Referee']}"}
    url = f"/api/v1/battles/{d.battle_id}/actions"
    async with await browser(client, d.tokens["Referee"]) as b:
        form = (await b.get(f"/battles/{d.battle_id}")).text
    for side in ("Federation", "Shadows", "Romulan Star Empire", "draw"):
        assert f'<option value="{side}">' in form, side  # the end form offers the sides and a draw
    wrong = await client.post(
        url, headers=ref, json={"type": "battle.end", "action_id": "end-1", "payload": {"winner": "Klingons"}}
    )
    assert wrong.status_code == 422 and wrong.json()["detail"]["field"] == "winner", wrong.text
    assert "Federation" in wrong.json()["detail"]["reason"] and "draw" in wrong.json()["detail"]["reason"]
    text = await do(
        platform, d, "Referee", "battle.end", {"reason": "The Romulans withdraw", "winner": "Federation"}
    )
    assert text == [
        "The battle ends: The Romulans withdraw — the Federation side wins. The dice seed is revealed."
    ]
    report = await report_of(platform, d, "Spectator")
    assert (
        report.ending is not None and report.ending.winner == "Federation" and report.ending.by == "referee"
    )
    assert report.ending.reason == "The Romulans withdraw"
    assert report.headline.startswith(
        "Federation vs Shadows vs Romulan Star Empire — the Federation side wins"
    )
    assert report.headline.endswith(": The Romulans withdraw")
    assert report.story[-1].sentences[-1] == text[0]


async def test_an_end_without_a_winner_logs_exactly_as_before_and_says_no_winner(platform: Platform) -> None:
    d = (await demos(platform))[STARTREK]
    assert await do(platform, d, "Referee", "battle.end", {"reason": "time"}) == [
        "The battle ends: time. The dice seed is revealed."
    ]
    report = await report_of(platform, d, "Kirk")
    assert report.ending is not None and report.ending.winner is None and report.ending.reason == "time"
    assert "the battle is over after" in report.headline


def test_GEN_01_GEN_04_the_rules_own_ends_give_a_winner_or_a_draw() -> None:
    ships = {"a": {"side": "Federation"}, "b": {"side": "Federation"}, "c": {"side": "Romulans"}}
    one_side = {
        "kind": "battle_end",
        "data": {"reason": "one_side_left", "fighting": ["a", "b"], "out": ["c"]},
    }
    assert winner(one_side, ships) == "Federation"
    nobody = {"kind": "battle_end", "data": {"reason": "one_side_left", "fighting": [], "out": ["a", "c"]}}
    assert winner(nobody, ships) == "draw"
    assert winner({"kind": "battle_end", "data": {"reason": "turn_limit", "turn": 3}}, ships) == "draw"
    assert winner({"kind": "battle_end", "data": {}}, ships) is None  # an old end, no winner said
    sideless = {"kind": "battle_end", "data": {"reason": "one_side_left", "fighting": ["x"], "out": []}}
    assert winner(sideless, {"x": {"side": ""}}) is None


async def test_the_story_tells_each_turn_in_the_logs_labels(platform: Platform) -> None:
    d = (await demos(platform))[STARTREK]
    await play_startrek(platform, d)
    report = await report_of(platform, d, "Kirk")
    assert [s.label for s in report.story] == [f"Turn {t.number}" for t in report.turns]
    first = report.story[0]
    assert first.steps.startswith("Turn 1 · ") and " to Turn 1 · " in first.steps, first.steps
    told = " ".join(first.sentences)
    assert "Damage taken:" in told and "Damage dealt:" in told
    assert report.headline == "Federation vs Shadows vs Romulan Star Empire — turn 2 under way"


async def test_only_the_referee_makes_or_revokes_a_link_and_a_revoked_link_opens_nothing(
    platform: Platform, client: httpx.AsyncClient
) -> None:
    d = (await demos(platform))[STARTREK]
    refused = await make_link(client, d, "Kirk")
    assert refused.status_code == 303 and "/report/share" not in refused.headers["location"]
    made = await make_link(client, d)
    assert made.status_code == 200 and "shown only now" in made.text
    token = link_in(made)
    page = await client.get(f"/reports/{token}")
    assert page.status_code == 200 and "public report" in page.text and "Back to the battle" not in page.text
    image = await client.get(f"/reports/{token}.svg")
    assert image.status_code == 200 and image.headers["content-type"].startswith("image/svg+xml")
    assert image.text.startswith("<svg") and "Star Trek vs Shadows" in image.text
    assert (await client.get(f"/reports/{token}?since={page_seq(page)}")).status_code == 204
    assert (await client.get("/reports/not-a-token")).status_code == 404
    async with await browser(client, d.tokens["Referee"]) as b:
        report = await b.get(f"/battles/{d.battle_id}/report")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', report.text)
        assert csrf and "1 public link opens this report" in report.text
        gone = await b.post(f"/battles/{d.battle_id}/report/share/revoke", data={"csrf_token": csrf.group(1)})
        assert gone.status_code == 303
        after = await b.get(f"/battles/{d.battle_id}/report")
        assert "1 public link revoked" in after.text and "0 public links open this report" in after.text
    assert (await client.get(f"/reports/{token}")).status_code == 404
    assert (await client.get(f"/reports/{token}.svg")).status_code == 404


def page_seq(page: httpx.Response) -> int:
    found = re.search(r'data-seq="(\d+)"', page.text)
    assert found
    return int(found.group(1))


async def test_LEAK_the_shared_page_and_image_show_no_cloaked_path_no_commanders_value_no_table_talk(
    platform: Platform, client: httpx.AsyncClient
) -> None:
    d = (await demos(platform))[STARTREK]
    await play_startrek(platform, d)  # the cloaked Haakona moves to SECRET_HEX
    power = {"path": "ships.haakona.parts.power.output", "value": SECRET_OUTPUT, "reason": "refit"}
    await do(platform, d, "Referee", "override.set", power)
    await chat.post(platform, d.battle_id, d.ids["Tomalak"], SECRET_TALK, to="referee")
    # the secrets exist, for their owner
    async with platform.db.reader() as session:
        state = (await load_state(session, d.battle_id, platform.rules))[0]
    assert state.ships["haakona"].position.get("hex") == SECRET_HEX
    assert state.ships["haakona"].parts["power"]["output"] == SECRET_OUTPUT

    token = link_in(await make_link(client, d))
    shared = (await client.get(f"/reports/{token}")).text.replace(token, "")
    image = (await client.get(f"/reports/{token}.svg")).text
    public = await report_of(platform, d, "Spectator")
    for where, text in (("page", shared), ("image", image), ("spectator's report", public.model_dump_json())):
        assert SECRET_HEX not in text, where
        # as a number of its own: the page's dice commitments are hex, where "917" turns up by chance
        assert not re.search(rf"\b{SECRET_OUTPUT}\b", text), where
        assert SECRET_TALK not in text and "ambush" not in text, where
    # the shared page is the spectator's report: the same story, sentence for sentence
    for turn in public.story:
        for sentence in turn.sentences:
            assert sentence.split(" (")[0].replace("'", "&#39;")[:40] in shared, sentence


async def test_the_shared_report_of_an_ended_battle_says_the_winner_on_the_page_and_the_image(
    platform: Platform, client: httpx.AsyncClient
) -> None:
    d = (await demos(platform))[STARTREK]
    await play_startrek(platform, d)
    await do(
        platform, d, "Referee", "battle.end", {"reason": "The Romulans withdraw", "winner": "Federation"}
    )
    token = link_in(await make_link(client, d))
    page = (await client.get(f"/reports/{token}")).text
    assert "The Romulans withdraw" in page and "Final report" in page and "hx-trigger" not in page
    image = (await client.get(f"/reports/{token}.svg")).text
    assert "Winner: Federation" in image and "The Romulans withdraw" in image
    async with platform.db.reader() as session:
        battle = await get_battle(session, d.battle_id)
    assert battle.status == "finished"
    assert (
        Report.model_validate(
            (
                await client.get(
                    f"/api/v1/battles/{d.battle_id}/report",
                    headers={"Authorization": f"Bearer {d.tokens['Kirk']}"},
                )
            ).json()
        ).ending
        is not None
    )


async def test_turning_points_now_hold_a_shield_driven_to_0_a_detection_a_removed_ship(
    platform: Platform,
) -> None:
    d = (await demos(platform))[STARTREK]
    await play_startrek(platform, d)  # turn 2, Combat: the Haakona is cloaked
    search = {"detector": "thomas-paine", "target": "haakona", "ew": 6, "range": 5}
    await do(platform, d, "Kirk", "startrek.detect_cloak", search)
    await do(
        platform,
        d,
        "Referee",
        "startrek.rule_detection",
        {"target": "haakona", "attempt": 0, "detected": True},
    )
    emptied = {"target": "thomas-paine", "source": "shadow-cruiser", "amount": 200, "direction": "fore"}
    await do(platform, d, "Kosh", "damage.apply", emptied)
    await do(platform, d, "Referee", "ship.remove", {"ship": "excelsior"})  # destroyed in turn 2
    for who in ("Kirk", "Spectator"):
        report = await report_of(platform, d, who)
        turned = {(tp.kind, tp.event) for tp in report.turning_points if tp.turn == 2}
        assert {
            ("detection", "cloak_detection"),
            ("shield", "shield_absorb"),
            ("removed", "ship_removed"),
        } <= turned
        told = " ".join(report.story[1].sentences)
        assert "detects the cloaked Haakona" in told and "is removed from the battle" in told, told


def test_TR_23_a_crew_hit_that_stood_is_a_crew_loss_a_braced_one_is_a_system_hit() -> None:
    from app.rules import STANDARD
    from app.services.reading.report import turning_kind, turning_points

    kinds = turning_points(STANDARD.game("traveller").parts)
    stood = {"kind": "system_hit", "text": "… Crew — crew Full → Reduced.", "data": {"slot": "crew"}}
    braced = {
        "kind": "system_hit",
        "text": "… Crew — crew hit ignored (Prepare for Impact!).",
        "data": {"slot": "crew"},
    }
    other = {"kind": "system_hit", "text": "… M-Drive.", "data": {"slot": "m_drive"}}
    found = [turning_kind(e, kinds) for e in (stood, braced, other)]
    assert [t.kind if t else None for t in found] == ["crew", "system", "system"]


async def test_GEN_04_an_end_by_the_rules_names_the_side_left_as_winner(client: httpx.AsyncClient) -> None:
    ships = {
        "hawk": (simple_ship("Hawk") | {"side": "Hawks"}, "ann"),
        "crow": (simple_ship("Crow", structure=16) | {"side": "Crows"}, "bob"),
    }
    options = {"end_when_one_side_left": True, "players_advance_clock": "always"}
    table = await set_table(client, ships=ships, options=options)
    hit = {"target": table.ships["crow"], "source": table.ships["hawk"], "amount": 200}
    assert (await act(client, table, "ref", "damage.apply", hit)).status_code == 200
    assert (
        await act(client, table, "ref", "clock.advance", {})
    ).status_code == 200  # the step ends: so does the battle
    got = await client.get(f"/api/v1/battles/{table.battle_id}/report", headers=table.auth("bob"))
    report = Report.model_validate(got.json())
    assert report.finished and report.ending is not None
    assert (report.ending.by, report.ending.winner) == ("rules", "Hawks")
    assert report.ending.reason == "only the Hawks side still fights (Crow out of the battle)"
    assert report.headline == (
        "Hawks vs Crows — the Hawks side wins after 1 turn: only the Hawks side still fights (Crow out of the battle)"
    )
