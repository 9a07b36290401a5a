"""Orders as the log and the sheet keep them (TR-26, TR-26a, TR-26b, TR-27): every refusal with the
field it names, the draft and emergency-order events, what an emergency order and I Only Need One
More Shot leave on the ship. Costs and requirements are tables.md §4's; reactions its Initiative →
Reactions row (0–4 → 1, 5–8 → 2). Kestrel: Crew Skill 3, initiative 1d6 5 + 3 = 8; Tigress: Crew
Skill 2, 1d6 2 + 2 = 4."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, advance_to, battle, capital, hg
from tests.rules.traveller.test_branches_actions import GIG_ACTOR, gig
from tests.rules.traveller.test_clauses import red_flight


def fleet(*more: dict[str, Any], **kestrel: Any) -> BattleState:
    """Kestrel (side A) and Tigress (side B), initiative rolled: 8 and 4."""
    state = battle(
        capital("Kestrel", crew_skill=3, **kestrel),
        capital("Tigress"),
        *more,
        owners=("p-kestrel", "p-tigress"),
    )
    state.ships["kestrel"].side, state.ships["tigress"].side = "A", "B"
    for extra in more:
        state.ships[extra["name"].lower().replace(" ", "-")].side = extra["side"]
    dice = [5, 2] if not more else [5, 3, 3, 2]  # a flight rolls 2D (TR-03a) between them by ship id
    return act(state, "traveller.initiative", {}, dice=dice).state


def orders(state: BattleState, ship: str, *given: dict[str, Any], commit: bool = False) -> Any:
    actor = KESTREL_ACTOR if ship == "kestrel" else TIGRESS_ACTOR
    return act(state, "traveller.orders", {"ship": ship, "orders": list(given), "commit": commit}, actor)


def refusal(state: BattleState, kind: str, payload: dict[str, Any]) -> tuple[str, str | None]:
    with pytest.raises(RuleError) as refused:
        act(state, kind, payload)
    return refused.value.message, refused.value.field


@pytest.mark.parametrize(
    ("ship", "given", "message"),
    [
        ("tigress", {"order": "engines_back_online"}, "Get Those Engines Back On-Line* needs Crew Skill 3+"),
        ("tigress", {"order": "line_up_spinal"}, "Line up Spinal Mount! needs a spinal mount"),
        (
            "tigress",
            {"order": "fast_strafing_run"},
            "Fast Strafing Run is only undertaken by a small craft flight",
        ),
        ("kestrel", {"order": "focused_fire"}, "Focused Fire needs another ship as its target"),
        (
            "kestrel",
            {"order": "escort_defence", "target": "tigress"},
            "Escort Defence protects a friendly ship",
        ),
        (
            "kestrel",
            {"order": "one_more_shot", "target": "beam"},
            "I Only Need One More Shot names a damaged battery id, or 'spinal'",
        ),
        (
            "kestrel",
            {"order": "one_more_shot", "target": "spinal"},
            "I Only Need One More Shot names a damaged battery id, or 'spinal'",
        ),
    ],
)
def test_TR_26b_each_requirement_is_refused_on_the_orders_field(ship: str, given: dict, message: str) -> None:
    payload = {"ship": ship, "orders": [given]}
    assert refusal(fleet(), "traveller.orders", payload) == (message, "orders")


def test_TR_27_one_more_shot_names_the_damaged_system_not_another() -> None:
    # Kestrel's spinal mount is damaged, its beam lasers are not: the shot names the spinal or nothing.
    state = fleet(spinal={"type": "particle", "damage": 100, "hits": 1})
    payload = {"ship": "kestrel", "orders": [{"order": "one_more_shot", "target": "beam"}]}
    assert refusal(state, "traveller.orders", payload) == (
        "I Only Need One More Shot names a damaged battery id, or 'spinal'",
        "orders",
    )


def test_TR_27_fighter_screen_protects_only_a_friendly_ship() -> None:
    flight = red_flight()
    flight["side"] = "B"
    state = fleet(flight)
    payload = {"ship": "red-flight", "orders": [{"order": "fighter_screen", "target": "kestrel"}]}
    assert refusal(state, "traveller.orders", payload) == (
        "Fighter Screen protects a friendly ship",
        "orders",
    )


def test_TR_26_twice_and_over_budget_are_refused_on_the_orders_field() -> None:
    state = fleet()
    twice = {"ship": "kestrel", "orders": [{"order": "screens_full"}, {"order": "screens_full"}]}
    assert refusal(state, "traveller.orders", twice) == (
        "Screens to Full! may be given once per round",
        "orders",
    )
    dear = {"ship": "tigress", "orders": [{"order": "focused_fire", "target": "kestrel"}]}
    assert refusal(state, "traveller.orders", dear) == (
        "these orders cost 6 initiative; Tigress has 4 (never below 0)",
        "orders",
    )


def test_TR_26_a_ship_at_initiative_0_has_nothing_to_spend() -> None:
    state = fleet()
    tigress = state.ships["tigress"]
    tigress.parts = {"hg_ship": {**tigress.parts["hg_ship"], "initiative_base": 0, "round": {"turn": 1}}}
    payload = {"ship": "tigress", "orders": [{"order": "angle_max_effect"}]}
    assert refusal(state, "traveller.orders", payload) == (
        "these orders cost 2 initiative; Tigress has 0 (never below 0)",
        "orders",
    )


def test_TR_26a_TR_03_orders_refused_without_the_module_or_the_ships_initiative() -> None:
    off = act(battle(capital("Kestrel"), orders=False), "traveller.initiative", {}, dice=[3]).state
    payload = {"ship": "kestrel", "orders": []}
    assert refusal(off, "traveller.orders", payload) == (
        "orders are not used in this battle (TR-26a)",
        "orders",
    )
    unrolled = battle(capital("Kestrel"))
    assert refusal(unrolled, "traveller.orders", payload)[0] == (
        "initiative for the engagement is not rolled yet; the referee rolls it first (TR-03)"
    )
    late = act(fleet(), "ship.add", {"definition": capital("Vixen"), "owner": None}).state
    assert refusal(late, "traveller.orders", {"ship": "vixen", "orders": []}) == (
        "roll initiative for the engagement first (TR-03)",
        "orders",
    )


def test_TR_26_committed_orders_are_not_written_again() -> None:
    state = orders(fleet(), "kestrel", commit=True).state
    assert refusal(state, "traveller.orders", {"ship": "kestrel", "orders": []}) == (
        "Kestrel's orders are already committed this round",
        "orders",
    )


def test_TR_26_a_draft_is_its_captains_alone() -> None:
    done = orders(fleet(), "kestrel", {"order": "screens_full"})
    assert [(e.kind, e.ship, e.visibility, e.text) for e in done.events] == [
        ("orders_draft", "kestrel", "owner", "Kestrel saves its draft: Screens to Full!.")
    ]


def in_combat(**kestrel: Any) -> BattleState:
    state = orders(fleet(**kestrel), "kestrel", commit=True).state
    state = orders(state, "tigress", commit=True).state
    return advance_to(state, "combat").state


def emergency(state: BattleState, ship: str, given: dict[str, Any]) -> Any:
    actor = KESTREL_ACTOR if ship == "kestrel" else TIGRESS_ACTOR
    return act(state, "traveller.emergency_order", {"ship": ship, "order": given}, actor)


def test_TR_26_an_emergency_order_with_a_target_is_recorded_as_emergency() -> None:
    # Blast Them As They Launch! (!), cost 2: 8 → 6, the first of Kestrel's 2 reactions.
    done = emergency(in_combat(), "kestrel", {"order": "blast_them", "target": "tigress"})
    assert [(e.kind, e.ship, e.text) for e in done.events] == [
        (
            "emergency_order",
            "kestrel",
            "Kestrel gives an emergency order: Blast Them As They Launch! → Tigress — initiative 8 → 6,"
            " reaction 1 of 2.",
        )
    ]
    given = hg(done.state, "kestrel")["round"]["orders"][-1]
    assert (given["order"], given["target"], given["emergency"]) == ("blast_them", "tigress", True)


def test_TR_26_an_emergency_order_after_a_dodge_is_the_second_reaction() -> None:
    state = act(in_combat(), "traveller.dodge", {"ship": "kestrel"}, KESTREL_ACTOR, [1, 1]).state
    done = emergency(state, "kestrel", {"order": "screens_full"})
    assert done.texts == [
        "Kestrel gives an emergency order: Screens to Full! — initiative 8 → 4, reaction 2 of 2."
    ]


def test_TR_27_prepare_to_abandon_ship_as_an_emergency_order_is_remembered_for_the_round() -> None:
    done = emergency(in_combat(), "kestrel", {"order": "abandon_ship"})
    assert hg(done.state, "kestrel")["abandon_round"] == 1


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"order": "focused_fire", "target": "tigress"}, "Focused Fire is not an emergency order (!)"),
        ({"order": "prepare_impact"}, "Tigress has already given its emergency order this round"),
    ],
)
def test_TR_26_emergency_refusals_name_the_order_field(given: dict[str, Any], message: str) -> None:
    state = emergency(in_combat(), "tigress", {"order": "screens_full"}).state
    assert refusal(state, "traveller.emergency_order", {"ship": "tigress", "order": given}) == (
        message,
        "order",
    )


def test_TR_26_an_emergency_order_already_written_and_no_reaction_left_name_the_order_field() -> None:
    state = orders(fleet(), "kestrel", {"order": "prepare_impact"}, commit=True).state
    state = advance_to(orders(state, "tigress", commit=True).state, "combat").state
    again = {"ship": "kestrel", "order": {"order": "prepare_impact"}}
    assert refusal(state, "traveller.emergency_order", again) == (
        "Prepare for Impact! was already given this round",
        "order",
    )
    spent = act(state, "traveller.dodge", {"ship": "tigress"}, TIGRESS_ACTOR, [1, 1]).state
    payload = {"ship": "tigress", "order": {"order": "screens_full"}}
    assert refusal(spent, "traveller.emergency_order", payload) == (
        "Tigress has no reaction left (1 this round)",
        "order",
    )


def test_TR_26_an_emergency_order_at_initiative_0_has_nothing_to_spend() -> None:
    state = in_combat()
    tigress = state.ships["tigress"]
    part = tigress.parts["hg_ship"]
    tigress.parts = {"hg_ship": {**part, "round": {**part["round"], "initiative": 0}}}
    payload = {"ship": "tigress", "order": {"order": "screens_full"}}
    # The checks shared with written orders name this payload's own field, `order`.
    assert refusal(state, "traveller.emergency_order", payload) == (
        "these orders cost 4 initiative; Tigress has 0 (never below 0)",
        "order",
    )
    untargeted = {"ship": "kestrel", "order": {"order": "blast_them"}}
    assert refusal(in_combat(), "traveller.emergency_order", untargeted) == (
        "Blast Them As They Launch! needs another ship as its target",
        "order",
    )


def test_TR_27_one_more_shot_arms_each_system_named_and_each_gives_out_at_the_rounds_end() -> None:
    # The beam lasers have 1 hit, the spinal mount 1: each fires fully this round, then the battery
    # takes its third hit (cannot fire) and the spinal its second (disabled), TR-19.
    spinal = {"type": "particle", "damage": 100, "hits": 1}
    state = fleet(spinal=spinal)
    part = state.ships["kestrel"].parts["hg_ship"]
    batteries = [{**part["batteries"][0], "hits": 1}]
    state.ships["kestrel"].parts = {"hg_ship": {**part, "batteries": batteries}}
    shots = ({"order": "one_more_shot", "target": "beam"}, {"order": "one_more_shot", "target": "spinal"})
    state = orders(state, "kestrel", *shots, commit=True).state
    state = orders(state, "tigress", commit=True).state
    armed = hg(state, "kestrel")
    assert (armed["batteries"][0]["one_more_shot"], armed["spinal"]["one_more_shot"]) == (1, 1)
    later = advance_to(state, "orders", turn=2)
    gave_out = [(e.kind, e.ship, e.text) for e in later.events if e.kind == "system"]
    assert gave_out == [
        ("system", "kestrel", "Kestrel's Turret: Beam Laser gives out."),
        ("system", "kestrel", "Kestrel's spinal mount gives out."),
    ]
    after = hg(later.state, "kestrel")
    assert (after["batteries"][0]["hits"], after["spinal"]["hits"]) == (3, 2)
    assert (after["batteries"][0]["one_more_shot"], after["spinal"]["one_more_shot"]) == (None, None)


@pytest.mark.parametrize(
    ("system", "words", "hits"), [("beam", "Turret: Beam Laser", 3), ("spinal", "spinal mount", 2)]
)
def test_TR_27_GEN_01_a_system_that_gave_out_in_the_last_round_stays_out(
    system: str, words: str, hits: int
) -> None:
    # The turn limit ends the battle with round 1 (GEN-01): no round follows, yet the damage is kept
    # (TR-19: a battery's third hit cannot fire, a spinal's second disables it) for whatever comes next,
    # a campaign's next battle included.
    state = fleet(spinal={"type": "particle", "damage": 100, "hits": 1})
    state.options["turn_limit"] = 1
    part = state.ships["kestrel"].parts["hg_ship"]
    state.ships["kestrel"].parts = {"hg_ship": {**part, "batteries": [{**part["batteries"][0], "hits": 1}]}}
    state = orders(state, "kestrel", {"order": "one_more_shot", "target": system}, commit=True).state
    state = orders(state, "tigress", commit=True).state
    state = advance_to(state, "end_of_round").state
    done = act(state, "clock.advance", {})
    assert done.state.finished
    assert f"Kestrel's {words} gives out." in done.texts
    kestrel = hg(done.state, "kestrel")
    assert (kestrel["batteries"][0] if system == "beam" else kestrel["spinal"])["hits"] == hits


def test_TR_26b_a_lone_small_craft_may_not_order_a_fast_strafing_run() -> None:
    """The seed's Fast Strafing Run is a flight's ("if the small craft flight is within Close
    range"): a lone small craft is refused it, as a capital ship is."""
    boat = gig()
    boat["parts"]["hg_ship"]["kind"] = "small_craft"
    state = battle(capital("Kestrel"), boat, owners=("p-kestrel", "p-gig"))
    # Kestrel 1d6 5 + 2 = 7; the Gig (TR-03a) 2D 3 + 3, +1 faster (Thrust 6 against 4) = 7.
    state = act(state, "traveller.initiative", {}, dice=[3, 3, 5]).state
    with pytest.raises(RuleError) as refused:
        act(state, "traveller.orders", {"ship": "gig", "orders": [{"order": "fast_strafing_run"}]}, GIG_ACTOR)
    assert (refused.value.message, refused.value.field) == (
        "Fast Strafing Run is only undertaken by a small craft flight",
        "orders",
    )
