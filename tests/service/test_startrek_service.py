"""Star Trek in Babylon 5 Wars through the service (`actions.submit`) on SQLite and PostgreSQL.

Each test plays the demo's fleet (Excelsior and Thomas Paine for Kirk, the Shadow Cruiser for Kosh,
the warbird Haakona for Tomalak) in a physical-dice battle, so every die is the one entered, and
checks the exact sentences, the stored state, that refusals (422 with a field) change nothing, and
that the log alone rebuilds the snapshot. GEN-01: Ship Power opens a B5 Wars turn, Adjust Ship
Systems ends it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import func, select

from app.models import ActionLog
from app.rules.startrek.shields import Shields
from app.rules.state import BattleState
from app.rules.views import battle_view
from app.services.errors import Forbidden, Invalid, RollNeeded, ServiceError
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.reading.views import viewer_of, visible_log
from app.services.store.battles import add_participant, create_battle, get_battle, load_state, participants
from app.services.write import actions
from app.services.write.actions import Command
from tests.helpers import ship_def

FLEET = (
    ("excelsior", "kirk"),
    ("shadow-cruiser", "kosh"),
    ("romulan-warbird", "tomalak"),
    ("new-orleans", "kirk"),
)
LAUNCHER = "Advanced Photon Launcher"
SECRET = "0912"


@dataclass
class Game:
    """One battle driven through `actions.submit` as its participants."""

    platform: Platform
    battle_id: str
    ids: dict[str, str]

    async def do(self, who: str, type_: str, payload: dict[str, Any], dice: list[int] | None = None):
        return await actions.submit(
            self.platform, Command(self.battle_id, self.ids[who], type_, payload, uuid.uuid4().hex, dice=dice)
        )

    async def texts(self, who: str, type_: str, payload: dict[str, Any], dice: list[int] | None = None):
        return [e["text"] for e in (await self.do(who, type_, payload, dice)).events]

    async def log_texts(self, who: str) -> list[str]:
        """Every event sentence of the log as `who` may read it (the read every door uses)."""
        async with self.platform.db.reader() as session:
            battle = await get_battle(session, self.battle_id)
            state, _ = await load_state(session, self.battle_id)
            me = next(p for p in await participants(session, self.battle_id) if p.id == self.ids[who])
            entries = await visible_log(session, battle, viewer_of(me, state))
        return [e["text"] for entry in entries for e in entry.events]

    async def state(self) -> tuple[BattleState, int]:
        async with self.platform.db.reader() as session:
            return await load_state(session, self.battle_id)

    async def log_rows(self) -> int:
        async with self.platform.db.reader() as session:
            return await session.scalar(
                select(func.count()).select_from(ActionLog).where(ActionLog.battle_id == self.battle_id)
            )

    async def refused(
        self,
        who: str,
        type_: str,
        payload: dict[str, Any],
        error: type[ServiceError],
        field: str | None,
        reason: str,
        dice: list[int] | None = None,
    ) -> ServiceError:
        """The action is refused with this error, field and reason, and nothing at all changes."""
        before, seq = await self.state()
        rows = await self.log_rows()
        with pytest.raises(error) as caught:
            await self.do(who, type_, payload, dice)
        assert (caught.value.field, caught.value.message) == (field, reason)
        after, seq_after = await self.state()
        assert seq_after == seq and await self.log_rows() == rows
        assert after.model_dump(mode="json") == before.model_dump(mode="json")
        return caught.value

    async def advance_to(self, step: str, turn: int) -> None:
        for _ in range(20):
            state, _ = await self.state()
            if (state.clock.step, state.clock.turn) == (step, turn):
                return
            await self.do("ref", "clock.advance", {})
        raise AssertionError(f"never reached {step} of turn {turn}")

    async def shields(self, ship: str) -> dict[str, int]:
        state, _ = await self.state()
        return {
            p.name: p.value for p in Shields.model_validate(state.ships[ship].parts["shields"]).projections
        }

    async def rebuilds(self) -> None:
        """The log alone (with its recorded dice) rebuilds the stored snapshot exactly."""
        state, _ = await self.state()
        rebuilt = await history.rebuild(self.platform, self.battle_id)
        assert rebuilt.model_dump(mode="json") == state.model_dump(mode="json")


async def demo_game(platform: Platform, fore_rating: int | None = None) -> Game:
    """The Star Trek vs Shadows demo fleet in a physical-dice B5 Wars battle, turn 1 Ship Power."""
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(
            session, "ST service", "b5wars", dice_mode="physical", options={"players_advance_clock": "always"}
        )
        seats = {
            name: await add_participant(session, battle, name, "player")
            for name in ("kirk", "kosh", "tomalak")
        }
        watcher = await add_participant(session, battle, "watcher", "spectator")
    ids = {"ref": ref.participant.id, "watcher": watcher.participant.id}
    ids.update({name: seat.participant.id for name, seat in seats.items()})
    game = Game(platform, battle.id, ids)
    for slug, owner in FLEET:
        definition = ship_def(slug)
        if slug == "excelsior" and fore_rating is not None:
            definition["parts"]["shields"]["projections"][0]["rating"] = fore_rating
        await game.do("ref", "ship.add", {"definition": definition, "owner": ids[owner]})
    state, seq = await game.state()
    assert seq == 4 and sorted(state.ships) == ["excelsior", "haakona", "shadow-cruiser", "thomas-paine"]
    assert (state.clock.turn, state.clock.step) == (1, "ship_power")  # GEN-01: Ship Power opens the turn
    return game


async def test_ST_16_first_one_80_against_50_in_arc_and_ST_06_in_arc_fill(platform: Platform) -> None:
    game = await demo_game(platform, fore_rating=50)
    await game.advance_to("combat", 1)
    result = await game.do(
        "kosh",
        "damage.apply",
        {
            "target": "excelsior",
            "source": "shadow-cruiser",
            "amount": 80,
            "direction": "fore",
            "weapon": "Molecular Slicer",
        },
    )
    assert [e["text"] for e in result.events] == [
        "Shadow Cruiser hits Excelsior with Molecular Slicer for 80 (fore): 25 absorbed by shields, 4 to armour, "
        "51 to Fore → Primary.",
        "Excelsior: First One fire counts double on "
        "shields — 25 fill Fore shield (50/50 → 0/50), 55 reach the ship.",
        "Excelsior's Fore is destroyed.",
    ]
    absorb = result.events[1]["data"]
    assert (absorb["absorbed"], absorb["through"], absorb["multiplier"]) == (25, 55, 2)
    assert await game.shields("excelsior") == {"Fore": 0, "Starboard": 30, "Aft": 30, "Port": 30}
    # ST-06: ordinary fire from the port arc fills the Port projection first and touches no other.
    texts = await game.texts(
        "tomalak",
        "damage.apply",
        {"target": "excelsior", "source": "haakona", "amount": 35, "direction": "port"},
    )
    assert texts == [
        "Haakona hits Excelsior for 35 (port): 30 absorbed by shields, 3 to armour, 2 to Port.",
        "Excelsior: 30 fill Port shield (30/30 → 0/30), 5 reach the ship.",
    ]
    assert await game.shields("excelsior") == {"Fore": 0, "Starboard": 30, "Aft": 30, "Port": 0}
    # ST-06: fire under the rating is all absorbed; the defender cannot send it to the hull instead.
    texts = await game.texts(
        "tomalak",
        "damage.apply",
        {"target": "excelsior", "source": "haakona", "amount": 12, "direction": "aft"},
    )
    assert texts == [
        "Haakona hits Excelsior for 12 (aft): 12 absorbed by shields.",
        "Excelsior: Aft shield absorbs all 12 (30/30 → 18/30); nothing reaches the ship.",
    ]
    # ST-12: the Fore deflector went with its section, so the Fore projection collapses as Adjust Ship
    # Systems (the end of turn 1) ends; the others carry on and regenerate at Ship Power (ST-07).
    await game.advance_to("adjust_systems", 1)
    texts = await game.texts("ref", "clock.advance", {})
    assert "Excelsior's Fore shield collapses: no working deflector in arc (ST-12)." in texts
    assert (
        "Excelsior's deflectors regenerate its shields: Starboard Deflector +0 → Starboard 30/30 (3 lost at the "
        "rating); Aft Deflector +3 → Aft 21/30; Port Deflector +3 → Port 3/30 (ST-07)." in texts
    )
    assert texts.index(
        "Excelsior's Fore shield collapses: no working deflector in arc (ST-12)."
    ) < texts.index("Turn 1 · Adjust Ship Systems ends; Turn 2 · Ship Power begins.")
    assert await game.shields("excelsior") == {"Fore": 0, "Starboard": 30, "Aft": 21, "Port": 3}
    await game.rebuilds()


async def test_ST_07_regeneration_at_ship_power_and_purchases_refused_change_nothing(
    platform: Platform,
) -> None:
    game = await demo_game(platform)
    await game.advance_to("combat", 1)
    for direction in ("fore", "port"):
        await game.do(
            "tomalak",
            "damage.apply",
            {"target": "excelsior", "source": "haakona", "amount": 20, "direction": direction},
        )
    assert await game.shields("excelsior") == {"Fore": 20, "Starboard": 30, "Aft": 30, "Port": 10}
    await game.advance_to("adjust_systems", 1)
    # GEN-01: leaving Adjust Ship Systems opens turn 2 at Ship Power, where deflectors regenerate.
    texts = await game.texts("kirk", "clock.advance", {})
    # The hooks log ship by ship in id order, the same on SQLite and PostgreSQL.
    assert texts == [
        "Turn 1 · Adjust Ship Systems ends; Turn 2 · Ship Power begins.",
        "Excelsior's deflectors regenerate its shields: Fore Deflector +4 → Fore 24/40; Starboard Deflector +0 → "
        "Starboard 30/30 (3 lost at the rating); Aft Deflector +0 → Aft 30/30 (3 lost at the rating); Port "
        "Deflector +3 → Port 13/30 (ST-07).",
        "Haakona's deflectors regenerate its shields: Fore Deflector +0 → Fore 48/48 (5 lost at the rating); "
        "Starboard Deflector +0 → Starboard 40/40 (4 lost at the rating); Aft Deflector +0 → Aft 36/36 (4 lost "
        "at the rating); Port Deflector +0 → Port 40/40 (4 lost at the rating) (ST-07).",
        "Thomas Paine's deflectors regenerate its shields: Fore Deflector +0 → Fore 36/36 (3 lost at the "
        "rating); Aft Deflector +0 → Aft 30/30 (3 lost at the rating) (ST-07).",
    ]
    assert await game.shields("excelsior") == {"Fore": 24, "Starboard": 30, "Aft": 30, "Port": 13}
    buy = {"ship": "excelsior", "deflector": "Fore Deflector"}
    await game.refused(
        "kirk",
        "startrek.buy_regeneration",
        {**buy, "points": 9},
        Invalid,
        "points",
        "Fore Deflector (value 4) may add at most 8 extra a turn; 8 left (ST-07)",
    )
    await game.refused(
        "kirk",
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Starboard Deflector", "points": 1},
        Invalid,
        "points",
        "Starboard shield is at 30/30: only 0 more fit under its rating, so no power is spent (ST-07)",
    )
    await game.refused(
        "kirk",
        "startrek.buy_regeneration",
        {**buy, "points": 1, "projection": "Port"},
        Invalid,
        "projection",
        "Port is not in Fore Deflector's arc",
    )
    await game.refused(
        "tomalak",
        "startrek.buy_regeneration",
        {**buy, "points": 1},
        Forbidden,
        "ship",
        "you do not command that ship",
    )
    await game.refused(
        "watcher",
        "startrek.buy_regeneration",
        {**buy, "points": 1},
        Forbidden,
        None,
        "spectators watch; they cannot act",
    )
    # Power: output 30 − systems 14 − deflectors 4×2 = 8 to buy with, 1 power a point.
    result = await game.do("kirk", "startrek.buy_regeneration", {**buy, "points": 8})
    event = result.events[0]
    assert event["text"] == (
        "Excelsior buys 8 regeneration through Fore Deflector for 8 power: Fore shield 24/40 → 32/40 (0 power "
        "left; 0 more may be bought from it this turn)."
    )
    assert (
        event["visibility"] == "owner"
        and event["hidden_text"] == "Excelsior reinforces its shields: Fore shield 24/40 → 32/40."
    )
    await game.refused(
        "kirk",
        "startrek.buy_regeneration",
        {"ship": "excelsior", "deflector": "Port Deflector", "points": 1},
        Invalid,
        "points",
        "Port Deflector regeneration needs 1 power; Excelsior has 0 left this turn",
    )
    assert await game.shields("excelsior") == {"Fore": 32, "Starboard": 30, "Aft": 30, "Port": 13}
    # What was bought is the commander's: the others read only the shield change.
    async with platform.db.reader() as session:
        battle = await get_battle(session, game.battle_id)
        state, _ = await load_state(session, game.battle_id)
        people = {p.name: p for p in await participants(session, game.battle_id)}
        seen = await visible_log(session, battle, viewer_of(people["kosh"], state), since=result.seq - 1)
    assert [e["text"] for e in seen[0].events] == [
        "Excelsior reinforces its shields: Fore shield 24/40 → 32/40."
    ]
    kosh_view = battle_view(state, viewer_of(people["kosh"], state))
    assert "power" not in kosh_view["ships"]["excelsior"]["parts"]
    assert "extra_bought" not in kosh_view["ships"]["excelsior"]["parts"]["shields"]["deflectors"][0]
    await game.do("ref", "clock.advance", {})  # → Movement
    await game.refused(
        "kirk",
        "startrek.buy_regeneration",
        {**buy, "points": 1},
        Invalid,
        None,
        "Buying shield regeneration happens in the Ship Power segment; it is now Movement",
    )
    await game.rebuilds()


async def test_ST_08_transfers_at_adjust_ship_systems(platform: Platform) -> None:
    game = await demo_game(platform)
    await game.advance_to("combat", 1)
    await game.do(
        "tomalak",
        "damage.apply",
        {"target": "excelsior", "source": "haakona", "amount": 25, "direction": "fore"},
    )
    move = {"ship": "excelsior", "source": "Starboard", "target": "Fore"}
    await game.refused(
        "kirk",
        "startrek.transfer_shields",
        {**move, "points": 5},
        Invalid,
        None,
        "shield strength moves in the Adjust Ship Systems segment (or, to a collapsed projection, in Ship Power)",
    )
    await game.do("ref", "clock.advance", {})  # GEN-01: Adjust Ship Systems comes after combat
    texts = await game.texts("kirk", "startrek.transfer_shields", {**move, "points": 10})
    assert texts == [
        "Excelsior moves 10 shield strength from Starboard to Fore: Starboard 30/30 → 20/30, Fore 15/40 → 25/40 "
        "(ST-08)."
    ]
    # Half of what Starboard held when the segment opened (30 → 15) bounds all it gives, to either side.
    await game.refused(
        "kirk",
        "startrek.transfer_shields",
        {**move, "points": 6},
        Invalid,
        "points",
        "Starboard held 30 when the segment opened: it may give 15 in all, 5 more (ST-08)",
    )
    await game.refused(
        "kirk",
        "startrek.transfer_shields",
        {"ship": "excelsior", "source": "Starboard", "target": "Port", "points": 1},
        Invalid,
        "target",
        "Port is not next to Starboard (ST-08)",
    )
    await game.refused(
        "kirk",
        "startrek.transfer_shields",
        {"ship": "excelsior", "source": "Starboard", "target": "Aft", "points": 1},
        Invalid,
        "points",
        "Aft is at 30/30: only 0 more fit (ST-08)",
    )
    texts = await game.texts("kirk", "startrek.transfer_shields", {**move, "points": 5})
    assert texts == [
        "Excelsior moves 5 shield strength from Starboard to Fore: Starboard 20/30 → 15/30, Fore 25/40 → 30/40 "
        "(ST-08)."
    ]
    texts = await game.texts(
        "kirk",
        "startrek.transfer_shields",
        {"ship": "excelsior", "source": "Port", "target": "Fore", "points": 10},
    )
    assert texts == [
        "Excelsior moves 10 shield strength from Port to Fore: Port 30/30 → 20/30, Fore 30/40 → 40/40 (ST-08)."
    ]
    assert await game.shields("excelsior") == {"Fore": 40, "Starboard": 15, "Aft": 30, "Port": 20}
    await game.rebuilds()


async def test_ST_18_warp_attempt_with_the_d100_entered(platform: Platform) -> None:
    game = await demo_game(platform)
    await game.do(
        "ref",
        "override.set",
        {
            "path": "ships.excelsior.parts.sheet.sections.1.systems.0.damage",
            "value": 18,
            "reason": "scenario",
        },
    )
    declare = {"ship": "excelsior"}
    # Physical dice: the service asks for the d100 and changes nothing until it is entered.
    needed = await game.refused(
        "kirk",
        "startrek.declare_warp",
        declare,
        RollNeeded,
        "dice",
        "roll needed: 1d100 for Port Nacelle warp check",
    )
    assert needed.extra["needed"]["sides"] == 100 and needed.extra["needed"]["ship"] == "excelsior"
    # 18 boxes destroyed: 18% — a roll of 18 fails and resets the delay to its full 3 turns.
    failed = await game.do("kirk", "startrek.declare_warp", declare, dice=[18])
    assert [e["text"] for e in failed.events] == [
        "Excelsior tries to go to warp: Port Nacelle (18% failure) rolls 18: fails; Starboard Nacelle is undamaged "
        "(0% failure). The attempt fails and the warp delay resets to 3 turns (ST-18)."
    ]
    roll = failed.events[0]["rolls"][0]
    assert (roll["dice"], roll["target"], roll["outcome"]) == ([18], "> 18 to hold", "fails")
    state, _ = await game.state()
    assert state.ships["excelsior"].parts["warp"]["counter"] == 3
    await game.refused(
        "kirk",
        "startrek.declare_warp",
        declare,
        Invalid,
        "ship",
        "Excelsior's warp delay has 3 turns to run",
        dice=[19],
    )
    # The referee undoes the failed attempt (a logged action); with 19 entered the nacelle holds.
    await game.do("ref", "battle.undo", {"reason": "replay the warp check with 19"})
    held = await game.do("kirk", "startrek.declare_warp", declare, dice=[19])
    assert [e["text"] for e in held.events] == [
        "Excelsior goes to warp: Port Nacelle (18% failure) rolls 19: holds; Starboard Nacelle is undamaged (0% "
        "failure). No weapon fires this turn; it leaves at the end of the turn (ST-17)."
    ]
    assert held.events[0]["rolls"][0]["outcome"] == "holds"
    # ST-17: no weapon fires in the turn the ship goes to warp; it leaves when the turn ends.
    await game.advance_to("combat", 1)
    await game.refused(
        "kirk",
        "damage.apply",
        {"target": "shadow-cruiser", "source": "excelsior", "amount": 10, "direction": "fore"},
        Invalid,
        "source",
        "Excelsior is going to warp this turn and may not fire (ST-17)",
    )
    await game.advance_to("adjust_systems", 1)
    texts = await game.texts("ref", "clock.advance", {})
    assert "Excelsior goes to warp and leaves the battle." in texts
    state, _ = await game.state()
    assert state.ships["excelsior"].parts["warp"]["departed"] is True
    await game.rebuilds()


async def test_ST_18_an_impossible_d100_is_refused_with_the_dice_field(platform: Platform) -> None:
    game = await demo_game(platform)
    await game.do(
        "ref",
        "override.set",
        {
            "path": "ships.excelsior.parts.sheet.sections.1.systems.0.damage",
            "value": 18,
            "reason": "scenario",
        },
    )
    await game.refused(
        "kirk",
        "startrek.declare_warp",
        {"ship": "excelsior"},
        Invalid,
        "dice",
        "a d100 cannot show 101 (die 1 for Port Nacelle warp check)",
        dice=[101],
    )


async def test_ST_25_advanced_photon_volleys(platform: Platform) -> None:
    game = await demo_game(platform)
    fire = {"ship": "thomas-paine", "launcher": LAUNCHER}
    await game.refused(
        "kirk",
        "startrek.fire_torpedoes",
        {**fire, "count": 1},
        Invalid,
        None,
        "Firing happens in the Combat segment; it is now Ship Power",
    )
    await game.advance_to("combat", 1)
    result = await game.do(
        "kirk", "startrek.fire_torpedoes", {**fire, "count": 3, "target": "shadow-cruiser"}
    )
    assert [e["text"] for e in result.events] == [
        "Thomas Paine fires 3 photon torpedoes from Advanced Photon Launcher at Shadow Cruiser: each −2 to hit "
        "(ST-25); 0 left loaded."
    ]
    assert result.events[0]["data"] == {"count": 3, "to_hit_modifier": -2, "target": "shadow-cruiser"}
    await game.refused(
        "kirk",
        "startrek.fire_torpedoes",
        {**fire, "count": 1},
        Invalid,
        "count",
        "Advanced Photon Launcher has 0 loaded",
    )
    texts = await game.texts("kirk", "startrek.load_torpedoes", {**fire, "count": 2})
    assert texts == ["Thomas Paine loads 2 photon torpedoes into Advanced Photon Launcher: 2 of 3 ready."]
    await game.refused(
        "kirk",
        "startrek.load_torpedoes",
        {**fire, "count": 2},
        Invalid,
        "count",
        "Advanced Photon Launcher holds 2 of 3: room for 1 (ST-25)",
    )
    result = await game.do("kirk", "startrek.fire_torpedoes", {**fire, "count": 2, "target": "haakona"})
    assert result.events[0]["data"]["to_hit_modifier"] == -1
    assert result.events[0]["text"].endswith("at Haakona: each −1 to hit (ST-25); 0 left loaded.")
    await game.do("kirk", "startrek.load_torpedoes", {**fire, "count": 1})
    result = await game.do("kirk", "startrek.fire_torpedoes", {**fire, "count": 1, "target": "haakona"})
    assert result.events[0]["text"].endswith("at Haakona: no penalty (ST-25); 0 left loaded.")
    await game.rebuilds()


async def test_ST_21_ST_22_cloak_at_end_of_turn_moves_hidden_until_the_battle_ends(
    platform: Platform,
) -> None:
    game = await demo_game(platform)
    await game.do("ref", "ship.move", {"ship": "haakona", "position": {"hex": "0505", "facing": 3}})
    await game.refused(
        "tomalak",
        "startrek.cloak",
        {"ship": "haakona"},
        Invalid,
        None,
        "Cloaking happens in the Adjust Ship Systems segment; it is now Ship Power",
    )
    await game.advance_to("adjust_systems", 1)
    texts = await game.texts("tomalak", "startrek.cloak", {"ship": "haakona"})
    assert texts == [
        "Haakona cloaks and leaves the board; it may not fire and its shields absorb nothing while cloaked "
        "(ST-21, ST-22)."
    ]
    await game.advance_to("movement", 2)
    moved = await game.do(
        "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": SECRET, "facing": 2, "speed": 6}}
    )
    assert moved.events[0]["visibility"] == "owner" and moved.events[0]["data"]["reveal_at_end"] is True
    await game.advance_to("combat", 2)
    await game.refused(
        "tomalak",
        "damage.apply",
        {"target": "excelsior", "source": "haakona", "amount": 5, "direction": "fore"},
        Invalid,
        "source",
        "Haakona is cloaked and may not fire (ST-21)",
    )
    await game.refused(
        "kirk",
        "damage.apply",
        {"target": "haakona", "source": "excelsior", "amount": 5, "direction": "fore"},
        Invalid,
        "target",
        "Haakona is cloaked and undetected: only flash or shredder collateral reaches it (ST-24); detect it first "
        "(ST-23)",
    )
    await game.advance_to("adjust_systems", 2)
    await game.do(
        "tomalak", "ship.move", {"ship": "haakona", "position": {"hex": "1013", "facing": 2, "speed": 6}}
    )
    texts = await game.texts("tomalak", "startrek.decloak", {"ship": "haakona"})
    assert texts == [
        "Haakona decloaks at hex 1013, facing 2, speed 6; its weapons and shields return next turn (ST-22)."
    ]

    async def seen_by(who: str) -> tuple[str, dict[str, Any]]:
        async with platform.db.reader() as session:
            battle = await get_battle(session, game.battle_id)
            state, _ = await load_state(session, game.battle_id)
            me = next(p for p in await participants(session, game.battle_id) if p.name == who)
            viewer = viewer_of(me, state)
            log = await visible_log(session, battle, viewer)
        return repr([(e.events, e.payload) for e in log]), battle_view(state, viewer)

    kirk_log, kirk_view = await seen_by("kirk")
    assert SECRET not in kirk_log and SECRET not in repr(kirk_view)
    assert kirk_log.count("A cloaked ship moves.") == 2
    assert kirk_view["ships"]["haakona"]["position"] == {"hex": "1013", "facing": 2, "speed": 6}
    tomalak_log, _ = await seen_by("tomalak")
    assert "Haakona (cloaked) moves: hex 0912, facing 2, speed 6." in tomalak_log
    referee_log, _ = await seen_by("Referee")
    assert SECRET in referee_log
    await game.do("ref", "battle.end", {"reason": "the Romulans withdraw"})
    kirk_log, _ = await seen_by("kirk")
    assert "Haakona (cloaked) moves: hex 0912, facing 2, speed 6." in kirk_log  # ST-22: open at the end
    await game.rebuilds()


async def test_ST_12_ST_15a_ST_14_a_fallen_fore_is_shored_up_and_covered_by_extended_deflectors(
    platform: Platform,
) -> None:
    game = await demo_game(platform)
    await game.advance_to("combat", 1)
    await game.do(
        "kosh",
        "damage.apply",
        {"target": "excelsior", "source": "shadow-cruiser", "amount": 70, "direction": "fore"},
    )
    await game.advance_to("ship_power", 2)  # the Fore collapsed as turn 1 ended (ST-12)
    state, _ = await game.state()
    fore = Shields.model_validate(state.ships["excelsior"].parts["shields"]).projections[0]
    assert (fore.value, fore.collapsed, fore.down_at_open) == (0, True, True)
    texts = await game.texts(
        "kirk",
        "startrek.transfer_shields",
        {"ship": "excelsior", "source": "Starboard", "target": "Fore", "points": 10},
    )
    assert texts == [
        "Excelsior moves 10 shield strength from Starboard to Fore: Starboard 30/30 → 20/30, Fore 0/40 → 10/40 "
        "(ST-15a)."
    ]
    await game.refused(
        "kirk",
        "startrek.transfer_shields",
        {"ship": "excelsior", "source": "Starboard", "target": "Aft", "points": 1},
        Invalid,
        "target",
        "in the Ship Power segment strength may only go to a projection that collapsed; Aft did not (ST-15a)",
    )
    # The Fore deflector is gone (and draws no power): 30 − 14 systems − 3 × 2 = 10 power to extend with.
    # Its free regeneration went to the Port when Ship Power opened (3 lost at the rating): the
    # extension re-values it there at 2 and does not give it again to the Fore (ST-07).
    result = await game.do(
        "kirk",
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Port Deflector", "projection": "Fore"},
    )
    event = result.events[0]
    assert event["text"] == (
        "Excelsior extends Port Deflector by 90° to cover Fore: power 2 → 6, regeneration 3 → 2 (6 power left); "
        "its free regeneration stays on Port, once per Ship Power, at its value now (ST-07): Port Deflector +0 → "
        "Port 30/30 (2 lost at the rating) (ST-14)."
    )
    assert event["visibility"] == "owner"
    assert event["hidden_text"] == "Excelsior extends Port Deflector to cover its Fore shield."
    await game.do(
        "kirk",
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Starboard Deflector", "projection": "Fore"},
    )
    await game.refused(
        "kirk",
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Aft Deflector", "projection": "Port"},
        Invalid,
        "deflector",
        "extending Aft Deflector needs 2 more power than Excelsior has this turn",
    )
    assert await game.shields("excelsior") == {"Fore": 10, "Starboard": 20, "Aft": 30, "Port": 30}
    # Guarded by the extended deflectors, the Fore does not collapse again, and they feed it next turn.
    await game.advance_to("adjust_systems", 2)
    texts = await game.texts("ref", "clock.advance", {})
    assert not any("collapse" in t for t in texts)
    assert (
        "Excelsior's deflectors regenerate its shields: Starboard Deflector +2 → Fore 12/40; Aft Deflector +0 → "
        "Aft 30/30 (3 lost at the rating); Port Deflector +2 → Fore 14/40 (ST-07)." in texts
    )
    await game.rebuilds()


async def test_ST_07_ST_14_the_demo_port_deflector_regenerates_once_per_ship_power(
    platform: Platform,
) -> None:
    """ST-07 in the demo battle: the warbird Haakona lands 17 on the Excelsior's Fore (40 → 23). Turn 2
    Ship Power opens with Fore Deflector +4 → Fore 27/40 and Port Deflector +0 → Port 30/30 (3 lost).
    Kirk extends the Port Deflector to the Fore (ST-14: power 2 → 6, value 3 → 2): its one free
    regeneration of this Ship Power stays where it went, at 2, and the Fore keeps 27 — before the
    fix it was given again, "+2 → Fore 29/40". From turn 3 the extended deflector feeds the Fore."""
    game = await demo_game(platform)
    await game.advance_to("combat", 1)
    await game.do(
        "tomalak",
        "damage.apply",
        {"target": "excelsior", "source": "haakona", "amount": 17, "direction": "fore"},
    )
    await game.advance_to("adjust_systems", 1)
    texts = await game.texts("ref", "clock.advance", {})
    assert (
        "Excelsior's deflectors regenerate its shields: Fore Deflector +4 → Fore 27/40; Starboard Deflector +0 → "
        "Starboard 30/30 (3 lost at the rating); Aft Deflector +0 → Aft 30/30 (3 lost at the rating); "
        "Port Deflector +0 → Port 30/30 (3 lost at the rating) (ST-07)."
    ) in texts
    result = await game.do(
        "kirk",
        "startrek.extend_arc",
        {"ship": "excelsior", "deflector": "Port Deflector", "projection": "Fore"},
    )
    assert [e["text"] for e in result.events] == [
        "Excelsior extends Port Deflector by 90° to cover Fore: power 2 → 6, regeneration 3 → 2 (4 power left); "
        "its free regeneration stays on Port, once per Ship Power, at its value now (ST-07): Port Deflector +0 → "
        "Port 30/30 (2 lost at the rating) (ST-14)."
    ]
    assert await game.shields("excelsior") == {"Fore": 27, "Starboard": 30, "Aft": 30, "Port": 30}
    await game.advance_to("adjust_systems", 2)
    texts = await game.texts("ref", "clock.advance", {})
    assert (
        "Excelsior's deflectors regenerate its shields: Fore Deflector +4 → Fore 31/40; Starboard Deflector +0 → "
        "Starboard 30/30 (3 lost at the rating); Aft Deflector +0 → Aft 30/30 (3 lost at the rating); "
        "Port Deflector +2 → Fore 33/40 (ST-07)."
    ) in texts
    await game.rebuilds()


async def test_ST_23_detection_with_the_referees_signature_and_ruling(platform: Platform) -> None:
    game = await demo_game(platform)
    await game.do("ref", "ship.move", {"ship": "haakona", "position": {"hex": "0506", "facing": 3}})
    await game.advance_to("adjust_systems", 1)
    await game.do("tomalak", "startrek.cloak", {"ship": "haakona"})
    await game.advance_to("combat", 2)
    detect = {"detector": "excelsior", "target": "haakona", "ew": 9, "range": 2}
    texts = await game.texts("kirk", "startrek.detect_cloak", detect)
    assert texts == ["Excelsior puts 9 EW on detecting Haakona at range 2. The referee rules (ST-23)."]
    assert await game.texts(
        "ref", "startrek.rule_detection", {"target": "haakona", "attempt": 0, "detected": False}
    )
    # The referee's copy carries the suggestion; the detector's never does (the signature is the
    # referee's, and EW and range the detector's own inputs).
    assert "the referee has not set its signature yet" in " ".join(await game.log_texts("ref"))
    assert "signature" not in " ".join(await game.log_texts("kirk"))
    await game.refused(
        "kirk",
        "startrek.set_signature",
        {"ship": "haakona", "signature": 6},
        Forbidden,
        None,
        "only the referee may set a cloak signature",
    )
    await game.do("ref", "startrek.set_signature", {"ship": "haakona", "signature": 6})
    # One attempt per detector per turn; the Thomas Paine may still search.
    await game.refused(
        "kirk",
        "startrek.detect_cloak",
        detect,
        Invalid,
        "detector",
        "Excelsior has already searched for a cloaked ship this turn (ST-23)",
    )
    texts = await game.texts("kirk", "startrek.detect_cloak", {**detect, "detector": "thomas-paine"})
    assert texts == ["Thomas Paine puts 9 EW on detecting Haakona at range 2. The referee rules (ST-23)."]
    assert (
        "For the referee — attempt 1 by Thomas Paine: suggested: EW 9 vs range 2 as entered (the map does not"
        " place both ships) + signature 6 → detected (ST-23)." in await game.log_texts("ref")
    )
    assert "signature 6" not in " ".join(await game.log_texts("kirk") + await game.log_texts("tomalak"))
    await game.refused(
        "kirk",
        "startrek.rule_detection",
        {"target": "haakona", "attempt": 1, "detected": True},
        Forbidden,
        None,
        "only the referee may rule a detection attempt",
    )
    texts = await game.texts(
        "ref", "startrek.rule_detection", {"target": "haakona", "attempt": 1, "detected": True}
    )
    assert texts == [
        "Thomas Paine detects the cloaked Haakona at hex 0506, facing 3: it may be fired at this turn with its "
        "shields down; fire outcomes are entered (ST-23, ST-23a)."
    ]
    # ST-23a: the detected ship may be fired at, and its shields absorb nothing.
    texts = await game.texts(
        "kirk",
        "damage.apply",
        {"target": "haakona", "source": "excelsior", "amount": 14, "direction": "fore"},
    )
    assert texts == [
        "Excelsior hits Haakona for 14 (fore): 4 to armour, 10 to Fore.",
        "Haakona's shields absorb nothing: it is a detected cloaked ship (ST-23a).",
    ]
    assert await game.shields("haakona") == {"Fore": 48, "Starboard": 40, "Aft": 36, "Port": 40}
    # Next turn it is lost from sight again; its last known position stays public.
    await game.advance_to("ship_power", 3)
    state, _ = await game.state()
    async with platform.db.reader() as session:
        people = {p.name: p for p in await participants(session, game.battle_id)}
    seen = battle_view(state, viewer_of(people["kirk"], state))["ships"]["haakona"]
    assert seen["position"] is None and seen["parts"]["cloak"]["last_known"] == {"hex": "0506", "facing": 3}
    await game.rebuilds()


async def test_ST_01_to_ST_05_ST_09_impulse_drives_ramming_and_projections(platform: Platform) -> None:
    game = await demo_game(platform)
    state, _ = await game.state()
    rings = {
        sid: [p.name for p in Shields.model_validate(s.parts["shields"]).projections]
        for sid, s in state.ships.items()
        if "shields" in s.parts
    }
    assert rings == {
        "excelsior": ["Fore", "Starboard", "Aft", "Port"],
        "haakona": ["Fore", "Starboard", "Aft", "Port"],
        "thomas-paine": ["Fore", "Aft"],
    }  # ST-05: 4 quadrants or 2 halves, as the data gives them
    assert state.ships["excelsior"].parts["impulse"]["gravitic"] is True  # ST-02
    await game.advance_to("movement", 1)
    thrust = {"ship": "excelsior", "manoeuvre": "accel"}
    texts = await game.texts("kirk", "startrek.thrust", {**thrust, "times": 5})
    assert texts == [
        "Excelsior spends 15 thrust to accel ×5: 15 of 12 free thrust used. 3 is bought over-thrust: a critical "
        "check is due as for standard thrusters (B5 Wars; the referee enters it, ST-01)."
    ]
    texts = await game.texts(
        "kirk", "startrek.ramming_factor", {"ship": "excelsior", "factor": 20, "direction": "fore"}
    )
    assert texts == ["Excelsior's ramming factor is 20 + Fore shield 40 = 60 (ST-09)."]
    await game.advance_to("combat", 1)
    # ST-04: impulse thrusters are not called-shot targets.
    await game.refused(
        "kosh",
        "damage.apply",
        {
            "target": "excelsior",
            "source": "shadow-cruiser",
            "amount": 10,
            "section": "Aft",
            "system": "Port Impulse Thruster",
            "effects": ["called_shot"],
        },
        Invalid,
        "system",
        "Port Impulse Thruster cannot be the target of a called shot (ST-04)",
    )
    # ST-03: both thrusters lost → every cost doubles and initiative −10 for the rest of the scenario.
    for system in ("Port Impulse Thruster", "Starboard Impulse Thruster"):
        result = await game.do(
            "tomalak",
            "damage.apply",
            {"target": "excelsior", "source": "haakona", "amount": 45, "section": "Aft", "system": system},
        )
    assert result.events[-1]["text"] == (
        "Excelsior has lost every impulse thruster: all thrust costs double and initiative is −10 for the rest of "
        "the scenario (ST-03)."
    )
    await game.advance_to("movement", 2)
    texts = await game.texts("kirk", "startrek.thrust", thrust)
    assert texts == [
        "Excelsior spends 6 thrust to accel (doubled: no impulse thrusters, ST-03): 6 of 12 free thrust used."
    ]
    texts = await game.texts(
        "kirk", "startrek.thrust", {"ship": "excelsior", "manoeuvre": "turn", "speed": 6}
    )
    assert texts[0].startswith(
        "Excelsior spends 12 thrust to turn at speed 6 (doubled: no impulse thrusters, ST-03)"
    )
    await game.rebuilds()


async def test_ST_10_ST_11_ST_13_spline_picks_generator_loss_and_energy_drain(platform: Platform) -> None:
    game = await demo_game(platform)
    await game.advance_to("combat", 1)
    hit = {"target": "excelsior", "source": "haakona"}
    # ST-10: fire from a spline names one projection; it is never split.
    await game.refused(
        "tomalak",
        "damage.apply",
        {**hit, "amount": 50, "direction": "fore/port"},
        Invalid,
        "direction",
        "fire from 'fore/port' is on a shield spline: the defender names one projection (Fore or Port) as the "
        "direction; one unit's fire is never split (ST-10)",
    )
    texts = await game.texts("tomalak", "damage.apply", {**hit, "amount": 35, "direction": "Port"})
    assert texts[1] == "Excelsior: 30 fill Port shield (30/30 → 0/30), 5 reach the ship."
    # ST-13: an energy drain of 2 scores 20 on the shield; not more than it holds: no bleed-through.
    texts = await game.texts(
        "tomalak", "damage.apply", {**hit, "amount": 2, "direction": "aft", "effects": ["energy_drain"]}
    )
    assert texts[1] == (
        "Excelsior: energy drain scores 10× on shields — 20 scored on Aft shield (30/30 → "
        "10/30); no bleed-through (ST-13)."
    )
    texts = await game.texts(
        "tomalak", "damage.apply", {**hit, "amount": 2, "direction": "aft", "effects": ["energy_drain"]}
    )
    assert texts[1] == (
        "Excelsior: energy drain scores 10× on shields — 20 overkills Aft shield (10/30 → "
        "0/30): the weapon bleeds through and may roll to hit again, a free shot (ST-13)."
    )
    # ST-11: the shield generator destroyed drops every projection at once.
    result = await game.do(
        "tomalak",
        "damage.apply",
        {**hit, "amount": 50, "direction": "fore", "section": "Primary", "system": "Shield Generator"},
    )
    assert (
        "Excelsior's shield generator (Shield Generator) is destroyed: every shield projection falls (ST-11)."
        in [e["text"] for e in result.events]
    )
    assert await game.shields("excelsior") == {"Fore": 0, "Starboard": 0, "Aft": 0, "Port": 0}
    texts = await game.texts("tomalak", "damage.apply", {**hit, "amount": 3, "direction": "starboard"})
    assert texts[1] == "Excelsior's shields absorb nothing: its shield generator is gone (ST-11)."
    await game.rebuilds()


async def test_ST_19_ST_20_ST_21a_nacelles_and_a_cloak_that_keeps_fighting(platform: Platform) -> None:
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(
            session,
            "ST nacelles",
            "b5wars",
            dice_mode="physical",
            options={"players_advance_clock": "always"},
        )
        kirk = await add_participant(session, battle, "kirk", "player")
        tomalak = await add_participant(session, battle, "tomalak", "player")
    game = Game(
        platform,
        battle.id,
        {"ref": ref.participant.id, "kirk": kirk.participant.id, "tomalak": tomalak.participant.id},
    )
    refit = ship_def("excelsior")
    refit["parts"]["sheet"]["sections"][2]["systems"].append(
        {"name": "Dorsal Nacelle", "kind": "nacelle", "boxes": 20}
    )
    await game.do("ref", "ship.add", {"definition": refit, "owner": game.ids["kirk"]})
    raider = ship_def("romulan-warbird")
    raider["parts"]["cloak"].update({"may_fire": True, "keeps_shields": True})  # ST-21a: the data overrides
    await game.do("ref", "ship.add", {"definition": raider, "owner": game.ids["tomalak"]})
    # ST-20: more than two working nacelles → one may be shut down per turn, +1 to the delay.
    texts = await game.texts(
        "kirk", "startrek.shutdown_nacelle", {"ship": "excelsior", "nacelle": "Dorsal Nacelle"}
    )
    assert texts == [
        "Excelsior shuts down Dorsal Nacelle: warp delay +1, 1 turn to wait; it is skipped in warp checks (ST-20)."
    ]
    await game.refused(
        "kirk",
        "startrek.shutdown_nacelle",
        {"ship": "excelsior", "nacelle": "Port Nacelle"},
        Invalid,
        "ship",
        "Excelsior needs more than two working nacelles to shut one down (ST-20)",
    )
    await game.refused(
        "kirk",
        "startrek.declare_warp",
        {"ship": "excelsior"},
        Invalid,
        "ship",
        "Excelsior's warp delay has 1 turn to run",
    )
    # ST-21a: a warbird whose data lets it fire and keep shields while cloaked.
    await game.advance_to("adjust_systems", 1)
    texts = await game.texts("tomalak", "startrek.cloak", {"ship": "haakona"})
    assert texts == ["Haakona cloaks and leaves the board (ST-21, ST-22)."]
    await game.advance_to("combat", 2)
    # ST-19: the Port Nacelle destroyed: +2 to the delay (no reset).
    result = await game.do(
        "tomalak",
        "damage.apply",
        {
            "target": "excelsior",
            "source": "haakona",
            "amount": 53,
            "direction": "port",
            "system": "Port Nacelle",
        },
    )
    assert (
        result.events[-1]["text"]
        == "Excelsior's Port Nacelle is destroyed: warp delay +2, 2 turns to wait (ST-19)."
    )
    await game.advance_to("ship_power", 4)
    state, _ = await game.state()
    assert state.ships["excelsior"].parts["warp"]["counter"] == 0
    # Built with three, one shut down and one destroyed: a single working nacelle cannot take it to warp.
    await game.refused(
        "kirk",
        "startrek.declare_warp",
        {"ship": "excelsior"},
        Invalid,
        "ship",
        "Excelsior has 1 working nacelle and needs 2 to go to warp (ST-19)",
    )
    await game.rebuilds()


async def test_ST_24_flash_collateral_reveals_a_cloaked_ship(platform: Platform) -> None:
    game = await demo_game(platform)
    await game.do("ref", "ship.move", {"ship": "haakona", "position": {"hex": "0707", "facing": 1}})
    await game.advance_to("adjust_systems", 1)
    await game.do("tomalak", "startrek.cloak", {"ship": "haakona"})
    await game.advance_to("combat", 2)
    result = await game.do(
        "kirk",
        "damage.apply",
        {"target": "haakona", "source": "excelsior", "amount": 6, "direction": "aft", "effects": ["flash"]},
    )
    assert [e["text"] for e in result.events] == [
        "Excelsior hits Haakona for 6 (aft): 3 to armour, 3 to Aft.",
        "Collateral flash damage reveals the cloaked Haakona at hex 0707, facing 1; it could not be the target of "
        "that fire (ST-24).",
        "Haakona's shields absorb nothing: it is cloaked (ST-21).",
    ]
    # Revealed: its position is public for this turn; the next turn it is hidden again.
    state, _ = await game.state()
    async with platform.db.reader() as session:
        people = {p.name: p for p in await participants(session, game.battle_id)}
    assert battle_view(state, viewer_of(people["kirk"], state))["ships"]["haakona"]["position"] == {
        "hex": "0707",
        "facing": 1,
    }
    await game.advance_to("ship_power", 3)
    state, _ = await game.state()
    assert battle_view(state, viewer_of(people["kirk"], state))["ships"]["haakona"]["position"] is None
    await game.rebuilds()
