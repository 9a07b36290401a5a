"""Entered hits (GEN-03, TR-14), the frozen watch (TR-24), individual missiles (TR-01), boarding and
the combat loop (TR-04): the refusals and plain cases not met elsewhere."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import REFEREE, Actor, RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, beam_shot, capital, hg

HULK = {"name": "Hulk", "klass": "drifting wreck", "system": "traveller", "side": "B", "parts": {}}
GIG_ACTOR = Actor("p-gig", "player", frozenset({"gig"}))
BEAM = beam_shot()
HULK_ACTOR = Actor("p-hulk", "player", frozenset({"hulk"}))


def two(*more: dict[str, Any], **options: Any) -> BattleState:
    kestrel, tigress = capital("Kestrel"), capital("Tigress")
    kestrel["side"], tigress["side"] = "A", "B"
    owners = ("p-kestrel", "p-tigress") + tuple(f"p-{m['name'].lower()}" for m in more)
    return battle(kestrel, tigress, *more, owners=owners, orders=False, **options)


def refused(state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = REFEREE) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message


# --- entered hits (GEN-03) ---------------------------------------------------------------------------


def test_GEN_03_a_player_enters_hits_only_for_a_ship_they_command() -> None:
    payload = {"target": "tigress", "section": "Main", "hull_damage": 5}
    assert refused(two(), "traveller.entered_hit", payload, KESTREL_ACTOR) == (
        "enter hits for a ship you command, or as referee"
    )


def test_GEN_03_hits_are_entered_on_a_high_guard_ship_in_one_of_its_sections() -> None:
    state = two(HULK)
    assert refused(state, "traveller.entered_hit", {"target": "hulk", "section": "Hull"}) == (
        "Hulk is not a High Guard ship"
    )
    assert refused(state, "traveller.entered_hit", {"target": "tigress", "section": "Bridge"}) == (
        "Tigress has no section 'Bridge'"
    )


def test_TR_14_an_entered_system_hit_names_a_drive_power_sensors_computer_or_bridge() -> None:
    payload = {"target": "tigress", "section": "Main", "system": "warp_core"}
    assert refused(two(), "traveller.entered_hit", payload) == (
        "system must be one of m_drive, j_drive, power_plant, sensors, computer, command"
    )


# --- frozen watch (TR-24) ----------------------------------------------------------------------------


def test_TR_24_only_a_high_guard_ship_with_a_frozen_watch_and_a_living_crew_revives_it() -> None:
    state = two(HULK)
    assert (
        refused(state, "traveller.revive_frozen_watch", {"ship": "hulk"}) == "Hulk is not a High Guard ship"
    )
    assert (
        refused(state, "traveller.revive_frozen_watch", {"ship": "kestrel"})
        == "Kestrel carries no frozen watch"
    )
    hg(state, "kestrel").update(frozen_watch_steps=2, crew_strength="dead")
    assert refused(state, "traveller.revive_frozen_watch", {"ship": "kestrel"}) == (
        "Kestrel's crew is dead; nobody can thaw the watch"
    )


def test_TR_23_TR_24_a_crew_dead_before_the_watch_wakes_stays_dead() -> None:
    """Dead stays dead (TR-23): a watch that was thawing does not bring the crew back."""
    state = two()
    hg(state, "kestrel").update(frozen_watch_steps=2, crew_strength="half")
    state = act(state, "traveller.revive_frozen_watch", {"ship": "kestrel"}, KESTREL_ACTOR).state
    assert hg(state, "kestrel")["frozen_watch_ready"] == 7
    hg(state, "kestrel")["crew_strength"] = "dead"
    done = advance_to(state, "orders", turn=7)
    assert [t for t in done.texts if "frozen watch" in t] == []
    assert hg(done.state, "kestrel")["crew_strength"] == "dead"


# --- individual missiles (TR-01) -----------------------------------------------------------------------


def gig(*batteries: dict[str, Any]) -> dict[str, Any]:
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
                "batteries": list(batteries),
            }
        },
    }


def test_TR_01_missiles_are_fired_at_another_ship_from_a_missile_battery() -> None:
    beam = {"id": "beam", "weapon": "beam_laser", "mounts": 1}
    state = advance_to(two(gig(beam), enforce_loop=False), "combat").state
    shot = {"ship": "gig", "battery": "beam", "target": "gig", "range": "long"}
    assert refused(state, "traveller.missile", shot, GIG_ACTOR) == "choose another ship still in the fight"
    shot["target"] = "kestrel"
    assert refused(state, "traveller.missile", {**shot, "battery": "tubes"}, GIG_ACTOR) == (
        "Gig has no battery 'tubes'"
    )
    assert refused(state, "traveller.missile", shot, GIG_ACTOR) == "Turret: Beam Laser fires no missiles"


# --- boarding and the loop (TR-04) -------------------------------------------------------------------


def test_TR_04_boarding_without_orders_bearing_on_it_records_the_outcome() -> None:
    state = advance_to(two(enforce_loop=False), "combat").state
    payload = {"ship": "kestrel", "target": "tigress", "outcome": "marines hold the hangar."}
    done = act(state, "traveller.board", payload, KESTREL_ACTOR)
    assert done.texts == ["Kestrel boards Tigress: marines hold the hangar."]
    assert done.events[0].data["repel_dm"] == 0


def test_TR_04_a_ship_boards_another_ship() -> None:
    state = advance_to(two(enforce_loop=False), "combat").state
    payload = {"ship": "kestrel", "target": "kestrel", "outcome": "confusion"}
    assert (
        refused(state, "traveller.board", payload, KESTREL_ACTOR) == "board another ship still in the fight"
    )


def test_TR_04_a_ship_that_passed_takes_no_more_combat_actions() -> None:
    state = advance_to(two(enforce_loop=False), "combat").state
    state = act(state, "traveller.pass", {"ship": "kestrel"}, KESTREL_ACTOR).state
    payload = {"ship": "kestrel", "target": "tigress", "outcome": "marines hold the hangar."}
    assert refused(state, "traveller.board", payload, KESTREL_ACTOR) == (
        "Kestrel has finished its combat actions this round"
    )


def test_TR_04_a_ship_without_high_guard_data_takes_no_high_guard_combat_action() -> None:
    state = advance_to(two(HULK), "combat").state
    payload = {"ship": "hulk", "target": "tigress", "outcome": "drifts into it"}
    assert refused(state, "traveller.board", payload, HULK_ACTOR) == "Hulk is not a High Guard ship or flight"


def test_TR_01_a_second_missile_attack_on_the_same_target_counts_it_once():
    """Each attack is its own combat action; the round's targets list the ship once (Focused Fire reads it)."""
    missiles = {"id": "missiles", "weapon": "missile_turret", "mounts": 2}
    state = advance_to(two(gig(missiles), enforce_loop=False), "combat").state
    shot = {"ship": "gig", "battery": "missiles", "target": "kestrel", "range": "long", "missiles": 1}
    state = act(state, "traveller.missile", shot, GIG_ACTOR, [4, 4, 3, 3]).state
    done = act(state, "traveller.missile", shot, GIG_ACTOR, [4, 4, 3, 3])
    assert done.texts[0].endswith("→ to hit 7+: 2D 6 → miss. 0 hits: no damage.")
    part = done.state.ships["gig"].parts["hg_ship"]
    assert part["round"]["targets"] == ["kestrel"] and part["round"]["actions"] == 2


