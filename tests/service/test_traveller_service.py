"""Traveller High Guard through the service door (`actions.submit`) on SQLite and PostgreSQL.

Every battle here uses physical dice, so each roll is the one the test enters and every number in
the log can be checked by hand. The demo's ships are used: Arbellatra (CF 10,000 t, 3 sections),
Dauntless (CM 50,000 t, 4 sections), Tigress (CS 300,000 t, meson spinal) and Leviathan
(CX 800,000 t, dispersed, 9 meson screens).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from sqlalchemy import select

from app.models import ActionLog
from app.services.errors import Forbidden, Invalid
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.reading.views import battle_for
from app.services.store import drafts
from app.services.store.battles import add_participant, create_battle, load_state
from app.services.write import actions
from app.services.write.actions import Command
from tests.helpers import ship_def


def aid() -> str:
    return uuid.uuid4().hex


class Fleet:
    """A physical-dice Traveller battle: referee, Ann, Bob and a spectator, with library ships."""

    def __init__(self, platform: Platform, battle_id: str, ids: dict[str, str]) -> None:
        self.platform = platform
        self.battle_id = battle_id
        self.ids = ids

    async def act(self, who: str, kind: str, payload: dict[str, Any], dice: list[int] = ()) -> list[str]:
        result = await actions.submit(
            self.platform, Command(self.battle_id, self.ids[who], kind, payload, aid(), dice=list(dice))
        )
        return [e["text"] for e in result.events]

    async def advance(self, times: int = 1) -> None:
        for _ in range(times):
            await self.act("ref", "clock.advance", {})

    async def state(self):  # type: ignore[no-untyped-def]
        async with self.platform.db.reader() as session:
            state, _ = await load_state(session, self.battle_id)
        return state

    async def hg(self, ship: str) -> dict[str, Any]:
        return (await self.state()).ships[ship].parts["hg_ship"]

    async def section(self, ship: str, name: str) -> dict[str, Any]:
        return next(s for s in (await self.hg(ship))["sections"] if s["name"] == name)

    async def seen_by(self, who: str) -> str:
        """The whole battle as this participant reads it (the data every door renders from)."""
        from app.models import Battle, Participant

        async with self.platform.db.reader() as session:
            battle = await session.get(Battle, self.battle_id)
            me = await session.get(Participant, self.ids[who])
            return json.dumps(await battle_for(session, battle, me))


async def fleet(platform: Platform, ships: dict[str, str], **options: Any) -> Fleet:
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(
            session, "Traveller service test", "traveller", dice_mode="physical", options=options
        )
        ann = await add_participant(session, battle, "Ann", "player")
        bob = await add_participant(session, battle, "Bob", "player")
        watcher = await add_participant(session, battle, "Watcher", "spectator")
    ids = {
        "ref": ref.participant.id,
        "ann": ann.participant.id,
        "bob": bob.participant.id,
        "watcher": watcher.participant.id,
    }
    f = Fleet(platform, battle.id, ids)
    for slug, owner in ships.items():
        await f.act("ref", "ship.add", {"definition": ship_def(slug), "owner": ids[owner]})
    return f


async def test_TR_05_TR_06_TR_07_TR_08_TR_15_TR_16_TR_17_TR_18_barrage_number_by_number(
    platform: Platform,
) -> None:
    """Dauntless (Bob) fires its pulse-laser turrets at Arbellatra (Ann), which throws sand."""
    f = await fleet(
        platform, {"tr-arbellatra-cruiser": "ann", "tr-dauntless-battlecruiser": "bob"}, orders=False
    )
    await f.advance(2)  # orders → manoeuvre → combat
    shot = {
        "ship": "dauntless",
        "battery": "pulse-lasers",
        "target": "arbellatra",
        "range": "short",
        "adjacent": "fore",
    }
    # TR-05: a cone hull bears 70% of its 100 pulse-laser turrets on one target; at least 10 fire.
    with pytest.raises(Invalid) as err:
        await f.act("bob", "traveller.barrage", {**shot, "mounts": 71})
    assert err.value.field == "mounts"
    assert err.value.message == (
        "only 70 of 100 Turret: Pulse Laser mounts may fire at this target (configuration 70%)"
    )
    with pytest.raises(Invalid, match=r"at least 10 mounts: ten, or all of the type if fewer \(TR-05\)"):
        await f.act("bob", "traveller.barrage", {**shot, "mounts": 9})
    # Ann cannot fire Bob's ship.
    with pytest.raises(Forbidden) as refused:
        await f.act("ann", "traveller.barrage", {**shot, "mounts": 70})
    assert refused.value.status == 403 and refused.value.field == "ship"
    assert refused.value.message == "you do not command that ship"

    # Dice in the order the rule asks: sand 1d6 = 4; attack 2D 6+5; location 1d6 = 3;
    # Main External 2D 4+5 = 9; Forward External 2D 3+3 = 6.
    texts = await f.act("bob", "traveller.barrage", {**shot, "mounts": 70}, dice=[4, 6, 5, 3, 4, 5, 3, 3])
    # TR-06: 2D 11 + range (Short row, Short band) 0 + FC +4 + Gunner (Crew Skill 3) +3 + pulse laser −2.
    # TR-07: sand 1d6 4 − 2 (40 sandcasters ≤ 90% of 70 lasers) = 2; (2 per mount − armour 6 − sand 2) = −6.
    # Net 10 → 175% (TR-08) → floor(70 × 1.75) = 122. TR-15: CF column, 3 → Main. TR-16: 61 / 61 with
    # Forward (the attacker chose fore). TR-18: net 8+ → one roll per struck section, External (Hull left).
    assert texts == [
        "barrage 70–Pulse Laser–Short–2 at Arbellatra: 2D 11 + range 0 + FC +4 + Gunner +3 + weapon −2"
        " + (2 − armour 6 − sand 2) = 10 → 175% → 122 damage → location 1d6 3: Main; 61 to Main Hull 66→5;"
        " 61 to Forward Hull 66→5",
        "Arbellatra Main section hit (External, 2D 9): Turret: Beam Laser — Turret: Beam Laser hit 1: −1d6 DM.",
        # TR-17/TR-19: a Hull result adds half the barrage (61); past 0 Hull it goes on into Structure.
        "Arbellatra Forward section hit (External, 2D 6): Hull — +61 Hull damage: Forward Hull 5→0,"
        " Structure 66→10.",
    ]
    main, forward, engineering = (
        await f.section("arbellatra", "Main"),
        await f.section("arbellatra", "Forward"),
        await f.section("arbellatra", "Engineering"),
    )
    assert (main["hull"], main["structure"]) == (5, 66)
    assert (forward["hull"], forward["structure"]) == (0, 10)
    assert (engineering["hull"], engineering["structure"]) == (66, 66)
    arbellatra = await f.hg("arbellatra")
    assert [b["hits"] for b in arbellatra["batteries"]] == [0, 0, 1]  # beam lasers hit once
    dauntless = await f.hg("dauntless")
    assert dauntless["batteries"][2]["fired"] == {"1": 70}
    # TR-18: Forward has no Hull left, so its next system roll reads the Internal column.
    assert (main["column"], forward["column"]) == ("external", "internal")
    # TR-05: the same type at the same target combines into one barrage.
    with pytest.raises(Invalid, match="combine them into one barrage"):
        await f.act("bob", "traveller.barrage", {**shot, "mounts": 10})
    # The recorded dice rebuild exactly this state.
    rebuilt = await history.rebuild(platform, f.battle_id)
    assert rebuilt.model_dump(mode="json") == (await f.state()).model_dump(mode="json")


async def test_TR_10_TR_11_TR_13_TR_18_meson_spinal_hit(platform: Platform) -> None:
    """Tigress (Ann) fires its meson spinal (460, rating V) at Leviathan (Bob): 18 screen points."""
    f = await fleet(
        platform, {"tr-tigress-dreadnought": "ann", "tr-leviathan-superdreadnought": "bob"}, orders=False
    )
    await f.advance(2)
    # Attack 2D 5+4; location 1d6 5 (CW–CZ: Main); penetration 2D 3+3; nine Internal rolls (460 ÷ 50);
    # radiation throws: crew 2D 1+1, computer 2D 2+1, sensors 2D 3+2.
    system_dice = [3, 3, 2, 2, 3, 4, 1, 1, 1, 2, 2, 3, 5, 6, 4, 5, 4, 6]
    dice = [5, 4, 5, 3, 3, *system_dice, 1, 1, 2, 1, 3, 2]
    texts = await f.act(
        "ann", "traveller.spinal", {"ship": "tigress", "target": "leviathan", "range": "long"}, dice=dice
    )
    # TR-10: 2D 9 − 6 (Formidable) + FC 5 + Gunner (Crew Skill 3) +3 + range (Long) 0 + size (800,000 t) 0.
    # TR-11: dispersed, 9 screens × 2 = 18 points, rating V → 5+; 2D 6 penetrates. Mesons strike Structure.
    assert texts[0] == (
        "spinal Meson Spinal Mount at Leviathan: 2D 9 + Formidable −6 + FC +5 + Gunner +3 + range 0 + size 0"
        " = 11 vs 8+ → success (Effect +3) → hit → location 1d6 5: Main; penetration V vs 18 screen points:"
        " 2D 6 vs 5+ → 460 damage: Main Structure 2666→2206"
    )
    # TR-18: one roll per full 50 (nine), always Internal for mesons; Structure results add half (230).
    assert texts[1:10] == [
        "Leviathan Main section hit (Internal, 2D 6): Structure — +230 Structure damage: Main Structure 2206→1976.",
        "Leviathan Main section hit (Internal, 2D 4): Computer — computer hit 1: −1 DM to all rolls.",
        "Leviathan Main section hit (Internal, 2D 7): Hold — Hold capacity destroyed.",
        "Leviathan Main section hit (Internal, 2D 2): Crew — crew Full → Weakened.",
        "Leviathan Main section hit (Internal, 2D 3): Troop Deck — Troop Deck capacity destroyed.",
        "Leviathan Main section hit (Internal, 2D 5): Bay: Meson Gun Bay — Bay: Meson Gun Bay hit 1: −1d6 DM.",
        "Leviathan Main section hit (Internal, 2D 11): Screen: Nuclear Damper — Screen: Nuclear Damper −2"
        " protection (hits 1).",
        "Leviathan Main section hit (Internal, 2D 9): Structure — +230 Structure damage: Main Structure 1976→1746.",
        "Leviathan Main section hit (Internal, 2D 10): Structure — +230 Structure damage: Main Structure 1746→1516.",
    ]
    # TR-13: 460 ÷ 6 = 76, halved by radiation shielding = 38 → band 5 (31–40), not lowered (TR-13a);
    # crew 2+, computer 4+, sensors 6+.
    assert texts[10:] == [
        "Leviathan radiation 38: band 5; crew 2D 2 vs 2+: crew Weakened → Half; computer 2D 3 vs 4+: no hit;"
        " sensors 2D 5 vs 6+: no hit."
    ]
    leviathan = await f.hg("leviathan")
    main = next(s for s in leviathan["sections"] if s["name"] == "Main")
    assert (main["hull"], main["structure"], main["lost"]) == (2666, 1516, ["Hold", "Troop Deck"])
    assert leviathan["crew_strength"] == "half"
    assert leviathan["systems"]["computer"] == 1
    assert [b["hits"] for b in leviathan["batteries"]] == [1, 0, 0, 0]
    assert [s["hits"] for s in leviathan["screens"]] == [0, 1]
    rebuilt = await history.rebuild(platform, f.battle_id)
    assert rebuilt.model_dump(mode="json") == (await f.state()).model_dump(mode="json")


async def test_TR_03_TR_04_TR_26_TR_26c_initiative_orders_and_the_loop(platform: Platform) -> None:
    """Initiative once per engagement; secret orders revealed together lower it for the round and
    reorder the combat loop; a ship may act only on its turn; the log rebuilds the snapshot."""
    f = await fleet(platform, {"tr-arbellatra-cruiser": "ann", "tr-dauntless-battlecruiser": "bob"})
    # TR-03: fleet Tactics 2D 4+4 + 1 = 9 → Effect +1 for the side; then 1d6 per ship, by ship id.
    texts = await f.act("ref", "traveller.initiative", {"fleet_tactics": {"Imperial": 1}}, dice=[4, 4, 6, 4])
    assert texts == [
        "Fleet commander (Imperial) Tactics: 2D 8 + Tactics +1 = 9 vs 8+ → success (Effect +1).",
        "Arbellatra initiative: 1D 6 + Crew Skill +2 + fleet Tactics +1 = 9 → reactions 3.",
        "Dauntless initiative: 1D 4 + Crew Skill +3 + fleet Tactics +1 = 8 → reactions 2.",
    ]
    with pytest.raises(Invalid, match=r"once per engagement"):
        await f.act("ref", "traveller.initiative", {}, dice=[1, 1])

    # TR-26: costs may not take initiative below 0 (Arbellatra has 9).
    too_dear = [{"order": "screens_full"}, {"order": "focused_fire", "target": "dauntless"}]
    with pytest.raises(Invalid, match="these orders cost 10 initiative; Arbellatra has 9"):
        await f.act("ann", "traveller.orders", {"ship": "arbellatra", "orders": too_dear, "commit": True})
    ann_orders = [{"order": "screens_full"}, {"order": "angle_max_effect"}]
    texts = await f.act(
        "ann", "traveller.orders", {"ship": "arbellatra", "orders": ann_orders, "commit": True}
    )
    assert texts == ["Arbellatra commits its orders: Screens to Full!, Angle for Maximum Effect (cost 6)."]
    # Secret until the reveal: Bob, the spectator and the log they read carry no order name.
    for who in ("bob", "watcher"):
        seen = await f.seen_by(who)
        assert "Screens to Full" not in seen and "screens_full" not in seen and "angle_max_effect" not in seen
    assert "screens_full" in await f.seen_by("ann") and "screens_full" in await f.seen_by("ref")

    texts = await f.act(
        "bob",
        "traveller.orders",
        {"ship": "dauntless", "orders": [{"order": "line_up_spinal"}], "commit": True},
    )
    # Both revealed in one public event; TR-26c: 9 − 6 = 3 and 8 − 2 = 6.
    assert texts == [
        "Dauntless commits its orders: Line up Spinal Mount! (cost 2).",
        "Every captain has committed; orders revealed: Arbellatra: Screens to Full!, Angle for Maximum Effect"
        " — initiative 9 → 3; Dauntless: Line up Spinal Mount! — initiative 8 → 6.",
        "Everyone is done with Orders.",  # nobody left to wait on: the step ends by itself (GEN-01)
        "Turn 1 · Orders ends; Turn 1 · Manoeuvre begins.",
    ]
    assert "screens_full" in await f.seen_by("bob")
    await f.advance()  # → combat

    # TR-04/TR-26c: Dauntless (6) acts before Arbellatra (3), although Arbellatra rolled higher.
    barrage = {"ship": "arbellatra", "battery": "beam-lasers", "target": "dauntless", "range": "medium"}
    with pytest.raises(Invalid, match=r"it is Dauntless's combat action now \(TR-04\)") as err:
        await f.act("ann", "traveller.barrage", {**barrage, "mounts": 10})
    assert err.value.field == "ship"
    # The spinal may fire: Line up Spinal Mount! was ordered. 2D 1+1 − 6 + FC 4 + Gunner 3 + size 0 misses.
    texts = await f.act(
        "bob", "traveller.spinal", {"ship": "dauntless", "target": "arbellatra", "range": "long"}, dice=[1, 1]
    )
    assert texts == [
        "spinal Particle Accelerator Spinal at Arbellatra: 2D 2 + Formidable −6 + FC +4 + Gunner +3 + range 0"
        " + size 0 = 3 vs 8+ → failure (Effect −5) → miss"
    ]
    # TR-27 Angle for Maximum Effect: standard 80% + 10 = 90% of 40 beam lasers.
    with pytest.raises(Invalid, match=r"only 36 of 40 .* \(configuration 90%\)"):
        await f.act("ann", "traveller.barrage", {**barrage, "mounts": 37})
    texts = await f.act(
        "ann", "traveller.combat_action", {"ship": "arbellatra", "description": "closes to Short"}
    )
    assert texts == ["Arbellatra: closes to Short."]
    # Back round the loop: Dauntless again, then Arbellatra once Dauntless has finished.
    with pytest.raises(Invalid, match="it is Dauntless's combat action now"):
        await f.act("ann", "traveller.combat_action", {"ship": "arbellatra", "description": "fires again"})
    assert await f.act("bob", "traveller.pass", {"ship": "dauntless"}) == [
        "Dauntless has finished its combat actions this round. Next: Arbellatra."
    ]
    assert await f.act("ann", "traveller.pass", {"ship": "arbellatra"}) == [
        "Arbellatra has finished its combat actions this round. Every ship has finished.",
        "Everyone is done with Combat.",  # the loop's last ship passed: the step ends (GEN-01)
        "Turn 1 · Combat ends; Turn 1 · Ship action begins.",
    ]

    # Round 2: initiative is not rolled again; the orders' costs are gone with the round.
    await f.advance(2)  # → end of round → orders of round 2
    state = await f.state()
    assert (state.clock.turn, state.clock.step) == (2, "orders")
    ann = await f.hg("arbellatra")
    # The stored round is still round 1's; it is refreshed when the unit is next loaded.
    assert ann["initiative_base"] == 9
    texts = await f.act("ann", "traveller.orders", {"ship": "arbellatra", "orders": [], "commit": True})
    assert texts == ["Arbellatra commits its orders: no orders (cost 0)."]
    texts = await f.act("bob", "traveller.orders", {"ship": "dauntless", "orders": [], "commit": True})
    assert texts[-3] == (
        "Every captain has committed; orders revealed: Arbellatra: no orders — initiative 9 → 9;"
        " Dauntless: no orders — initiative 8 → 8."
    )
    await f.advance()  # the orders step ended by itself; manoeuvre → combat
    # Now Arbellatra (9) leads the loop.
    with pytest.raises(Invalid, match="it is Arbellatra's combat action now"):
        await f.act("bob", "traveller.combat_action", {"ship": "dauntless", "description": "moves"})

    rebuilt = await history.rebuild(platform, f.battle_id)
    assert rebuilt.model_dump(mode="json") == (await f.state()).model_dump(mode="json")


async def test_TR_26_referee_forces_the_reveal_and_drafts_stay_private(platform: Platform) -> None:
    """A draft is the owner's alone; moving the clock on reveals whatever was committed."""
    f = await fleet(platform, {"tr-arbellatra-cruiser": "ann", "tr-dauntless-battlecruiser": "bob"})
    await f.act("ref", "traveller.initiative", {}, dice=[3, 3])  # 3 + 2 = 5; 3 + 3 = 6
    draft = await f.act(
        "bob", "traveller.orders", {"ship": "dauntless", "orders": [{"order": "defensive_posture"}]}
    )
    assert draft == ["Dauntless saves its draft: Defensive Posture."]
    assert "defensive_posture" not in await f.seen_by("ann")
    assert "defensive_posture" in await f.seen_by("bob")
    await f.act(
        "ann",
        "traveller.orders",
        {"ship": "arbellatra", "orders": [{"order": "screens_full"}], "commit": True},
    )
    assert "screens_full" not in await f.seen_by("bob")
    result = await actions.submit(platform, Command(f.battle_id, f.ids["ref"], "clock.advance", {}, aid()))
    reveal = [e["text"] for e in result.events if e["kind"] == "orders_revealed"]
    assert reveal == [
        "The orders step ends; orders revealed: Arbellatra: Screens to Full! — initiative 5 → 1;"
        " Dauntless (not committed): no orders — initiative 6 → 6."
    ]
    seen = await f.seen_by("bob")
    assert "screens_full" in seen and "defensive_posture" not in seen


