"""What manoeuvres, dodges, jumps and launches record (TR-02, TR-19, TR-23, TR-26, TR-27, GEN-01,
GEN-03, GEN-05): each event's kind, ship, words and data, what the round keeps, and every refusal
with the field it names. Figures from tables.md: Crew Skill 2 → +2, a dodge −2, Prepare for Jump! +2,
initiative 0–4 → 1 reaction and 5–8 → 2."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import Actor, RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, capital, hg
from tests.rules.traveller.test_branches_movement import FLIGHT_ACTOR, flight, give, launching, sided, two
from tests.rules.traveller.test_order_effects import give as give_target

MOVE = {"ship": "kestrel", "thrust": 1, "description": "turns away"}


def refusal(state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = KESTREL_ACTOR) -> tuple:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message, err.value.field


def at(step: str, **kestrel: Any) -> BattleState:
    return advance_to(two(**kestrel), step).state


def test_TR_02_thrust_toward_a_pair_is_kept_signed_on_the_round() -> None:
    """Closing Thrust counts −, opening +, and the round adds them up per pair (ranges.py settles it)."""
    placed = act(
        two(),
        "traveller.set_range",
        {"ship": "kestrel", "other": "tigress", "band": "long", "reason": "set-up"},
    )
    done = act(
        advance_to(placed.state, "manoeuvre").state,
        "traveller.manoeuvre",
        {"ship": "kestrel", "thrust": 2, "target": "tigress", "direction": "close"},
        KESTREL_ACTOR,
    )
    (event,) = done.events
    assert (event.kind, event.ship) == ("manoeuvre", "kestrel")
    assert event.data == {"thrust": 2, "target": "tigress", "direction": "close"}
    assert hg(done.state, "kestrel")["round"]["moves"] == {"tigress": -2}
    assert hg(done.state, "kestrel")["round"]["thrust_used"] == 2
    done = act(
        done.state,
        "traveller.manoeuvre",
        {"ship": "kestrel", "thrust": 1, "target": "tigress", "direction": "open"},
        KESTREL_ACTOR,
    )
    assert done.events[0].data == {"thrust": 1, "target": "tigress", "direction": "open"}
    assert done.events[0].text.endswith("(1 left this round).")  # Thrust 4 − 2 − 1
    assert hg(done.state, "kestrel")["round"]["moves"] == {"tigress": -1}
    assert hg(done.state, "kestrel")["round"]["thrust_used"] == 3


def test_TR_02_GEN_03_a_range_change_with_words_says_both() -> None:
    placed = act(
        two(),
        "traveller.set_range",
        {"ship": "kestrel", "other": "tigress", "band": "long", "reason": "set-up"},
    )
    payload = {
        "ship": "kestrel",
        "thrust": 1,
        "target": "tigress",
        "direction": "open",
        "description": "hides",
    }
    done = act(advance_to(placed.state, "manoeuvre").state, "traveller.manoeuvre", payload, KESTREL_ACTOR)
    assert done.texts == [
        "Kestrel spends 1 Thrust: opens from Tigress (now Long, 10 to change band; settled when the manoeuvre"
        " step ends); hides (3 left this round)."
    ]


def test_GEN_03_a_described_manoeuvre_records_only_its_thrust() -> None:
    done = act(at("manoeuvre"), "traveller.manoeuvre", {**MOVE, "thrust": 3}, KESTREL_ACTOR)
    (event,) = done.events
    assert event.data == {"thrust": 3}
    assert event.text == "Kestrel spends 3 Thrust: turns away (1 left this round)."
    assert hg(done.state, "kestrel")["round"]["moves"] == {}


def test_GEN_03_manoeuvre_refusals_name_their_fields() -> None:
    state = at("manoeuvre")
    assert refusal(state, "traveller.manoeuvre", {"ship": "kestrel", "thrust": 1, "direction": "open"}) == (
        "name the ship whose range this Thrust closes or opens",
        "target",
    )
    assert refusal(state, "traveller.manoeuvre", {"ship": "kestrel", "thrust": 1, "target": "tigress"}) == (
        "say whether the Thrust closes or opens the range",
        "direction",
    )
    assert refusal(state, "traveller.manoeuvre", {"ship": "kestrel", "thrust": 1}) == (
        "name the ship whose range this Thrust changes, or say what it does",
        "description",
    )
    assert refusal(state, "traveller.manoeuvre", {**MOVE, "thrust": 5}) == (
        "Kestrel has 4 Thrust left (Thrust 4 this round, 0 spent)",
        "thrust",
    )


def test_TR_19_power_plant_hits_cut_thrust_to_the_power_share() -> None:
    """Thrust 4 at Power 7/10: 4 × 7 // 10 = 2, and the refusal says why."""
    state = at("manoeuvre")
    hg(state, "kestrel")["power"] = 7
    assert refusal(state, "traveller.manoeuvre", {**MOVE, "thrust": 3}) == (
        "Kestrel has 2 Thrust left (Thrust 2 this round, Power 7/10, 0 spent)",
        "thrust",
    )


