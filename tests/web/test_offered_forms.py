"""Pages offer what the rules accept (GEN-01): the End step button appears exactly when
submitting `clock.advance` as that participant is accepted, and every form a player's page holds is
an action the REST battle read lists in `may_submit` for that player, for the ship it names. (The
offers are the gate's, per ship: an action may be offered where the page draws no form for it, but
never the other way.)"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.helpers import Elements, act, session_cookie, set_table, ship_def, simple_ship


async def page(client: httpx.AsyncClient, token: str, battle_id: str) -> str:
    client.cookies.set("starboard_session", await session_cookie(client, token))
    r = await client.get(f"/battles/{battle_id}")
    assert r.status_code == 200, r.text
    return r.text


CASES = [
    # (who, players_advance_clock, finished, accepted)
    ("ref", "always", False, True),
    ("ann", True, False, True),  # a commander where players may end steps
    ("ann", False, False, False),  # a commander where only the referee may
    ("ann", "when_done", False, False),  # a commander while another commander is not done
    ("cat", True, False, False),  # a player with no ships
    ("watcher", True, False, False),  # a spectator
    ("ref", True, True, False),  # a finished battle
    ("ann", True, True, False),
]


@pytest.mark.parametrize(("who", "mode", "finished", "accepted"), CASES)
async def test_GEN_01_end_step_button_exactly_when_advancing_is_accepted(
    client: httpx.AsyncClient, who: str, mode: Any, finished: bool, accepted: bool
) -> None:
    table = await set_table(
        client,
        players=("ann", "bob", "cat"),
        ships={"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")},
        options={"players_advance_clock": mode},
    )
    if finished:
        r = await act(client, table, "ref", "battle.end", {"reason": "test"})
        assert r.status_code == 200, r.text
    html = await page(client, table.tokens[who], table.battle_id)
    shown = 'id="advance-clock"' in html
    r = await act(client, table, who, "clock.advance", {})
    assert (r.status_code == 200) is accepted, r.text
    assert shown is accepted


def forms(html: str) -> list[tuple[str, str | None]]:
    """Each form's action type with the ship it names (p.ship / p.flight hidden inputs), in order."""
    found: list[tuple[str, str | None]] = []
    for chunk in html.split("<form ")[1:]:
        body = chunk.split("</form>")[0]
        parsed = Elements()
        parsed.feed("<form " + body)
        if not parsed.actions:
            continue
        ship = None
        for key in ('name="p.ship" value="', 'name="p.flight" value="'):
            if key in body:
                ship = body.split(key)[1].split('"')[0]
        found.append((parsed.actions[0], ship))
    return found


DEMOS = {
    "shadow-sfb": ("sfb", [("shadow-cruiser", "ann"), ("federation-heavy-cruiser", "bob")]),
    "startrek-b5": ("b5wars", [("excelsior", "ann"), ("shadow-cruiser", "bob"), ("new-orleans", "ann")]),
    "traveller": ("traveller", [("tr-arbellatra-cruiser", "ann"), ("tr-dauntless-battlecruiser", "bob")]),
}


@pytest.mark.parametrize("demo", sorted(DEMOS))
async def test_GEN_01_rest_may_submit_lists_what_the_page_offers(
    client: httpx.AsyncClient, demo: str
) -> None:
    system, fleet = DEMOS[demo]
    table = await set_table(
        client, system=system, ships={f"s{i}": (ship_def(slug), seat) for i, (slug, seat) in enumerate(fleet)}
    )
    if system == "traveller":
        r = await act(client, table, "ref", "traveller.initiative", {})
        assert r.status_code == 200, r.text
    for who in ("ann", "bob"):
        read = await client.get(f"/api/v1/battles/{table.battle_id}", headers=table.auth(who))
        offered = {o["type"]: set(o["ships"]) for o in read.json()["may_submit"]}
        html = await page(client, table.tokens[who], table.battle_id)
        on_page = forms(html)
        assert len(on_page) >= 3, on_page
        for action, ship in on_page:
            assert action in offered, (who, action)
            if ship is not None and offered[action]:
                assert ship in offered[action], (who, action, ship)


@pytest.mark.parametrize(("system", "traits"), [("b5wars", True), ("sfb", False)])
async def test_ST_13_ST_16_ST_24_damage_form_lists_the_traits_of_rulesets_that_play(
    client: httpx.AsyncClient, system: str, traits: bool
) -> None:
    """Energy drain, flash, shredder and First One fire are Star Trek rules: the damage form of a
    battle lists them only where the Star Trek ruleset plays (B5 Wars, not SFB)."""
    table = await set_table(
        client,
        system=system,
        ships={"hawk": (simple_ship("Hawk", system), "ann"), "crow": (simple_ship("Crow", system), "bob")},
    )
    html = await page(client, table.tokens["ann"], table.battle_id)
    assert 'id="damage-form"' in html
    for trait in ("energy_drain", "flash", "shredder", "first_one"):
        assert (f'name="p.effects[]" value="{trait}"' in html) is traits


async def test_GEN_02_the_dice_a_steps_end_waits_for_are_asked_on_the_commanders_page_only(
    client: httpx.AsyncClient,
) -> None:
    """Physical dice: when Kirk's Done ends the impulse in which he hit Kosh's Shadow, the pain
    check's dice are asked on Kosh's page (and the referee's), once, in the turn bar, which names
    the die; Kirk's page has no dice box in the turn bar and no Done to give."""
    table = await set_table(
        client,
        system="sfb",
        players=("kirk", "kosh"),
        ships={
            "shadow-cruiser": (ship_def("shadow-cruiser"), "kosh"),
            "hawk": (simple_ship("Hawk", "sfb"), "kirk"),
        },
        dice_mode="physical",
        options={},
    )
    for who in ("kosh", "kirk", "kosh"):  # Energy Allocation → Impulse 1; Kosh done with it
        assert (await act(client, table, who, "step.ready", {})).status_code == 200
    hit = {"target": "shadow-cruiser", "source": table.ships["hawk"], "amount": 30, "direction": "fore"}
    assert (await act(client, table, "kirk", "damage.apply", hit)).status_code == 200
    assert (await act(client, table, "kirk", "step.ready", {})).status_code == 200

    def turn_bar(html: str) -> str:
        """The turn bar's step controls (empty when it has none)."""
        bar = html.split('id="turnbar"', 1)[1]
        return (
            bar.split('<div class="turn-actions">', 1)[1].split("</div>", 1)[0]
            if "turn-actions" in bar
            else ""
        )

    for who, asked in (("kosh", True), ("ref", True), ("kirk", False)):
        html = await page(client, table.tokens[who], table.battle_id)
        bar = turn_bar(html)
        assert ('id="roll-button"' in bar) is asked, who
        assert bar.count('name="dice"') == (1 if asked else 0), who
        assert 'id="ready-button"' not in bar and 'id="unready-button"' not in bar, who
        assert "dice for Shadow Cruiser: 1d6 for pain rise chance, band 25–49" in html, who