async def imperial_escort_fleet(platform: Platform) -> Fleet:
    """Ann: Leviathan (Zhodani). Bob: Arbellatra and its escort Vigilant (Imperial). Initiative
    1d6 6 each (by ship id): Arbellatra 8, Leviathan 8, Vigilant 8."""
    f = await fleet(
        platform,
        {"tr-leviathan-superdreadnought": "ann", "tr-arbellatra-cruiser": "bob", "tr-vigilant-escort": "bob"},
    )
    await f.act("ref", "traveller.initiative", {}, dice=[6, 6, 6])
    return f


async def test_TR_27_escort_defence_evasive_action_and_maximum_speed_through_the_service(
    platform: Platform,
) -> None:
    f = await imperial_escort_fleet(platform)
    await f.act(
        "bob",
        "traveller.orders",
        {"ship": "vigilant", "orders": [{"order": "escort_defence", "target": "arbellatra"}], "commit": True},
    )
    await f.act(
        "bob",
        "traveller.orders",
        {
            "ship": "arbellatra",
            "orders": [{"order": "evasive_action"}, {"order": "maximum_speed"}],
            "commit": True,
        },
    )
    texts = await f.act("ann", "traveller.orders", {"ship": "leviathan", "orders": [], "commit": True})
    assert texts[-3] == (
        "Every captain has committed; orders revealed: Arbellatra: Evasive Action*, Maximum Speed — initiative"
        " 8 → 0; Leviathan: no orders — initiative 8 → 8; Vigilant: Escort Defence → Arbellatra — initiative 8 → 4."
    )
    assert texts[-1] == "Turn 1 · Orders ends; Turn 1 · Manoeuvre begins."  # by itself (GEN-01)
    # Maximum Speed: Thrust 4 + 1.
    with pytest.raises(Invalid, match=r"Arbellatra has 5 Thrust left"):
        await f.act("bob", "traveller.manoeuvre", {"ship": "arbellatra", "thrust": 6, "description": "runs"})
    assert await f.act(
        "bob", "traveller.manoeuvre", {"ship": "arbellatra", "thrust": 5, "description": "opens to Medium"}
    ) == ["Arbellatra spends 5 Thrust: opens to Medium (0 left this round)."]
    await f.advance()  # → combat
    # Evasive Action's Thrust still pays for a dodge, and costs no reaction (Arbellatra has 1 at initiative 0).
    assert await f.act("bob", "traveller.dodge", {"ship": "arbellatra"}, dice=[4, 4]) == [
        "Arbellatra dodges (Evasive Action Thrust (0 left), no reaction): Pilot 2D 8 + Crew Skill +2 = 10 vs 8+"
        " → success (Effect +2): the next attack on it this round takes −2."
    ]
    # Leviathan (8, first in the loop) fires ten beam lasers. Sand: Arbellatra's 40 + Vigilant's 20 against
    # 10 lasers (≥ 110%: +2), 1d6 5 + 2 = 7; the dodge −2; 2D 12 + FC 4 + Gunner 2 − 2 + (1 − 6 − 7) = 4.
    shot = {
        "ship": "leviathan",
        "battery": "beam-lasers",
        "mounts": 10,
        "target": "arbellatra",
        "range": "medium",
        "adjacent": "fore",
    }
    assert await f.act("ann", "traveller.barrage", shot, dice=[5, 6, 6, 3]) == [
        "barrage 10–Beam Laser–Medium–1 at Arbellatra: 2D 12 + range 0 + FC +4 + Gunner +2 + dodge −2"
        " + (1 − armour 6 − sand (with Vigilant) 7) = 4 → 25% → 2 damage → location 1d6 3: Main;"
        " 1 to Main Hull 66→65; 1 to Forward Hull 66→65"
    ]
    arbellatra = await f.hg("arbellatra")
    assert (arbellatra["round"]["dodge"], arbellatra["round"]["reactions_used"]) == (None, 0)
    rebuilt = await history.rebuild(platform, f.battle_id)
    assert rebuilt.model_dump(mode="json") == (await f.state()).model_dump(mode="json")


