"""The Shadow living ship through the service door (`app.services.write.actions.submit`) on SQLite and
PostgreSQL: physical-dice battles, so the dice are entered with the action and every outcome is
exact (GEN-02). Sample ships from the library: the Shadow Cruiser (Kosh), the Federation Heavy
Cruiser and a small escort (Kirk), and in B5 Wars the Excelsior with its shields.

The sample Shadow Cruiser survives 217 points only when they are spread over its arcs (one arc
holds 24 + 30, the Core 40 and the Excess Damage 20), so the seed's 217-point example is entered
as five hits in one impulse — which is also SH-03's "total of that impulse's damage from all
sources"."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from app.models import Participant
from app.rules.core import Roll
from app.rules.state import BattleState
from app.services.errors import Forbidden, Invalid, RollNeeded
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.reading.views import viewer_of, visible_log
from app.services.store.battles import add_participant, create_battle, get_battle, load_state
from app.services.write import actions
from app.services.write.actions import Command
from tests.helpers import ship_def, simple_ship

SHADOW = "shadow-cruiser"
FED = "federation-heavy-cruiser"
HAWK = "hawk"
EXCELSIOR = "excelsior"

# The seed's 217 points, spread so that no section of the sample cruiser is destroyed:
# Fore 24 armour + 29 structure, Aft 18 + 29, Port 18 + 23, Starboard 18 + 23, Core 35 structure.
SEED_HITS: list[dict[str, Any]] = [
    {"amount": 53, "direction": "fore", "weapon": "Photon Torpedo"},
    {"amount": 47, "direction": "aft", "weapon": "Photon Torpedo"},
    {"amount": 41, "direction": "port", "weapon": "Phaser-1"},
    {"amount": 41, "direction": "starboard", "weapon": "Phaser-1"},
    {"amount": 35, "section": "Core", "weapon": "Phaser-1"},
]


def aid() -> str:
    return uuid.uuid4().hex


class Battle:
    """A physical-dice battle set up through the service: referee, Kirk, Kosh and a spectator."""

    def __init__(self, platform: Platform, battle_id: str, ids: dict[str, str]) -> None:
        self.platform = platform
        self.id = battle_id
        self.ids = ids

    async def act(
        self, who: str, type_: str, payload: dict[str, Any], dice: list[int] | None = None
    ) -> actions.Submitted:
        return await actions.submit(
            self.platform, Command(self.id, self.ids[who], type_, payload, aid(), dice=dice)
        )

    async def state(self) -> BattleState:
        async with self.platform.db.reader() as session:
            state, _ = await load_state(session, self.id)
        return state

    async def pain(self) -> dict[str, Any]:
        return (await self.state()).ships[SHADOW].parts["pain"]

    async def log_texts(self, who: str) -> list[str]:
        """Every event sentence of the log as `who` may read it (the per-viewer read every door uses)."""
        async with self.platform.db.reader() as session:
            battle = await get_battle(session, self.id)
            state, _ = await load_state(session, self.id)
            participant = await session.get(Participant, self.ids[who])
            entries = await visible_log(session, battle, viewer_of(participant, state))
        return [e["text"] for entry in entries for e in entry.events]

    async def seq(self) -> int:
        async with self.platform.db.reader() as session:
            _, seq = await load_state(session, self.id)
        return seq

    async def assert_rebuilds(self) -> None:
        """The snapshot is a cache of the log: replaying it, entered dice included, gives it exactly."""
        rebuilt = await history.rebuild(self.platform, self.id)
        assert rebuilt.model_dump(mode="json") == (await self.state()).model_dump(mode="json")


async def shadow_battle(
    platform: Platform, system: str = "sfb", pain: int = 0, fleet: tuple[str, ...] = (FED, HAWK)
) -> Battle:
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(
            session,
            "Shadow service test",
            system,
            dice_mode="physical",
            options={"players_advance_clock": "always"},
        )
        kirk = await add_participant(session, battle, "Kirk", "player")
        kosh = await add_participant(session, battle, "Kosh", "player")
        watcher = await add_participant(session, battle, "Spectator", "spectator")
    ids = {
        "ref": ref.participant.id,
        "kirk": kirk.participant.id,
        "kosh": kosh.participant.id,
        "watcher": watcher.participant.id,
    }
    b = Battle(platform, battle.id, ids)
    shadow = ship_def("shadow-cruiser")
    shadow["parts"]["pain"]["level"] = pain  # SH-01: the scenario may start the track above 0
    await b.act("ref", "ship.add", {"definition": shadow, "owner": ids["kosh"]})
    for slug in fleet:
        definition = simple_ship("Hawk", system) if slug == HAWK else ship_def(slug)
        await b.act("ref", "ship.add", {"definition": definition, "owner": ids["kirk"]})
    return b


def sentences(events: list[dict[str, Any]]) -> list[str]:
    return [Roll.model_validate(r).sentence() for e in events for r in e["rolls"]]


def of_kind(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["kind"] == kind]


async def seed_example_impulse(b: Battle) -> None:
    """Turn 1 impulse 1 with the seed's 217 points from the Federation ship entered by Kirk."""
    await b.act("kirk", "clock.advance", {"expect_step": "energy_allocation"})  # no pain yet: no dice
    for hit in SEED_HITS:
        await b.act("kirk", "damage.apply", {"target": SHADOW, "source": FED, **hit})


