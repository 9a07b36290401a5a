"""How a battle ends by itself, through the service on SQLite and PostgreSQL: only when
the referee chose so at its start — as a step ends with one side left fighting (GEN-04), or when the
turn limit's last turn ends (GEN-01). Without either option the battle goes on until the referee
ends it, as before. These battles roll physical dice (the players enter them): their end reveals no
seed, as there is none (GEN-02); a battle whose server rolls the dice says its seed is revealed."""

from __future__ import annotations

import pytest

from app.models import Battle
from app.services.errors import Invalid
from app.services.platform import Platform
from app.services.store.battles import create_battle
from tests.helpers import ship_def, simple_ship
from tests.service.test_readiness import Table, table

KILL = {"target": "crow", "source": "hawk", "amount": 40, "direction": "fore"}  # 4 + 20 + 16 boxes
END_ONE_SIDE = {"end_when_one_side_left": True}


def duel(**crow: int) -> dict[str, tuple[dict, str]]:
    return {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow", **crow), "bob")}


async def finished(t: Table) -> bool:
    return (await t.state()).finished


async def test_GEN_04_the_battle_ends_as_the_step_ends_with_one_side_left(platform: Platform) -> None:
    t = await table(platform, "b5wars", duel(structure=16), options=END_ONE_SIDE)
    texts = await t.act("ann", "damage.apply", KILL)
    assert texts[-1] == "Crow is destroyed (its Primary structure is gone)."
    # Destroyed, but the step has not ended: the hit may still be undone, and nothing is revealed.
    assert not await finished(t)
    assert await t.act("ann", "step.ready") == [
        "Done with Ship Power.",
        "Everyone is done with Ship Power.",
        "Turn 1 · Ship Power ends.",
        "The battle ends: only Hawk still fights (Crow out of the battle).",
    ]
    state = await t.state()
    assert state.finished and state.clock.step == "ship_power"
    async with platform.db.reader() as session:
        assert (await session.get(Battle, t.id)).status == "finished"  # type: ignore[union-attr]
    with pytest.raises(Invalid, match="the battle has ended"):
        await t.act("ann", "step.ready")


async def test_GEN_04_a_hit_undone_before_the_step_ends_ends_nothing(platform: Platform) -> None:
    t = await table(platform, "b5wars", duel(structure=16), options=END_ONE_SIDE)
    await t.act("ann", "damage.apply", KILL)
    await t.act("ref", "battle.undo", {"reason": "wrong target"})
    await t.act("ann", "step.ready")
    texts = await t.act("bob", "step.ready")
    assert texts[-1] == "Turn 1 · Ship Power ends; Turn 1 · Movement begins."
    assert not await finished(t)


async def test_GEN_04_both_sides_down_in_one_step_is_a_draw(platform: Platform) -> None:
    t = await table(platform, "b5wars", duel(structure=16), options=END_ONE_SIDE)
    await t.act("ann", "damage.apply", KILL)
    # Fire in the same step still counts: the referee enters Crow's last shot, which kills Hawk.
    await t.act("ref", "damage.apply", {"target": "hawk", "amount": 64, "direction": "fore"})
    assert not await finished(t)
    texts = await t.act("ref", "clock.advance")  # nobody is left for the step to wait on
    assert texts[-2:] == ["Turn 1 · Ship Power ends.", "The battle ends: no ship is left fighting: a draw."]


async def test_GEN_04_sides_count_by_their_name(platform: Platform) -> None:
    ships = {
        "kosh": (ship_def("shadow-cruiser"), "ann"),
        "fed": (ship_def("federation-heavy-cruiser"), "bob"),
    }
    t = await table(platform, "sfb", ships, options=END_ONE_SIDE)
    fed_down = {"target": "federation-heavy-cruiser", "source": "shadow-cruiser", "amount": 44}
    await t.act("ann", "damage.apply", {**fed_down, "direction": "fore"})
    texts = await t.act("ann", "step.ready")  # Bob has no ship left fighting: the step waits on Ann
    assert texts[-1] == (
        "The battle ends: only the Shadows side still fights (Federation Heavy Cruiser out of the battle)."
    )


async def test_GEN_04_without_the_option_the_battle_goes_on_until_the_referee_ends_it(
    platform: Platform,
) -> None:
    t = await table(platform, "b5wars", duel(structure=16))
    await t.act("ann", "damage.apply", KILL)
    assert (await t.act("ann", "step.ready"))[-1] == "Turn 1 · Ship Power ends; Turn 1 · Movement begins."
    assert not await finished(t)
    assert await t.act("ref", "battle.end", {"reason": "Crow is gone"}) == ["The battle ends: Crow is gone."]


async def test_GEN_01_the_turn_limit_ends_the_battle_when_its_last_turn_ends(platform: Platform) -> None:
    t = await table(platform, "b5wars", duel(), options={"turn_limit": 1})
    for step in ("Ship Power", "Movement", "Combat"):
        await t.act("ann", "step.ready")
        assert (await t.act("bob", "step.ready"))[-1].startswith(f"Turn 1 · {step} ends; ")
    await t.act("ann", "step.ready")
    assert (await t.act("bob", "step.ready"))[-2:] == [
        "Turn 1 · Adjust Ship Systems ends.",
        "The battle ends: turn 1 was the last (the turn limit).",
    ]
    state = await t.state()
    assert state.finished and state.clock.turn == 1


async def test_GEN_02_only_a_battle_the_server_rolled_for_says_its_seed_is_revealed(
    platform: Platform,
) -> None:
    for dice_mode, revealed in (("seeded", " The dice seed is revealed."), ("physical", "")):
        t = await table(platform, "b5wars", duel(), options={"turn_limit": 1}, dice_mode=dice_mode)
        for _ in range(4):  # Ship Power, Movement, Combat, Adjust Ship Systems: turn 1's last step
            texts = await t.act("ref", "clock.advance")
        assert texts[-1] == f"The battle ends: turn 1 was the last (the turn limit).{revealed}", dice_mode
        t = await table(platform, "b5wars", duel(), dice_mode=dice_mode)
        assert await t.act("ref", "battle.end", {"reason": "Crow is gone", "winner": "draw"}) == [
            f"The battle ends: Crow is gone — a draw.{revealed}"
        ], dice_mode


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"turn_limit": 0}, "options.turn_limit"),
        ({"turn_limit": "3"}, "options.turn_limit"),
        ({"turn_limit": True}, "options.turn_limit"),
        ({"end_when_one_side_left": "yes"}, "options.end_when_one_side_left"),
    ],
)
async def test_GEN_01_GEN_04_ending_options_a_battle_cannot_play_by_are_refused(
    platform: Platform, options: dict, field: str
) -> None:
    async with platform.db.transaction() as session:
        with pytest.raises(Invalid) as refused:
            await create_battle(session, "Bad ending", "b5wars", options=options)
    assert refused.value.field == field