def test_TR_27_maximum_speed_adds_1_thrust_and_says_so() -> None:
    state = give(at("manoeuvre"), "kestrel", "maximum_speed")
    assert refusal(state, "traveller.manoeuvre", {**MOVE, "thrust": 6}) == (
        "Kestrel has 5 Thrust left (Thrust 5 this round, +1 Maximum Speed, 0 spent)",
        "thrust",
    )


def test_TR_23_TR_19_TR_27_who_may_not_move_is_refused_on_ship() -> None:
    assert refusal(at("manoeuvre", crew_strength="dead"), "traveller.manoeuvre", MOVE) == (
        "Kestrel's crew is dead and cannot act (TR-23)",
        "ship",
    )
    state = at("manoeuvre")
    hg(state, "kestrel")["disabled"] = True
    assert refusal(state, "traveller.manoeuvre", MOVE) == ("Kestrel is disabled (power plant out)", "ship")
    state = at("manoeuvre")
    hg(state, "kestrel")["systems"]["bridge_round"] = 1
    assert refusal(state, "traveller.manoeuvre", MOVE) == (
        "the bridge hit grounds Kestrel this round: no manoeuvre (TR-19)",
        "ship",
    )
    state = give(at("manoeuvre"), "kestrel", "run_silent")
    assert refusal(state, "traveller.manoeuvre", MOVE) == (
        "Kestrel runs silent this round and may not move (TR-27)",
        "ship",
    )


def test_TR_19_a_bridge_hit_grounds_only_its_round() -> None:
    """The bridge's first hit grounds the ship for the next round only: a hit marked for round 2 leaves
    round 1 free."""
    state = at("manoeuvre")
    hg(state, "kestrel")["systems"]["bridge_round"] = 2
    assert act(state, "traveller.manoeuvre", MOVE, KESTREL_ACTOR).events[0].data == {"thrust": 1}


def test_TR_19_the_grounded_ship_does_not_dodge_or_jump() -> None:
    state = at("combat")
    hg(state, "kestrel")["systems"]["bridge_round"] = 1
    assert refusal(state, "traveller.dodge", {"ship": "kestrel"}) == (
        "the bridge hit grounds Kestrel this round: no dodging (TR-19)",
        "ship",
    )
    state = at("ship_action", jump=2)
    hg(state, "kestrel")["systems"]["bridge_round"] = 1
    assert refusal(state, "traveller.jump", {"ship": "kestrel"}) == (
        "the bridge hit grounds Kestrel this round: no jump (TR-19)",
        "ship",
    )