async def test_SH_05_SH_06_seed_worked_example_with_entered_dice(platform: Platform) -> None:
    """SH-03…SH-06 seed example: pain 0, 217 damage → band 200–249; rise roll 3 (≤ 5) rises, amount
    roll 3 → pain 3; the reaction roll succeeds but pain 3 reads ZERO on the chart. Each missing die
    is asked for by purpose and index, and asking changes nothing (GEN-02)."""
    b = await shadow_battle(platform)
    await seed_example_impulse(b)
    pain = await b.pain()
    assert (pain["damage_total"], pain["damage_by_source"]) == (217, {FED: 217})
    assert pain["damage_by_direction"] == {"fore": 53, "aft": 47, "port": 41, "starboard": 41, "?": 35}
    seq = await b.seq()
    asked = []
    for entered in ([], [3], [3, 3]):
        with pytest.raises(RollNeeded) as need:
            await b.act("kosh", "clock.advance", {}, dice=entered)
        asked.append(need.value.extra["needed"])
    assert asked == [
        {"sides": 6, "purpose": "pain rise chance, band 200–249", "ship": SHADOW, "index": 0},
        {"sides": 6, "purpose": "rise amount", "ship": SHADOW, "index": 1},
        {"sides": 6, "purpose": "reaction chance, band 200–249", "ship": SHADOW, "index": 2},
    ]
    assert await b.seq() == seq and (await b.pain())["damage_total"] == 217

    result = await b.act("kosh", "clock.advance", {}, dice=[3, 3, 2])
    assert sentences(result.events) == [
        "pain rise chance, band 200–249: 1d6 = 3, needs ≤ 5 → rises",
        "rise amount: 1d6 = 3 → pain 3",
        "reaction chance, band 200–249: 1d6 = 2, needs ≤ 5 → pain 3 reads ZERO: no reaction",
    ]
    assert of_kind(result.events, "pain_check")[0]["text"] == (
        "Shadow Cruiser took 217 damage to armour and internals in turn 1 impulse 1 "
        "(most from Federation Heavy Cruiser, 217): pain rises 0 → 3."
    )
    assert of_kind(result.events, "pain_reaction")[0]["text"] == (
        "Shadow Cruiser grins and bears it: pain 3 reads ZERO, which is no reaction (nothing changes, SH-06)."
    )
    pain = await b.pain()
    assert (pain["level"], pain["reaction"], pain["obligations"], pain["damage_total"]) == (3, "ZERO", [], 0)
    assert pain["last_check"] == {"when": {"turn": 1, "impulse": 1}, "total": 217, "most_damage": FED}
    state = await b.state()
    assert (state.clock.step, state.clock.impulse, state.ships[SHADOW].destroyed) == ("impulse", 2, False)
    # The rolls are public: the Federation player and the spectator read the same sentences.
    for who in ("kirk", "watcher"):
        assert (
            "Shadow Cruiser took 217 damage to armour and internals in turn 1 impulse 1 "
            "(most from Federation Heavy Cruiser, 217): pain rises 0 → 3."
        ) in await b.log_texts(who)
    await b.assert_rebuilds()


async def test_SH_04_no_rise_means_no_reaction_roll(platform: Platform) -> None:
    """SH-04, SH-06: a failed rise roll (6 > 5) ends the check: one die, pain and reaction unchanged."""
    b = await shadow_battle(platform)
    await seed_example_impulse(b)
    result = await b.act("kosh", "clock.advance", {}, dice=[6])
    assert sentences(result.events) == ["pain rise chance, band 200–249: 1d6 = 6, needs ≤ 5 → no rise"]
    assert of_kind(result.events, "pain_reaction") == []
    pain = await b.pain()
    assert (pain["level"], pain["reaction"], pain["damage_total"]) == (0, "ZERO", 0)


async def angered(b: Battle) -> actions.Submitted:
    """Pain 5 at start; the escort hits for 30, the Federation cruiser for 60 (band 50–99: chance 2,
    amount 1d6 − 3): rise 2, amount 6 → pain 8, reaction 1 → TWO."""
    await b.act("kirk", "clock.advance", {})
    await b.act("kirk", "damage.apply", {"target": SHADOW, "source": HAWK, "amount": 30, "direction": "port"})
    await b.act("kirk", "damage.apply", {"target": SHADOW, "source": FED, "amount": 60, "direction": "fore"})
    return await b.act("kosh", "clock.advance", {}, dice=[2, 6, 1])


