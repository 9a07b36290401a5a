"""Initiative (TR-03, TR-03a), the combat loop (TR-04, TR-26c) and orders (TR-26, TR-26a…c, TR-27)."""

from __future__ import annotations

import json

import pytest

from app.rules.core import RuleError
from app.rules.views import Viewer, battle_view, event_for
from tests.rules.traveller.helpers import (
    KESTREL_ACTOR,
    TIGRESS_ACTOR,
    act,
    advance_to,
    battle,
    beam_shot,
    capital,
    hg,
)

ORDER_WORDS = ("focused_fire", "Focused Fire", "angle_max_effect", "Angle for Maximum", "maximum_speed")
TIGRESS_VIEW = Viewer("p-tigress", "player", frozenset({"tigress"}))
KESTREL_VIEW = Viewer("p-kestrel", "player", frozenset({"kestrel"}))


def fleet(**options):
    state = battle(
        capital("Kestrel", crew_skill=3), capital("Tigress"), owners=("p-kestrel", "p-tigress"), **options
    )
    # Kestrel 1d6 5 + 3 = 8 + fleet; Tigress 1d6 2 + 2 = 4. No fleet checks.
    return act(state, "traveller.initiative", {}, dice=[5, 2]).state


def test_TR_03_capital_initiative_1d6_plus_crew_skill_plus_fleet_tactics() -> None:
    state = battle(capital("Kestrel", crew_skill=3), capital("Tigress"), owners=("p-kestrel", "p-tigress"))
    state.ships["kestrel"].side = "Imperial"
    state.ships["tigress"].side = "Zhodani"
    done = act(state, "traveller.initiative", {"fleet_tactics": {"Imperial": 2}}, dice=[5, 4, 6, 3])
    assert done.texts == [
        "Fleet commander (Imperial) Tactics: 2D 9 + Tactics +2 = 11 vs 8+ → success (Effect +3).",
        "Kestrel initiative: 1D 6 + Crew Skill +3 + fleet Tactics +3 = 12 → reactions 3.",
        "Tigress initiative: 1D 3 + Crew Skill +2 = 5 → reactions 2.",
    ]
    assert hg(done.state, "kestrel")["initiative_base"] == 12
    with pytest.raises(RuleError, match="once per engagement"):
        act(done.state, "traveller.initiative", {})


def test_TR_03_chained_roll_and_TR_03a_small_craft_roll_2d_plus_faster() -> None:
    boat = capital("Gig")
    boat["parts"]["hg_ship"] = {
        "kind": "small_craft",
        "displacement": 30,
        "thrust": 6,
        "sections": [{"name": "Hull", "hull_max": 2, "structure_max": 2}],
    }
    state = battle(capital("Kestrel"), boat)
    state.ships["kestrel"].side = "A"
    state.ships["gig"].side = "B"
    # fleet A: 2D 4+4 + 0 = 8 → Effect 0 → chain DM +0; captain 2D 6+5 + 2 + 0 = 13 → Effect +5
    # Gig: 2D 3+3 + faster 1 (6 > 4)
    done = act(
        state,
        "traveller.initiative",
        {"fleet_tactics": {"A": 0}, "chained": True},
        dice=[4, 4, 3, 3, 2, 6, 5],
    )
    assert done.texts[1:] == [
        "Gig initiative: 2D 6 + faster +1 = 7 → reactions 2.",
        "Kestrel initiative: 1D 2 + Crew Skill +2 + captain Tactics +5 = 9 → reactions 3.",
    ]