async def test_TR_19_TR_27_power_share_bridge_grounding_and_prepare_for_jump_through_the_service(
    platform: Platform,
) -> None:
    f = await imperial_escort_fleet(platform)
    await f.act(
        "bob",
        "traveller.orders",
        {"ship": "arbellatra", "orders": [{"order": "prepare_jump"}], "commit": True},
    )
    await f.act("bob", "traveller.orders", {"ship": "vigilant", "orders": [], "commit": True})
    # Ann enters hits her ship scored by the core rules (TR-14): Arbellatra's power plant, Vigilant's bridge.
    assert await f.act(
        "ann",
        "traveller.entered_hit",
        {"source": "leviathan", "target": "arbellatra", "section": "Engineering", "system": "power_plant"},
    ) == ["Leviathan hits Arbellatra (Engineering): power plant hit 1: Power −1 → 9."]
    assert await f.act(
        "ann",
        "traveller.entered_hit",
        {"source": "leviathan", "target": "vigilant", "section": "Forward", "system": "command"},
    ) == ["Leviathan hits Vigilant (Forward): bridge hit 1: no manoeuvre or jump in round 2."]
    # Ann's commit is the last: the orders step ends by itself (GEN-01)
    await f.act("ann", "traveller.orders", {"ship": "leviathan", "orders": [], "commit": True})
    # → manoeuvre: Power 9/10 leaves Thrust 4 × 9/10 = 3
    with pytest.raises(
        Invalid, match=r"Arbellatra has 3 Thrust left \(Thrust 3 this round, Power 9/10, 0 spent\)"
    ):
        await f.act("bob", "traveller.manoeuvre", {"ship": "arbellatra", "thrust": 4, "description": "runs"})
    await f.advance(2)  # → combat → ship action
    # Jump 3 × 9/10 = 2; Engineering (jump) 2D 6 + Crew Skill 2 + Prepare for Jump! 2 = 10.
    assert await f.act("bob", "traveller.jump", {"ship": "arbellatra"}, dice=[3, 3]) == [
        "Arbellatra attempts to jump: Engineering (jump) 2D 6 + Crew Skill +2 + Prepare for Jump! +2 = 10 vs 8+"
        " → success (Effect +2): Arbellatra jumps out of the battle (Jump-2)."
    ]
    await f.advance(2)  # → end of round → orders of round 2
    # The jumped ship gives no more orders; the next reveal is Leviathan's and Vigilant's.
    await f.act("ann", "traveller.orders", {"ship": "leviathan", "orders": [], "commit": True})
    texts = await f.act("bob", "traveller.orders", {"ship": "vigilant", "orders": [], "commit": True})
    assert texts[-3] == (
        "Every captain has committed; orders revealed: Leviathan: no orders — initiative 8 → 8;"
        " Vigilant: no orders — initiative 8 → 8."
    )
    # The step ended by itself: manoeuvre of round 2, where Vigilant's bridge grounds it
    with pytest.raises(Invalid, match=r"the bridge hit grounds Vigilant this round: no manoeuvre \(TR-19\)"):
        await f.act("bob", "traveller.manoeuvre", {"ship": "vigilant", "thrust": 1, "description": "turns"})
    rebuilt = await history.rebuild(platform, f.battle_id)
    assert rebuilt.model_dump(mode="json") == (await f.state()).model_dump(mode="json")