async def test_SH_09_reaction_TWO_targets_the_most_damaging_ship_for_everyone(platform: Platform) -> None:
    """SH-06, SH-09: the reaction is read at the new pain (8 → TWO) and obliges the Shadow to target
    the single largest source of the impulse next turn; the obligation is in the state and the
    sentence is in every player's log, the referee's and the spectator's."""
    b = await shadow_battle(platform, pain=5)
    result = await angered(b)
    assert sentences(result.events) == [
        "pain rise chance, band 50–99: 1d6 = 2, needs ≤ 2 → rises",
        "rise amount: 1d6 − 3 = 3 → pain 8",
        "reaction chance, band 50–99: 1d6 = 1, needs ≤ 2 → reacts at pain 8: TWO",
    ]
    text = (
        "Shadow Cruiser is angered — reaction TWO: must target Federation Heavy Cruiser next turn (turn 2)."
    )
    assert of_kind(result.events, "pain_reaction")[0]["text"] == text
    assert of_kind(result.events, "pain_reaction")[0]["data"] == {"reaction": "TWO", "most_damage": FED}
    pain = await b.pain()
    assert (pain["level"], pain["reaction"], pain["most_damage"], pain["most_damage_amount"]) == (
        8,
        "TWO",
        FED,
        60,
    )
    assert pain["reaction_since"] == {"turn": 1, "impulse": 1}
    [duty] = pain["obligations"]
    assert {k: duty[k] for k in ("id", "kind", "level", "target", "until", "until_turn", "expired")} == {
        "id": 1,
        "kind": "target",
        "level": "TWO",
        "target": FED,
        "until": "end_of_turn",
        "until_turn": 2,
        "expired": False,
    }
    for who in ("kirk", "kosh", "ref", "watcher"):
        assert text in await b.log_texts(who), who
    # The obligation is a restriction, not a deed: it cannot be ticked off.
    with pytest.raises(Invalid, match="restriction that ends by itself"):
        await b.act("kosh", "shadow.obligation_done", {"ship": SHADOW, "obligation": 1})
    await b.assert_rebuilds()


async def test_SH_08_flinch_obliges_a_move_away_shown_to_all_and_marked_done(platform: Platform) -> None:
    """SH-06, SH-08: pain 4 + a 53-point fore hit (band 50–99): rise 1, amount 1d6 − 3 = 1 → pain 5,
    reaction 2 → ONE: the Shadow must move 1 hex away from the fore, keeping facing. Every seat reads
    the obligation; its commander marks it done, in the open; a stranger may not."""
    b = await shadow_battle(platform, pain=4)
    await b.act("kirk", "clock.advance", {})
    await b.act("kirk", "damage.apply", {"target": SHADOW, "source": FED, "amount": 53, "direction": "fore"})
    result = await b.act("kosh", "clock.advance", {}, dice=[1, 4, 2])
    text = "Shadow Cruiser flinches — reaction ONE: must move 1 hex away from the damage (damage from fore), keeping facing."
    assert of_kind(result.events, "pain_reaction")[0]["text"] == text
    for who in ("kirk", "kosh", "ref", "watcher"):
        assert text in await b.log_texts(who), who
    [duty] = (await b.pain())["obligations"]
    assert (duty["id"], duty["kind"], duty["level"], duty["direction"], duty["until"]) == (
        1,
        "flinch",
        "ONE",
        "fore",
        "next_movement",
    )
    with pytest.raises(Forbidden, match="you do not command that ship"):
        await b.act("kirk", "shadow.obligation_done", {"ship": SHADOW, "obligation": 1})
    result = await b.act("kosh", "shadow.obligation_done", {"ship": SHADOW, "obligation": 1})
    done = (
        "Shadow Cruiser has done what it must: must move 1 hex away from the damage (damage from fore), "
        "keeping facing."
    )
    assert [e["text"] for e in result.events] == [done]
    assert done in await b.log_texts("watcher")
    [duty] = (await b.pain())["obligations"]
    assert (duty["expired"], duty["ended"]) == (True, "done (turn 1 impulse 2)")
    await b.assert_rebuilds()