def test_TR_26_orders_are_secret_until_every_captain_commits() -> None:
    state = fleet()
    orders = [{"order": "focused_fire", "target": "tigress"}, {"order": "angle_max_effect"}]
    done = act(
        state, "traveller.orders", {"ship": "kestrel", "orders": orders, "commit": True}, KESTREL_ACTOR
    )
    commit = done.events[0]
    assert commit.visibility == "owner"
    assert (
        commit.text
        == "Kestrel commits its orders: Focused Fire → Tigress, Angle for Maximum Effect (cost 8)."
    )
    # Another captain: the event reads only the hidden text, the state carries no order names.
    seen = event_for(commit, TIGRESS_VIEW)
    assert seen is not None and seen.text == "Kestrel has committed its orders."
    other = json.dumps(battle_view(done.state, TIGRESS_VIEW))
    assert not any(word in other for word in ORDER_WORDS)
    assert (
        battle_view(done.state, TIGRESS_VIEW)["ships"]["kestrel"]["parts"]["hg_ship"]["round"]["committed"]
        is True
    )
    # Its own captain sees them.
    own = json.dumps(battle_view(done.state, KESTREL_VIEW))
    assert "focused_fire" in own and "angle_max_effect" in own
    # Drafts are never shown to others either.
    drafted = act(
        done.state,
        "traveller.orders",
        {"ship": "tigress", "orders": [{"order": "maximum_speed"}]},
        TIGRESS_ACTOR,
    )
    assert event_for(drafted.events[0], KESTREL_VIEW) is None
    assert "maximum_speed" not in json.dumps(battle_view(drafted.state, KESTREL_VIEW))
    # Tigress commits: one public reveal, with initiative lowered by the costs.
    final = act(
        drafted.state,
        "traveller.orders",
        {"ship": "tigress", "orders": [{"order": "maximum_speed"}], "commit": True},
        TIGRESS_ACTOR,
    )
    reveal = final.events[1]
    assert reveal.visibility == "public"
    assert reveal.text == (
        "Every captain has committed; orders revealed: Kestrel: Focused Fire → Tigress, Angle for Maximum Effect"
        " — initiative 8 → 0; Tigress: Maximum Speed — initiative 4 → 0."
    )
    assert "maximum_speed" in json.dumps(battle_view(final.state, KESTREL_VIEW))
    # Nobody is left to wait on: the orders step ends by itself (GEN-01).
    assert final.texts[-1] == "Turn 1 · Orders ends; Turn 1 · Manoeuvre begins."


def test_TR_26_cost_never_below_zero_and_requirements() -> None:
    state = fleet()
    with pytest.raises(RuleError, match="cost 10 initiative; Kestrel has 8"):
        orders = [{"order": "focused_fire", "target": "tigress"}, {"order": "maximum_speed"}]
        act(state, "traveller.orders", {"ship": "kestrel", "orders": orders}, KESTREL_ACTOR)
    with pytest.raises(RuleError, match="Crew Skill 3\\+"):
        act(
            state,
            "traveller.orders",
            {"ship": "tigress", "orders": [{"order": "engines_back_online"}]},
            TIGRESS_ACTOR,
        )
    with pytest.raises(RuleError, match="needs a spinal mount"):
        act(
            state,
            "traveller.orders",
            {"ship": "tigress", "orders": [{"order": "line_up_spinal"}]},
            TIGRESS_ACTOR,
        )
    with pytest.raises(RuleError, match="only undertaken by a small craft flight"):
        act(
            state,
            "traveller.orders",
            {"ship": "tigress", "orders": [{"order": "fast_strafing_run"}]},
            TIGRESS_ACTOR,
        )
    with pytest.raises(RuleError, match="once per round"):
        twice = [{"order": "screens_full"}, {"order": "screens_full"}]
        act(state, "traveller.orders", {"ship": "kestrel", "orders": twice}, KESTREL_ACTOR)
    repeat = [{"order": "evasive_action"}, {"order": "evasive_action"}]
    assert act(state, "traveller.orders", {"ship": "kestrel", "orders": repeat}, KESTREL_ACTOR).events


def test_TR_26_referee_forces_the_reveal_and_uncommitted_ships_give_none() -> None:
    state = fleet()
    state = act(
        state,
        "traveller.orders",
        {"ship": "kestrel", "orders": [{"order": "screens_full"}], "commit": True},
        KESTREL_ACTOR,
    ).state
    state = act(
        state, "traveller.orders", {"ship": "tigress", "orders": [{"order": "maximum_speed"}]}, TIGRESS_ACTOR
    ).state
    with pytest.raises(RuleError, match="only the referee"):
        act(state, "traveller.reveal_orders", {}, KESTREL_ACTOR)
    done = act(state, "traveller.reveal_orders", {})
    assert done.texts == [
        "The referee reveals the orders: Kestrel: Screens to Full! — initiative 8 → 4;"
        " Tigress (not committed): no orders — initiative 4 → 4.",
        "Everyone is done with Orders.",  # revealed, nobody is left to wait on (GEN-01)
        "Turn 1 · Orders ends; Turn 1 · Manoeuvre begins.",
    ]
    assert hg(done.state, "kestrel")["round"]["initiative"] == 4