async def test_TR_25a_single_craft_attacked_through_the_service(platform: Platform) -> None:
    """TR-25a through the service: Ann's cruiser shoots single fighters of Bob's flight by the core
    rules; the entered loss lands, Bob's commander cannot enter it for Ann, and the log rebuilds."""
    f = await fleet(platform, {"tr-arbellatra-cruiser": "ann", "tr-red-flight": "bob"})
    state = await f.state()
    craft = state.ships["red-flight"].parts["flight"]["craft"]
    texts = await f.act(
        "ann",
        "traveller.craft_attack",
        {"flight": "red-flight", "source": "arbellatra", "craft_destroyed": 2},
    )
    assert texts == [
        f"Arbellatra attacks single craft of Red Flight by the core rules: 2 destroyed; {craft - 2} of {craft} left (TR-25a)."
    ]
    with pytest.raises(Forbidden):
        await f.act(
            "bob",
            "traveller.craft_attack",
            {"flight": "red-flight", "source": "arbellatra", "craft_destroyed": 1},
        )
    assert (await f.state()).ships["red-flight"].parts["flight"]["lost"] == 2
    assert (await history.rebuild(platform, f.battle_id)) == await f.state()


async def test_TR_08_printed_cells_battle_logs_when_floor_replaced_a_printed_cell(platform: Platform) -> None:
    """TR-08 Decision through the service: in a battle on the printed cells, 13 pulse lasers have no
    printed column, so the damage is ⌊13 × 100%⌋ = 13 and the barrage line says so."""
    f = await fleet(
        platform,
        {"tr-arbellatra-cruiser": "ann", "tr-dauntless-battlecruiser": "bob"},
        orders=False,
        printed_cells=True,
    )
    await f.advance(2)  # orders → manoeuvre → combat
    shot = {
        "ship": "dauntless",
        "battery": "pulse-lasers",
        "target": "arbellatra",
        "range": "short",
        "mounts": 13,
    }
    # Sand 1d6 4 + 2 (40 sandcasters ≥ 110% of 13 lasers) = 6; attack 2D 6+6; location 1d6 1: Engineering.
    texts = await f.act("bob", "traveller.barrage", shot, dice=[4, 6, 6, 1])
    assert texts == [
        "barrage 13–Pulse Laser–Short–2 at Arbellatra: 2D 12 + range 0 + FC +4 + Gunner +3 + weapon −2"
        " + (2 − armour 6 − sand 6) = 7 → 100% → 13 damage (no printed column for 13 dice: ⌊13 × 100%⌋, TR-08)"
        " → location 1d6 1: Engineering; 7 to Engineering Hull 66→59; 6 to Main Hull 66→60"
    ]
    engineering, main = await f.section("arbellatra", "Engineering"), await f.section("arbellatra", "Main")
    assert (engineering["hull"], main["hull"]) == (59, 60)