def test_GEN_05_a_successful_dodge_records_its_minus_2_and_spends_a_reaction() -> None:
    done = act(at("combat"), "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [3, 3])
    (event,) = done.events
    assert (event.kind, event.ship, event.data) == ("dodge", "kestrel", {"dodge_dm": -2})
    assert event.text == (
        "Kestrel dodges (1 Thrust, reaction 1 of 1): Pilot 2D 6 + Crew Skill +2 = 8 vs 8+ → success (Effect 0):"
        " the next attack on it this round takes −2."
    )
    (roll,) = event.rolls
    assert (roll.purpose, roll.ship, roll.dice, roll.target) == ("Pilot (dodge)", "kestrel", [3, 3], "8+")
    kept = hg(done.state, "kestrel")["round"]
    assert (kept["dodge"], kept["thrust_used"], kept["reactions_used"]) == (-2, 1, 1)
    assert refusal(done.state, "traveller.dodge", {"ship": "kestrel"}) == (
        "Kestrel has a dodge waiting for the next attack already",
        "ship",
    )


def test_GEN_05_a_failed_dodge_records_dm_0() -> None:
    done = act(at("combat"), "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [2, 3])
    (event,) = done.events
    assert event.data == {"dodge_dm": 0}
    assert event.text.endswith("2D 5 + Crew Skill +2 = 7 vs 8+ → failure (Effect −1): no effect.")
    assert hg(done.state, "kestrel")["round"]["dodge"] == 0


def test_TR_26_initiative_5_gives_a_second_reaction_for_a_dodge() -> None:
    state = at("combat")
    hg(state, "kestrel")["round"] = {"turn": 1, "initiative": 5, "reactions_used": 1}
    done = act(state, "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [3, 3])
    assert done.texts[0].startswith("Kestrel dodges (1 Thrust, reaction 2 of 2): ")
    hg(state, "kestrel")["round"]["reactions_used"] = 2
    assert refusal(state, "traveller.dodge", {"ship": "kestrel"}) == (
        "Kestrel has no reaction left (2 this round)",
        "ship",
    )


def test_TR_27_evasive_action_pays_a_dodge_without_a_reaction_or_thrust() -> None:
    state = give(at("combat"), "kestrel", "evasive_action", "evasive_action")
    done = act(state, "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [3, 3])
    assert done.texts[0].startswith("Kestrel dodges (Evasive Action Thrust (1 left), no reaction): ")
    kept = hg(done.state, "kestrel")["round"]
    assert (kept["evasive_used"], kept["thrust_used"], kept["reactions_used"]) == (1, 0, 0)


def test_TR_19_a_computer_hit_takes_1_off_the_dodge() -> None:
    state = at("combat")
    hg(state, "kestrel")["systems"]["computer"] = 1
    done = act(state, "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [3, 3])
    assert "Pilot 2D 6 + Crew Skill +2 + computer −1 = 7 vs 8+ → failure" in done.texts[0]


def test_TR_19_TR_27_the_jump_check_adds_the_J_Drive_DM_and_Prepare_for_Jump() -> None:
    """J-Drive first hit: −1d6 to jumps, kept (here −3); Prepare for Jump! +2. A failure keeps the ship."""
    state = give(at("ship_action", jump=2), "kestrel", "prepare_jump")
    hg(state, "kestrel")["systems"].update(j_drive=1, jump_dm=-3)
    done = act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR, [2, 3])
    (event,) = done.events
    assert (event.kind, event.ship, event.data) == ("jump", "kestrel", {"jumped": False})
    assert event.text == (
        "Kestrel attempts to jump: Engineering (jump) 2D 5 + Crew Skill +2 + J-Drive hit −3 + Prepare for Jump! +2"
        " = 6 vs 8+ → failure (Effect −2): the jump fails (what that means is the core rules')."
    )
    (roll,) = event.rolls
    assert (roll.purpose, roll.ship) == ("Engineering (jump)", "kestrel")
    assert hg(done.state, "kestrel")["jumped"] is None
    assert hg(done.state, "kestrel")["round"]["jump_tried"] is True
    assert refusal(done.state, "traveller.jump", {"ship": "kestrel"}) == (
        "Kestrel has made its jump attempt this round",
        "ship",
    )


def test_TR_19_a_jump_at_half_power_is_jump_1_and_leaves_in_its_round() -> None:
    """Jump-2 at Power 5/10: 2 × 5 // 10 = Jump-1."""
    state = at("ship_action", jump=2)
    hg(state, "kestrel")["power"] = 5
    done = act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR, [3, 3])
    assert done.events[0].data == {"jumped": True}
    assert done.texts[0].endswith("→ success (Effect 0): Kestrel jumps out of the battle (Jump-1).")
    assert hg(done.state, "kestrel")["jumped"] == 1


def test_TR_19_jump_refusals_name_the_ship_field() -> None:
    state = at("ship_action", jump=2)
    hg(state, "kestrel")["systems"]["j_drive"] = 2
    assert refusal(state, "traveller.jump", {"ship": "kestrel"}) == (
        "Kestrel's J-Drive is disabled (TR-19)",
        "ship",
    )
    state = at("ship_action")
    assert refusal(state, "traveller.jump", {"ship": "kestrel"}) == ("Kestrel has no jump drive", "ship")
    state = at("ship_action", jump=2)
    hg(state, "kestrel")["systems"]["computer"] = 3
    assert refusal(state, "traveller.jump", {"ship": "kestrel"})[1] == "ship"
    hg(state, "kestrel")["systems"]["computer"] = 0
    hg(state, "kestrel")["power"] = 4  # 2 × 4 // 10 = 0
    assert refusal(state, "traveller.jump", {"ship": "kestrel"}) == (
        "Power 4/10 leaves no Jump (TR-19)",
        "ship",
    )


def test_TR_27_a_launch_records_its_carrier_and_round() -> None:
    done = act(launching(), "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, FLIGHT_ACTOR)
    (event,) = done.events
    assert (event.kind, event.ship, event.data) == ("launch", "red-flight", {"carrier": "tigress"})
    assert event.text == "Red Flight launches from Tigress."
    part = done.state.ships["red-flight"].parts["flight"]
    assert (part["carrier"], part["launched_round"]) == ("tigress", 1)


def test_TR_27_a_flight_launches_not_from_itself_nor_a_destroyed_ship() -> None:
    state = launching()
    assert refusal(
        state, "traveller.launch", {"flight": "red-flight", "carrier": "red-flight"}, FLIGHT_ACTOR
    ) == ("a flight launches from a friendly ship still in the fight", "carrier")
    state.ships["tigress"].destroyed = True
    assert refusal(
        state, "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, FLIGHT_ACTOR
    ) == ("a flight launches from a friendly ship still in the fight", "carrier")


def test_TR_27_a_blasted_launching_flight_is_refused_its_dodge_on_ship() -> None:
    state = launching()
    done = act(state, "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, FLIGHT_ACTOR)
    state = give_target(done.state, "kestrel", ("blast_them", "tigress"))
    assert refusal(state, "traveller.dodge", {"ship": "red-flight"}, FLIGHT_ACTOR)[1] == "ship"


def test_TR_19_the_last_point_of_thrust_pays_for_a_dodge_and_then_none_is_left() -> None:
    """Thrust 4: 3 spent on a manoeuvre leaves 1 for the dodge (4 spent in all), then nothing."""
    state = act(at("manoeuvre"), "traveller.manoeuvre", {**MOVE, "thrust": 3}, KESTREL_ACTOR).state
    state = advance_to(state, "combat").state
    done = act(state, "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [3, 3])
    assert hg(done.state, "kestrel")["round"]["thrust_used"] == 4
    hg(done.state, "kestrel")["round"].update(dodge=None, reactions_used=0)
    assert refusal(done.state, "traveller.dodge", {"ship": "kestrel"}) == (
        "Kestrel has no Thrust left to dodge (Thrust 4 this round, 4 spent)",
        "ship",
    )


def test_TR_19_a_second_computer_hit_rolls_1d6_against_the_dodge_and_the_jump() -> None:
    """Computer second hit: −1d6, rolled afresh for each roll, logged with the ship's rolls."""
    state = at("combat", jump=2)
    hg(state, "kestrel")["systems"]["computer"] = 2
    done = act(state, "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [2, 4, 4])
    die, pilot = done.events[0].rolls
    assert (die.purpose, die.ship, die.dice, pilot.purpose) == (
        "computer damage DM",
        "kestrel",
        [2],
        "Pilot (dodge)",
    )
    assert "Pilot 2D 8 + Crew Skill +2 + computer −2 = 8 vs 8+ → success" in done.texts[0]
    state = advance_to(done.state, "ship_action").state
    done = act(state, "traveller.jump", {"ship": "kestrel"}, KESTREL_ACTOR, [5, 4, 4])
    die, check = done.events[0].rolls
    assert (die.purpose, die.ship, die.dice, check.purpose) == (
        "computer damage DM",
        "kestrel",
        [5],
        "Engineering (jump)",
    )
    assert "Engineering (jump) 2D 8 + Crew Skill +2 + computer −5 = 5 vs 8+ → failure" in done.texts[0]


def test_GEN_01_a_flights_jump_is_refused_on_ship() -> None:
    state = battle(sided(capital("Kestrel"), "A"), flight(), owners=("p-kestrel", "p-flight"), orders=False)
    state = advance_to(state, "ship_action").state
    assert refusal(state, "traveller.jump", {"ship": "red-flight"}, FLIGHT_ACTOR) == (
        "a flight does not jump",
        "ship",
    )


def test_GEN_03_a_launch_from_no_such_ship_is_refused_on_carrier() -> None:
    payload = {"flight": "red-flight", "carrier": "nowhere"}
    assert refusal(launching(), "traveller.launch", payload, FLIGHT_ACTOR) == (
        "no ship 'nowhere' in this battle",
        "carrier",
    )
