"""Order effects (TR-27), bridge and power-plant hits (TR-19), computer hits on initiative, individual
missile attacks (TR-01) and the sand, pebble, shockwave and ortillery barrage rows, driven through
apply_action with scripted dice and checked number by number."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from app.rules.core import Actor, RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import (
    KESTREL_ACTOR,
    TIGRESS_ACTOR,
    act,
    advance_to,
    battle,
    beam_shot,
    capital,
    hg,
    section,
)

ROOT_LIBRARY = __import__("pathlib").Path(__file__).resolve().parents[3] / "app" / "shipdata" / "library"
GUARD_ACTOR = Actor("p-guard", "player", frozenset({"guard"}))
FLIGHT_ACTOR = Actor("p-flight", "player", frozenset({"red-flight"}))


def on_side(definition: dict[str, Any], side: str) -> dict[str, Any]:
    definition["side"] = side
    return definition


def flight(name: str = "Red Flight", side: str = "B") -> dict[str, Any]:
    data = json.loads((ROOT_LIBRARY / "tr-red-flight.json").read_text())
    data["name"], data["side"] = name, side
    return data


def give(state: BattleState, ship: str, *orders: str | tuple[str, str]) -> BattleState:
    """This round's revealed orders, as the reveal leaves them (the path that gives them is tested in
    test_orders.py; here only their effects are)."""
    part_name = "flight" if "flight" in state.ships[ship].parts else "hg_ship"
    part = state.ships[ship].parts[part_name]
    choices = [{"order": o} if isinstance(o, str) else {"order": o[0], "target": o[1]} for o in orders]
    part["round"] = {**copy.deepcopy(part.get("round") or {}), "turn": state.clock.turn}
    part["round"].update({"orders": choices, "committed": True, "revealed": True})
    return state


def two(**options: Any) -> BattleState:
    return battle(
        on_side(capital("Kestrel", jump=3), "A"),
        on_side(capital("Tigress"), "B"),
        owners=("p-kestrel", "p-tigress"),
        **options,
    )


def beam(state: BattleState, dice: list[int], **payload: Any):  # type: ignore[no-untyped-def]
    return act(state, "traveller.barrage", beam_shot(**payload), KESTREL_ACTOR, dice)


# --- TR-19 bridge, power plant; TR-27 Maximum Speed ------------------------------------------------


def test_TR_27_maximum_speed_gives_one_more_thrust_this_round() -> None:
    state = two()
    state = act(state, "traveller.initiative", {}, dice=[5, 2]).state  # Kestrel 7, Tigress 4
    state = act(
        state,
        "traveller.orders",
        {"ship": "kestrel", "orders": [{"order": "maximum_speed"}], "commit": True},
        KESTREL_ACTOR,
    ).state
    state = act(
        state, "traveller.orders", {"ship": "tigress", "orders": [], "commit": True}, TIGRESS_ACTOR
    ).state
    state = advance_to(state, "manoeuvre").state
    move = {"ship": "kestrel", "thrust": 6, "description": "closes to Short"}
    with pytest.raises(
        RuleError, match=r"^Kestrel has 5 Thrust left \(Thrust 5 this round, \+1 Maximum Speed, 0 spent\)$"
    ):
        act(state, "traveller.manoeuvre", move, KESTREL_ACTOR)
    done = act(state, "traveller.manoeuvre", {**move, "thrust": 5}, KESTREL_ACTOR)
    assert done.texts == ["Kestrel spends 5 Thrust: closes to Short (0 left this round)."]
    assert hg(done.state, "kestrel")["round"]["thrust_used"] == 5
    with pytest.raises(RuleError, match=r"Tigress has 4 Thrust left \(Thrust 4 this round, 0 spent\)"):
        act(done.state, "traveller.manoeuvre", {**move, "ship": "tigress"}, TIGRESS_ACTOR)
    # Thrust is for the manoeuvre step; the combat step spends it on dodges only.
    state = advance_to(done.state, "combat").state
    with pytest.raises(RuleError, match="spent in the manoeuvre step"):
        act(state, "traveller.manoeuvre", {**move, "ship": "tigress", "thrust": 1}, TIGRESS_ACTOR)


def test_TR_19_a_bridge_hit_grounds_the_ship_next_round_only() -> None:
    state = two(orders=False)
    done = act(
        state, "traveller.entered_hit", {"target": "kestrel", "section": "Forward", "system": "command"}
    )
    assert done.texts == [
        "An attacker hits Kestrel (Forward): bridge hit 1: no manoeuvre or jump in round 2."
    ]
    move = {"ship": "kestrel", "thrust": 1, "description": "turns away"}
    state = advance_to(done.state, "manoeuvre").state
    assert act(state, "traveller.manoeuvre", move, KESTREL_ACTOR).texts == [
        "Kestrel spends 1 Thrust: turns away (3 left this round)."
    ]
    state = advance_to(state, "manoeuvre", turn=2).state
    with pytest.raises(
        RuleError, match=r"^the bridge hit grounds Kestrel this round: no manoeuvre \(TR-19\)$"
    ):
        act(state, "traveller.manoeuvre", move, KESTREL_ACTOR)
    state = advance_to(state, "combat", turn=2).state
    with pytest.raises(RuleError, match="no dodging"):
        act(state, "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR)
    state = advance_to(state, "ship_action", turn=2).state
    with pytest.raises(RuleError, match="no jump"):
        act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR)
    state = advance_to(state, "manoeuvre", turn=3).state
    assert (
        act(state, "traveller.manoeuvre", move, KESTREL_ACTOR).texts[0].startswith("Kestrel spends 1 Thrust")
    )


def test_TR_19_power_plant_hits_cut_energy_weapons_thrust_and_jump_to_the_power_share() -> None:
    state = two(orders=False)
    for _ in range(2):
        state = act(
            state,
            "traveller.entered_hit",
            {"target": "kestrel", "section": "Engineering", "system": "power_plant"},
        ).state
    assert hg(state, "kestrel")["power"] == 7  # 10 − 1 − 2
    state = advance_to(state, "manoeuvre").state
    # Thrust 4 × 7/10 = 2.
    with pytest.raises(
        RuleError, match=r"^Kestrel has 2 Thrust left \(Thrust 2 this round, Power 7/10, 0 spent\)$"
    ):
        act(
            state,
            "traveller.manoeuvre",
            {"ship": "kestrel", "thrust": 3, "description": "runs"},
            KESTREL_ACTOR,
        )
    state = advance_to(state, "combat").state
    # 25 beam lasers × 7/10 = 17 a round, below the configuration's 20.
    with pytest.raises(RuleError) as err:
        beam(state, [], mounts=18)
    assert err.value.message == (
        "only 17 of 25 Turret: Beam Laser mounts may fire at this target (Power 7/10: 17 energy mounts a round)"
    )
    assert beam(state, [1, 1, 1], mounts=17).texts[0].startswith("barrage 17–Beam Laser–Medium–1")
    # Jump 3 × 7/10 = 2 still jumps: Engineering (jump) with the crew DMs.
    state = advance_to(state, "ship_action").state
    done = act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR, [4, 2])
    assert done.texts == [
        "Kestrel attempts to jump: Engineering (jump) 2D 6 + Crew Skill +2 = 8 vs 8+ → success (Effect 0):"
        " Kestrel jumps out of the battle (Jump-2)."
    ]
    # A third hit disables the ship: it neither moves nor fires.
    state = act(
        state,
        "traveller.entered_hit",
        {"target": "kestrel", "section": "Engineering", "system": "power_plant", "core_rules": False},
    ).state
    assert hg(state, "kestrel")["disabled"] is True
    with pytest.raises(RuleError, match="disabled"):
        act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR)


def test_TR_27_prepare_for_jump_adds_2_and_a_jumped_ship_leaves_the_battle() -> None:
    state = two(orders=False)
    state = act(
        state,
        "traveller.entered_hit",
        {"target": "kestrel", "section": "Engineering", "system": "j_drive"},
        dice=[3],
    ).state
    state = advance_to(state, "ship_action").state
    state = give(state, "kestrel", "prepare_jump")
    failed = act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR, [4, 2])
    assert failed.texts == [
        "Kestrel attempts to jump: Engineering (jump) 2D 6 + Crew Skill +2 + J-Drive hit −3 + Prepare for Jump! +2"
        " = 7 vs 8+ → failure (Effect −1): the jump fails (what that means is the core rules')."
    ]
    with pytest.raises(RuleError, match="has made its jump attempt this round"):
        act(failed.state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR)
    state = advance_to(failed.state, "ship_action", turn=2).state
    done = act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR, [5, 4])
    assert done.texts[0].endswith("= 8 vs 8+ → success (Effect 0): Kestrel jumps out of the battle (Jump-3).")
    assert hg(done.state, "kestrel")["jumped"] == 2
    state = advance_to(done.state, "combat", turn=3).state
    with pytest.raises(RuleError, match="Kestrel has jumped out of the battle"):
        act(
            state,
            "traveller.barrage",
            {
                "ship": "tigress",
                "battery": "beam",
                "mounts": 20,
                "target": "kestrel",
                "range": "medium",
                "adjacent": "fore",
            },
            TIGRESS_ACTOR,
        )
    # A second J-drive hit disables the drive.
    state = act(
        state,
        "traveller.entered_hit",
        {"target": "tigress", "section": "Engineering", "system": "j_drive"},
        dice=[2],
    ).state
    state = act(
        state, "traveller.entered_hit", {"target": "tigress", "section": "Engineering", "system": "j_drive"}
    ).state
    state.ships["tigress"].parts["hg_ship"]["jump"] = 2
    state = advance_to(state, "ship_action", turn=3).state
    with pytest.raises(RuleError, match=r"Tigress's J-Drive is disabled \(TR-19\)"):
        act(state, "traveller.jump", {"ship": "tigress"}, TIGRESS_ACTOR)


# --- TR-27 dodges: Evasive Action ---------------------------------------------------------------------


def test_TR_27_evasive_action_pays_for_dodges_without_reactions() -> None:
    kestrel = on_side(capital("Kestrel"), "A")
    kestrel["parts"]["hg_ship"]["batteries"].append(
        {"id": "missiles", "weapon": "missile_turret", "mounts": 20, "tons": 20, "sections": ["Main"]}
    )
    state = battle(
        kestrel, on_side(capital("Tigress"), "B"), owners=("p-kestrel", "p-tigress"), enforce_loop=False
    )
    state = act(state, "traveller.initiative", {}, dice=[5, 6]).state  # Kestrel 7, Tigress 8
    orders = [{"order": "evasive_action"}, {"order": "evasive_action"}]
    state = act(
        state, "traveller.orders", {"ship": "tigress", "orders": orders, "commit": True}, TIGRESS_ACTOR
    ).state
    state = act(
        state, "traveller.orders", {"ship": "kestrel", "orders": [], "commit": True}, KESTREL_ACTOR
    ).state
    state = advance_to(state, "combat").state
    assert hg(state, "tigress")["round"]["initiative"] == 0  # 8 − 4 − 4: one reaction
    done = act(state, "traveller.dodge", {"ship": "tigress"}, TIGRESS_ACTOR, [4, 3])
    assert done.texts == [
        "Tigress dodges (Evasive Action Thrust (1 left), no reaction): Pilot 2D 7 + Crew Skill +2 = 9 vs 8+"
        " → success (Effect +1): the next attack on it this round takes −2."
    ]
    with pytest.raises(RuleError, match="has a dodge waiting for the next attack already"):
        act(done.state, "traveller.dodge", {"ship": "tigress"}, TIGRESS_ACTOR)
    with pytest.raises(RuleError, match="its own Pilot check sets the dodge DM"):
        beam(done.state, [], dodge_dm=-2)
    # The next attack meets the dodge, and uses it up.
    fired = beam(done.state, [3, 4, 4])
    assert fired.texts[0] == (
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 7 + range 0 + FC +2 + Gunner +2 + dodge −2 + (1 − armour 6)"
        " = 4 → 25% → 5 damage → location 1d6 4: Main; 3 to Main Hull 66→63; 2 to Forward Hull 66→64"
    )
    assert hg(fired.state, "tigress")["round"]["dodge"] is None
    # Second Evasive Action point: the Pilot check fails, and the next attack meets no dodge.
    done = act(fired.state, "traveller.dodge", {"ship": "tigress"}, TIGRESS_ACTOR, [1, 1])
    assert done.texts[0].endswith("→ failure (Effect −4): no effect.")
    missiles = {
        "ship": "kestrel",
        "battery": "missiles",
        "mounts": 16,
        "target": "tigress",
        "range": "medium",
        "adjacent": "fore",
    }
    fired = act(done.state, "traveller.barrage", missiles, KESTREL_ACTOR, [3, 3, 1])
    assert "dodge" not in fired.texts[0]
    # No Evasive Action left: a dodge now costs a Thrust and the one reaction.
    done = act(fired.state, "traveller.dodge", {"ship": "tigress"}, TIGRESS_ACTOR, [6, 6])
    assert done.texts[0].startswith("Tigress dodges (1 Thrust, reaction 1 of 1): Pilot 2D 12")
    rnd = hg(done.state, "tigress")["round"]
    assert (rnd["evasive_used"], rnd["thrust_used"], rnd["reactions_used"]) == (2, 1, 1)


# --- TR-27 Escort Defence, Fighter Screen, Blast Them As They Launch! --------------------------------


def escorted(**guard: Any) -> BattleState:
    state = battle(
        on_side(
            capital(
                "Kestrel",
                batteries=[
                    {"id": "beam", "weapon": "beam_laser", "mounts": 25, "tons": 25, "sections": ["Main"]},
                    {
                        "id": "fusion",
                        "weapon": "fusion_bay_50",
                        "mounts": 10,
                        "tons": 500,
                        "sections": ["Main"],
                    },
                ],
            ),
            "A",
        ),
        on_side(capital("Tigress", armour=8), "B"),
        on_side(capital("Guard", **guard), "B"),
        owners=("p-kestrel", "p-tigress", "p-guard"),
        enforce_loop=False,
    )
    return advance_to(state, "combat").state


def test_TR_27_escort_defence_lends_its_sand_and_screens_to_the_ship_it_guards() -> None:
    dampers = [{"id": "dampers", "kind": "nuclear_damper", "count": 1, "sections": ["Main"]}]
    state = escorted(sandcasters=30, screens=dampers)
    # Without the order the Guard's sand does nothing for Tigress: no sand die is asked for.
    assert "sand" not in beam(state, [3, 4, 4]).texts[0]
    state = give(state, "guard", ("escort_defence", "tigress"))
    # 30 of the Guard's sandcasters against 20 lasers: ≥ 110% → +2; 1d6 3 + 2 = 5.
    done = beam(state, [3, 6, 6, 4])
    assert done.texts[0] == (
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 12 + range 0 + FC +2 + Gunner +2"
        " + (1 − armour 8 − sand (with Guard) 5) = 4 → 25% → 5 damage → location 1d6 4: Main;"
        " 3 to Main Hull 66→63; 2 to Forward Hull 66→64"
    )
    # The Guard's nuclear damper (2 points) covers Tigress against fusion guns.
    fusion = {
        "ship": "kestrel",
        "battery": "fusion",
        "mounts": 8,
        "target": "tigress",
        "range": "medium",
        "adjacent": "fore",
    }
    done = act(done.state, "traveller.barrage", fusion, KESTREL_ACTOR, [6, 6, 4, 3, 3, 4, 4])
    assert done.texts == [
        "barrage 8–Fusion Gun Bay–Medium–5 at Tigress: 2D 12 + range 0 + FC +2 + Gunner +2"
        " + (5 − armour 8 − screens (with Guard) 2) = 11 → 200% → 16 damage → location 1d6 4: Main;"
        " 8 to Main Hull 63→55; 8 to Forward Hull 64→56",
        "Tigress Main section hit (External, 2D 6): Hull — +8 Hull damage: Main Hull 55→47.",
        "Tigress Forward section hit (External, 2D 8): Hull — +8 Hull damage: Forward Hull 56→48.",
        "Tigress shrugs off 16 radiation: armour 8 (TR-21).",
    ]
    # Escort Defence guards a friendly ship only (checked when the order is given).
    orders_step = battle(
        on_side(capital("Kestrel"), "A"), on_side(capital("Guard"), "B"), owners=("p-kestrel", "p-guard")
    )
    orders_step = act(orders_step, "traveller.initiative", {}, dice=[6, 6]).state
    escort = {"ship": "guard", "orders": [{"order": "escort_defence", "target": "kestrel"}]}
    with pytest.raises(RuleError, match="Escort Defence protects a friendly ship"):
        act(orders_step, "traveller.orders", escort, GUARD_ACTOR)


def test_TR_27_fighter_screen_lends_laser_point_defence_and_stops_strafing_runs() -> None:
    kestrel = on_side(capital("Kestrel"), "A")
    kestrel["parts"]["hg_ship"]["batteries"] = [
        {"id": "missiles", "weapon": "missile_turret", "mounts": 25, "tons": 25, "sections": ["Main"]}
    ]
    state = battle(
        kestrel,
        on_side(capital("Tigress"), "B"),
        flight("Red Flight", "B"),
        flight("Blue Flight", "A"),
        owners=("p-kestrel", "p-tigress", "p-flight", "p-blue"),
        enforce_loop=False,
    )
    state = advance_to(state, "combat").state
    state = give(state, "red-flight", ("fighter_screen", "tigress"))
    state = give(state, "blue-flight", "fast_strafing_run")
    # 12 pulse lasers (1 per craft) as point defence against 20 missiles: ≤ 90% → −1; 1d6 5 − 1 = 4.
    missiles = {
        "ship": "kestrel",
        "battery": "missiles",
        "mounts": 20,
        "target": "tigress",
        "range": "medium",
        "adjacent": "fore",
    }
    done = act(state, "traveller.barrage", missiles, KESTREL_ACTOR, [5, 6, 6, 1])
    assert done.texts[0] == (
        "barrage 20–Missile–Medium–1 at Tigress: 2D 12 + range 0 + FC +2 + Gunner +2"
        " + (1 − armour 6 − point defence (with Red Flight) 4) = 7 → 100% → 20 damage → location 1d6 1:"
        " Engineering; 10 to Engineering Hull 66→56; 10 to Main Hull 66→56"
    )
    # Blue Flight's strafing run finds Tigress screened: no +2 (it would have made 11, not 9).
    strafe = {
        "ship": "blue-flight",
        "battery": "pulse-lasers",
        "mounts": 12,
        "target": "tigress",
        "range": "close",
        "adjacent": "fore",
    }
    done = act(
        done.state,
        "traveller.barrage",
        strafe,
        Actor("p-blue", "player", frozenset({"blue-flight"})),
        [6, 6, 6, 3, 3, 3, 3],
    )
    assert done.texts[0].startswith(
        "barrage 12–Pulse Laser–Close–2 at Tigress: 2D 12 + range 0 + FC +1 + Gunner +2 + weapon −2"
        " + (2 − armour 6) = 9 → 150% → 18 damage"
    )
    # Against an unscreened ship the run gives its +2.
    unscreened = give(copy.deepcopy(state), "red-flight")
    done = act(
        unscreened,
        "traveller.barrage",
        strafe,
        Actor("p-blue", "player", frozenset({"blue-flight"})),
        [1, 1, 1],
    )
    assert "Fast Strafing Run +2" in done.texts[0]


def carrier_in_combat() -> BattleState:
    """Kestrel (A) against Tigress (B) carrying Red Flight, in the combat step, the loop not enforced."""
    state = battle(
        on_side(capital("Kestrel"), "A"),
        on_side(capital("Tigress"), "B"),
        flight("Red Flight", "B"),
        owners=("p-kestrel", "p-tigress", "p-flight"),
        enforce_loop=False,
    )
    return advance_to(state, "combat").state


def test_TR_27_blast_them_as_they_launch_stops_launched_craft_dodging() -> None:
    state = carrier_in_combat()
    done = act(state, "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, FLIGHT_ACTOR)
    assert done.texts == ["Red Flight launches from Tigress."]
    state = give(done.state, "kestrel", ("blast_them", "tigress"))
    with pytest.raises(RuleError) as err:
        act(state, "traveller.dodge", {"ship": "red-flight"}, FLIGHT_ACTOR)
    assert err.value.message == (
        "Kestrel blasts the craft launching from Tigress: Red Flight may not dodge this round"
        " (Blast Them As They Launch!)"
    )
    with pytest.raises(RuleError, match="may not dodge this round"):
        beam(state, [], mounts=10, target="red-flight", dodge_dm=-2)
    # Without the order the flight dodges as usual: Pilot with its average skill 2.
    free = give(copy.deepcopy(done.state), "kestrel")
    assert (
        act(free, "traveller.dodge", {"ship": "red-flight"}, FLIGHT_ACTOR, [4, 4])
        .texts[0]
        .startswith("Red Flight dodges (1 Thrust, reaction 1 of 1): Pilot 2D 8 + Crew Skill +2 = 10")
    )
    # Next round the craft are no longer launching.
    state = advance_to(state, "combat", turn=2).state
    state = give(state, "kestrel", ("blast_them", "tigress"))
    assert (
        act(state, "traveller.dodge", {"ship": "red-flight"}, FLIGHT_ACTOR, [1, 1])
        .texts[0]
        .endswith("no effect.")
    )


# --- TR-27 Abandon Ship, Board Them!, Repel Boarders ------------------------------------------------


def test_TR_27_prepare_to_abandon_ship_saves_the_crew_of_a_ship_destroyed_that_round() -> None:
    state = two()
    state = act(state, "traveller.initiative", {}, dice=[5, 5]).state
    state = act(
        state,
        "traveller.orders",
        {"ship": "tigress", "orders": [{"order": "abandon_ship"}], "commit": True},
        TIGRESS_ACTOR,
    ).state
    state = act(
        state, "traveller.orders", {"ship": "kestrel", "orders": [], "commit": True}, KESTREL_ACTOR
    ).state
    state = advance_to(state, "combat").state
    for name in ("tigress", "kestrel"):
        state = act(
            state, "traveller.entered_hit", {"target": name, "section": "Main", "hull_damage": 200}
        ).state
    assert section(state, "tigress", "Main")["structure"] == 0
    # The referee rules in the next round: the order was given in the round the section was lost.
    state = advance_to(state, "orders", turn=2).state
    done = act(state, "traveller.rule_ship", {"ship": "tigress", "outcome": "destroyed"})
    assert done.texts == [
        "The referee rules Tigress destroyed (TR-17).",
        "Tigress's surviving crew reach the lifeboats and escape pods (Prepare to Abandon Ship!).",
    ]
    assert hg(done.state, "tigress")["crew_escaped"] is True
    done = act(done.state, "traveller.rule_ship", {"ship": "kestrel", "outcome": "destroyed"})
    assert done.texts == ["The referee rules Kestrel destroyed (TR-17)."]
    assert hg(done.state, "kestrel")["crew_escaped"] is False


def test_TR_27_board_them_and_repel_boarders_are_written_on_the_boarding_action() -> None:
    state = advance_to(two(enforce_loop=False), "combat").state
    state = give(give(state, "kestrel", "board_them"), "tigress", "repel_boarders")
    done = act(
        state,
        "traveller.board",
        {"ship": "kestrel", "target": "tigress", "outcome": "marines hold the hangar."},
        KESTREL_ACTOR,
    )
    assert done.texts == [
        "Kestrel boards Tigress: marines hold the hangar — Board Them! ordered; Boarding Action table:"
        " Tigress +1 DM (Prepare to Repel Boarders!)."
    ]
    assert done.events[0].data["repel_dm"] == 1
    assert hg(done.state, "kestrel")["round"]["actions"] == 1  # boarding takes the combat action (TR-04)


# --- TR-19 computer hits on initiative; TR-26 reveal without initiative --------------------------------


def test_TR_19_computer_hits_count_against_the_initiative_roll() -> None:
    state = two()
    state.ships["kestrel"].parts["hg_ship"]["systems"]["computer"] = 1
    state.ships["tigress"].parts["hg_ship"]["systems"]["computer"] = 2
    done = act(state, "traveller.initiative", {}, dice=[5, 4, 3])
    assert done.texts == [
        "Kestrel initiative: 1D 5 + Crew Skill +2 + computer −1 = 6 → reactions 2.",
        "Tigress initiative: 1D 4 + Crew Skill +2 + computer −3 = 3 → reactions 1.",
    ]
    assert [(r.purpose, r.total) for r in done.events[1].rolls] == [
        ("initiative", 4),
        ("computer damage DM", 3),
    ]


def test_TR_26_a_reveal_before_initiative_leaves_it_unrolled() -> None:
    done = advance_to(two(), "manoeuvre")
    assert done.texts[0] == (
        "The orders step ends; orders revealed: Kestrel (not committed): no orders — initiative not rolled;"
        " Tigress (not committed): no orders — initiative not rolled."
    )
    assert hg(done.state, "kestrel")["round"]["initiative"] is None


# --- TR-01 individual missiles; sand, pebbles, shockwave and ortillery rows ------------------------------


def gig() -> dict[str, Any]:
    return {
        "name": "Gig",
        "klass": "test",
        "system": "traveller",
        "side": "B",
        "parts": {
            "hg_ship": {
                "kind": "spacecraft",
                "displacement": 400,
                "crew_skill": 1,
                "fire_control": 1,
                "thrust": 6,
                "sections": [{"name": "Hull", "hull_max": 8, "structure_max": 8}],
                "batteries": [{"id": "missiles", "weapon": "missile_turret", "mounts": 2}],
            }
        },
    }


def test_TR_01_TR_01a_individual_missiles_roll_accuracy_then_the_to_hit_number() -> None:
    kestrel = on_side(capital("Kestrel"), "A")
    kestrel["parts"]["hg_ship"]["batteries"].append(
        {"id": "missiles", "weapon": "missile_turret", "mounts": 20, "sections": ["Main"]}
    )
    state = battle(kestrel, gig(), owners=("p-kestrel", "p-gig"), enforce_loop=False)
    state = advance_to(state, "combat").state
    gig_actor = Actor("p-gig", "player", frozenset({"gig"}))
    shot = {"ship": "gig", "battery": "missiles", "target": "kestrel", "range": "long", "missiles": 2}
    done = act(state, "traveller.missile", shot, gig_actor, [4, 4, 3, 3, 1, 2, 6, 5])
    assert done.texts == [
        "Gig fires 2 Missiles at Kestrel at Long (individual attacks, TR-01): missile 1: accuracy 2D 8 + Gunner +1"
        " + range 0 + FC +1 = 10 vs 8+ → success (Effect +2) → to hit 7+: 2D 6 → miss; missile 2: accuracy"
        " 2D 3 + Gunner +1 + range 0 + FC +1 = 5 vs 8+ → failure (Effect −3) → to hit 10+: 2D 11 → hit."
        " 1 hit: resolve the damage by the core rules and enter it (GEN-03)."
    ]
    assert done.events[0].data == {"hits": 1}
    with pytest.raises(RuleError, match="has 2 Missile launchers ready"):
        act(state, "traveller.missile", {**shot, "missiles": 3}, gig_actor)
    with pytest.raises(RuleError, match=r"Missile cannot engage at Close range \(TR-02\)"):
        act(state, "traveller.missile", {**shot, "range": "close"}, gig_actor)
    with pytest.raises(RuleError, match=r"individual missile attacks only \(TR-01a\)"):
        act(state, "traveller.missile", {**shot, "ship": "kestrel", "target": "gig"}, KESTREL_ACTOR)


def rows_battle() -> BattleState:
    batteries = [
        {"id": "sand", "weapon": "sandcaster", "mounts": 40, "sections": ["Main"]},
        {"id": "pebbles", "weapon": "sandcaster", "ammo": "pebbles", "mounts": 20, "sections": ["Main"]},
        {
            "id": "shockwave",
            "weapon": "missile_turret",
            "ammo": "shockwave",
            "mounts": 20,
            "sections": ["Main"],
        },
        {
            "id": "ortillery",
            "weapon": "missile_turret",
            "ammo": "ortillery",
            "mounts": 10,
            "sections": ["Forward"],
        },
        {"id": "beam", "weapon": "beam_laser", "mounts": 25, "sections": ["Forward"]},
    ]
    state = battle(
        on_side(capital("Kestrel", batteries=batteries), "A"),
        on_side(capital("Tigress", sandcasters=30), "B"),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
    )
    return advance_to(state, "combat").state


def test_TR_05_TR_02a_sandcaster_and_pebble_barrages_count_one_die_per_4_or_2_and_reach_close() -> None:
    state = rows_battle()
    shot = {
        "ship": "kestrel",
        "battery": "sand",
        "mounts": 32,
        "target": "tigress",
        "range": "medium",
        "adjacent": "fore",
    }
    with pytest.raises(RuleError, match=r"Turret: Sandcaster reaches no further than Close \(TR-02a\)"):
        act(state, "traveller.barrage", shot, KESTREL_ACTOR)
    done = act(state, "traveller.barrage", {**shot, "range": "close"}, KESTREL_ACTOR, [3, 3, 4])
    # 32 turrets = 8 dice of 1; sand does not stop sand: only armour.
    assert done.texts == [
        "barrage 8–Sandcaster–Close–1 (32 mounts, 1 die per 4) at Tigress: 2D 6 + range 0 + FC +2 + Gunner +2"
        " + (1 − armour 6) = 5 → 50% → 4 damage → location 1d6 4: Main; 2 to Main Hull 66→64;"
        " 2 to Forward Hull 66→64"
    ]
    pebbles = {**shot, "battery": "pebbles", "mounts": 16, "range": "adjacent"}
    done = act(done.state, "traveller.barrage", pebbles, KESTREL_ACTOR, [3, 3, 4])
    assert done.texts[0].startswith(
        "barrage 8–Pebbles–Adjacent–1 (16 mounts, 1 die per 2) at Tigress: 2D 6 + range −1 + FC +2 + Gunner +2"
        " + (1 − armour 6) = 4 → 25% → 2 damage"
    )


def test_TR_07_shockwave_missiles_clear_the_sand_for_the_round_and_ortillery_reaches_adjacent() -> None:
    state = rows_battle()
    shock = {
        "ship": "kestrel",
        "battery": "shockwave",
        "mounts": 16,
        "target": "tigress",
        "range": "medium",
        "adjacent": "fore",
    }
    # Sand 1d6 2 + 2 (30 sandcasters ≥ 110% of 16 missiles) = 4; 2D 10 + 4 − 9 = 5 → 50% ≥ 5%: no damage.
    done = act(state, "traveller.barrage", shock, KESTREL_ACTOR, [2, 5, 5])
    assert done.texts == [
        "barrage 16–Shockwave Missile–Medium–1 at Tigress: 2D 10 + range 0 + FC +2 + Gunner +2"
        " + (1 − armour 6 − sand 4) = 5 → 50% ≥ 5% → Tigress's sand gives no protection for the rest of the round"
    ]
    assert section(done.state, "tigress", "Main")["hull"] == 66
    # The beam lasers now meet no sand (no sand die is rolled).
    fired = beam(done.state, [3, 4, 4])
    assert fired.texts[0].startswith(
        "barrage 20–Beam Laser–Medium–1 at Tigress: 2D 7 + range 0 + FC +2 + Gunner +2 + (1 − armour 6) = 6"
    )
    # Next round the sand is back.
    state = advance_to(fired.state, "combat", turn=2).state
    assert "sand" in beam(state, [1, 3, 4, 4]).texts[0]
    # A shockwave barrage under 5% leaves the sand.
    done = act(state, "traveller.barrage", shock, KESTREL_ACTOR, [1, 1, 1])
    # Sand 1d6 1 + 2 = 3; 2D 2 + 4 + (1 − 6 − 3) = −2 → 0%.
    assert done.texts[0].endswith("(1 − armour 6 − sand 3) = −2 → 0% < 5% → the sand holds")
    # Ortillery missiles: Adjacent is their optimum (+0), Close stays out of reach.
    ortillery = {
        "ship": "kestrel",
        "battery": "ortillery",
        "mounts": 8,
        "target": "tigress",
        "range": "close",
        "adjacent": "fore",
    }
    with pytest.raises(RuleError, match=r"Ortillery Missile cannot engage at Close range \(TR-02\)"):
        act(state, "traveller.barrage", ortillery, KESTREL_ACTOR)
    done = act(state, "traveller.barrage", {**ortillery, "range": "adjacent"}, KESTREL_ACTOR, [2, 2, 1])
    assert done.texts[0] == (
        "barrage 8–Ortillery Missile–Adjacent–1 at Tigress: 2D 4 + range 0 + FC +2 + Gunner +2 + (1 − armour 6)"
        " = 3 → 10% → 0 damage → location 1d6 1: Engineering"
    )