async def test_TR_16_the_attacker_chooses_the_adjacent_section_after_the_location(platform: Platform) -> None:
    """TR-16 through the service with entered dice: Dauntless's 70 pulse lasers hit Arbellatra's Main
    (1d6 3; CF: Engineering – Main – Forward). Without a choice the service answers 422 naming
    `adjacent` once the location is known, and nothing changes; the same dice with the attacker's
    choice (Engineering) land 61 / 61. A section that is not adjacent is refused the same way."""
    f = await fleet(
        platform, {"tr-arbellatra-cruiser": "ann", "tr-dauntless-battlecruiser": "bob"}, orders=False
    )
    await f.advance(2)  # orders → manoeuvre → combat
    shot = {
        "ship": "dauntless",
        "battery": "pulse-lasers",
        "target": "arbellatra",
        "range": "short",
        "mounts": 70,
    }
    before = (await f.state()).model_dump(mode="json")
    with pytest.raises(Invalid) as asked:
        await f.act("bob", "traveller.barrage", shot, dice=[4, 6, 5, 3])
    assert (asked.value.status, asked.value.field, asked.value.message) == (
        422,
        "adjacent",
        "the barrage hit Main: choose the adjacent section for the other half, Engineering or Forward (TR-16) — "
        'send it again with the same dice and "adjacent"',
    )
    with pytest.raises(Invalid) as refused:
        await f.act("bob", "traveller.barrage", {**shot, "adjacent": "Main"}, dice=[4, 6, 5, 3])
    assert (refused.value.field, refused.value.message) == (
        "adjacent",
        "Main is not adjacent to Main, the section hit: the other half goes to Engineering or Forward (TR-16)",
    )
    assert (await f.state()).model_dump(mode="json") == before
    # Sand 4; attack 2D 6+5; location 3: Main; Main External 2D 4+5 = 9; Engineering External 2D 3+3 = 6.
    texts = await f.act(
        "bob", "traveller.barrage", {**shot, "adjacent": "Engineering"}, dice=[4, 6, 5, 3, 4, 5, 3, 3]
    )
    assert texts == [
        "barrage 70–Pulse Laser–Short–2 at Arbellatra: 2D 11 + range 0 + FC +4 + Gunner +3 + weapon −2"
        " + (2 − armour 6 − sand 2) = 10 → 175% → 122 damage → location 1d6 3: Main; 61 to Main Hull 66→5;"
        " 61 to Engineering Hull 66→5",
        "Arbellatra Main section hit (External, 2D 9): Turret: Beam Laser — Turret: Beam Laser hit 1: −1d6 DM.",
        "Arbellatra Engineering section hit (External, 2D 6): Hull — +61 Hull damage: Engineering Hull 5→0,"
        " Structure 66→10.",
    ]
    forward = await f.section("arbellatra", "Forward")
    engineering = await f.section("arbellatra", "Engineering")
    assert (forward["hull"], engineering["hull"], engineering["structure"]) == (66, 0, 10)


