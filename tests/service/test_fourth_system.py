"""A fourth game system defined here, in the test suite alone: two steps that carry the moments the
Shadow needs (`allocation`, `impulse_end`). A Shadow ship in it takes damage, gets its pain check as
the step ends (SH-03 … SH-06) and its reaction (SH-08), through the service on SQLite and
PostgreSQL — with no file under app/ naming this system."""

from __future__ import annotations

import uuid
from typing import Any

from app.rules import STANDARD, Rules
from app.rules.system import GameSystem, Step
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.store.battles import add_participant, create_battle, load_state
from app.services.write import actions
from app.services.write.actions import Command

SKIRMISH = GameSystem(
    key="skirmish",
    name="Skirmish (a test system)",
    fleets=frozenset({"sfb"}),
    rulesets=("generic", "shadow"),
    steps=(
        Step("muster", "Muster", "M", frozenset({"allocation", "impulse_end"})),
        Step("volley", "Volley", "V", frozenset({"fire", "impulse_end"}), acts="anyone"),
    ),
)
RULES: Rules = STANDARD.with_system(SKIRMISH)


def shadow(level: int) -> dict[str, Any]:
    return {
        "name": "Ker",
        "system": "sfb",
        "parts": {
            "sheet": {"sections": [{"name": "Hull", "armour_max": 1000, "structure_max": 5000}]},
            "pain": {"level": level},
        },
    }


def federation(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "system": "sfb",
        "parts": {"sheet": {"sections": [{"name": "Hull", "structure_max": 500}]}},
    }


async def test_SH_03_SH_06_SH_08_a_shadow_reacts_in_a_system_defined_by_a_test(platform: Platform) -> None:
    platform.rules = RULES
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(session, "Skirmish", "skirmish", dice_mode="physical", rules=RULES)
        kosh = await add_participant(session, battle, "Kosh", "player")
        kirk = await add_participant(session, battle, "Kirk", "player")
    ids = {"ref": ref.participant.id, "kosh": kosh.participant.id, "kirk": kirk.participant.id}

    async def act(
        who: str, kind: str, payload: dict[str, Any], dice: list[int] | None = None
    ) -> actions.Submitted:
        return await actions.submit(
            platform, Command(battle.id, ids[who], kind, payload, uuid.uuid4().hex, dice=dice)
        )

    await act("ref", "ship.add", {"definition": shadow(3), "owner": ids["kosh"]})
    await act("ref", "ship.add", {"definition": federation("Excalibur"), "owner": ids["kirk"]})
    # Driven by readiness: the step ends when both commanders are done.
    await act("kosh", "step.ready", {})
    moved = await act("kirk", "step.ready", {})
    assert moved.events[-1]["text"] == "Turn 1 · Muster ends; Turn 1 · Volley begins."
    await act(
        "kirk", "damage.apply", {"target": "ker", "source": "excalibur", "amount": 250, "direction": "port"}
    )

    # The Volley ends: 250 points → band 250+, rise on 1d6 ≤ 6 (6), amount 1 + 1 = 2 → pain 5;
    # the reaction chance succeeds (6) and pain 5 is ONE: flinch away from the damage.
    await act("kirk", "step.ready", {})
    ended = await act("kosh", "step.ready", {}, dice=[6, 1, 6])
    texts = [e["text"] for e in ended.events]
    assert "Turn 1 · Volley ends; Turn 2 · Muster begins." in texts
    async with platform.db.reader() as session:
        state, _ = await load_state(session, battle.id, RULES)
    track = state.ships["ker"].parts["pain"]
    assert (track["level"], track["reaction"]) == (5, "ONE")
    assert [o["text"] for o in track["obligations"] if not o["expired"]] == [
        "must move 1 hex away from the damage (damage from port), keeping facing"
    ]
    # SH-14's reminder, Kosh's alone, names the step as this system names it.
    assert "Ker may roll pain reduction this Muster (pain 5, reaction ONE)." in texts
    # SH-14 in this system: the reduction is rolled in the step that carries its allocation moment.
    reduce = await act("kosh", "shadow.reduce_pain", {"ship": "ker"}, dice=[2])
    assert reduce.events[0]["text"].startswith("Ker rolls pain reduction: pain 5 → 3")
    rebuilt = await history.rebuild(platform, battle.id)
    async with platform.db.reader() as session:
        state, _ = await load_state(session, battle.id, RULES)
    assert rebuilt.model_dump(mode="json") == state.model_dump(mode="json")


def test_GEN_01_the_test_system_walks_its_own_steps() -> None:
    state = RULES.new_battle("skirmish")
    clocks = []
    for _ in range(3):
        clocks.append((state.clock.turn, state.clock.step))
        state.clock = SKIRMISH.next(state.clock)
    assert clocks == [(1, "muster"), (1, "volley"), (2, "muster")]
    assert "skirmish" not in STANDARD.systems  # the standard rules are untouched