def test_TR_04_TR_26c_loop_runs_in_descending_current_initiative() -> None:
    state = fleet()
    state = act(
        state,
        "traveller.orders",
        {"ship": "kestrel", "orders": [{"order": "focused_fire", "target": "tigress"}], "commit": True},
        KESTREL_ACTOR,
    ).state
    state = act(
        state, "traveller.orders", {"ship": "tigress", "orders": [], "commit": True}, TIGRESS_ACTOR
    ).state
    state = advance_to(state, "combat").state
    # Kestrel 8 − 6 = 2, Tigress 4: Tigress acts first.
    body = beam_shot()
    with pytest.raises(RuleError, match="it is Tigress's combat action now"):
        act(state, "traveller.barrage", body, KESTREL_ACTOR)
    state = act(state, "traveller.pass", {"ship": "tigress"}, TIGRESS_ACTOR).state
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [3, 3, 4])
    # Focused Fire: +1 on its one target
    assert (
        "2D 6 + range 0 + FC +2 + Gunner +3 + Focused Fire +1 + (1 − armour 6) = 7 → 100% → 20"
        in done.texts[0]
    )


def test_TR_27_screens_to_full_raises_screen_points_and_focused_fire_restricts() -> None:
    state = battle(
        capital("Kestrel"),
        capital(
            "Tigress", screens=[{"id": "nd", "kind": "nuclear_damper", "count": 2, "sections": ["Main"]}]
        ),
        capital("Wasp"),
        owners=("p-kestrel", "p-tigress", "p-wasp"),
        enforce_loop=False,
    )
    state = act(state, "traveller.initiative", {}, dice=[6, 3, 1]).state
    state = act(
        state,
        "traveller.orders",
        {"ship": "kestrel", "orders": [{"order": "focused_fire", "target": "wasp"}], "commit": True},
        KESTREL_ACTOR,
    ).state
    state = act(
        state,
        "traveller.orders",
        {"ship": "tigress", "orders": [{"order": "screens_full"}], "commit": True},
        TIGRESS_ACTOR,
    ).state
    state = act(state, "traveller.reveal_orders", {}).state
    assert hg(state, "tigress")["round"]["initiative"] == 1
    from app.rules.traveller.ship import HgShip

    assert HgShip.model_validate(hg(state, "tigress")).screen_points("nuclear_damper") == 6
    state = advance_to(state, "combat").state
    body = beam_shot()
    with pytest.raises(RuleError, match="Focused Fire: Kestrel may fire only at Wasp"):
        act(state, "traveller.barrage", body, KESTREL_ACTOR)


def test_TR_27_maximum_speed_halves_turrets_and_bays() -> None:
    state = fleet()
    state = act(
        state,
        "traveller.orders",
        {"ship": "kestrel", "orders": [{"order": "maximum_speed"}], "commit": True},
        KESTREL_ACTOR,
    ).state
    state = act(
        state, "traveller.orders", {"ship": "tigress", "orders": [], "commit": True}, TIGRESS_ACTOR
    ).state
    state = advance_to(state, "combat").state
    body = beam_shot(mounts=13)
    with pytest.raises(RuleError, match=r"only 12 of 25 .*Maximum Speed"):
        act(state, "traveller.barrage", body, KESTREL_ACTOR)
    assert (
        act(state, "traveller.barrage", {**body, "mounts": 12}, KESTREL_ACTOR, [3, 3, 1])
        .texts[0]
        .startswith("barrage 12–Beam Laser")
    )


def test_TR_26a_orders_off_cost_nothing_and_are_refused() -> None:
    state = fleet(orders=False)
    with pytest.raises(RuleError, match="not used in this battle"):
        act(state, "traveller.orders", {"ship": "kestrel", "orders": []}, KESTREL_ACTOR)
    state = advance_to(state, "combat").state
    assert hg(state, "kestrel")["round"]["initiative"] == 8