async def test_TR_16_with_server_dice_the_split_comes_with_the_barrage(platform: Platform) -> None:
    """TR-16 with server dice: the location is rolled as the barrage fires, so a barrage with no
    standing preference is refused before any die is rolled (nothing changes); with one it fires in
    one submit."""
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(
            session, "Traveller server dice", "traveller", options={"orders": False}
        )
        bob = await add_participant(session, battle, "Bob", "player")
        ann = await add_participant(session, battle, "Ann", "player")
    f = Fleet(
        platform, battle.id, {"ref": ref.participant.id, "bob": bob.participant.id, "ann": ann.participant.id}
    )
    await f.act("ref", "ship.add", {"definition": ship_def("tr-arbellatra-cruiser"), "owner": f.ids["ann"]})
    await f.act(
        "ref", "ship.add", {"definition": ship_def("tr-dauntless-battlecruiser"), "owner": f.ids["bob"]}
    )
    await f.advance(2)
    shot = {
        "ship": "dauntless",
        "battery": "pulse-lasers",
        "target": "arbellatra",
        "range": "short",
        "mounts": 70,
    }
    before = (await f.state()).model_dump(mode="json")
    with pytest.raises(Invalid) as refused:
        await f.act("bob", "traveller.barrage", shot)
    assert (refused.value.field, refused.value.message) == (
        "adjacent",
        "with server dice the location is rolled as the barrage fires, so give the split with it: adjacent"
        ' "toward fore" or "toward aft", the way the other half goes from the section hit (TR-16)',
    )
    assert (await f.state()).model_dump(mode="json") == before
    texts = await f.act("bob", "traveller.barrage", {**shot, "adjacent": "toward fore"})
    assert texts[0].startswith("barrage 70–Pulse Laser–Short–2 at Arbellatra")