async def test_SH_09_SH_10_referee_rules_which_ship_the_shadow_must_target(platform: Platform) -> None:
    """SH-09 decision: the referee may override the most-damaging ship. The obligation's target, its
    words on the sheet and the recorded ship change together, with the reason logged for all; SH-10:
    when the new target is destroyed the obligation ends at once."""
    b = await shadow_battle(platform, pain=5)
    await angered(b)
    with pytest.raises(Forbidden, match="only the referee"):
        await b.act("kosh", "shadow.set_target", {"ship": SHADOW, "target": HAWK, "reason": "it hurt more"})
    with pytest.raises(Invalid) as refused:
        await b.act("ref", "shadow.set_target", {"ship": SHADOW, "target": SHADOW, "reason": "confused"})
    assert (refused.value.message, refused.value.field) == (
        "a ship cannot be obliged to target itself",
        "target",
    )
    result = await b.act(
        "ref", "shadow.set_target", {"ship": SHADOW, "target": HAWK, "reason": "the Hawk's hit came first"}
    )
    line = (
        "⚠ OVERRIDE (Referee): Shadow Cruiser must now target Hawk instead of Federation Heavy Cruiser"
        " — “the Hawk's hit came first”"
    )
    assert [e["text"] for e in result.events] == [line]
    for who in ("kirk", "kosh", "watcher"):
        assert line in await b.log_texts(who), who
    pain = await b.pain()
    [duty] = pain["obligations"]
    assert (duty["target"], duty["text"], duty["until_turn"], duty["expired"]) == (
        HAWK,
        "must target Hawk next turn (turn 2)",
        2,
        False,
    )
    assert (pain["most_damage"], pain["most_damage_amount"], pain["reaction"]) == (HAWK, 0, "TWO")
    # SH-10: the Shadow's lightning cannons destroy the Hawk (40 structure in its primary section).
    result = await b.act("kosh", "damage.apply", {"target": HAWK, "source": SHADOW, "amount": 40})
    assert "Hawk is destroyed (its Primary structure is gone)." in [e["text"] for e in result.events]
    [duty] = (await b.pain())["obligations"]
    assert (duty["expired"], duty["ended"]) == (True, "Hawk is destroyed")
    with pytest.raises(Invalid, match="has no targeting obligation to change"):
        await b.act("ref", "shadow.set_target", {"ship": SHADOW, "target": FED, "reason": "again"})
    await b.assert_rebuilds()


async def to_next_energy_allocation(b: Battle) -> list[dict[str, Any]]:
    """Advance (no damage pending, so no dice) until Energy Allocation of the next turn."""
    events: list[dict[str, Any]] = []
    for _ in range(40):
        result = await b.act("ref", "clock.advance", {})
        events.extend(result.events)
        if (await b.state()).clock.step == "energy_allocation":
            return events
    raise AssertionError("never reached Energy Allocation")


