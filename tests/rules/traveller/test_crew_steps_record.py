"""The crew strength ladder, crew DMs and the frozen watch (TR-23, TR-24, TR-19, GEN-05), with the
steps and DMs of tables.md written out: Dead < Survivors (−4) < Skeleton (−2) < Half (−1) < Weakened
< Full < Battle < Overstrength < Massively Overstrength (+0 from Weakened up); Crew Skill 2 → +2."""

from __future__ import annotations

from app.rules.dice import ScriptedDice
from app.rules.traveller.crew import abandon_ship, can_act, computer_dms, crew_dms, step_down, step_up
from app.rules.traveller.flights import Flight
from app.rules.traveller.ship import HgShip
from tests.rules.traveller.helpers import TIGRESS_ACTOR, act, advance_to, battle, capital, hg


def ship(**changes: object) -> HgShip:
    return HgShip.model_validate({**capital("Kestrel")["parts"]["hg_ship"], **changes})


def test_TR_23_a_crew_hit_walks_one_step_down_and_dead_stays_dead() -> None:
    unit = ship(crew_strength="skeleton")
    assert step_down(unit) == ("Skeleton", "Survivors")
    assert step_down(unit) == ("Survivors", "Dead")
    assert step_down(unit) == ("Dead", "Dead")
    assert unit.crew_strength == "dead"


def test_TR_24_the_frozen_watch_climbs_its_steps_and_stops_at_the_top() -> None:
    unit = ship(crew_strength="half")
    assert step_up(unit, 2) == ("Half", "Full")
    assert step_up(unit, 8) == ("Full", "Massively Overstrength")
    assert unit.crew_strength == "massively_overstrength"


def test_GEN_05_crew_dms_name_the_skill_then_a_step_dm_other_than_0() -> None:
    assert crew_dms(ship(crew_strength="survivors"), "Gunner") == [("Gunner", 2), ("crew Survivors", -4)]
    assert crew_dms(ship(crew_strength="weakened")) == [("Crew Skill", 2)]


def test_TR_23_only_a_dead_crew_cannot_act() -> None:
    assert not can_act(ship(crew_strength="dead"))
    assert can_act(ship(crew_strength="survivors"))


def test_TR_19_computer_hits_count_only_on_a_capital_ships_rolls() -> None:
    """First hit −1; second −1d6 rolled for the roll (its die joins the rolls); disabled: no DM here."""
    dice, rolls = ScriptedDice([4]), []
    assert computer_dms(ship(systems={"computer": 2}), dice, "kestrel", rolls) == [("computer", -4)]
    (roll,) = rolls
    assert (roll.purpose, roll.ship, roll.dice, roll.outcome) == ("computer damage DM", "kestrel", [4], "−4")
    assert computer_dms(ship(systems={"computer": 1}), dice, "kestrel", rolls) == [("computer", -1)]
    assert computer_dms(ship(systems={"computer": 3}), dice, "kestrel", rolls) == []
    gig = HgShip.model_validate(
        {
            "kind": "small_craft",
            "displacement": 30,
            "systems": {"computer": 1},
            "sections": [{"name": "Hull", "hull_max": 2, "structure_max": 2}],
        }
    )
    assert computer_dms(gig, dice, "gig", rolls) == []
    assert computer_dms(Flight.model_validate(flight_part()), dice, "red", rolls) == []
    assert len(rolls) == 1


def flight_part() -> dict[str, object]:
    return {"craft_type": "Fighter", "craft": 4, "craft_hull": 2, "craft_structure": 2}


def test_TR_24_reviving_is_logged_and_remembered_for_round_7() -> None:
    state = battle(capital("Kestrel"), capital("Tigress", frozen_watch_steps=2), owners=(None, "p-tigress"))
    done = act(state, "traveller.revive_frozen_watch", {"ship": "tigress"}, TIGRESS_ACTOR)
    (event,) = done.events
    assert (event.kind, event.ship) == ("frozen_watch", "tigress")
    assert hg(done.state, "tigress")["frozen_watch_ready"] == 7


def test_TR_24_the_watch_wakes_in_its_round_only_for_a_living_crew_on_a_ship_in_the_fight() -> None:
    """Albatross (dead crew) comes first by id and Vixen (destroyed) before Wasp: both are passed over."""
    state = battle(
        capital("Kestrel", crew_strength="half", frozen_watch_steps=1, frozen_watch_ready=3),
        capital("Albatross", crew_strength="dead", frozen_watch_steps=2, frozen_watch_ready=3),
        capital("Vixen", crew_strength="half", frozen_watch_steps=1, frozen_watch_ready=3),
        capital("Wasp", crew_strength="half", frozen_watch_steps=1, frozen_watch_ready=4),
        orders=False,
    )
    state.ships["vixen"].destroyed = True
    step = advance_to(state, "orders", turn=3)
    woke = [e for e in step.events if e.kind == "frozen_watch"]
    assert [(e.ship, e.text) for e in woke] == [
        ("kestrel", "Kestrel's frozen watch takes its posts: crew Half → Weakened (TR-24).")
    ]
    assert hg(step.state, "kestrel")["crew_strength"] == "weakened"
    assert hg(step.state, "albatross")["crew_strength"] == "dead"
    assert hg(step.state, "wasp")["crew_strength"] == "half"
    step = advance_to(step.state, "orders", turn=4)
    assert [e.ship for e in step.events if e.kind == "frozen_watch"] == ["wasp"]


def test_TR_27_prepare_to_abandon_ship_saves_a_living_crew_in_its_round_only() -> None:
    state = battle(capital("Kestrel"))
    ship = state.ships["kestrel"]
    model = HgShip.model_validate(ship.parts["hg_ship"])
    model.abandon_round = 1
    event = abandon_ship(state, ship, model)
    assert event is not None and (event.kind, event.ship) == ("abandon_ship", "kestrel")
    assert model.crew_escaped is True
    model.crew_strength, model.crew_escaped = "dead", False
    assert abandon_ship(state, ship, model) is None and model.crew_escaped is False
    model.crew_strength, model.abandon_round = "half", 0
    assert abandon_ship(state, ship, model) is None
    model.section_lost_round = 0  # the section the referee has just ruled on was lost in round 0
    assert abandon_ship(state, ship, model) is not None