async def bob_has_acted(platform: Platform) -> Fleet:
    """Ann: Arbellatra; Bob: Dauntless and Vigilant. Initiative is rolled (1d6 3 each) and Bob has
    committed Vigilant's orders (none): his seat has made a logged action, his Dauntless has not."""
    f = await fleet(
        platform,
        {"tr-arbellatra-cruiser": "ann", "tr-dauntless-battlecruiser": "bob", "tr-vigilant-escort": "bob"},
    )
    await f.act("ref", "traveller.initiative", {}, dice=[3, 3, 3])
    await f.act("bob", "traveller.orders", {"ship": "vigilant", "orders": [], "commit": True})
    return f


async def test_TR_26_a_saved_draft_joins_its_authors_next_logged_action(platform: Platform) -> None:
    """Bob's seat acts (a logged commit), then saves a draft for his other ship: his Done folds the
    draft in first and commits it as saved (Defensive Posture costs 4, tables.md §4), the log keeps
    it, and the draft row is gone."""
    f = await bob_has_acted(platform)
    await f.act("bob", "traveller.orders", {"ship": "dauntless", "orders": [{"order": "defensive_posture"}]})
    done = await f.act("bob", "step.ready", {})
    assert "Dauntless commits its orders: Defensive Posture (cost 4)." in done
    assert (await f.hg("dauntless"))["round"]["committed"] is True
    async with platform.db.reader() as session:
        logged = await session.scalar(
            select(ActionLog)
            .where(ActionLog.battle_id == f.battle_id)
            .order_by(ActionLog.seq.desc())
            .limit(1)
        )
        assert logged.payload[drafts.FOLDED] == [
            {
                "type": "traveller.orders",
                "payload": {"ship": "dauntless", "orders": [{"order": "defensive_posture"}]},
            }
        ]
        assert await drafts.rows(session, f.battle_id) == []