async def test_SH_14_SH_15_pain_reduction_at_energy_allocation_is_public(platform: Platform) -> None:
    """SH-14: at Energy Allocation the Shadow's commander rolls 1d6 off the pain, once a turn, in the
    open; SH-15: the reaction falls to the chart level of the new pain one step at a time (TWO → ONE
    → ZERO lifts the targeting). The reminder is the commander's; the roll is everyone's."""
    b = await shadow_battle(platform, pain=5)
    await angered(b)
    with pytest.raises(Invalid) as refused:
        await b.act("kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[4])
    assert (refused.value.message, refused.value.field) == (
        "pain reduction is rolled during Energy Allocation (SH-14)",
        "ship",
    )
    events = await to_next_energy_allocation(b)
    reminder = "Shadow Cruiser may roll pain reduction this Energy Allocation (pain 8, reaction TWO)."
    assert [e["text"] for e in of_kind(events, "pain_reminder")] == [reminder]
    assert of_kind(events, "pain_reminder")[0]["visibility"] == "owner"
    assert reminder in await b.log_texts("kosh") and reminder in await b.log_texts("ref")
    assert reminder not in await b.log_texts("kirk") and reminder not in await b.log_texts("watcher")
    state = await b.state()
    assert (state.clock.turn, state.clock.step) == (2, "energy_allocation")
    assert [o["expired"] for o in state.ships[SHADOW].parts["pain"]["obligations"]] == [False]

    with pytest.raises(Forbidden, match="you do not command that ship"):
        await b.act("kirk", "shadow.reduce_pain", {"ship": SHADOW}, dice=[4])
    result = await b.act("kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[4])
    text = (
        "Shadow Cruiser rolls pain reduction: pain 8 → 4; reaction TWO → ZERO "
        "(TWO → ONE: no restrictions; ONE → ZERO: no restrictions)."
    )
    assert [e["text"] for e in result.events] == [text]
    assert result.events[0]["visibility"] == "public"
    assert sentences(result.events) == ["pain reduction: 1d6 = 4 → pain 8 → 4"]
    for who in ("kirk", "watcher", "ref", "kosh"):
        assert text in await b.log_texts(who), who
    pain = await b.pain()
    assert (pain["level"], pain["reaction"], pain["reduced_turn"]) == (4, "ZERO", 2)
    [duty] = pain["obligations"]
    assert (duty["expired"], duty["ended"]) == (True, "reaction fell from TWO to ONE")
    with pytest.raises(Invalid, match="already rolled pain reduction this turn"):
        await b.act("kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[1])
    await b.assert_rebuilds()


async def test_SH_01_referee_sets_pain_and_reaction_with_a_logged_reason(platform: Platform) -> None:
    """SH-01, ux §6: the referee sets any pain value or reaction with a reason; the log says so to
    everyone; values off the track are refused; players cannot override."""
    b = await shadow_battle(platform, pain=9)
    result = await b.act(
        "ref",
        "override.set",
        {"path": f"ships.{SHADOW}.parts.pain.level", "value": 7, "reason": "misapplied reduction"},
    )
    text = "⚠ OVERRIDE (Referee): ships.shadow-cruiser.parts.pain.level 9→7 — “misapplied reduction”"
    assert [e["text"] for e in result.events] == [text]
    result = await b.act(
        "ref",
        "override.set",
        {"path": f"ships.{SHADOW}.parts.pain.reaction", "value": "ONE", "reason": "table ruling"},
    )
    assert result.events[0]["text"] == (
        '⚠ OVERRIDE (Referee): ships.shadow-cruiser.parts.pain.reaction "ZERO"→"ONE" — “table ruling”'
    )
    assert result.events[0]["data"] == {
        "path": "ships.shadow-cruiser.parts.pain.reaction",
        "old": "ZERO",
        "new": "ONE",
        "reason": "table ruling",
    }
    for who in ("kirk", "kosh", "watcher"):
        assert text in await b.log_texts(who), who
    pain = await b.pain()
    assert (pain["level"], pain["reaction"]) == (7, "ONE")
    seq = await b.seq()
    with pytest.raises(Invalid, match="that value is not allowed"):
        await b.act(
            "ref",
            "override.set",
            {"path": f"ships.{SHADOW}.parts.pain.level", "value": 17, "reason": "x" * 3},
        )
    with pytest.raises(Forbidden, match="only the referee"):
        await b.act(
            "kosh", "override.set", {"path": f"ships.{SHADOW}.parts.pain.level", "value": 0, "reason": "ouch"}
        )
    with pytest.raises(Invalid):
        await b.act(
            "ref", "override.set", {"path": f"ships.{SHADOW}.parts.pain.level", "value": 3, "reason": ""}
        )
    assert await b.seq() == seq
    await b.assert_rebuilds()


async def test_SH_03_referee_undoes_a_mistaken_hit_before_the_impulse_ends(platform: Platform) -> None:
    """SH-03: the pain check reads the impulse's accumulated damage, so undoing a mistaken entry
    before the impulse ends must leave the accumulators exactly as before it; the check then uses
    the corrected total (40 → band 25–49, not 100 → 100–149)."""
    b = await shadow_battle(platform)
    await b.act("kirk", "clock.advance", {})
    await b.act("kirk", "damage.apply", {"target": SHADOW, "source": HAWK, "amount": 40, "direction": "port"})
    before = await b.state()
    await b.act("kirk", "damage.apply", {"target": SHADOW, "source": FED, "amount": 60, "direction": "fore"})
    assert (await b.pain())["damage_total"] == 100
    with pytest.raises(Forbidden, match="only the referee"):
        await b.act("kirk", "battle.undo", {"reason": "oops"})
    undo = await b.act("ref", "battle.undo", {"reason": "Photon hit entered twice"})
    assert [e["text"] for e in undo.events] == [
        "⚠ UNDO (Referee): action 6 (damage.apply) is undone — “Photon hit entered twice”"
    ]
    after = await b.state()
    assert after.ships[SHADOW].parts["pain"] == before.ships[SHADOW].parts["pain"]
    assert after.ships[SHADOW].parts["pain"]["damage_by_source"] == {HAWK: 40}
    assert after.ships[SHADOW].parts["sheet"] == before.ships[SHADOW].parts["sheet"]
    assert "⚠ UNDO (Referee): action 6 (damage.apply) is undone — “Photon hit entered twice”" in (
        await b.log_texts("watcher")
    )
    result = await b.act("kosh", "clock.advance", {}, dice=[1, 1, 1])
    assert sentences(result.events) == [
        "pain rise chance, band 25–49: 1d6 = 1, needs ≤ 1 → rises",
        "rise amount: 1d6 − 4 = -3 → at least 1 → pain 1",
        "reaction chance, band 25–49: 1d6 = 1, needs ≤ 1 → pain 1 reads ZERO: no reaction",
    ]
    assert of_kind(result.events, "pain_check")[0]["text"] == (
        "Shadow Cruiser took 40 damage to armour and internals in turn 1 impulse 1 (most from Hawk, 40): "
        "pain rises 0 → 1."
    )
    await b.assert_rebuilds()


async def test_SH_17_boarding_and_raids_against_the_shadow_are_refused(platform: Platform) -> None:
    """SH-17: neither a boarding action nor a hit-and-run raid may target a living ship; nothing is
    logged. The Shadow may still raid others (the refusal is about the target)."""
    b = await shadow_battle(platform)
    seq = await b.seq()
    for kind, words in (("boarding", "a boarding action"), ("hit_and_run", "a hit-and-run raid")):
        with pytest.raises(Invalid) as refused:
            await b.act(
                "kirk",
                "boarding.declare",
                {"kind": kind, "attacker": FED, "target": SHADOW, "outcome": "marines take the bridge"},
            )
        assert (refused.value.message, refused.value.field, refused.value.status) == (
            f"Shadow Cruiser is a Shadow living ship: {words} against it is not possible (SH-17)",
            "target",
            422,
        )
    with pytest.raises(Invalid, match="SH-17"):  # not even the referee
        await b.act(
            "ref",
            "boarding.declare",
            {"kind": "boarding", "attacker": HAWK, "target": SHADOW, "outcome": "x"},
        )
    assert await b.seq() == seq
    result = await b.act(
        "kosh",
        "boarding.declare",
        {"kind": "hit_and_run", "attacker": SHADOW, "target": FED, "outcome": "the tractor is destroyed"},
    )
    assert result.events[0]["text"] == (
        "Shadow Cruiser makes a hit-and-run raid against Federation Heavy Cruiser: the tractor is destroyed"
    )


async def test_SH_03_SH_14_b5wars_combat_step_is_one_impulse_against_the_excelsior(
    platform: Platform,
) -> None:
    """SH-03 in a B5 Wars battle: everything the Excelsior lands during the combat step adds up, and
    the pain check runs once, when the combat step ends; SH-14: the Ship Power segment stands for
    Energy Allocation. The Shadow's own fire on the shielded Excelsior hurts only the Excelsior."""
    b = await shadow_battle(platform, system="b5wars", fleet=(EXCELSIOR,))
    state = await b.state()
    assert state.clock.step == "ship_power"
    await b.act("kirk", "clock.advance", {"expect_step": "ship_power"})
    await b.act("kirk", "clock.advance", {"expect_step": "movement"})
    await b.act(
        "kirk",
        "damage.apply",
        {
            "target": SHADOW,
            "source": EXCELSIOR,
            "amount": 30,
            "direction": "fore",
            "weapon": "Fore Phaser Array",
        },
    )
    await b.act(
        "kirk",
        "damage.apply",
        {
            "target": SHADOW,
            "source": EXCELSIOR,
            "amount": 26,
            "direction": "port",
            "weapon": "Photon Torpedo",
        },
    )
    shot = await b.act(
        "kosh",
        "damage.apply",
        {
            "target": EXCELSIOR,
            "source": SHADOW,
            "amount": 12,
            "direction": "fore",
            "weapon": "Molecular Slicer",
        },
    )
    # The Shadow is a First One ship: its 12 count double against the Excelsior's fore shield (ST-16).
    assert [e["text"] for e in shot.events] == [
        "Shadow Cruiser hits Excelsior with Molecular Slicer for 12 (fore): 12 absorbed by shields.",
        "Excelsior: First One fire counts double on "
        "shields — Fore shield takes 24 (40/40 → 16/40); nothing reaches the ship.",
    ]
    pain = await b.pain()
    assert (pain["damage_total"], pain["damage_by_source"], pain["damage_by_direction"]) == (
        56,
        {EXCELSIOR: 56},
        {"fore": 30, "port": 26},
    )
    with pytest.raises(RollNeeded) as need:
        await b.act("kosh", "clock.advance", {"expect_step": "combat"})
    assert need.value.extra["needed"] == {
        "sides": 6,
        "purpose": "pain rise chance, band 50–99",
        "ship": SHADOW,
        "index": 0,
    }
    result = await b.act("kosh", "clock.advance", {"expect_step": "combat"}, dice=[1, 5, 2])
    assert of_kind(result.events, "pain_check")[0]["text"] == (
        "Shadow Cruiser took 56 damage to armour and internals in turn 1 (most from Excelsior, 56): pain rises 0 → 2."
    )
    assert sentences(result.events) == [
        "pain rise chance, band 50–99: 1d6 = 1, needs ≤ 2 → rises",
        "rise amount: 1d6 − 3 = 2 → pain 2",
        "reaction chance, band 50–99: 1d6 = 2, needs ≤ 2 → pain 2 reads ZERO: no reaction",
    ]
    pain = await b.pain()
    assert (pain["level"], pain["reaction"], pain["damage_total"]) == (2, "ZERO", 0)
    assert pain["last_check"] == {"when": {"turn": 1, "impulse": None}, "total": 56, "most_damage": EXCELSIOR}
    assert (await b.state()).clock.step == "adjust_systems"
    with pytest.raises(Invalid, match=r"pain reduction is rolled during Ship Power \(SH-14\)"):
        await b.act("kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[1])
    events = (await b.act("ref", "clock.advance", {"expect_step": "adjust_systems"})).events
    assert "Shadow Cruiser may roll pain reduction this Ship Power (pain 2, reaction ZERO)." in [
        e["text"] for e in events
    ]
    result = await b.act("kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[5])
    assert [e["text"] for e in result.events] == [
        "Shadow Cruiser rolls pain reduction: pain 2 → 0; reaction stays ZERO."
    ]
    assert sentences(result.events) == ["pain reduction: 1d6 = 5 → pain 2 → 0"]
    assert (await b.pain())["level"] == 0
    await b.assert_rebuilds()


async def test_SH_03_damage_outside_an_impulse_is_checked_when_its_step_ends(platform: Platform) -> None:
    """SH-03 decision: damage entered at Energy Allocation is checked when Energy Allocation ends,
    not added to impulse 1's total; impulse 1 then makes its own check."""
    b = await shadow_battle(platform)
    await b.act("ref", "damage.apply", {"target": SHADOW, "source": FED, "amount": 30, "direction": "fore"})
    result = await b.act("ref", "clock.advance", {"expect_step": "energy_allocation"}, dice=[2])
    assert [e["text"] for e in result.events] == [
        "Shadow Cruiser took 30 damage to armour and internals in turn 1 (most from Federation Heavy Cruiser, 30): "
        "pain stays 0.",
        "Turn 1 · Energy Allocation ends; Turn 1 · Impulse 1/32 begins.",
    ]
    assert sentences(result.events) == ["pain rise chance, band 25–49: 1d6 = 2, needs ≤ 1 → no rise"]
    assert (await b.pain())["damage_total"] == 0
    await b.act("kirk", "damage.apply", {"target": SHADOW, "source": HAWK, "amount": 20, "direction": "port"})
    result = await b.act("kirk", "clock.advance", {})
    assert of_kind(result.events, "pain_check")[0]["text"] == (
        "Shadow Cruiser took 20 damage to armour and internals in turn 1 impulse 1: under 25, no pain check."
    )
    await b.assert_rebuilds()


async def test_SH_03_b5wars_end_of_turn_damage_stays_in_its_turn(platform: Platform) -> None:
    """SH-03 decision in B5 Wars: damage entered at Adjust Ship Systems (after combat, e.g. from a
    critical) is checked when that step ends, in its own turn — never in next turn's combat check."""
    b = await shadow_battle(platform, system="b5wars", fleet=(EXCELSIOR,))
    for step in ("ship_power", "movement", "combat"):
        await b.act("kirk", "clock.advance", {"expect_step": step})
    await b.act(
        "ref", "damage.apply", {"target": SHADOW, "amount": 40, "section": "Core", "weapon": "critical"}
    )
    result = await b.act("ref", "clock.advance", {"expect_step": "adjust_systems"}, dice=[1, 6, 5])
    assert of_kind(result.events, "pain_check")[0]["text"] == (
        "Shadow Cruiser took 40 damage to armour and internals in turn 1 (most from an unrecorded attacker, 40): "
        "pain rises 0 → 2."
    )
    assert sentences(result.events) == [
        "pain rise chance, band 25–49: 1d6 = 1, needs ≤ 1 → rises",
        "rise amount: 1d6 − 4 = 2 → pain 2",
        "reaction chance, band 25–49: 1d6 = 5, needs ≤ 1 → no reaction",
    ]
    state = await b.state()
    assert (state.clock.turn, state.clock.step, state.ships[SHADOW].parts["pain"]["damage_total"]) == (
        2,
        "ship_power",
        0,
    )
    await b.assert_rebuilds()


async def b5_combat_hit(b: Battle, amount: int, dice: list[int]) -> actions.Submitted:
    """From Ship Power, through Movement into Combat, where the Excelsior lands `amount` on the
    Shadow's fore; the combat step then ends with the pain check's entered dice."""
    await b.act("kirk", "clock.advance", {"expect_step": "ship_power"})
    await b.act("kirk", "clock.advance", {"expect_step": "movement"})
    await b.act(
        "kirk", "damage.apply", {"target": SHADOW, "source": EXCELSIOR, "amount": amount, "direction": "fore"}
    )
    return await b.act("kosh", "clock.advance", {"expect_step": "combat"}, dice=dice)


async def test_SH_02_pain_sixteen_kills_by_shock_and_no_reaction_die_is_asked(platform: Platform) -> None:
    """SH-02 Decision: pain 14, 60 points (band 50–99): rise 1 ≤ 2, 1d6 − 3 = 2 → pain 16: the ship dies
    of shock. Death is certain, so the check asks for two dice only, and a third is refused."""
    b = await shadow_battle(platform, system="b5wars", pain=14, fleet=(EXCELSIOR,))
    await b.act("kirk", "clock.advance", {"expect_step": "ship_power"})
    await b.act("kirk", "clock.advance", {"expect_step": "movement"})
    await b.act(
        "kirk", "damage.apply", {"target": SHADOW, "source": EXCELSIOR, "amount": 60, "direction": "fore"}
    )
    with pytest.raises(Invalid) as refused:
        await b.act("kosh", "clock.advance", {"expect_step": "combat"}, dice=[1, 5, 1])
    assert (refused.value.message, refused.value.field) == (
        "1 more dice entered than this action rolls (2 needed)",
        "dice",
    )
    result = await b.act("kosh", "clock.advance", {"expect_step": "combat"}, dice=[1, 5])
    assert sentences(result.events) == [
        "pain rise chance, band 50–99: 1d6 = 1, needs ≤ 2 → rises",
        "rise amount: 1d6 − 3 = 2 → pain 16 (the maximum)",
    ]
    assert of_kind(result.events, "pain_reaction") == []
    assert [e["text"] for e in of_kind(result.events, "pain_death")] == [
        "Shadow Cruiser dies of shock at pain 16 and is destroyed: it drops to speed 1 at most, its carcass "
        "drifts in its last direction, out of the game for every purpose but left in play to be recovered."
    ]
    pain = await b.pain()
    assert (pain["level"], pain["reaction"], pain["dead"]) == (16, "DEATH", True)
    assert (await b.state()).ships[SHADOW].destroyed is True
    await b.assert_rebuilds()


async def test_SH_06_a_successful_roll_reading_ZERO_is_no_reaction_and_the_owed_attack_stays(
    platform: Platform,
) -> None:
    """SH-06 Decision in B5 Wars: pain 7 + 60 from the Excelsior → pain 9, THREE on the Excelsior;
    next Ship Power a reduction of 6 (9 → 3) owes one more Shadow Cutter attack (SH-15). In turn 2's
    combat 30 points raise pain 3 → 4 and the reaction roll succeeds, but pain 4 reads ZERO: no
    reaction — nothing takes effect and the Excelsior is still owed its attack."""
    b = await shadow_battle(platform, system="b5wars", pain=7, fleet=(EXCELSIOR,))
    result = await b5_combat_hit(b, 60, [2, 5, 1])
    assert of_kind(result.events, "pain_reaction")[0]["text"] == (
        "Shadow Cruiser is enraged — reaction THREE: must target Excelsior until it is destroyed."
    )
    await b.act("ref", "clock.advance", {"expect_step": "adjust_systems"})
    result = await b.act("kosh", "shadow.reduce_pain", {"ship": SHADOW}, dice=[6])
    assert [e["text"] for e in result.events] == [
        "Shadow Cruiser rolls pain reduction: pain 9 → 3; reaction THREE → ZERO (THREE → TWO: Excelsior is "
        "still alive and is owed one more Shadow Cutter attack; TWO → ONE: no restrictions; ONE → ZERO: no "
        "restrictions)."
    ]
    before = await b.pain()
    result = await b5_combat_hit(b, 30, [1, 5, 1])
    assert sentences(result.events) == [
        "pain rise chance, band 25–49: 1d6 = 1, needs ≤ 1 → rises",
        "rise amount: 1d6 − 4 = 1 → pain 4",
        "reaction chance, band 25–49: 1d6 = 1, needs ≤ 1 → pain 4 reads ZERO: no reaction",
    ]
    line = (
        "Shadow Cruiser grins and bears it: pain 4 reads ZERO, which is no reaction (nothing changes, SH-06)."
    )
    assert [e["text"] for e in of_kind(result.events, "pain_reaction")] == [line]
    for who in ("kirk", "kosh", "ref", "watcher"):
        assert line in await b.log_texts(who), who
    pain = await b.pain()
    assert (pain["level"], pain["reaction"]) == (4, "ZERO")
    assert (pain["reaction_since"], pain["last_reaction_turn"]) == (before["reaction_since"], 1)
    owed = [o for o in pain["obligations"] if not o["expired"]]
    assert [(o["kind"], o["target"], o["text"]) for o in owed] == [
        ("cutter_attack", EXCELSIOR, "must target Excelsior for one more Shadow Cutter attack")
    ]
    await b.assert_rebuilds()