# --- spinal mounts, annihilation, living ships ---------------------------------------------------------


def spinal_duel(damage: int, **tigress: Any) -> BattleState:
    state = battle(
        capital("Kestrel", spinal={"type": "particle", "damage": damage}),
        capital("Tigress", hull_code="CP", **tigress),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
        enforce_loop=False,
    )
    return advance_to(state, "combat").state


SPINAL = {"ship": "kestrel", "target": "tigress", "range": "long"}


def test_TR_13_a_spinal_hit_under_6_damage_gives_no_radiation():
    """Unarmoured Tigress takes the particle spinal's 5: 5 ÷ 6 = 0 radiation (TR-13), nothing to throw."""
    state = spinal_duel(5, armour=0)
    done = act(state, "traveller.spinal", SPINAL, KESTREL_ACTOR, [6, 6, 6])
    assert done.texts == [
        "spinal Spinal Mount at Tigress: 2D 12 + Formidable −6 + FC +2 + Gunner +2 + range 0 + size 0 = 10 vs 8+"
        " → success (Effect +2) → hit → location 1d6 6: Forward → 5 − armour 0×30 = 5 damage: Forward Hull 375→370"
    ]


def test_TR_04_a_second_spinal_attack_on_the_same_target_counts_it_once():
    state = spinal_duel(5, armour=0)
    state = act(state, "traveller.spinal", SPINAL, KESTREL_ACTOR, [6, 6, 6]).state
    done = act(state, "traveller.spinal", SPINAL, KESTREL_ACTOR, [6, 6, 6])
    assert done.texts[0].endswith("Forward Hull 370→365")
    part = done.state.ships["kestrel"].parts["hg_ship"]
    assert part["round"]["targets"] == ["tigress"] and part["round"]["actions"] == 2


def test_TR_09_TR_27_the_crew_of_an_annihilated_small_craft_that_prepared_to_abandon_ship_escape():
    """20 beam lasers at the Gig: 2D 12 + 2 + 2 + 1 = 17 → 500% → 100 > 16 Hull + Structure: annihilated."""
    state = advance_to(two(gig(), enforce_loop=False), "combat").state
    state.ships["gig"].parts["hg_ship"]["abandon_round"] = 1
    done = act(state, "traveller.barrage", {**BEAM, "target": "gig"}, KESTREL_ACTOR, [6, 6])
    assert done.texts == [
        "barrage 20–Beam Laser–Medium–1 at Gig: 2D 12 + range 0 + FC +2 + Gunner +2 + (1 − armour 0) = 17 → 500%"
        " → 100 damage > 16 Hull+Structure left → Gig is annihilated (TR-09)",
        "Gig's surviving crew reach the lifeboats and escape pods (Prepare to Abandon Ship!).",
    ]


def test_SH_17_a_living_ship_is_not_boarded_in_a_high_guard_battle_either():
    ker = capital("Ker")
    ker["parts"]["pain"] = {"level": 0}
    state = battle(capital("Kestrel"), ker, owners=("p-kestrel", "p-ker"), orders=False, enforce_loop=False)
    state = advance_to(state, "combat").state
    payload = {"ship": "kestrel", "target": "ker", "outcome": "marines land"}
    assert refused(state, "traveller.board", payload, KESTREL_ACTOR) == (
        "Ker is a Shadow living ship: a boarding action against it is not possible (SH-17)"
    )
