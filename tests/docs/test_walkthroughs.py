"""Every walkthrough's REST script, run as written on the demo battle a newcomer gets: each command
answers as the doc shows (200, or the refusal it prints), the battle is in the step the doc names,
and each sentence the doc promises is in the answer ("each walkthrough's
promised outcome is what a newcomer actually sees with the demo's dice"). Where an outcome hangs
on a roll the doc either promises only what every roll gives, or names the entered dice."""

from __future__ import annotations

import httpx
import pytest

from app.demo import create_demos
from tests.docs.walkthrough import Step, play, script
from tests.helpers import act, set_table, ship_def
from tests.service.test_shadow_service import SEED_HITS


async def demo(c: httpx.AsyncClient, title: str) -> tuple[str, dict[str, str]]:
    """A fresh set of demo battles; the id of the one named `title` and its tokens by doc variable
    (KIRK for Kirk's seat, REF for the referee's)."""
    made = await create_demos(c.app.state.platform, "http://testserver")  # type: ignore[attr-defined]
    battle = next(m for m in made if title in m["battle"])
    tokens = {
        ("REF" if seat == "Referee" else seat.upper()): link.split("#", 1)[1]
        for seat, link in battle["links"].items()
    }
    return battle["id"], tokens


async def test_shadow_walkthrough_rest_script(client: httpx.AsyncClient) -> None:
    battle, tokens = await demo(client, "Shadow cruiser")
    await play(client, "docs/shadow.md", battle, tokens, script("docs/shadow.md", slice(0, 1)))


async def test_SH_03_SH_17_shadow_walkthrough_refusals_and_physical_dice(client: httpx.AsyncClient) -> None:
    """The seed's 217-point impulse with the dice the doc names (SH-03 … SH-06), and the boarding
    refusal (SH-17), in a physical-dice copy of the demo."""
    table = await set_table(
        client,
        system="sfb",
        players=("kirk", "kosh"),
        ships={
            "shadow-cruiser": (ship_def("shadow-cruiser"), "kosh"),
            "federation-heavy-cruiser": (ship_def("federation-heavy-cruiser"), "kirk"),
        },
        dice_mode="physical",
        options={},
    )
    assert set(table.ships.values()) == {"shadow-cruiser", "federation-heavy-cruiser"}
    for who in ("kosh", "kirk"):
        assert (await act(client, table, who, "step.ready", {})).status_code == 200
    for hit in SEED_HITS:
        r = await act(
            client,
            table,
            "kirk",
            "damage.apply",
            {"target": "shadow-cruiser", "source": "federation-heavy-cruiser", **hit},
        )
        assert r.status_code == 200, r.text
    assert (await act(client, table, "kosh", "step.ready", {})).status_code == 200
    tokens = {who.upper(): token for who, token in table.tokens.items()}
    await play(client, "docs/shadow.md", table.battle_id, tokens, script("docs/shadow.md", slice(1, 3)))


async def test_startrek_walkthrough_rest_script(client: httpx.AsyncClient) -> None:
    battle, tokens = await demo(client, "Star Trek vs Shadows")
    await play(client, "docs/startrek.md", battle, tokens)


async def test_the_script_runner_fails_a_broken_promise(client: httpx.AsyncClient) -> None:
    """The runner itself can fail: a sentence the answer does not carry, or the wrong step."""
    battle, tokens = await demo(client, "Star Trek vs Shadows")
    advance = {"type": "clock.advance", "payload": {}}
    with pytest.raises(AssertionError, match="promised"):
        await play(client, "test", battle, tokens, [Step(1, "REF", advance, says=["Excelsior explodes"])])
    with pytest.raises(AssertionError, match="the doc says the battle is now at"):
        await play(client, "test", battle, tokens, [Step(2, "REF", advance, step_after="Ship Power")])


async def test_traveller_walkthrough_rest_script(client: httpx.AsyncClient) -> None:
    battle, tokens = await demo(client, "Traveller")
    await play(client, "docs/traveller.md", battle, tokens)