def test_TR_26_emergency_order_as_reaction_once_per_round() -> None:
    state = fleet()
    state = act(state, "traveller.reveal_orders", {}).state
    state = advance_to(state, "combat").state
    done = act(
        state,
        "traveller.emergency_order",
        {"ship": "kestrel", "order": {"order": "screens_full"}},
        KESTREL_ACTOR,
    )
    assert done.texts == [
        "Kestrel gives an emergency order: Screens to Full! — initiative 8 → 4, reaction 1 of 2."
    ]
    assert done.events[0].visibility == "public"
    with pytest.raises(RuleError, match="already given its emergency order"):
        act(
            done.state,
            "traveller.emergency_order",
            {"ship": "kestrel", "order": {"order": "prepare_impact"}},
            KESTREL_ACTOR,
        )
    with pytest.raises(RuleError, match="not an emergency order"):
        act(
            state,
            "traveller.emergency_order",
            {"ship": "kestrel", "order": {"order": "focused_fire", "target": "tigress"}},
            KESTREL_ACTOR,
        )
    # Tigress at 4: one reaction; Prepare for Impact! costs all 4, then nothing is left.
    spent = act(
        state,
        "traveller.emergency_order",
        {"ship": "tigress", "order": {"order": "prepare_impact"}},
        TIGRESS_ACTOR,
    )
    assert hg(spent.state, "tigress")["round"]["initiative"] == 0
    with pytest.raises(RuleError, match="cost 4 initiative; Tigress has 3"):
        state.ships["tigress"].parts["hg_ship"]["initiative_base"] = 3
        state.ships["tigress"].parts["hg_ship"]["round"]["initiative"] = 3
        act(
            state,
            "traveller.emergency_order",
            {"ship": "tigress", "order": {"order": "prepare_impact"}},
            TIGRESS_ACTOR,
        )


def test_TR_27_one_more_shot_fires_a_dead_battery_then_it_gives_out() -> None:
    state = fleet()
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["hits"] = 3
    orders = {"ship": "kestrel", "orders": [{"order": "one_more_shot", "target": "beam"}], "commit": True}
    state = act(state, "traveller.orders", orders, KESTREL_ACTOR).state
    state = act(
        state, "traveller.orders", {"ship": "tigress", "orders": [], "commit": True}, TIGRESS_ACTOR
    ).state
    assert hg(state, "kestrel")["batteries"][0]["one_more_shot"] == 1
    state = advance_to(state, "combat").state
    body = beam_shot()
    done = act(state, "traveller.barrage", body, KESTREL_ACTOR, [3, 4, 4])
    assert "2D 7 + range 0 + FC +2 + Gunner +3 + (1 − armour 6) = 7" in done.texts[0]  # no damage DM
    later = advance_to(done.state, "orders", turn=2)
    assert "Kestrel's Turret: Beam Laser gives out." in later.texts
    assert hg(later.state, "kestrel")["batteries"][0]["hits"] == 3


def test_TR_27_all_hands_makes_energy_barrages_one_action() -> None:
    state = battle(
        capital(
            "Kestrel",
            crew_skill=3,
            batteries=[
                {"id": "beam", "weapon": "beam_laser", "mounts": 25, "sections": ["Main"]},
                {"id": "pulse", "weapon": "pulse_laser", "mounts": 25, "sections": ["Forward"]},
            ],
        ),
        capital("Tigress"),
        owners=("p-kestrel", "p-tigress"),
    )
    state = act(state, "traveller.initiative", {}, dice=[6, 1]).state  # Kestrel 9, Tigress 3
    orders = {"ship": "kestrel", "orders": [{"order": "all_hands"}], "commit": True}
    state = act(state, "traveller.orders", orders, KESTREL_ACTOR).state
    state = act(
        state, "traveller.orders", {"ship": "tigress", "orders": [], "commit": True}, TIGRESS_ACTOR
    ).state
    state = advance_to(state, "combat").state
    # Kestrel 9 − 8 = 1 < Tigress 3: Tigress acts first, and passes.
    state = act(state, "traveller.pass", {"ship": "tigress"}, TIGRESS_ACTOR).state
    body = beam_shot()
    state = act(state, "traveller.barrage", body, KESTREL_ACTOR, [1, 1, 1]).state
    state = act(
        state, "traveller.barrage", {**body, "battery": "pulse", "range": "short"}, KESTREL_ACTOR, [1, 1, 1]
    ).state
    assert hg(state, "kestrel")["round"]["actions"] == 1
    assert hg(state, "kestrel")["round"]["energy_action"] is True
